/* NumPy .npy inputs of `quality --input` (quality/npy_header.h, the npy
 * format of quality/perm_reader.h): the files np.save writes (format 1.0
 * and 2.0, every accepted dtype, (rows, n) and (n,)) read back row for
 * row and counted ahead; every refused file refused with one line saying
 * why, by the reader and by the count ahead alike: a wrong dtype,
 * big-endian, Fortran order, three dimensions, truncated data, too few
 * rows, bytes after the rows, bad header lengths, a broken dict; and n
 * taken from the header when --n is not given. */
#include <stdlib.h>
#include <unistd.h>

#include "app/quality_input.h"
#include "quality/perm_reader.h"
#include "tests/test.h"

/* An .npy file as np.save writes it: preamble, dict, spaces to a multiple
 * of 64 and '\n' (major 1 or 2), then `data`. `hlen_override` > 0 writes
 * that header length instead of the true one. */
static size_t npy_bytes(unsigned char *out, int major, const char *dict, const void *data, size_t dlen,
                        long hlen_override)
{
    size_t pre = major == 1 ? 10 : 12, dl = strlen(dict), total = pre + dl + 1;
    total = (total + 63) / 64 * 64;
    size_t hlen = total - pre;
    memcpy(out, "\x93NUMPY", 6);
    out[6] = (unsigned char)major;
    out[7] = 0;
    uint64_t h = hlen_override > 0 ? (uint64_t)hlen_override : hlen;
    for (size_t b = 0; b < pre - 8; b++) out[8 + b] = (unsigned char)(h >> (8 * b));
    memcpy(out + pre, dict, dl);
    memset(out + pre + dl, ' ', total - pre - dl - 1);
    out[total - 1] = '\n';
    memcpy(out + total, data, dlen);
    return total + dlen;
}

static int write_file(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    int rc = fwrite(b, 1, len, f) == len ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

/* rows x n values little-endian of width w. */
static size_t values(unsigned char *out, const uint64_t *v, size_t count, unsigned w)
{
    for (size_t i = 0; i < count; i++)
        for (unsigned b = 0; b < w; b++) out[i * w + b] = (unsigned char)(v[i] >> (8 * b));
    return count * w;
}

static const uint64_t good_rows[] = {0, 1, 2, 3, 3, 2, 1, 0, 1, 3, 0, 2};

TEST_IMPL(npy_reader_reads)
{
    static unsigned char file[4096], data[256];
    char path[64];
    snprintf(path, sizeof path, "/tmp/pbnpy-ok-%ld.npy", (long)getpid());
    const char *descr[] = {"<i4", "<u4", "<i8", "<u8", "|u4"};
    for (int major = 1; major <= 2; major++)
        for (size_t d = 0; d < sizeof descr / sizeof *descr; d++)
            for (int one = 0; one < 2; one++) {
                unsigned w = (unsigned)(descr[d][2] - '0');
                size_t rows = one ? 1 : 3, dl = values(data, good_rows, rows * 4, w);
                char dict[128];
                snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr[d],
                         one ? "(4,)" : "(3, 4)");
                ASSERT(write_file(path, file, npy_bytes(file, major, dict, data, dl, 0)) == 0);
                uint64_t counted;
                bool known;
                pb_err e;
                ASSERT(pb_perm_count_rows(path, "t", 4, PB_PERM_NPY, &counted, &known, &e) == 0);
                ASSERT(known && counted == rows);
                pb_perm_reader r;
                ASSERT(pb_perm_reader_open(&r, path, "t", 0, PB_PERM_NPY, &e) == 0);
                ASSERT(r.n == 4);
                uint32_t got[16];
                uint64_t n = 0, more = 9;
                ASSERT(pb_perm_reader_read(&r, got, 4, &n, &e) == 0 && n == rows);
                for (size_t i = 0; i < rows * 4; i++) ASSERT(got[i] == good_rows[i]);
                ASSERT(pb_perm_reader_read(&r, got, 4, &more, &e) == 0 && more == 0);
                char hex[65];
                uint64_t bytes;
                ASSERT(pb_perm_reader_finish(&r, hex, &bytes, &e) == 0);
                pb_perm_reader_close(&r);
            }
    /* Python 2's long suffix and double quotes, as old numpy wrote. */
    size_t dl = values(data, good_rows, 8, 8);
    ASSERT(write_file(path, file,
                      npy_bytes(file, 1, "{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (2L, 4L)}", data,
                                dl, 0)) == 0);
    uint64_t counted;
    bool known;
    pb_err e;
    ASSERT(pb_perm_count_rows(path, "t", 0, PB_PERM_NPY, &counted, &known, &e) == 0 && counted == 2);
    /* quality --input FILE.npy: the format from the name, n from the header. */
    pb_input_opts o = {path, NULL, NULL, NULL, NULL};
    pb_qinput q;
    uint64_t count;
    ASSERT(pb_input_parse(&o, &q, &count) == 0);
    ASSERT(q.format == PB_PERM_NPY && q.n == 4);
    remove(path);
    return 0;
}

TEST_IMPL(npy_reader_refuses)
{
    static unsigned char file[1 << 17], data[256];
    unsigned char raw[16];
    static const struct {
        int major;
        const char *dict; /* NULL: `raw` bytes alone */
        size_t values;    /* 8-byte values of good_rows after the header */
        long hlen;        /* header length written, 0: the true one */
        uint32_t n;
        const char *want;
        int counted;      /* the count ahead refuses it too */
    } cases[] = {
        {1, "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }", 12, 0, 4,
         "t: .npy dtype '<f8' is not int32, int64, uint32 or uint64", 1},
        {1, "{'descr': '<i2', 'fortran_order': False, 'shape': (3, 4), }", 12, 0, 4,
         "t: .npy dtype '<i2' is not int32, int64, uint32 or uint64", 1},
        {1, "{'descr': '>i8', 'fortran_order': False, 'shape': (3, 4), }", 12, 0, 4, "is big-endian", 1},
        {1, "{'descr': [('a', '<i8')], 'fortran_order': False, 'shape': (3, 4), }", 12, 0, 4,
         "t: .npy dtype is not a simple type string", 1},
        {1, "{'descr': '<i8', 'fortran_order': True, 'shape': (3, 4), }", 12, 0, 4,
         "t: .npy array is in Fortran order", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 2, 2), }", 12, 0, 4,
         "t: .npy array has 3 dimensions, not 2 (rows, n) or 1 (n,)", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (), }", 12, 0, 4, "t: .npy array has 0 dimensions",
         1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 10, 0, 4,
         "t: row 3 is truncated: 16 of 32 bytes (the input ends)", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 8, 0, 4,
         "t: holds 2 of the 3 rows its .npy header declares (the input ends)", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 4), }", 12, 0, 4,
         "t: bytes follow the 2 rows its .npy header declares", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (0, 4), }", 4, 0, 4,
         "t: bytes follow the 0 rows its .npy header declares", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 12, 0, 5,
         "t: the .npy rows have 4 items, not n = 5", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 0, 4000, 4, "t: .npy header is truncated",
         1},
        {2, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 12, 70000, 4,
         "t: .npy header length 70000 is over 65536 bytes", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), }", 12, 60, 4,
         "t: .npy header does not end with a newline", 1},
        {1, "{'descr': '<i8', 'shape': (3, 4), }", 12, 0, 4, "t: .npy header is not a dict of", 1},
        {1, "{'descr': '<i8', 'descr': '<i8', 'fortran_order': False, 'shape': (3, 4)}", 12, 0, 4,
         "t: .npy header is not a dict of", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, 4), 'x': 1}", 12, 0, 4,
         "t: .npy header is not a dict of", 1},
        {1, "{'descr': '<i8', 'fortran_order': False, 'shape': (3, -4)}", 12, 0, 4,
         "t: .npy shape is not a tuple of sizes", 1},
        {0, NULL, 0, 0, 4, "t: not a .npy file (no \\x93NUMPY magic)", 1},
        {4, NULL, 0, 0, 4, "t: .npy format version 4.0 is not 1.0, 2.0 or 3.0", 1},
    };
    char path[64];
    snprintf(path, sizeof path, "/tmp/pbnpy-bad-%ld.npy", (long)getpid());
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t len;
        if (cases[i].dict) {
            size_t dl = values(data, good_rows, cases[i].values, 8);
            len = npy_bytes(file, cases[i].major, cases[i].dict, data, dl, cases[i].hlen);
        } else {
            memcpy(raw, cases[i].major ? "\x93NUMPY\x04\x00\x10\x00" : "PK\x03\x04 zip!", 10);
            memcpy(file, raw, 10);
            len = 10;
        }
        ASSERT(write_file(path, file, len) == 0);
        pb_err e = {""};
        pb_perm_reader r;
        int rc = pb_perm_reader_open(&r, path, "t", cases[i].n, PB_PERM_NPY, &e);
        if (rc == 0) {
            uint32_t rows[64];
            uint64_t got;
            do rc = pb_perm_reader_read(&r, rows, 2, &got, &e);
            while (rc == 0 && got == 2);
            pb_perm_reader_close(&r);
        }
        if (rc == 0) fprintf(stderr, "case %zu accepted\n", i);
        ASSERT(rc == -1);
        ASSERT_CONTAINS(e.msg, cases[i].want);
        ASSERT(!strchr(e.msg, '\n'));
        uint64_t counted;
        bool known;
        pb_err c = {""};
        if (cases[i].counted) {
            ASSERT(pb_perm_count_rows(path, "t", cases[i].n, PB_PERM_NPY, &counted, &known, &c) == -1);
            ASSERT_CONTAINS(c.msg, cases[i].want);
        }
    }
    /* Negative values of a signed dtype are said as the file means them. */
    const uint64_t neg[] = {0, UINT64_MAX, 2, 1};
    size_t dl = values(data, neg, 4, 4);
    ASSERT(write_file(path, file,
                      npy_bytes(file, 1, "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }", data, dl, 0)) ==
           0);
    pb_perm_reader r;
    pb_err e;
    uint32_t rows[4];
    uint64_t got;
    ASSERT(pb_perm_reader_open(&r, path, "t", 4, PB_PERM_NPY, &e) == 0);
    ASSERT(pb_perm_reader_read(&r, rows, 1, &got, &e) == -1);
    pb_perm_reader_close(&r);
    ASSERT_CONTAINS(e.msg, "t: row 1, column 2: value -1 is out of range 0..3");
    remove(path);
    return 0;
}

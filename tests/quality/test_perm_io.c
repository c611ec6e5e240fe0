/* Permutations as files: SHA-256 known answers; every format written by
 * pb_perm_write and read back by the reader, in batches, with the file's
 * digest; every malformed row named, with the rows before it read. */
#include <stdlib.h>
#include <unistd.h>

#include "core/sha256.h"
#include "quality/perm_reader.h"
#include "registry/registry.h"
#include "tests/support/perm_files.h"
#include "tests/test.h"

static const char *sha(const void *data, size_t len, size_t piece, char hex[65])
{
    pb_sha256 s;
    pb_sha256_init(&s);
    for (size_t off = 0; off < len; off += piece)
        pb_sha256_update(&s, (const char *)data + off, len - off < piece ? len - off : piece);
    pb_sha256_hex(&s, hex);
    return hex;
}

TEST_IMPL(sha256_known_answers)
{
    char hex[65];
    /* FIPS 180-4's examples, fed in pieces that cross the 64-byte blocks. */
    ASSERT(strcmp(sha("", 0, 1, hex), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0);
    ASSERT(strcmp(sha("abc", 3, 1, hex), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0);
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    for (size_t piece = 1; piece <= 64; piece += 7)
        ASSERT(strcmp(sha(two, strlen(two), piece, hex),
                      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1") == 0);
    char *a = malloc(1000000);
    ASSERT(a);
    memset(a, 'a', 1000000);
    ASSERT(strcmp(sha(a, 1000000, 4093, hex), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0);
    free(a);
    return 0;
}

/* count permutations of n from fisher-yates's sample hook at `seed`. */
/* Every format round-trips, read in batches of odd sizes (text tokens and
 * rows cross the reader's 1 MiB buffer), and the digest is the file's. */
TEST_IMPL(perm_io_roundtrip)
{
    const uint32_t n = 7;
    const uint64_t count = 200000;
    uint32_t *p = pb_test_draw("cpu-fisher-yates", NULL, false, n, 3, count), *back = malloc(count * n * sizeof *back);
    ASSERT(p && back);
    for (int f = 0; f < 3; f++) {
        char path[256];
        ASSERT(pb_test_tmpfile("", path, sizeof path));
        ASSERT(pb_test_write_perms(path, p, n, count, (pb_perm_format)f) == 0);
        pb_perm_reader r;
        pb_err e;
        uint64_t got = 0, rows, bytes;
        bool known;
        ASSERT(pb_perm_count_rows(path, NULL, n, (pb_perm_format)f, &rows, &known, &e) == 0);
        ASSERT(known && rows == count);
        ASSERT(pb_perm_reader_open(&r, path, NULL, n, (pb_perm_format)f, &e) == 0);
        for (uint64_t done = 0, b = 1; done < count; done += got, b = b * 3 + 1) {
            ASSERT(pb_perm_reader_read(&r, back + done * n, b < count - done ? b : count - done, &got, &e) == 0);
            ASSERT(got > 0);
        }
        ASSERT(pb_perm_reader_read(&r, back, 5, &got, &e) == 0 && got == 0); /* the end */
        char hex[65], want[65];
        ASSERT(pb_perm_reader_finish(&r, hex, &bytes, &e) == 0);
        pb_perm_reader_close(&r);
        ASSERT(memcmp(p, back, count * n * sizeof *p) == 0);
        /* The digest of the file as a whole, read again here. */
        FILE *in = fopen(path, "rb");
        ASSERT(in);
        char *all = malloc(bytes + 1);
        ASSERT(all && fread(all, 1, bytes + 1, in) == bytes);
        fclose(in);
        ASSERT(strcmp(hex, sha(all, bytes, bytes ? bytes : 1, want)) == 0);
        if (f == PB_PERM_U32) ASSERT(bytes == count * n * 4);
        if (f == PB_PERM_U64) ASSERT(bytes == count * n * 8);
        free(all);
        remove(path);
    }
    free(p);
    free(back);
    return 0;
}

/* Each malformed input: the message names the row and what is wrong, and
 * the rows before it were read. */
TEST_IMPL(perm_reader_errors)
{
    static const struct {
        pb_perm_format f;
        uint32_t n;
        const char *bytes;
        size_t len;
        uint64_t good; /* rows read before the bad one */
        const char *want;
    } cases[] = {
        {PB_PERM_TEXT, 3, "0 1 2\n2 1\n", 0, 1, "t: row 2 is short: 2 of 3 values"},
        {PB_PERM_TEXT, 3, "0 1 2\n2 1", 0, 1, "t: row 2 is short: 2 of 3 values"},
        {PB_PERM_TEXT, 3, "0 1 2 0\n", 0, 0, "t: row 1 has more than 3 values"},
        {PB_PERM_TEXT, 3, "\n\n0 1 2\n\n2 3 1\n", 0, 1, "t: row 2 (line 5), column 2: value 3 is out of range 0..2"},
        {PB_PERM_TEXT, 3, "0,1,2\r\n1, 1, 0\r\n", 0, 1, "t: row 2, column 2: value 1 repeats column 1"},
        {PB_PERM_TEXT, 3, "0 1 2\n0 1 0x2\n", 0, 1, "t: row 2, column 3: '0x2' is not a number"},
        {PB_PERM_TEXT, 3, "0 1 2\n0 1 -\n", 0, 1, "t: row 2, column 3: '-' is not a number"},
        {PB_PERM_TEXT, 3, "0 -1 2\n", 0, 0, "t: row 1, column 2: value -1 is out of range 0..2"},
        {PB_PERM_TEXT, 3, "0 1 99999999999999999999\n", 0, 0,
         "t: row 1, column 3: value 99999999999999999999 is out of range 0..2"},
        {PB_PERM_TEXT, 3, "0 1 2\n1 2 \x01\n", 0, 1, "t: row 2, column 3: '?' is not a number"},
        {PB_PERM_U32, 2, "\1\0\0\0\0\0\0\0\0\0\0\0\2\0\0\0", 16, 1, "t: row 2, column 2: value 2 is out of range 0..1"},
        {PB_PERM_U32, 2, "\1\0\0\0\0\0\0\0\1\0\0\0\1\0\0\0", 16, 1, "t: row 2, column 2: value 1 repeats column 1"},
        {PB_PERM_U32, 2, "\1\0\0\0\0\0\0\0\1\0\0", 11, 1, "t: row 2 is truncated: 3 of 8 bytes (the input ends)"},
        {PB_PERM_U64, 2, "\1\0\0\0\0\0\0\0\0\0\0\0\0\0\0\1", 16, 0,
         "t: row 1, column 2: value 72057594037927936 is out of range 0..1"},
    };
    char path[256];
    ASSERT(pb_test_tmpfile("", path, sizeof path));
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = cases[i].len ? cases[i].len : strlen(cases[i].bytes);
        FILE *f = fopen(path, "wb");
        ASSERT(f && fwrite(cases[i].bytes, 1, len, f) == len && fclose(f) == 0);
        pb_perm_reader r;
        pb_err e = {""};
        uint32_t rows[32];
        uint64_t got = 0;
        ASSERT(pb_perm_reader_open(&r, path, "t", cases[i].n, cases[i].f, &e) == 0);
        int rc = pb_perm_reader_read(&r, rows, 32 / cases[i].n, &got, &e);
        uint64_t good = r.rows;
        pb_perm_reader_close(&r);
        if (rc == 0) fprintf(stderr, "case %zu accepted\n", i);
        ASSERT(rc == -1);
        ASSERT_CONTAINS(e.msg, cases[i].want);
        ASSERT(!strchr(e.msg, '\n'));
        ASSERT_EQ_U64(good, cases[i].good);
    }
    /* Counted ahead: a truncated binary file, and blank lines that are no rows. */
    uint64_t rows;
    bool known;
    pb_err e;
    FILE *f = fopen(path, "wb");
    ASSERT(f && fwrite("\0\0\0\0\1\0\0\0\1\0", 1, 10, f) == 10 && fclose(f) == 0);
    ASSERT(pb_perm_count_rows(path, "t", 2, PB_PERM_U32, &rows, &known, &e) == -1);
    ASSERT_CONTAINS(e.msg, "t: row 2 is truncated: 2 of 8 bytes");
    f = fopen(path, "wb");
    ASSERT(f && fputs("\n0 1\n \t\n1 0", f) >= 0 && fclose(f) == 0);
    ASSERT(pb_perm_count_rows(path, "t", 2, PB_PERM_TEXT, &rows, &known, &e) == 0 && known && rows == 2);
    remove(path);
    return 0;
}

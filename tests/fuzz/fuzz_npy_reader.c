/* NumPy .npy inputs of `quality --input` (quality/npy_header.h read by
 * quality/perm_reader.c): the first input byte says whether n is given
 * (1 + byte / 2 % 64) or taken from the header (even bytes), the second
 * the batch; the rest is the file, read to its end or its first bad row,
 * then its header probed and its rows counted ahead as for a regular
 * file. Beside the sanitizers: a refusal says why in one line, every row
 * handed out is a permutation of [0, n), the count ahead accepts exactly
 * the files whose header and size agree, and where the whole file was
 * read it counts the rows read. */
#include "quality/perm_reader.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint32_t n = data[0] & 1 ? 1 + data[0] / 2 % 64 : 0;
    uint64_t batch = 1 + data[1] % 9;
    const char *path = pb_fuzz_input_file("perms.npy", data + 2, size - 2);
    pb_perm_reader r;
    pb_err err;
    pb_fuzz_err_clear(&err);
    int opened = pb_perm_reader_open(&r, path, "fuzz", n, PB_PERM_NPY, &err);
    uint64_t total = 0;
    int rc = -1;
    if (opened) {
        pb_fuzz_check_err(&err);
    } else {
        PB_FUZZ_ASSERT(r.n >= 1 && (n == 0 || r.n == n));
        uint32_t *rows = malloc(batch * r.n * sizeof *rows);
        uint8_t *seen = malloc(r.n);
        PB_FUZZ_ASSERT(rows && seen);
        uint64_t got = 0;
        do {
            pb_fuzz_err_clear(&err);
            rc = pb_perm_reader_read(&r, rows, batch, &got, &err);
            PB_FUZZ_ASSERT(got <= batch);
            for (uint64_t i = 0; i < got; i++) {
                memset(seen, 0, r.n);
                for (uint32_t j = 0; j < r.n; j++) {
                    uint32_t v = rows[i * r.n + j];
                    PB_FUZZ_ASSERT(v < r.n && !seen[v]);
                    seen[v] = 1;
                }
            }
            total += got;
        } while (rc == 0 && got == batch);
        if (rc) pb_fuzz_check_err(&err);
        else PB_FUZZ_ASSERT(total == r.declared);
        char hex[65];
        uint64_t bytes = 0;
        pb_fuzz_err_clear(&err);
        if (pb_perm_reader_finish(&r, hex, &bytes, &err) == 0) PB_FUZZ_ASSERT(bytes == size - 2);
        else pb_fuzz_check_err(&err);
        pb_perm_reader_close(&r);
        free(rows);
        free(seen);
    }
    uint64_t counted = 0;
    bool known = false;
    pb_fuzz_err_clear(&err);
    if (pb_perm_count_rows(path, "fuzz", n, PB_PERM_NPY, &counted, &known, &err) == 0) {
        /* Header and size agree: only a value can stop the reader. */
        PB_FUZZ_ASSERT(known && !opened);
        if (rc == 0) PB_FUZZ_ASSERT(counted == total);
    } else {
        pb_fuzz_check_err(&err);
        PB_FUZZ_ASSERT(rc != 0); /* the reader found what the count ahead did */
    }
    pb_npy_header h;
    pb_fuzz_err_clear(&err);
    if (pb_perm_npy_probe(path, "fuzz", &h, &known, &err) == 0)
        PB_FUZZ_ASSERT(known && h.n <= UINT32_MAX && (h.width == 4 || h.width == 8) && h.bytes <= size - 2);
    else
        pb_fuzz_check_err(&err);
    return 0;
}

/* The permutation streams of `quality --input` (quality/perm_reader.h):
 * the input's first two bytes choose the format (u32, u64, text) and the
 * row length n (1..128), the third the batch size; the rest is the stream,
 * read to its end or its first bad row, then counted ahead as for a
 * regular file. Beside the sanitizers: a refusal says why in one line,
 * every row handed out is a permutation of [0, n), and where the whole
 * input was read the rows counted ahead are the rows read. */
#include "quality/perm_reader.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) return 0;
    pb_perm_format fmt = (pb_perm_format)(data[0] % 3);
    uint32_t n = 1 + data[1] % 128;
    uint64_t batch = 1 + data[2] % 9;
    const char *path = pb_fuzz_input_file("perms", data + 3, size - 3);
    pb_perm_reader r;
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_perm_reader_open(&r, path, "fuzz", n, fmt, &err)) {
        pb_fuzz_check_err(&err);
        return 0;
    }
    uint32_t *rows = malloc(batch * n * sizeof *rows);
    uint8_t *seen = malloc(n);
    PB_FUZZ_ASSERT(rows && seen);
    uint64_t total = 0, got = 0;
    int rc;
    do {
        pb_fuzz_err_clear(&err);
        rc = pb_perm_reader_read(&r, rows, batch, &got, &err);
        PB_FUZZ_ASSERT(got <= batch);
        for (uint64_t i = 0; i < got; i++) {
            memset(seen, 0, n);
            for (uint32_t j = 0; j < n; j++) {
                uint32_t v = rows[i * n + j];
                PB_FUZZ_ASSERT(v < n && !seen[v]);
                seen[v] = 1;
            }
        }
        total += got;
    } while (rc == 0 && got == batch);
    if (rc) pb_fuzz_check_err(&err);
    char hex[65];
    uint64_t bytes = 0;
    pb_fuzz_err_clear(&err);
    if (pb_perm_reader_finish(&r, hex, &bytes, &err) == 0)
        PB_FUZZ_ASSERT(bytes == size - 3 && strlen(hex) == 64);
    else
        pb_fuzz_check_err(&err);
    pb_perm_reader_close(&r);
    uint64_t counted = 0;
    bool known = false;
    pb_fuzz_err_clear(&err);
    if (pb_perm_count_rows(path, "fuzz", n, fmt, &counted, &known, &err) == 0) {
        if (rc == 0) PB_FUZZ_ASSERT(known && counted == total);
    } else {
        pb_fuzz_check_err(&err);
        PB_FUZZ_ASSERT(rc != 0 || fmt == PB_PERM_TEXT); /* a text file counts lines, not rows */
    }
    free(rows);
    free(seen);
    return 0;
}

#include "families/shuffle/shuffle_items.h"

#include <stdlib.h>

void pb_shuffle_fill(void *buf, uint64_t n, unsigned item_bytes)
{
    if (pb_shuffle_is_record(item_bytes)) {
        uint64_t *b = buf, words = item_bytes / 8;
#pragma omp parallel for schedule(static)
        for (uint64_t i = 0; i < n; i++)
            for (uint64_t k = 0; k < words; k++) b[i * words + k] = pb_shuffle_record_word(i, k);
    } else if (item_bytes == 4) {
        uint32_t *b = buf;
#pragma omp parallel for schedule(static)
        for (uint64_t i = 0; i < n; i++) b[i] = (uint32_t)pb_shuffle_item(i, 4);
    } else {
        uint64_t *b = buf;
#pragma omp parallel for schedule(static)
        for (uint64_t i = 0; i < n; i++) b[i] = pb_shuffle_item(i, 8);
    }
}

int pb_shuffle_check(const void *out, uint64_t n, unsigned item_bytes, pb_err *err)
{
    if (n == 0) return 0;
    uint64_t *seen = calloc((n + 63) / 64, sizeof *seen);
    if (!seen) return pb_err_set(err, "out of memory checking %llu items", (unsigned long long)n);
    /* The first bad position wins, whichever thread finds it. */
    uint64_t bad_pos = UINT64_MAX, bad_item = 0;
    int bad_kind = 0, rec = pb_shuffle_is_record(item_bytes);
    uint64_t words = item_bytes / 8;
#pragma omp parallel for schedule(static)
    for (uint64_t p = 0; p < n; p++) {
        uint64_t item, idx;
        int kind = 0;
        if (rec) {
            /* Word 0 names the record; the others must be its own. */
            const uint64_t *r = (const uint64_t *)out + p * words;
            item = r[0];
            idx = pb_shuffle_item_index(item, 8);
            for (uint64_t k = 1; k < words && idx < n && !kind; k++)
                if (r[k] != pb_shuffle_record_word(idx, k)) kind = 3, item = k;
        } else {
            item = item_bytes == 4 ? ((const uint32_t *)out)[p] : ((const uint64_t *)out)[p];
            idx = pb_shuffle_item_index(item, item_bytes);
        }
        if (!kind && idx >= n) {
            kind = 1;
        } else if (!kind) {
            uint64_t bit = UINT64_C(1) << (idx & 63);
            if (__atomic_fetch_or(&seen[idx >> 6], bit, __ATOMIC_RELAXED) & bit) kind = 2;
        }
        if (kind) {
#pragma omp critical(pb_shuffle_check)
            if (p < bad_pos) {
                bad_pos = p;
                bad_item = item;
                bad_kind = kind;
            }
        }
    }
    free(seen);
    if (bad_kind == 1)
        return pb_err_set(err, "not a permutation: position %llu holds 0x%llx, which is no input item",
                          (unsigned long long)bad_pos, (unsigned long long)bad_item);
    if (bad_kind == 2)
        return pb_err_set(err, "not a permutation: input item 0x%llx appears twice (again at position %llu)",
                          (unsigned long long)bad_item, (unsigned long long)bad_pos);
    if (bad_kind == 3)
        return pb_err_set(err, "not a permutation of whole records: the record at position %llu holds word %llu "
                          "of another record (its bytes did not travel together)",
                          (unsigned long long)bad_pos, (unsigned long long)bad_item);
    return 0;
}

/* The top-k family's contract: the C twin's answer (topk_select.h run on
 * all cores, then put in rank order) and the check of any module's output
 * against it: the key multiset for `ties = any`, and with `lowest-index`
 * the index set too (the twin's answer is the unique lowest-index one). */
#include "families/topk/topk_check.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/topk/topk_select.h"

/* ---- the twin ---- */

/* Row r of (vals, idx) in rank order: its candidates sorted descending,
 * the values read back from the row at the sorted indices. C, PACK, IDX,
 * SORT: the candidate type and its packing, index and sort; V: the words. */
#define TOPK_RANK_ROW(name, V, C, PACK, IDX, SORT)                                                 \
    static void name(const pb_topk_problem *p, uint64_t r, const V *data, V *vals, uint32_t *idx,  \
                     C *c, C *tmp)                                                                 \
    {                                                                                              \
        uint64_t o = p->out_off[r], m = p->out_off[r + 1] - o;                                     \
        const V *row = data + p->begin[r];                                                         \
        for (uint64_t j = 0; j < m; j++)                                                           \
            c[o + j] = PACK(pb_topk_okey64_of(vals[o + j], p->dtype, p->largest), idx[o + j]);     \
        SORT(c + o, tmp + o, (size_t)m);                                                           \
        for (uint64_t j = 0; j < m; j++) {                                                         \
            uint32_t i = IDX(c[o + m - 1 - j]);                                                    \
            idx[o + j] = i;                                                                        \
            vals[o + j] = row[i];                                                                  \
        }                                                                                          \
    }
TOPK_RANK_ROW(rank_row32, uint32_t, uint64_t, pb_topk_pack, pb_topk_pack_idx, pb_topk_sort_u64)
TOPK_RANK_ROW(rank_row64, uint64_t, pb_topk_wide, pb_topk_pack64, pb_topk_pack64_idx,
              pb_topk_sort_wide)

void pb_topk_rank_rows(const pb_topk_problem *p, void *vals, uint32_t *idx, void *c, void *tmp,
                       int threads)
{
    if (threads <= 0) threads = omp_get_max_threads();
    bool wide = pb_topk_dtype_is64(p->dtype);
    /* Rank order, best first: the candidates sorted descending. (One row:
     * no team idling at the barrier while one thread sorts.) */
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (p->rows > 1 && p->out_total >= PB_TOPK_PAR_MIN)
    for (uint64_t r = 0; r < p->rows; r++) {
        if (wide)
            rank_row64(p, r, p->data64, vals, idx, c, tmp);
        else
            rank_row32(p, r, p->data, vals, idx, c, tmp);
    }
}

int pb_topk_twin_answer(pb_topk_problem *p, pb_err *err)
{
    if (p->have_twin) return 0;
    size_t outs = (size_t)(p->out_total ? p->out_total : 1), cb = pb_topk_cand_bytes(p->dtype);
    /* Through the view the dtype uses, the union's active member. */
    void *vals;
    if (pb_topk_dtype_is64(p->dtype))
        vals = p->twin_vals64 = malloc(outs * sizeof *p->twin_vals64);
    else
        vals = p->twin_vals = malloc(outs * sizeof *p->twin_vals);
    p->twin_idx = malloc(outs * sizeof *p->twin_idx);
    void *c = malloc(outs * cb), *tmp = malloc(outs * cb);
    pb_topk_ws ws;
    int rc = 0;
    if (!vals || !p->twin_idx || !c || !tmp) {
        rc = pb_err_set(err, "out of memory for the twin's %zu results", (size_t)p->out_total);
    } else if ((rc = pb_topk_ws_init(&ws, p, 0, err)) == 0) {
        pb_topk_select(p, &ws, vals, p->twin_idx);
        pb_topk_ws_free(&ws);
        pb_topk_rank_rows(p, vals, p->twin_idx, c, tmp, 0);
        p->have_twin = true;
    }
    free(c);
    free(tmp);
    if (rc) pb_topk_twin_drop(p);
    return rc;
}

/* ---- the check ---- */

/* A raw value as text: the float (or integer) and its bits. */
static const char *value_text(const pb_topk_problem *p, uint64_t raw, char *buf, size_t len)
{
    if (p->dtype == PB_TOPK_U64) {
        snprintf(buf, len, "%llu", (unsigned long long)raw);
    } else if (p->dtype == PB_TOPK_F64) {
        double d;
        memcpy(&d, &raw, sizeof d);
        snprintf(buf, len, "%.17g (0x%016llx)", d, (unsigned long long)raw);
    } else if (p->dtype == PB_TOPK_U32) {
        snprintf(buf, len, "%u", (uint32_t)raw);
    } else if (p->dtype == PB_TOPK_I32) {
        snprintf(buf, len, "%d", (int32_t)(uint32_t)raw);
    } else if (p->dtype == PB_TOPK_F16 || p->dtype == PB_TOPK_BF16) {
        snprintf(buf, len, "%s 0x%04x", p->dtype == PB_TOPK_F16 ? "fp16" : "bf16", (uint32_t)raw);
    } else {
        float f;
        uint32_t w = (uint32_t)raw;
        memcpy(&f, &w, sizeof f);
        snprintf(buf, len, "%g (0x%08x)", (double)f, w);
    }
    return buf;
}

/* The value with order key `okey` (NaN keys give the canonical NaN). */
static uint64_t okey_value(const pb_topk_problem *p, uint64_t okey)
{
    return pb_topk_raw64_of(okey, p->dtype, p->largest);
}

/* ties = lowest-index, for a row whose keys already equal the twin's: the
 * returned index set must be the twin's (which takes tied keys by
 * increasing index). With equal key multisets and every value matching its
 * index, the sets can differ only among keys equal to the k-th, so an index
 * outside the twin's set is a tied key returned while a smaller tied index
 * (one of the twin's not returned) was left out. `seen` is zeroed and left
 * zeroed. */
static int check_lowest(const pb_topk_problem *p, uint64_t r, const uint32_t *idx, uint64_t *seen,
                        char *msg, size_t msg_len)
{
    uint64_t o = p->out_off[r], m = p->out_off[r + 1] - o;
    const uint32_t *want = p->twin_idx + o;
    for (uint64_t q = 0; q < m; q++) seen[want[q] >> 6] |= UINT64_C(1) << (want[q] & 63);
    uint64_t extra = m;
    for (uint64_t q = 0; q < m && extra == m; q++)
        if (!(seen[idx[o + q] >> 6] & (UINT64_C(1) << (idx[o + q] & 63)))) extra = q;
    int rc = 0;
    if (extra < m) {
        /* The twin's indices the module did not return; name the smallest. */
        for (uint64_t q = 0; q < m; q++)
            seen[idx[o + q] >> 6] &= ~(UINT64_C(1) << (idx[o + q] & 63));
        uint32_t missing = UINT32_MAX;
        for (uint64_t q = 0; q < m; q++)
            if ((seen[want[q] >> 6] & (UINT64_C(1) << (want[q] & 63))) && want[q] < missing)
                missing = want[q];
        snprintf(msg, msg_len,
                 "row %llu: ties = lowest-index, but result %llu is index %u, a key equal to the "
                 "k-th, while index %u, smaller with the same key, is left out",
                 (unsigned long long)r, (unsigned long long)extra, idx[o + extra], missing);
        rc = -1;
    }
    for (uint64_t q = 0; q < m; q++) seen[want[q] >> 6] &= ~(UINT64_C(1) << (want[q] & 63));
    return rc;
}

/* Checks row r; on failure writes the message to msg and returns -1.
 * keys/tmp: the row's slice of two output-sized arrays (order keys widened
 * to 64 bits, so one check serves every dtype); seen: a zeroed bitmap of
 * the row's length, left zeroed. */
static int check_row(const pb_topk_problem *p, uint64_t r, const void *vals, const uint32_t *idx,
                     uint64_t *keys, uint64_t *tmp, uint64_t *seen, char *msg, size_t msg_len)
{
    uint64_t o = p->out_off[r], m = p->out_off[r + 1] - o, len = pb_topk_row_len(p, r);
    uint64_t b0 = p->begin[r];
    char a[64], b[64];
    int bad = 0;
    uint64_t j = 0;
    for (; j < m && !bad; j++) {
        uint32_t i = idx[o + j];
        uint64_t v = pb_topk_out_value(p, vals, o + j);
        if (i >= len) {
            snprintf(msg, msg_len,
                     "row %llu: result %llu has index %u, outside the row (length %llu)",
                     (unsigned long long)r, (unsigned long long)j, i, (unsigned long long)len);
            bad = 1;
        } else if (seen[i >> 6] & (UINT64_C(1) << (i & 63))) {
            snprintf(msg, msg_len, "row %llu: index %u is returned twice (again as result %llu)",
                     (unsigned long long)r, i, (unsigned long long)j);
            bad = 1;
        } else if (pb_topk_problem_okey64(p, v) !=
                   pb_topk_problem_okey64(p, pb_topk_value_at(p, b0 + i))) {
            snprintf(msg, msg_len,
                     "row %llu: result %llu is %s, but the row's value at its index %u is %s",
                     (unsigned long long)r, (unsigned long long)j, value_text(p, v, a, sizeof a), i,
                     value_text(p, pb_topk_value_at(p, b0 + i), b, sizeof b));
            bad = 1;
        } else {
            seen[i >> 6] |= UINT64_C(1) << (i & 63);
            keys[j] = pb_topk_problem_okey64(p, v);
        }
    }
    /* Leave the bitmap clean for the thread's next row. */
    for (uint64_t q = 0; q < j; q++) {
        uint32_t i = idx[o + q];
        if (i < len) seen[i >> 6] &= ~(UINT64_C(1) << (i & 63));
    }
    if (bad) return -1;
    /* sorted = yes: keys never rise along the row, and equal keys come by
     * increasing index. */
    for (uint64_t q = 1; p->sorted && q < m; q++)
        if (keys[q] > keys[q - 1] || (keys[q] == keys[q - 1] && idx[o + q] < idx[o + q - 1])) {
            snprintf(
                msg, msg_len,
                "row %llu: sorted = yes, but result %llu (%s, index %u) comes after result %llu "
                "(%s, index %u)",
                (unsigned long long)r, (unsigned long long)q,
                value_text(p, pb_topk_out_value(p, vals, o + q), a, sizeof a), idx[o + q],
                (unsigned long long)q - 1,
                value_text(p, pb_topk_out_value(p, vals, o + q - 1), b, sizeof b), idx[o + q - 1]);
            return -1;
        }
    /* Sorted ascending: 32-bit keys as 32-bit words (half the radix
     * sort's digits), into tmp's first half with keys as the scratch. */
    bool wide = pb_topk_dtype_is64(p->dtype);
    uint32_t *k32 = (uint32_t *)tmp;
    if (wide) {
        pb_topk_sort_u64(keys, tmp, (size_t)m);
    } else {
        for (uint64_t q = 0; q < m; q++) k32[q] = (uint32_t)keys[q];
        pb_topk_sort_u32(k32, (uint32_t *)keys, (size_t)m);
    }
    /* The twin's keys, best first, against the returned keys sorted the
     * same way: the first difference says which rank is wrong. */
    const void *twin = pb_topk_twin_values(p);
    for (uint64_t q = 0; q < m; q++) {
        uint64_t got = wide ? keys[m - 1 - q] : k32[m - 1 - q];
        uint64_t want = pb_topk_problem_okey64(p, pb_topk_out_value(p, twin, o + q));
        if (got != want) {
            snprintf(msg, msg_len,
                     "row %llu: not the %s %llu values: the %llu-th best returned is %s, "
                     "where the row's is %s",
                     (unsigned long long)r, p->largest ? "largest" : "smallest",
                     (unsigned long long)m, (unsigned long long)q + 1,
                     value_text(p, okey_value(p, got), a, sizeof a),
                     value_text(p, okey_value(p, want), b, sizeof b));
            return -1;
        }
    }
    if (p->ties == PB_TOPK_TIES_LOWEST) return check_lowest(p, r, idx, seen, msg, msg_len);
    return 0;
}

int pb_topk_check(pb_topk_problem *p, const void *vals, const uint32_t *idx, pb_err *err)
{
    if (pb_topk_twin_answer(p, err)) return -1;
    size_t outs = (size_t)p->out_total;
    uint64_t *keys = malloc((outs ? outs : 1) * sizeof *keys);
    uint64_t *tmp = malloc((outs ? outs : 1) * sizeof *tmp);
    if (!keys || !tmp) {
        free(keys);
        free(tmp);
        return pb_err_set(err, "out of memory checking %zu top-k results", outs);
    }
    /* The first failing row wins, whichever thread finds it. */
    uint64_t bad_row = UINT64_MAX;
    char bad_msg[sizeof err->msg] = "";
    int oom = 0;
    size_t words = (size_t)(p->max_len / 64 + 1);
#pragma omp parallel if (p->rows > 1 && outs >= PB_TOPK_PAR_MIN)
    {
        uint64_t *seen = calloc(words, sizeof *seen);
        if (!seen) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (uint64_t r = 0; r < p->rows; r++) {
            if (!seen || r > __atomic_load_n(&bad_row, __ATOMIC_RELAXED)) continue;
            char msg[sizeof err->msg];
            uint64_t o = p->out_off[r];
            if (check_row(p, r, vals, idx, keys + o, tmp + o, seen, msg, sizeof msg)) {
#pragma omp critical(pb_topk_check)
                if (r < bad_row) {
                    memcpy(bad_msg, msg, sizeof msg);
                    __atomic_store_n(&bad_row, r, __ATOMIC_RELAXED);
                }
            }
        }
        free(seen);
    }
    free(keys);
    free(tmp);
    if (oom)
        return pb_err_set(err, "out of memory checking top-k rows of %llu values",
                          (unsigned long long)p->max_len);
    if (bad_row != UINT64_MAX) return pb_err_set(err, "%s", bad_msg);
    return 0;
}

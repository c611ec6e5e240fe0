/* The top-k problem generator and the C twin (families/topk/topk_problem.h):
 *  - the twin equals a naive full sort (qsort of the row's keys) at n in
 *    {1, 2, 3, 2^j - 1, 2^j, 2^j + 1, 1000003} x k in {1, 2, 31, 32, 33,
 *    1000, n/2, n-1, n, beyond n} x every distribution x largest/smallest x
 *    every dtype, single rows and ragged, misaligned batches;
 *  - generation depends on the seed only, not on the thread count; the
 *    layout (misalignment, ragged lengths, padding) is what the header says;
 *    every distribution is drawn. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "config/params.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_problem.h"
#include "families/topk/topk_select.h"
#include "registry/registry.h"
#include "tests/test.h"
#include "tests/topk/topk_helpers.h"

/* ---- the twin against a naive sort ---- */

/* The distributions the twin sweeps take for the 64-bit types, to keep
 * CI's time (the 16-bit types take 8, see twin_sweep): their keys and
 * 96-bit candidates are what is new, the distributions' shapes fp32's.
 * uniform (distinct random keys) and few:16 (ties) for both, and nan for
 * fp64 (NaNs of every sign and payload, infinities); rows up to 4097
 * values and single rows of 2^16 + 1 (split over threads), no longer
 * batches (topk_omp_threads takes 64-bit rows of 10^6 and batches of
 * 3 x 10^5). */
static bool wide_sampled(int dtype, int dist, uint64_t n, uint64_t rows)
{
    if (n * rows > 65537 || (n > 4097 && n != 65537)) return false;
    return dist == PB_TOPK_UNIFORM || strcmp(tk_dist_values[dist], "few:16") == 0 ||
           (dtype == PB_TOPK_F64 && dist == PB_TOPK_NAN);
}

/* Every k of k_list at row length n (single rows) or around it (batches)
 * for every distribution, direction and dtype. */
static int twin_sweep(const uint64_t *sizes, size_t nsizes, uint64_t rows, int batch)
{
    int tried = 0;
    unsigned walked = 0;
    for (size_t s = 0; s < nsizes; s++)
        for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
            for (int dist = 0; dist < NDV_SWEEP; dist++)
                for (int largest = 0; largest < 2; largest++) {
                    /* 16-bit types differ from fp32 only in the key: 8
                     * of the distributions (uniform, zipf, equal, inf,
                     * nan, few:2, int8, reversed) keep CI's time. */
                    if (pb_topk_dtype_is16(dtype) && dist % 3 != 0 && dist != PB_TOPK_NAN &&
                        dist != PB_TOPK_EQUAL)
                        continue;
                    if (pb_topk_dtype_is64(dtype) && !wide_sampled(dtype, dist, sizes[s], rows))
                        continue;
                    /* Past 2^16 + 1 values (a row of 10^6, 17 rows of
                     * 65537) fp32 takes every distribution and the other
                     * types every fourth, a different fourth each: every
                     * type and every distribution still meets the long
                     * rows, whose code paths (split rows, the candidate
                     * buffer's cut-backs) are the same for every type. */
                    if (sizes[s] * rows > 65537 * 3 && dtype != PB_TOPK_F32 && (dist + dtype) % 4)
                        continue;
                    if (pb_test_san_skip(&walked)) continue;
                    uint64_t ks[16];
                    int nk = tk_k_list(sizes[s], ks);
                    /* The long rows take the k that change their path (1,
                     * a candidate buffer's 1000, half, all but one, all,
                     * more than all); 2 and the warp's 31 .. 33 are the
                     * short rows' and the 2^16 +- 1 rows'. */
                    if (sizes[s] * rows > 65537 * 3) {
                        int kept = 0;
                        for (int q = 0; q < nk; q++)
                            if (ks[q] == 1 || ks[q] >= 1000) ks[kept++] = ks[q];
                        nk = kept;
                    }
                    tk_cfg c = {sizes[s], ks[0], rows,  batch,   batch,
                                largest,  dist,  dtype, 1000 + s, 0};
                    pb_topk_problem p;
                    if (tk_init(&p, &c)) return 1;
                    /* One input for every k: the data does not depend on k. */
                    uint64_t *sorted = tk_naive_sorted(&p);
                    for (int q = 0; q < nk; q++) {
                        c.k = ks[q];
                        pb_topk_problem_set_k(&p, ks[q]);
                        if (tk_twin_matches(&p, sorted)) {
                            tk_describe(&c);
                            free(sorted);
                            pb_topk_problem_free(&p);
                            return 1;
                        }
                        tried++;
                    }
                    pb_topk_problem_free(&p);
                    free(sorted);
                }
    return tried ? 0 : 1;
}

TEST_IMPL(topk_twin_small)
{
    const uint64_t sizes[] = {1, 2, 3, 15, 16, 17, 31, 32, 33, 1023, 1024, 1025};
    return twin_sweep(sizes, sizeof sizes / sizeof sizes[0], 1, 0);
}

TEST_IMPL(topk_twin_large)
{
    /* 2^16 +- 1 splits across threads (rows < threads) when there are two. */
    /* 1000003 not under the sanitizers (PB_TEST_SANITIZED). */
    const uint64_t sizes[] = {65535, 65536, 65537, 1000003};
    return twin_sweep(sizes, sizeof sizes / sizeof sizes[0] - PB_TEST_SANITIZED, 1, 0);
}

TEST_IMPL(topk_twin_batch)
{
    /* Ragged, misaligned batches: rows shorter and longer than k side by
     * side, 5 rows (an odd last row) and 17. */
    const uint64_t sizes[] = {1, 2, 3, 31, 32, 33, 1000, 4097};
    if (twin_sweep(sizes, sizeof sizes / sizeof sizes[0], 5, 1)) return 1;
    if (PB_TEST_SANITIZED) return 0; /* the 17 rows of 65537 */
    const uint64_t big[] = {65537};
    return twin_sweep(big, 1, 17, 1);
}

/* The twin does not depend on how many threads computed it. */
TEST_IMPL(topk_twin_threads)
{
    const tk_cfg cfgs[] = {
        {1000003, 1000, 1, 0, 0, 1, PB_TOPK_EQUAL, PB_TOPK_F32, 3, 0},
        {1000003, 500001, 1, 0, 1, 0, PB_TOPK_NAN, PB_TOPK_F32, 3, 0},
        {200000, 4096, 3, 1, 1, 1, PB_TOPK_INF, PB_TOPK_F32, 3, 0},
        {100000, 77, 9, 1, 1, 0, PB_TOPK_ZIPF, PB_TOPK_U32, 3, 0},
        {1000003, 1000, 1, 0, 1, 1, PB_TOPK_NAN, PB_TOPK_F64, 3, 0},
        {200000, 4096, 3, 1, 1, 0, PB_TOPK_EQUAL, PB_TOPK_U64, 3, 0},
    };
    int saved = omp_get_max_threads();
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        pb_topk_problem a, b;
        pb_err err;
        omp_set_num_threads(1);
        int rc = tk_init(&a, &cfgs[c]) || pb_topk_twin_answer(&a, &err);
        omp_set_num_threads(3);
        rc = rc || tk_init(&b, &cfgs[c]) || pb_topk_twin_answer(&b, &err);
        omp_set_num_threads(saved);
        ASSERT(rc == 0);
        ASSERT(a.out_total == b.out_total);
        ASSERT(memcmp(a.twin_idx, b.twin_idx, a.out_total * 4) == 0);
        ASSERT(memcmp(pb_topk_twin_values(&a), pb_topk_twin_values(&b),
                      a.out_total * pb_topk_word_bytes(a.dtype)) == 0);
        pb_topk_problem_free(&a);
        pb_topk_problem_free(&b);
    }
    return 0;
}

/* ---- generation and layout ---- */

TEST_IMPL(topk_generation)
{
    int saved = omp_get_max_threads();
    for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
        for (int dist = 0; dist < NDV; dist++) {
            /* The 64-bit types on shorter rows (CI's time): the
             * generator's loop is the same, only the draw differs. */
            tk_cfg c = {
                pb_topk_dtype_is64(dtype) ? 10007 : 100003, 32, 7, 1, 1, 1, dist, dtype, 77, 0};
            pb_topk_problem a, b, d;
            omp_set_num_threads(1);
            int rc = tk_init(&a, &c);
            omp_set_num_threads(2);
            rc = rc || tk_init(&b, &c);
            c.seed = 78;
            rc = rc || tk_init(&d, &c);
            omp_set_num_threads(saved);
            ASSERT(rc == 0);
            size_t bytes = a.total * pb_topk_word_bytes(dtype);
            ASSERT(a.total == b.total &&
                   memcmp(pb_topk_values(&a), pb_topk_values(&b), bytes) == 0);
            /* sorted and reversed depend on positions alone, masked:1 is
             * all -inf (u32: 0) and few:1 one value. */
            const char *dv = tk_dist_values[dist];
            if (dist != PB_TOPK_EQUAL && strcmp(dv, "sorted") && strcmp(dv, "reversed") &&
                strcmp(dv, "masked:1") && strcmp(dv, "few:1"))
                ASSERT(memcmp(pb_topk_values(&a), pb_topk_values(&d), bytes) != 0);
            pb_topk_problem_free(&a);
            pb_topk_problem_free(&b);
            pb_topk_problem_free(&d);
        }
    return 0;
}

TEST_IMPL(topk_layout)
{
    /* Ragged and misaligned: rows * n values, lengths in [n - n/2, n + n/2]
     * and not all equal, every row starting at 1 mod 4, padding between
     * rows holding the most tempting value. */
    for (int largest = 0; largest < 2; largest++) {
        tk_cfg c = {1001, 32, 9, 1, 1, largest, PB_TOPK_UNIFORM, PB_TOPK_F32, 5, 0};
        pb_topk_problem p;
        ASSERT(tk_init(&p, &c) == 0);
        uint64_t sum = 0, distinct = 0;
        for (uint64_t r = 0; r < p.rows; r++) {
            uint64_t len = pb_topk_row_len(&p, r);
            sum += len;
            ASSERT(len >= 1001 - 500 && len <= 1001 + 500);
            ASSERT(p.begin[r] % 4 == 1);
            ASSERT(r == 0 || p.begin[r] >= p.end[r - 1]);
            distinct += len != 1001;
            uint64_t from = r ? p.end[r - 1] : 0;
            for (uint64_t i = from; i < p.begin[r]; i++)
                ASSERT(p.data[i] == (largest ? 0x7fc0deadu : 0xff800000u));
        }
        ASSERT_EQ_U64(sum, 9 * 1001);
        ASSERT_EQ_U64(p.elems, 9 * 1001);
        ASSERT(distinct >= 6);
        ASSERT_EQ_U64(p.begin[9], p.total);
        ASSERT_EQ_U64(pb_topk_row_len(&p, 8), 1001); /* the odd last row */
        pb_topk_problem_free(&p);
    }
    /* Neither: a CSR layout of equal rows from 0. */
    tk_cfg c = {1001, 2000, 4, 0, 0, 1, PB_TOPK_UNIFORM, PB_TOPK_F32, 5, 0};
    pb_topk_problem p;
    ASSERT(tk_init(&p, &c) == 0);
    for (uint64_t r = 0; r <= 4; r++) ASSERT_EQ_U64(p.begin[r], r * 1001);
    ASSERT_EQ_U64(p.out_total, 4 * 1001); /* k beyond the row: the whole row */
    pb_topk_problem_free(&p);
    return 0;
}

/* The distributions are what they claim. */
TEST_IMPL(topk_distributions)
{
    enum { N = 1 << 20 };
    for (int dist = 0; dist <= PB_TOPK_NAN; dist++) {
        tk_cfg c = {N, 1, 1, 0, 0, 1, dist, PB_TOPK_F32, 11, 0};
        pb_topk_problem p;
        ASSERT(tk_init(&p, &c) == 0);
        double lo = INFINITY, hi = -INFINITY, sum = 0, sum2 = 0;
        uint64_t pinf = 0, ninf = 0, nan = 0, ones = 0, finite = 0;
        for (uint64_t i = 0; i < N; i++) {
            float f;
            memcpy(&f, &p.data[i], 4);
            if (isnan(f))
                nan++;
            else if (isinf(f))
                f > 0 ? pinf++ : ninf++;
            else {
                finite++;
                lo = f < lo ? f : lo;
                hi = f > hi ? f : hi;
                sum += f;
                sum2 += (double)f * f;
                ones += f == 1.0f;
            }
        }
        double mean = sum / (double)finite, var = sum2 / (double)finite - mean * mean;
        switch (dist) {
        case PB_TOPK_UNIFORM:
            ASSERT(lo >= 0 && hi < 1 && fabs(mean - 0.5) < 0.01);
            break;
        case PB_TOPK_NARROW:
            ASSERT(lo >= 0.6f && hi <= 0.7f && fabs(mean - 0.65) < 0.001);
            break;
        case PB_TOPK_NARROW128:
            ASSERT(lo >= 128.6f && hi <= 128.7f && fabs(mean - 128.65) < 0.001);
            /* The adversarial case: one top 12-bit key digit for all. */
            ASSERT(pb_topk_key(128.6f) >> 20 == pb_topk_key(128.7f) >> 20);
            break;
        case PB_TOPK_ZIPF: {
            /* P(1) = 1 / H(1.1, 2^20) ~ 0.1, ranks are integers. */
            double h = 0;
            for (int r = 1; r <= (1 << 20); r++) h += pow(r, -1.1);
            ASSERT(fabs((double)ones / N - 1 / h) < 0.005);
            ASSERT(lo == 1 && hi <= (1 << 20) && hi > 1000);
            break;
        }
        case PB_TOPK_NORMAL:
            ASSERT(fabs(mean) < 0.01 && fabs(var - 1) < 0.01);
            break;
        case PB_TOPK_EQUAL:
            ASSERT(lo == 1 && hi == 1);
            break;
        case PB_TOPK_INF:
            ASSERT(fabs((double)pinf / N - 0.25) < 0.01 && fabs((double)ninf / N - 0.25) < 0.01);
            ASSERT(nan == 0 && lo >= -1 && hi < 1);
            break;
        case PB_TOPK_NAN:
            ASSERT(fabs((double)nan / N - 0.125) < 0.01 && fabs((double)pinf / N - 0.0625) < 0.01);
            ASSERT(fabs((double)ninf / N - 0.0625) < 0.01);
            break;
        }
        if (dist != PB_TOPK_INF && dist != PB_TOPK_NAN) ASSERT(nan + pinf + ninf == 0);
        pb_topk_problem_free(&p);
    }
    return 0;
}


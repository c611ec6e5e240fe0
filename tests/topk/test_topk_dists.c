/* The top-k distributions' shapes: relu, few:L, int8, masked:F, sorted and
 * reversed at every dtype (16- and 64-bit included), omp-topk passing the
 * check on them at awkward n and k (k past the distinct values), and the
 * NaN policy end to end. */
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

/* ---- the heavy-tie and ordered distributions ---- */

static int cmp_u64_asc(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

/* Distinct values among n 64-bit values. */
static uint64_t distinct64(const uint64_t *v, uint64_t n)
{
    uint64_t *c = malloc((n ? n : 1) * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_u64_asc);
    uint64_t d = 0;
    for (uint64_t i = 0; i < n; i++) d += i == 0 || c[i] != c[i - 1];
    free(c);
    return d;
}

/* Distinct values among n raw 32-bit values, widened. */
static uint64_t distinct_values(const uint32_t *v, uint64_t n)
{
    uint64_t *w = malloc((n ? n : 1) * sizeof *w);
    for (uint64_t i = 0; i < n; i++) w[i] = v[i];
    uint64_t d = distinct64(w, n);
    free(w);
    return d;
}

/* |count - n p| within 5 binomial standard deviations (and exact at p = 0
 * or 1). */
static bool binomial_ok(uint64_t count, uint64_t n, double pr)
{
    double sd = sqrt((double)n * pr * (1 - pr));
    return fabs((double)count - (double)n * pr) <= 5 * sd;
}


/* Known answers of each new distribution's shape, fp32 and u32: relu's
 * exact zeros in about half (and the u32 values the fp32 bits), few:L's
 * exactly L values, int8's 256 levels, masked:F's fraction of -inf (u32: 0)
 * in a binomial band, sorted and reversed strictly monotone in every row. */
TEST_IMPL(topk_dist_shapes)
{
    enum { N = 1 << 20 };
    pb_topk_problem p, q;
    /* relu */
    tk_cfg c = {N, 1, 1, 0, 0, 1, tk_dist_index("relu"), PB_TOPK_F32, 21, 0};
    ASSERT(tk_init(&p, &c) == 0);
    c.dtype = PB_TOPK_U32;
    ASSERT(tk_init(&q, &c) == 0);
    uint64_t zeros = 0;
    double sum = 0;
    for (uint64_t i = 0; i < N; i++) {
        float f = tk_as_f32(p.data[i]);
        ASSERT(isfinite(f) && f >= 0 && p.data[i] != 0x80000000u); /* no -0.0 */
        zeros += p.data[i] == 0;
        sum += f;
    }
    ASSERT(binomial_ok(zeros, N, 0.5));
    ASSERT(fabs(sum / (double)(N - zeros) - sqrt(2 / 3.14159265358979324)) < 0.01); /* E|N(0,1)| */
    ASSERT(memcmp(p.data, q.data, (size_t)N * 4) == 0);
    pb_topk_problem_free(&p);
    pb_topk_problem_free(&q);

    /* few:L */
    const char *few[] = {"few:1", "few:2", "few:16", "few:256"};
    const uint64_t levels[] = {1, 2, 16, 256};
    for (int f = 0; f < 4; f++)
        for (int dtype = 0; dtype < 3; dtype++) {
            tk_cfg fc = {N, 1, 1, 0, 0, 1, tk_dist_index(few[f]), dtype, 22, 0};
            ASSERT(tk_init(&p, &fc) == 0);
            ASSERT_EQ_U64(distinct_values(p.data, N), levels[f]);
            uint64_t step = (UINT64_C(1) << 32) / levels[f];
            for (uint64_t i = 0; i < N; i++) {
                if (dtype == PB_TOPK_U32) {
                    ASSERT(p.data[i] % step == 0);
                } else if (dtype == PB_TOPK_I32) {
                    ASSERT((p.data[i] ^ 0x80000000u) % step == 0); /* from INT32_MIN up */
                } else {
                    double x = (double)tk_as_f32(p.data[i]) * (double)levels[f];
                    ASSERT(x >= 0 && x < (double)levels[f] && fabs(x - round(x)) < 1e-3);
                }
            }
            pb_topk_problem_free(&p);
        }

    /* int8 */
    for (int dtype = 0; dtype < 3; dtype++) {
        tk_cfg ic = {N, 1, 1, 0, 0, 1, tk_dist_index("int8"), dtype, 23, 0};
        ASSERT(tk_init(&p, &ic) == 0);
        ASSERT_EQ_U64(distinct_values(p.data, N), 256);
        for (uint64_t i = 0; i < N; i++) {
            if (dtype == PB_TOPK_U32) {
                ASSERT(p.data[i] <= 255);
            } else if (dtype == PB_TOPK_I32) {
                int32_t v = (int32_t)p.data[i];
                ASSERT(v >= -128 && v <= 127);
            } else {
                float f = tk_as_f32(p.data[i]);
                ASSERT(f >= -128 && f <= 127 && f == floorf(f));
            }
        }
        pb_topk_problem_free(&p);
    }

    /* masked:F */
    const char *masked[] = {"masked:0", "masked:0.001", "masked:0.5", "masked:1"};
    const double frac[] = {0, 0.001, 0.5, 1};
    for (int m = 0; m < 4; m++)
        for (int dtype = 0; dtype < 3; dtype++) {
            tk_cfg mc = {N, 1, 1, 0, 0, 1, tk_dist_index(masked[m]), dtype, 24, 0};
            ASSERT(tk_init(&p, &mc) == 0);
            uint64_t hits = 0;
            for (uint64_t i = 0; i < N; i++) {
                if (dtype == PB_TOPK_U32) {
                    hits += p.data[i] == 0;
                } else if (dtype == PB_TOPK_I32) {
                    hits += p.data[i] == 0x80000000u; /* INT32_MIN */
                } else if (p.data[i] == 0xff800000u) {
                    hits++;
                } else {
                    float f = tk_as_f32(p.data[i]);
                    ASSERT(f >= 0 && f < 1);
                }
            }
            ASSERT(binomial_ok(hits, N, frac[m]));
            pb_topk_problem_free(&p);
        }

    /* sorted and reversed: single rows and a ragged, misaligned batch. */
    for (int rev = 0; rev < 2; rev++)
        for (int dtype = 0; dtype < 3; dtype++)
            for (int batch = 0; batch < 2; batch++) {
                tk_cfg oc = {batch ? 1001 : N, 1, batch ? 9 : 1, batch, batch, 1,
                             tk_dist_index(rev ? "reversed" : "sorted"), dtype, 25, 0};
                ASSERT(tk_init(&p, &oc) == 0);
                for (uint64_t r = 0; r < p.rows; r++) {
                    const uint32_t *row = p.data + p.begin[r];
                    uint64_t len = pb_topk_row_len(&p, r);
                    for (uint64_t i = 0; i < len; i++) {
                        uint32_t key = pb_topk_key_of(row[i], dtype);
                        if (dtype == PB_TOPK_F32)
                            ASSERT(tk_as_f32(row[i]) >= 0 && tk_as_f32(row[i]) < 1);
                        if (i > 0) {
                            uint32_t prev = pb_topk_key_of(row[i - 1], dtype);
                            ASSERT(rev ? prev > key : prev < key);
                        }
                    }
                }
                pb_topk_problem_free(&p);
            }
    return 0;
}

/* fp16 and bf16 inputs: every drawn distribution is its fp32 draw rounded
 * (the same seed's f32 problem, value by value), in 16-bit patterns; sorted
 * and reversed strictly monotone below 1.0 in rows short enough to be
 * distinct; padding a NaN (largest) or -inf (smallest). */
TEST_IMPL(topk_dist_shapes_16)
{
    for (int dtype = PB_TOPK_F16; dtype <= PB_TOPK_BF16; dtype++)
        for (int dist = 0; dist < NDV; dist++) {
            const char *dv = tk_dist_values[dist];
            int ordered = strcmp(dv, "sorted") == 0 || strcmp(dv, "reversed") == 0;
            tk_cfg c = {ordered ? 1001 : 4099, 1, 3, 0, 1, dist & 1, dist, dtype, 31, 0};
            pb_topk_problem p, q;
            ASSERT(tk_init(&p, &c) == 0);
            for (uint64_t i = 0; i < p.total; i++) ASSERT(p.data[i] < 65536);
            if (ordered) {
                for (uint64_t r = 0; r < p.rows; r++)
                    for (uint64_t i = p.begin[r] + 1; i < p.end[r]; i++) {
                        double a = tk_half_value(p.data[i - 1], dtype), b = tk_half_value(p.data[i], dtype);
                        ASSERT(a >= 0 && a < 1 && b >= 0 && b < 1);
                        ASSERT(dv[0] == 's' ? a < b : a > b);
                    }
            } else {
                c.dtype = PB_TOPK_F32;
                ASSERT(tk_init(&q, &c) == 0);
                for (uint64_t r = 0; r < p.rows; r++)
                    for (uint64_t i = p.begin[r]; i < p.end[r]; i++) {
                        uint32_t want = dtype == PB_TOPK_F16 ? pb_topk_f32_to_f16(q.data[i])
                                                             : pb_topk_f32_to_bf16(q.data[i]);
                        ASSERT_EQ_U64(p.data[i], want);
                    }
                pb_topk_problem_free(&q);
            }
            /* Padding (misaligned rows): what a module reading outside its
             * row would most like to select. */
            for (uint64_t i = 0; i < p.begin[0]; i++) {
                double v = tk_half_value(p.data[i], dtype);
                ASSERT(c.largest ? isnan(v) : v == -INFINITY);
            }
            pb_topk_problem_free(&p);
        }
    return 0;
}

/* omp-topk (2 threads) passes the family check on every new distribution
 * at awkward sizes and k: n in {1, 2, 3, 7, 2^k - 1, 2^k + 1, 100003} (the
 * 64-bit types: 3, 257, 1025), k in
 * {1, 2, n - 1, n} and, for few:L and int8, k at and past the number of
 * distinct values (L, L + 1, 2L + 1; 255, 256, 257, 513), both directions
 * and dtypes, single rows, and ragged, misaligned batches of 5 rows. (The
 * twin sweeps above check the twin itself on them against a full sort;
 * sort-and-choose has no CPU part: its GPU twin test lists them.) */
TEST_IMPL(topk_new_dists_omp)
{
    const uint64_t sizes[] = {1, 2, 3, 7, 255, 257, 1023, 1025, 65535, 65537, 100003};
    int runs = 0;
    unsigned walked = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int dist = PB_TOPK_NAN + 1; dist < NDV; dist++)
            for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
                for (int batch = 0; batch < 2; batch++) {
                    uint64_t n = sizes[si];
                    if (batch && n > 4097) continue;
                    /* The 64-bit types at three of the sizes (CI's time). */
                    if (pb_topk_dtype_is64(dtype) && n != 3 && n != 257 && n != 1025) continue;
                    /* The 100003-key rows at every fourth distribution, a
                     * different fourth for each type (CI's time): every
                     * type and distribution still meets them. */
                    if (n > 65537 && (dist + dtype) % 4) continue;
                    if (pb_test_san_skip(&walked)) continue;
                    uint64_t ks[16];
                    int nk = 0;
                    uint64_t want[12] = {1, 2, n - 1, n};
                    int nw = 4;
                    const char *dv = tk_dist_values[dist];
                    if (strncmp(dv, "few:", 4) == 0) {
                        uint64_t l = strtoull(dv + 4, NULL, 10);
                        want[nw++] = l, want[nw++] = l + 1, want[nw++] = 2 * l + 1;
                    } else if (strcmp(dv, "int8") == 0) {
                        want[nw++] = 255, want[nw++] = 256, want[nw++] = 257, want[nw++] = 513;
                    }
                    for (int w = 0; w < nw; w++) {
                        bool dup = want[w] < 1 || want[w] > n;
                        for (int j = 0; j < nk; j++) dup |= ks[j] == want[w];
                        if (!dup) ks[nk++] = want[w];
                    }
                    for (int ki = 0; ki < nk; ki++) {
                        tk_cfg c = {n,       ks[ki], batch ? 5 : 1,         batch, batch,
                                    (ki & 1), dist,  dtype, 300 + si, 0};
                        ASSERT(tk_run_module(&c, 2) == 0);
                        c.largest ^= 1;
                        ASSERT(tk_run_module(&c, 2) == 0);
                        runs += 2;
                    }
                }
    printf("%d cpu-topk runs\n", runs);
    return 0;
}

/* NaN policy end to end: NaNs are selected first for largest, last for
 * smallest, and a module may return them with any bit pattern. */
TEST_IMPL(topk_nan_policy)
{
    tk_cfg c = {10007, 1, 1, 0, 0, 1, PB_TOPK_NAN, PB_TOPK_F32, 21, 0};
    pb_topk_problem p;
    ASSERT(tk_init(&p, &c) == 0);
    uint64_t nans = 0, finite = 0;
    for (uint64_t i = 0; i < p.total; i++) {
        float f;
        memcpy(&f, &p.data[i], 4);
        nans += isnan(f) != 0;
        finite += isfinite(f) != 0;
    }
    pb_topk_problem_free(&p);
    ASSERT(nans > 100);
    pb_err err;
    for (int largest = 0; largest < 2; largest++) {
        /* Largest: k = nans + 1 gives every NaN and one +inf. Smallest:
         * k = n - nans gives every number and no NaN; one more, one NaN. */
        uint64_t k = largest ? nans + 1 : 10007 - nans;
        for (uint64_t extra = 0; extra < 2; extra++) {
            c.largest = largest;
            c.k = k + extra;
            ASSERT(tk_init(&p, &c) == 0);
            ASSERT(pb_topk_twin_answer(&p, &err) == 0);
            uint64_t got_nan = 0, got_pinf = 0;
            uint32_t *vals = malloc(p.out_total * 4);
            for (uint64_t j = 0; j < p.out_total; j++) {
                float f;
                memcpy(&f, &p.twin_vals[j], 4);
                got_nan += isnan(f) != 0;
                got_pinf += isinf(f) && f > 0;
                /* Any NaN bit pattern is as good as the input's. */
                vals[j] = isnan(f) ? 0xffdeadbeu : p.twin_vals[j];
            }
            if (largest) {
                ASSERT_EQ_U64(got_nan, nans);
                ASSERT_EQ_U64(got_pinf, 1 + extra);
                /* Rank order: the NaNs come first. */
                float f0;
                memcpy(&f0, &p.twin_vals[0], 4);
                ASSERT(isnan(f0));
            } else {
                ASSERT_EQ_U64(got_nan, extra);
            }
            ASSERT(pb_topk_check(&p, vals, p.twin_idx, &err) == 0);
            free(vals);
            pb_topk_problem_free(&p);
        }
    }
    (void)finite;
    return 0;
}

/* The fp64 draw against the fp32 draw of the same seed, value by value
 * (topk_problem.h): (float) of it where the fp32 draw is a double rounded
 * (narrow, narrow128, normal, relu, few:L; zipf, int8, equal and the
 * infinities exactly), its truncation to 2^-24 (uniform, masked's rest) or
 * 2^-23 (inf's and nan's U[-1, 1)) where the fp32 draw has fewer bits of
 * the same block, NaNs where it has NaNs (the same sign); the uniform
 * values finer than fp32's. Returns 1 on a mismatch (printed). */
static int f64_follows_f32(const pb_topk_problem *p, const pb_topk_problem *q, const char *dv)
{
    int trunc24 = strcmp(dv, "uniform") == 0 || strncmp(dv, "masked:", 7) == 0;
    int trunc23 = strcmp(dv, "inf") == 0 || strcmp(dv, "nan") == 0;
    uint64_t finer = 0, values = 0;
    for (uint64_t r = 0; r < p->rows; r++)
        for (uint64_t i = p->begin[r]; i < p->end[r]; i++) {
            double d = tk_as_f64(p->data64[i]);
            float f = tk_as_f32(q->data[i]), want;
            if (isnan(f)) {
                if (!isnan(d) || (p->data64[i] >> 63) != (q->data[i] >> 31)) goto bad;
                continue;
            }
            if (isinf(d) || (!trunc24 && !trunc23))
                want = (float)d;
            else
                want =
                    (float)(floor(d * (trunc24 ? 0x1p24 : 0x1p23)) * (trunc24 ? 0x1p-24 : 0x1p-23));
            if (want != f || tk_fbits(want) != q->data[i]) goto bad;
            values++;
            finer += d != (double)f;
            continue;
        bad:
            fprintf(stderr, "dist %s: f64 %.17g (0x%016llx), f32 %.9g (0x%08x)\n", dv, d,
                    (unsigned long long)p->data64[i], (double)f, q->data[i]);
            return 1;
        }
    /* uniform: a value is a multiple of 2^-24 with probability 2^-29. */
    if (strcmp(dv, "uniform") == 0 && finer < values - values / 1000) {
        fprintf(stderr, "uniform: only %llu of %llu f64 values finer than fp32's\n",
                (unsigned long long)finer, (unsigned long long)values);
        return 1;
    }
    return 0;
}

/* The 64-bit inputs: every distribution, fp64 against the fp32 draw
 * (f64_follows_f32), u64 in its shapes (uniform over 64 bits, relu the
 * fp64 draw's bits, few:L's L levels j floor(2^64 / L), int8's 256, masked's
 * zeros in a binomial band, zipf the rank, equal 1000, every other
 * distribution the key of the fp64 draw), sorted and reversed strictly
 * monotone (fp64 below 1.0) in ragged misaligned rows, padding what a
 * module reading outside its row would most like to select. */
TEST_IMPL(topk_dist_shapes_64)
{
    for (int dist = 0; dist < NDV; dist++) {
        const char *dv = tk_dist_values[dist];
        int ordered = strcmp(dv, "sorted") == 0 || strcmp(dv, "reversed") == 0;
        for (int largest = 0; largest < 2; largest++) {
            tk_cfg c = {
                ordered ? 1001 : 1 << 16, 1, 3, ordered, 1, largest, dist, PB_TOPK_F64, 41, 0};
            pb_topk_problem p, q, u;
            ASSERT(tk_init(&p, &c) == 0);
            c.dtype = PB_TOPK_U64;
            ASSERT(tk_init(&u, &c) == 0);
            ASSERT(p.total == u.total);
            for (uint64_t i = 0; i < p.begin[0]; i++) {
                ASSERT(largest ? isnan(tk_as_f64(p.data64[i])) : tk_as_f64(p.data64[i]) == -INFINITY);
                ASSERT_EQ_U64(u.data64[i], largest ? UINT64_MAX : 0);
            }
            if (ordered) {
                for (uint64_t r = 0; r < p.rows; r++)
                    for (uint64_t i = p.begin[r]; i < p.end[r]; i++) {
                        double a = tk_as_f64(p.data64[i]);
                        ASSERT(a >= 0 && a < 1);
                        if (i == p.begin[r]) continue;
                        double b = tk_as_f64(p.data64[i - 1]);
                        ASSERT(dv[0] == 's' ? b < a : b > a);
                        ASSERT(dv[0] == 's' ? u.data64[i - 1] < u.data64[i]
                                            : u.data64[i - 1] > u.data64[i]);
                    }
                pb_topk_problem_free(&p);
                pb_topk_problem_free(&u);
                continue;
            }
            c.dtype = PB_TOPK_F32;
            ASSERT(tk_init(&q, &c) == 0);
            if (f64_follows_f32(&p, &q, dv)) return 1;
            pb_topk_problem_free(&q);
            /* u64, over the rows (not the padding). */
            uint64_t n = 0, high = 0, zeros = 0;
            uint64_t *vals = malloc(p.elems * sizeof *vals);
            for (uint64_t r = 0; r < u.rows; r++)
                for (uint64_t i = u.begin[r]; i < u.end[r]; i++) {
                    uint64_t v = u.data64[i], f = p.data64[i];
                    vals[n++] = v;
                    high += v >> 63;
                    zeros += v == 0;
                    if (!strcmp(dv, "relu"))
                        ASSERT_EQ_U64(v, f);
                    else if (!strcmp(dv, "zipf"))
                        ASSERT_EQ_U64(v, (uint64_t)tk_as_f64(f));
                    else if (!strcmp(dv, "equal"))
                        ASSERT_EQ_U64(v, 1000);
                    else if (!strcmp(dv, "int8"))
                        ASSERT(v <= 255);
                    else if (!strncmp(dv, "few:", 4)) {
                        uint64_t l = strtoull(dv + 4, NULL, 10);
                        ASSERT(l == 1 || v % (uint64_t)(((pb_topk_wide)1 << 64) / l) == 0);
                    } else if (strcmp(dv, "uniform") && strncmp(dv, "masked:", 7))
                        ASSERT_EQ_U64(v, pb_topk_key_f64_bits(f));
                }
            if (!strcmp(dv, "uniform")) ASSERT(binomial_ok(high, n, 0.5));
            if (!strcmp(dv, "int8")) ASSERT_EQ_U64(distinct64(vals, n), 256);
            if (!strncmp(dv, "few:", 4))
                ASSERT_EQ_U64(distinct64(vals, n), strtoull(dv + 4, NULL, 10));
            if (!strncmp(dv, "masked:", 7)) ASSERT(binomial_ok(zeros, n, strtod(dv + 7, NULL)));
            free(vals);
            pb_topk_problem_free(&p);
            pb_topk_problem_free(&u);
        }
    }
    return 0;
}

/* The check on 64-bit keys: the twin's answer in another order passes; a
 * value off in its lowest bit (a 32-bit view of the key would miss it), a
 * value not among the best, and the smallest's, are caught with the row
 * named and fp64 values printed in full; with `ties = lowest-index` a
 * larger tied index in place of a smaller one is caught. And the NaN
 * policy: NaNs first for largest (then +inf), last for smallest, and any
 * NaN bit pattern returned for a NaN passes. */

/* RadiK's decision logic on the host (radik_digit.h, shared with the
 * kernels), so a wrong interval or select step fails in CI, not first on a
 * GPU:
 *  - the scaled digit is monotone in the key, and every bin's interval is
 *    exactly the keys with that digit (bin edges checked on both sides);
 *  - a host model of radik's passes (the kernels' classification: output
 *    above the interval, keep inside, histogram the next digit, ties at the
 *    end; the pre-filter's threshold and its fallback), run in the order
 *    radik.cu launches them and under the kernels' rules for which rows a
 *    pass and a select touch, returns the twin's values for every
 *    distribution, k, scaling mode and filter threshold (at, below and
 *    above the pivot), and the row is finished when the launches are;
 *    with ties = lowest-index (n <= 4097), the row state the GPU has after
 *    the last pass gives the tie pass the pivot and the number of ties to
 *    choose, and it picks the pivot's first indices; every filter also
 *    strictly (tie_aware: keys above the threshold, and up to take of
 *    those equal, or with lowest-index only their count), including the
 *    rows whose pivot is the threshold itself;
 *  - the filter's sample rank is past the pivot's expected sample rank by
 *    the promised margin. */
#include <stdlib.h>

#include "algorithms/topk/radik/radik_digit.h"
#include "config/params.h"
#include "families/topk/topk_problem.h"
#include "registry/registry.h"
#include "tests/test.h"

static uint64_t rd_state = 0x9e3779b97f4a7c15u;
static uint32_t rd_next(void)
{
    rd_state ^= rd_state << 13;
    rd_state ^= rd_state >> 7;
    rd_state ^= rd_state << 17;
    return (uint32_t)(rd_state >> 16);
}

/* Keys near interesting places: 0, the top, the reference, and anywhere. */
static uint32_t rd_key(uint32_t ref)
{
    switch (rd_next() % 4) {
    case 0: return rd_next() % 1024;
    case 1: return UINT32_MAX - rd_next() % 1024;
    case 2: return ref + (rd_next() % 4096) - 2048;
    default: return rd_next();
    }
}

/* A key width's scaled digit and its bins' intervals, widened to 64 bits,
 * so one check serves both widths. */
typedef struct rd_width {
    uint32_t (*digit)(uint64_t key, uint64_t ref);
    int (*interval)(uint32_t bin, uint64_t ref, uint64_t *lo, uint64_t *hi);
} rd_width;

static uint32_t rd_digit32(uint64_t key, uint64_t ref)
{
    return pb_radik_scaled_digit((uint32_t)key, (uint32_t)ref);
}

static int rd_interval32(uint32_t bin, uint64_t ref, uint64_t *lo, uint64_t *hi)
{
    uint32_t l = 0, h = 0;
    int ok = pb_radik_scaled_interval(bin, (uint32_t)ref, &l, &h);
    *lo = l, *hi = h;
    return ok;
}

static const rd_width rd_width32 = {rd_digit32, rd_interval32};
static const rd_width rd_width64 = {pb_radik_scaled_digit64, pb_radik_scaled_interval64};

/* Keys a and b (either order) around ref: the digit is monotone and a bin,
 * and the lower key lies in its bin's interval. */
static int rd_monotone(const rd_width *w, uint64_t a, uint64_t b, uint64_t ref)
{
    if (a > b) {
        uint64_t t = a;
        a = b;
        b = t;
    }
    uint32_t da = w->digit(a, ref), db = w->digit(b, ref);
    ASSERT(da <= db);
    ASSERT(db < PB_RADIK_BINS);
    uint64_t lo, hi;
    ASSERT(w->interval(da, ref, &lo, &hi));
    ASSERT(lo <= a && a <= hi);
    return 0;
}

TEST_IMPL(radik_scaled_digit)
{
    static const uint32_t refs[] = {0, 1, 255, 256, 0x7fffffffu, 0x80000000u, 0xbf800000u,
                                    UINT32_MAX - 1, UINT32_MAX};
    for (size_t ri = 0; ri < sizeof refs / sizeof refs[0] + 20; ri++) {
        uint32_t ref = ri < sizeof refs / sizeof refs[0] ? refs[ri] : rd_next();
        /* Every bin's interval: its ends have the bin, their outer
         * neighbours do not. */
        for (uint32_t bin = 0; bin < PB_RADIK_BINS; bin++) {
            uint32_t lo, hi;
            if (!pb_radik_scaled_interval(bin, ref, &lo, &hi)) continue;
            ASSERT(lo <= hi);
            ASSERT(hi - lo < (UINT32_C(1) << 24) + 1);
            ASSERT_EQ_U64(pb_radik_scaled_digit(lo, ref), bin);
            ASSERT_EQ_U64(pb_radik_scaled_digit(hi, ref), bin);
            if (lo > 0) ASSERT(pb_radik_scaled_digit(lo - 1, ref) < bin);
            if (hi < UINT32_MAX) ASSERT(pb_radik_scaled_digit(hi + 1, ref) > bin);
        }
        /* Monotone, and every key lies in its bin's interval. */
        for (int i = 0; i < 20000; i++)
            ASSERT(rd_monotone(&rd_width32, rd_key(ref), rd_key(ref), ref) == 0);
        /* The reference itself is alone in its bin. */
        uint32_t lo, hi;
        ASSERT(pb_radik_scaled_interval(pb_radik_scaled_digit(ref, ref), ref, &lo, &hi));
        ASSERT(lo == ref && hi == ref);
    }
    return 0;
}

/* Rows whose strict filter found the pivot at its threshold (lowest-index:
 * the tie pass chooses all of the ties). */
static long rd_strict_pivot;

/* The kernels' passes on one row of order keys, sequentially, in the order
 * radik.cu's enqueue() launches them: F(ilter), I(nput), I, C(andidates),
 * C, C with the filter; I, I, C, C without (16-bit keys: one C fewer). A pass and its select touch the
 * row only when the kernels' rules say so (its source, and FILTER only in
 * the filter pass). With `filter`, the row filters at thr with the scaled
 * digit around fref, strictly with `strict` (keeping up to take keys equal
 * to thr, or with tie_idx only counting them). Returns 0 if the row is
 * finished after the launches;
 * *fell_back says whether a filter fell back. With tie_idx (ties =
 * lowest-index) the final pass leaves the ties alone and radik_ties.cuh's
 * pass follows, on the row state the GPU has then (no select after the last
 * pass): the tied keys' indices go to tie_idx, and it returns how many.
 * Written once for both key widths (algorithms/topk/radik/radik_model_w.h). */
/* The largest order key of the dtype under test (radik_digit.h's kmax):
 * 2^32 - 1, or 2^16 - 1 for fp16 and bf16 keys. */
static uint32_t rd_kmax = UINT32_MAX;

#define RD_KEY uint32_t
#define RD_ROW pb_radik_row
#define RD_W(name) name
#define RD_KMAX rd_kmax
#define RD_BITS 32
/* 16-bit keys (rd_kmax 2^16 - 1) take one candidate pass fewer. */
#define RD_ORDER(filter, scaled)                                                                  \
    ((void)(scaled), rd_kmax == UINT32_MAX ? ((filter) ? "FIICCC" : "IICC")                       \
                                           : ((filter) ? "FIICC" : "IIC"))
#include "algorithms/topk/radik/radik_model_w.h"

TEST_IMPL(radik_filter_rank)
{
    /* Past the pivot's expected sample rank mu by 5 sqrt(mu) + 5, capped at
     * the sample; monotone in take. */
    static const uint32_t lens[] = {1u << 16, 100003, 1u << 20, 1u << 29};
    for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
        uint32_t len = lens[li], prev = 0;
        for (uint32_t take = 1; take < len; take = take * 3 / 2 + 1) {
            uint32_t j = pb_radik_filter_rank(2048, take, len);
            double mu = 2048.0 * take / len;
            ASSERT(j <= 2048);
            ASSERT(j == 2048 || (double)j >= mu + 5 * sqrt(mu) + 4);
            ASSERT(j >= prev);
            prev = j;
        }
    }
    ASSERT_EQ_U64(pb_radik_filter_rank(2048, 1, 1u << 29), 5);
    ASSERT_EQ_U64(pb_radik_filter_rank(2048, 1u << 18, 1u << 29), 11);
    /* radik's `refine` sample of 16384 keys (PB_RADIK_REFINE_SAMPLE): ranks
     * 5 and 27, so the threshold keeps 6 / 16384 and 28 / 16384 of 2^29
     * keys (196608 and 917504) where the 2048-key one kept 6 / 2048 and
     * 12 / 2048 (1572864 and 3145728): the candidates the docs quote. */
    ASSERT_EQ_U64(pb_radik_filter_rank(16384, 32, 1u << 29), 5);
    ASSERT_EQ_U64(pb_radik_filter_rank(16384, 1u << 18, 1u << 29), 27);
    /* Which rows may filter: long enough, a proper subset, a take whose
     * threshold could keep at most 1/16 of the sample (any with any_k). */
    ASSERT(pb_radik_filterable(1u << 29, 1u << 18, 0));
    ASSERT(pb_radik_filterable(1u << 16, 32, 0));
    ASSERT(!pb_radik_filterable((1u << 16) - 1, 32, 0));
    ASSERT(!pb_radik_filterable(1u << 20, 65536, 0)); /* mu 128: rank 189 */
    ASSERT(pb_radik_filterable(1u << 20, 65536, 1));
    ASSERT(!pb_radik_filterable(1u << 20, 1u << 20, 1));
    return 0;
}


/* The host model's row: n keys of distribution dist in dtype, k = 1,
 * omp-topk's defaults otherwise. A distribution written `name:X` (few:L,
 * masked:F) takes an argument: 16 values, half masked. */
static int rd_problem(const pb_module *mod, uint64_t n, int dtype, int dist, int largest, uint64_t seed,
                      pb_topk_problem *p)
{
    pb_params params;
    pb_params_defaults(mod, &params);
    bool fraction = false;
    params.v[PB_TOPK_P_DIST] = pb_choice_takes_arg(PB_TOPK_DIST_CHOICES, dist, &fraction)
                                   ? PB_PARAM_ARG_VALUE(dist, fraction ? 500000 : 16)
                                   : dist;
    params.v[PB_TOPK_P_LARGEST] = largest;
    params.v[PB_TOPK_P_DTYPE] = dtype;
    params.v[PB_TOPK_P_K] = 1;
    pb_point pt = {n, 4, seed, &params, 0};
    pb_err err;
    if (pb_topk_problem_init(p, &pt, &err) == 0) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return -1;
}

TEST_IMPL(radik_host_model)
{
    static const uint64_t ns[] = {1, 2, 3, 31, 33, 1000, 4097, 100003};
    const pb_module *mod = pb_module_find("cpu-topk");
    ASSERT(mod);
    long cases = 0, falls = 0;
    /* fp32 keys, and the 16-bit keys of fp16 and bf16 (kmax 2^16 - 1). */
    static const int dtypes[] = {PB_TOPK_F32, PB_TOPK_F16, PB_TOPK_BF16};
    for (size_t di = 0; di < sizeof dtypes / sizeof dtypes[0]; di++)
    /* 100003 not under the sanitizers (PB_TEST_SANITIZED). */
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0] - PB_TEST_SANITIZED; ni++)
        for (int dist = 0; dist < PB_TOPK_NDIST; dist++)
            for (int largest = 0; largest < 2; largest++) {
                uint64_t n = ns[ni];
                int dtype = dtypes[di];
                /* 16-bit keys: every other distribution (CI's time). */
                if (dtype != PB_TOPK_F32 && dist % 2) continue;
                /* The longest rows every fourth distribution, a different
                 * fourth for each type, both directions (CI's time, as in
                 * radik_host_model64). */
                if (n > 4097 && (dist + (int)di) % 4) continue;
                rd_kmax = pb_topk_key_bits_of(dtype) == 32 ? UINT32_MAX
                                                           : (1u << pb_topk_key_bits_of(dtype)) - 1;
                pb_topk_problem p;
                ASSERT(rd_problem(mod, n, dtype, dist, largest, 1234 + n, &p) == 0);
                uint32_t *keys = malloc(n * sizeof *keys), *sorted = malloc(n * sizeof *sorted);
                uint32_t *out = malloc(n * sizeof *out), *tie_idx = malloc(n * sizeof *tie_idx);
                for (uint64_t i = 0; i < n; i++)
                    keys[i] = pb_topk_problem_okey(&p, p.data[p.begin[0] + i]);
                memcpy(sorted, keys, n * sizeof *keys);
                qsort(sorted, n, sizeof *sorted, rd_cmp_desc);
                uint64_t kl[] = {1, 2, 31, 32, 33, 1000, n / 2, n - 1, n, n + 1};
                for (size_t ki = 0; ki < sizeof kl / sizeof kl[0]; ki++)
                    for (int sc = 0; sc < 3 * 5 * 2; sc++) {
                        uint64_t k = kl[ki];
                        if (k < 1) continue;
                        uint32_t take = k < n ? (uint32_t)k : (uint32_t)n;
                        /* Scaling: off; a pseudo-random element; the true
                         * pivot. Filter: none; at the pivot; below it;
                         * the largest key; above the pivot (falls back). */
                        int scale = sc % 3, filt = sc / 3 % 5, strict = sc / 15;
                        if (strict && !filt) continue;
                        uint32_t ref = scale == 1 ? keys[(rd_next() % n)] : sorted[take - 1];
                        uint32_t piv = sorted[take - 1], thr = piv;
                        if (filt == 2) thr = sorted[take - 1 + (n - take) / 3];
                        if (filt == 3) thr = sorted[0];
                        if (filt == 4) thr = piv == rd_kmax ? piv : piv + 1;
                        /* The filter's digit centres on an estimate of the
                         * pivot: some key near it. */
                        uint32_t fref = sorted[(take - 1 + rd_next() % 7) % n];
                        uint32_t got = 0;
                        int fell = 0;
                        int rc = rd_model(keys, (uint32_t)n, k, scale != 0 && take < n, ref,
                                          filt != 0, strict, thr, fref, out, &got, &fell, NULL);
                        if (rc == 0 && n <= 4097 &&
                            rd_lowest(keys, (uint32_t)n, k, scale != 0 && take < n, ref,
                                      filt != 0, strict, thr, fref, sorted, tie_idx)) {
                            fprintf(stderr,
                                    "n=%llu dist=%d k=%llu scale=%d filter=%d strict=%d\n",
                                    (unsigned long long)n, dist, (unsigned long long)k, scale,
                                    filt, strict);
                            return 1;
                        }
                        /* Above the pivot, fewer than take keys pass. */
                        bool must_fall = take < n && (filt == 4 ? piv != rd_kmax : false);
                        if (rc < 0 || got != take || (must_fall && !fell)) {
                            fprintf(stderr,
                                    "dtype=%d n=%llu dist=%d k=%llu scale=%d filter=%d strict=%d: rc %d, "
                                    "%u of %u, fell back %d\n",
                                    dtype, (unsigned long long)n, dist, (unsigned long long)k, scale,
                                    filt, strict, rc, got, take, fell);
                            return 1;
                        }
                        falls += fell;
                        qsort(out, take, sizeof *out, rd_cmp_desc);
                        for (uint32_t i = 0; i < take; i++)
                            if (out[i] != sorted[i]) {
                                fprintf(stderr,
                                        "n=%llu dist=%d k=%llu sc=%d: rank %u is %08x, "
                                        "expected %08x\n",
                                        (unsigned long long)n, dist, (unsigned long long)k, sc, i,
                                        out[i], sorted[i]);
                                return 1;
                            }
                        cases++;
                    }
                free(keys);
                free(sorted);
                free(out);
                free(tie_idx);
                pb_topk_problem_free(&p);
            }
    printf("%ld model runs, %ld filter fallbacks, %ld strict filters with the pivot at the "
           "threshold\n",
           cases, falls, rd_strict_pivot);
    ASSERT(falls > 0);
    ASSERT(rd_strict_pivot > 0);
    return 0;
}

/* ---- 64-bit order keys (fp64, u64): pb_radik_row64 and the *64 functions ----
 *
 * The same checks on the 64-bit width: the scaled digit (6 mantissa bits,
 * bins spanning up to 2^57 keys) is monotone and its bins tile the keys
 * [0, 2^64 - 1] exactly; the plain passes take the whole 64-bit range to
 * any key in five digits (shifts 51, 38, 25, 12, 0) and a scaled first bin
 * in five more at most; the filter's fallback and strict ties; and the
 * host model of radik's passes, launched as radik.cu launches them for
 * 64-bit keys (candidate_passes), returns the twin's keys on fp64 and u64
 * rows (with lowest-index: the pivot's first indices). */

static uint64_t rd_next64(void)
{
    return (uint64_t)rd_next() << 32 | rd_next();
}

/* Keys near 0, the top and the reference, at every distance (octave) from
 * the reference, and anywhere (wrapping arithmetic: still keys). */
static uint64_t rd_key64(uint64_t ref)
{
    switch (rd_next() % 5) {
    case 0: return rd_next() % 1024;
    case 1: return UINT64_MAX - rd_next() % 1024;
    case 2: return ref + (rd_next() % 4096) - 2048;
    case 3: {
        uint64_t d = rd_next64() >> (rd_next() % 64);
        return (rd_next() & 1) ? ref + d : ref - d;
    }
    default: return rd_next64();
    }
}

TEST_IMPL(radik_scaled_digit64)
{
    static const uint64_t refs[] = {0,
                                    1,
                                    255,
                                    256,
                                    257,
                                    UINT64_C(0x7fffffffffffffff),
                                    UINT64_C(0x8000000000000000),
                                    UINT64_C(0xbff0000000000000), /* fp64 1.0's key */
                                    PB_TOPK_F64_NAN_KEY,
                                    UINT64_MAX - 256,
                                    UINT64_MAX - 1,
                                    UINT64_MAX};
    enum { NREFS = sizeof refs / sizeof refs[0] };
    /* The extremes: 3840 log bins a side, all within the 4096 there are. */
    ASSERT_EQ_U64(PB_RADIK_LOG_BINS64, 3840);
    ASSERT_EQ_U64(pb_radik_scaled_digit64(UINT64_MAX, 0), PB_RADIK_MID + PB_RADIK_LOG_BINS64 - 1);
    ASSERT_EQ_U64(pb_radik_scaled_digit64(0, UINT64_MAX), PB_RADIK_MID - PB_RADIK_LOG_BINS64);
    for (size_t ri = 0; ri < NREFS + 20; ri++) {
        uint64_t ref = ri < NREFS ? refs[ri] : rd_next64();
        /* Bins in order tile [0, 2^64 - 1]: each interval starts where the
         * last one ended, its ends have the bin and their outer neighbours
         * do not; none spans more than 2^57 keys. */
        uint64_t expect = 0;
        int covered = 0;
        for (uint32_t bin = 0; bin < PB_RADIK_BINS; bin++) {
            uint64_t lo, hi;
            if (!pb_radik_scaled_interval64(bin, ref, &lo, &hi)) continue;
            ASSERT(!covered);
            ASSERT_EQ_U64(lo, expect);
            ASSERT(lo <= hi);
            ASSERT(hi - lo < (UINT64_C(1) << 57));
            ASSERT_EQ_U64(pb_radik_scaled_digit64(lo, ref), bin);
            ASSERT_EQ_U64(pb_radik_scaled_digit64(hi, ref), bin);
            if (lo > 0) ASSERT(pb_radik_scaled_digit64(lo - 1, ref) < bin);
            if (hi < UINT64_MAX) ASSERT(pb_radik_scaled_digit64(hi + 1, ref) > bin);
            if (hi == UINT64_MAX) covered = 1;
            else expect = hi + 1;
        }
        ASSERT(covered);
        /* Monotone, and every key lies in its bin's interval: random keys
         * and the edges 0, 1, ref - 1, ref, ref + 1, 2^64 - 1. */
        uint64_t edge[] = {0, 1, ref - 1, ref, ref + 1, UINT64_MAX};
        for (int i = 0; i < 20000 + 36; i++) {
            uint64_t a = i < 36 ? edge[i / 6] : rd_key64(ref);
            uint64_t b = i < 36 ? edge[i % 6] : rd_key64(ref);
            ASSERT(rd_monotone(&rd_width64, a, b, ref) == 0);
        }
        /* The reference is alone in its bin, and so are its neighbours. */
        uint64_t lo, hi;
        ASSERT(pb_radik_scaled_interval64(pb_radik_scaled_digit64(ref, ref), ref, &lo, &hi));
        ASSERT(lo == ref && hi == ref);
        if (ref > 0) {
            uint32_t d = pb_radik_scaled_digit64(ref - 1, ref);
            ASSERT(pb_radik_scaled_interval64(d, ref, &lo, &hi));
            ASSERT(lo == ref - 1 && hi == ref - 1);
        }
        if (ref < UINT64_MAX) {
            uint32_t d = pb_radik_scaled_digit64(ref + 1, ref);
            ASSERT(pb_radik_scaled_interval64(d, ref, &lo, &hi));
            ASSERT(lo == ref + 1 && hi == ref + 1);
        }
    }
    return 0;
}

/* The select steps on 64-bit rows: shift_for, row_init, row_advance,
 * row_filter and the tie state, on known answers. */
TEST_IMPL(radik_digit64_passes)
{
    ASSERT_EQ_U64(pb_radik_bitlen64(0), 0);
    ASSERT_EQ_U64(pb_radik_bitlen64(1), 1);
    ASSERT_EQ_U64(pb_radik_bitlen64(UINT64_C(1) << 32), 33);
    ASSERT_EQ_U64(pb_radik_bitlen64(UINT64_MAX), 64);
    ASSERT_EQ_U64(pb_radik_shift_for64(0, UINT64_MAX), 51);
    ASSERT_EQ_U64(pb_radik_shift_for64(7, 7), 0);
    ASSERT_EQ_U64(pb_radik_shift_for64(0, 8191), 0);
    ASSERT_EQ_U64(pb_radik_shift_for64(0, 8192), 1);
    ASSERT_EQ_U64(pb_radik_shift_for64(UINT64_MAX - 8192, UINT64_MAX), 1);
    /* A plain row goes to any key in five digits: shifts 51, 38, 25, 12,
     * 0, the key's bin chosen each time (count 2 > need 1: no TAKE). */
    static const uint64_t fixed[] = {0,
                                     1,
                                     8191,
                                     8192,
                                     UINT64_C(0x7fffffffffffffff),
                                     UINT64_C(0x8000000000000000),
                                     PB_TOPK_F64_NAN_KEY,
                                     UINT64_MAX - 1,
                                     UINT64_MAX};
    enum { NFIXED = sizeof fixed / sizeof fixed[0] };
    for (int ti = 0; ti < NFIXED + 500; ti++) {
        uint64_t t = ti < NFIXED ? fixed[ti] : rd_next64();
        pb_radik_row64 r;
        pb_radik_row_init64(&r, 1000, 1, 0, 0, UINT64_MAX);
        ASSERT(r.mode == PB_RADIK_COUNT && r.lo == 0 && r.hi == UINT64_MAX);
        ASSERT(r.src == PB_RADIK_SRC_INPUT && r.take == 1 && r.need == 1);
        static const uint32_t shifts[] = {51, 38, 25, 12, 0};
        for (int pass = 0; pass < 5; pass++) {
            ASSERT_EQ_U64(r.shift, shifts[pass]);
            ASSERT(r.lo <= t && t <= r.hi);
            uint32_t d = pb_radik_digit64(&r, t);
            ASSERT(d < PB_RADIK_BINS);
            pb_radik_row_advance64(&r, d, 0, 2, 2);
            ASSERT(r.lo <= t && t <= r.hi);
            ASSERT(r.mode == (pass < 4 ? PB_RADIK_SPLIT : PB_RADIK_FINAL));
            /* Pass 1 reads the input again; the later ones candidates. */
            ASSERT(r.src == (pass == 0 ? PB_RADIK_SRC_INPUT : PB_RADIK_SRC_CAND));
        }
        ASSERT(r.lo == t && r.hi == t);
        /* The final pass: DONE, its ties left at the pivot. */
        ASSERT_EQ_U64(pb_radik_tie_key64(&r), t);
        ASSERT_EQ_U64(pb_radik_tie_need64(&r), 1);
        pb_radik_row_advance64(&r, 0, 0, 0, 0);
        ASSERT(r.mode == PB_RADIK_DONE);
        ASSERT_EQ_U64(pb_radik_tie_key64(&r), t);
        ASSERT_EQ_U64(pb_radik_tie_need64(&r), 1);
        /* Scaled around a reference: the first bin spans at most 2^57 keys,
         * and at most five more digits (44, 31, 18, 5, 0) find the key. */
        uint64_t ref = ti % 3 == 0   ? rd_next64()
                       : ti % 3 == 1 ? t + rd_next() % 100000
                                     : t - rd_next();
        pb_radik_row_init64(&r, 1u << 20, 1, 1, ref, UINT64_MAX);
        ASSERT(r.scaled == 1 && r.ref == ref && r.cscaled == 1 && r.cref == ref);
        ASSERT_EQ_U64(pb_radik_digit64(&r, t), pb_radik_scaled_digit64(t, ref));
        pb_radik_row_advance64(&r, pb_radik_digit64(&r, t), 0, 2, 2);
        ASSERT(!r.scaled && r.lo <= t && t <= r.hi && r.hi - r.lo < (UINT64_C(1) << 57));
        int splits = 0;
        while (r.mode == PB_RADIK_SPLIT) {
            ASSERT(splits < 5);
            ASSERT(r.shift == 44 - 13 * (uint32_t)splits || r.shift < 44 - 13 * (uint32_t)splits);
            pb_radik_row_advance64(&r, pb_radik_digit64(&r, t), 0, 2, 2);
            ASSERT(r.lo <= t && t <= r.hi);
            splits++;
        }
        ASSERT(r.mode == PB_RADIK_FINAL && r.lo == t && r.hi == t);
    }
    /* A bin whose every key is needed: TAKE; keys above it are counted off
     * `need`. */
    pb_radik_row64 r;
    pb_radik_row_init64(&r, 1000, 10, 0, 0, UINT64_MAX);
    pb_radik_row_advance64(&r, 4000, 6, 4, 0);
    ASSERT(r.mode == PB_RADIK_TAKE && r.need == 4);
    ASSERT_EQ_U64(r.lo, UINT64_C(4000) << 51);
    ASSERT_EQ_U64(r.hi, (UINT64_C(4001) << 51) - 1);
    /* Rows that take everything, and empty ones. */
    pb_radik_row_init64(&r, 5, 9, 1, 3, UINT64_MAX);
    ASSERT(r.mode == PB_RADIK_TAKE && r.take == 5 && !r.scaled);
    pb_radik_row_init64(&r, 0, 9, 0, 0, UINT64_MAX);
    ASSERT(r.mode == PB_RADIK_DONE);
    /* The filter: keys >= thr, scaled around the estimate; a filter that
     * kept too few falls back to the counting row it was (scaled or not). */
    uint64_t thr = UINT64_C(0xc000000000000123);
    pb_radik_row_init64(&r, 1u << 20, 10, 1, 77, UINT64_MAX);
    pb_radik_row_filter64(&r, thr, 99, PB_RADIK_STRICT_OFF);
    ASSERT(r.mode == PB_RADIK_FILTER && r.lo == thr && r.hi == UINT64_MAX && r.scaled &&
           r.ref == 99);
    pb_radik_row_advance64(&r, 0, 0, 0, 9);
    ASSERT(r.mode == PB_RADIK_COUNT && r.lo == 0 && r.hi == UINT64_MAX && r.shift == 51);
    ASSERT(r.scaled == 1 && r.ref == 77 && r.src == PB_RADIK_SRC_INPUT && r.len_in == 1u << 20);
    /* ... one that kept enough: the pivot's bin, clamped to [thr, kmax]. */
    pb_radik_row_filter64(&r, thr, thr, PB_RADIK_STRICT_OFF);
    pb_radik_row_advance64(&r, pb_radik_scaled_digit64(thr + 5, thr), 3, 7, 40);
    ASSERT(r.mode == PB_RADIK_TAKE && r.lo == thr + 5 && r.hi == thr + 5 && r.need == 7);
    ASSERT(r.src == PB_RADIK_SRC_CAND && r.len_in == 40);
    /* A strict filter (lowest-index) whose pivot is the threshold: the keys
     * above it are taken, the tie pass chooses the rest of the 10. */
    pb_radik_row_init64(&r, 1u << 20, 10, 0, 0, UINT64_MAX);
    pb_radik_row_filter64(&r, thr, thr, PB_RADIK_STRICT_COUNT);
    r.eq = 50;
    pb_radik_row_advance64(&r, 0, 0, 0, 3);
    ASSERT(r.mode == PB_RADIK_TAKE && r.need == 3 && r.lo == thr + 1 && r.hi == UINT64_MAX);
    ASSERT_EQ_U64(pb_radik_tie_need64(&r), 7);
    ASSERT_EQ_U64(pb_radik_tie_key64(&r), thr);
    /* ... at the largest key: nothing lies above it (lo stays at kmax). */
    pb_radik_row_init64(&r, 1u << 20, 10, 0, 0, UINT64_MAX);
    pb_radik_row_filter64(&r, UINT64_MAX, UINT64_MAX, PB_RADIK_STRICT_COUNT);
    r.eq = 10;
    pb_radik_row_advance64(&r, 0, 0, 0, 0);
    ASSERT(r.mode == PB_RADIK_DONE && r.lo == UINT64_MAX);
    ASSERT_EQ_U64(pb_radik_tie_need64(&r), 10);
    ASSERT_EQ_U64(pb_radik_tie_key64(&r), UINT64_MAX);
    /* ... too few equal keys: the fallback. */
    pb_radik_row_init64(&r, 1u << 20, 10, 0, 0, UINT64_MAX);
    pb_radik_row_filter64(&r, thr, thr, PB_RADIK_STRICT_COUNT);
    r.eq = 2;
    pb_radik_row_advance64(&r, 0, 0, 0, 3);
    ASSERT(r.mode == PB_RADIK_COUNT && pb_radik_tie_need64(&r) == 0);
    return 0;
}

/* The model on 64-bit keys: radik.cu's launches for them are F, I, I and
 * six candidate passes with the filter; I, I and five (a scaled first
 * digit) or four without (candidate_passes). */
#define RD_KEY uint64_t
#define RD_ROW pb_radik_row64
#define RD_W(name) name##64
#define RD_KMAX UINT64_MAX
#define RD_BITS 64
#define RD_ORDER(filter, scaled) ((filter) ? "FIICCCCCC" : (scaled) ? "IICCCCC" : "IICCCC")
#include "algorithms/topk/radik/radik_model_w.h"

TEST_IMPL(radik_host_model64)
{
    static const uint64_t ns[] = {1, 2, 3, 31, 33, 1000, 4097, 100003};
    const pb_module *mod = pb_module_find("cpu-topk");
    ASSERT(mod);
    long cases = 0, falls = 0, strict_before = rd_strict_pivot;
    static const int dtypes[] = {PB_TOPK_F64, PB_TOPK_U64};
    for (size_t di = 0; di < sizeof dtypes / sizeof dtypes[0]; di++)
        /* 100003 not under the sanitizers (PB_TEST_SANITIZED). */
        for (size_t ni = 0; ni < sizeof ns / sizeof ns[0] - PB_TEST_SANITIZED; ni++)
            for (int dist = 0; dist < PB_TOPK_NDIST; dist++)
                for (int largest = 0; largest < 2; largest++) {
                    uint64_t n = ns[ni];
                    int dtype = dtypes[di];
                    /* CI's time: u64 every other distribution, and the
                     * longest rows every fourth (with both directions). */
                    if (dtype == PB_TOPK_U64 && dist % 2) continue;
                    if (n > 4097 && (dist + (int)di) % 4) continue;
                    pb_topk_problem p;
                    ASSERT(rd_problem(mod, n, dtype, dist, largest, 4321 + n, &p) == 0);
                    uint64_t *keys = malloc(n * sizeof *keys), *sorted = malloc(n * sizeof *sorted);
                    uint64_t *out = malloc(n * sizeof *out);
                    uint32_t *tie_idx = malloc(n * sizeof *tie_idx);
                    for (uint64_t i = 0; i < n; i++)
                        keys[i] = pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[0] + i));
                    memcpy(sorted, keys, n * sizeof *keys);
                    qsort(sorted, n, sizeof *sorted, rd_cmp_desc64);
                    uint64_t kl[] = {1, 2, 31, 32, 33, 1000, n / 2, n - 1, n, n + 1};
                    for (size_t ki = 0; ki < sizeof kl / sizeof kl[0]; ki++)
                        for (int sc = 0; sc < 3 * 5 * 2; sc++) {
                            uint64_t k = kl[ki];
                            if (k < 1) continue;
                            uint32_t take = k < n ? (uint32_t)k : (uint32_t)n;
                            int scale = sc % 3, filt = sc / 3 % 5, strict = sc / 15;
                            if (strict && !filt) continue;
                            uint64_t ref = scale == 1 ? keys[rd_next() % n] : sorted[take - 1];
                            uint64_t piv = sorted[take - 1], thr = piv;
                            if (filt == 2) thr = sorted[take - 1 + (n - take) / 3];
                            if (filt == 3) thr = sorted[0];
                            if (filt == 4) thr = piv == UINT64_MAX ? piv : piv + 1;
                            uint64_t fref = sorted[(take - 1 + rd_next() % 7) % n];
                            int sc_on = scale != 0 && take < n;
                            uint32_t got = 0;
                            int fell = 0;
                            int rc = rd_model64(keys, (uint32_t)n, k, sc_on, ref, filt != 0,
                                                strict, thr, fref, out, &got, &fell, NULL);
                            if (rc == 0 && n <= 4097 &&
                                rd_lowest64(keys, (uint32_t)n, k, sc_on, ref, filt != 0, strict,
                                            thr, fref, sorted, tie_idx)) {
                                fprintf(stderr,
                                        "dtype=%d n=%llu dist=%d k=%llu scale=%d filter=%d "
                                        "strict=%d\n",
                                        dtype, (unsigned long long)n, dist, (unsigned long long)k,
                                        scale, filt, strict);
                                return 1;
                            }
                            bool must_fall = take < n && filt == 4 && piv != UINT64_MAX;
                            if (rc < 0 || got != take || (must_fall && !fell)) {
                                fprintf(stderr,
                                        "dtype=%d n=%llu dist=%d k=%llu scale=%d filter=%d "
                                        "strict=%d: rc %d, %u of %u, fell back %d\n",
                                        dtype, (unsigned long long)n, dist, (unsigned long long)k,
                                        scale, filt, strict, rc, got, take, fell);
                                return 1;
                            }
                            falls += fell;
                            qsort(out, take, sizeof *out, rd_cmp_desc64);
                            for (uint32_t i = 0; i < take; i++)
                                if (out[i] != sorted[i]) {
                                    fprintf(stderr,
                                            "dtype=%d n=%llu dist=%d k=%llu sc=%d: rank %u is "
                                            "%016llx, expected %016llx\n",
                                            dtype, (unsigned long long)n, dist,
                                            (unsigned long long)k, sc, i,
                                            (unsigned long long)out[i],
                                            (unsigned long long)sorted[i]);
                                    return 1;
                                }
                            cases++;
                        }
                    free(keys);
                    free(sorted);
                    free(out);
                    free(tie_idx);
                    pb_topk_problem_free(&p);
                }
    printf("%ld model runs on 64-bit keys, %ld filter fallbacks, %ld strict filters with the "
           "pivot at the threshold\n",
           cases, falls, rd_strict_pivot - strict_before);
    ASSERT(falls > 0);
    ASSERT(rd_strict_pivot > strict_before);
    return 0;
}

/* The CPU groundwork of the top-k family (issue 7): the order-preserving
 * key and its NaN policy, the problem generator, the C twin, the omp-topk
 * module and the family check every top-k module is verified by.
 *
 *  - key known answers: -inf < -1 < -0.0 < +0.0 < 1 < +inf < NaN, every NaN
 *    (either sign, quiet or signalling, any payload) one key above +inf;
 *  - the twin equals a naive full sort (qsort of the row's keys) at n in
 *    {1, 2, 3, 2^j - 1, 2^j, 2^j + 1, 1000003} x k in {1, 2, 31, 32, 33,
 *    1000, n/2, n-1, n, beyond n} x every distribution x largest/smallest x
 *    every dtype (f32, u32, i32), single rows and ragged, misaligned batches;
 *  - generation depends on the seed only, not on the thread count; the
 *    layout (misalignment, ragged lengths, padding) is what the header says;
 *  - omp-topk with 1, 2 and 3 threads selects the same indices;
 *  - the check catches a wrong value, a value not among the best, a
 *    duplicated index, an index outside the row and a wrong k, naming the
 *    row;
 *  - issue 21's distributions (relu, few:L, int8, masked:F, sorted,
 *    reversed) have their shapes, every dtype, and omp-topk passes the
 *    check on them at awkward n and k (k past the distinct values);
 *  - ties = lowest-index: the twin equals a brute force (sort by key
 *    descending, index ascending, take k) on the heavy-tie distributions,
 *    -0.0/+0.0 and NaNs included; omp-topk returns the twin's index set;
 *    the check rejects a tied key of a larger index returned in place of a
 *    smaller one (which `any` accepts);
 *  - fp64 and u64 (64-bit keys, 96-bit candidates): the key over every
 *    class of bit pattern and random ones against the double compare
 *    (topk_key64_order); the draws against the fp32 draw and in their u64
 *    shapes (topk_dist_shapes_64); the check's catches and the NaN policy
 *    (topk_check_catches_64); ties among zeros, NaNs, subnormals and u64
 *    values apart in their low or high words only (topk_ties_zeros_nans_64);
 *    and a sample of the sweeps above (the twin against the naive sort and
 *    the brute force, omp-topk by thread count, sorted = yes, generation),
 *    which say which sizes and distributions, for CI's time. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "config/params.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_problem.h"
#include "families/topk/topk_select.h"
#include "registry/registry.h"
#include "tests/test.h"

/* ---- helpers ---- */

typedef struct tk_cfg {
    uint64_t n, k, rows;
    int ragged, misalign, largest, dist, dtype;
    uint64_t seed;
    int ties; /* pb_topk_ties; 0 (any) where a config leaves it out */
} tk_cfg;

/* Every distribution as a config writes it; the first 8 in enum order (so
 * PB_TOPK_UNIFORM .. PB_TOPK_NAN index them), then the parameterised and
 * ordered ones of issue 21. A tk_cfg's dist indexes this list. */
static const char *const dist_values[] = {
    "uniform", "narrow", "narrow128", "zipf",  "normal",     "equal",  "inf",     "nan",
    "relu",    "few:2",  "few:16",    "few:256", "int8", "masked:0.5", "sorted", "reversed",
    "masked:0", "masked:1", "few:1", "masked:0.001"};
enum { NDV = sizeof dist_values / sizeof dist_values[0], NDV_SWEEP = 16 };
static const char *const dtype_names[] = {"f32", "u32", "i32", "f16", "bf16", "f64", "u64"};

static void tk_params(const tk_cfg *c, pb_params *params)
{
    pb_params_defaults(pb_module_find("omp-topk"), params);
    params->v[PB_TOPK_P_K] = (long long)c->k;
    params->v[PB_TOPK_P_ROWS] = (long long)c->rows;
    params->v[PB_TOPK_P_RAGGED] = c->ragged;
    params->v[PB_TOPK_P_MISALIGN] = c->misalign;
    params->v[PB_TOPK_P_LARGEST] = c->largest;
    pb_err err;
    if (pb_params_set(pb_module_find("omp-topk"), params, "dist", dist_values[c->dist], &err))
        fprintf(stderr, "dist=%s: %s\n", dist_values[c->dist], err.msg);
    params->v[PB_TOPK_P_DTYPE] = c->dtype;
    params->v[PB_TOPK_P_TIES] = c->ties;
}

/* The problem of c, with sorted = yes if `sorted`. */
static int tk_init_sorted(pb_topk_problem *p, const tk_cfg *c, int sorted)
{
    pb_params params;
    tk_params(c, &params);
    params.v[PB_TOPK_P_SORTED] = sorted;
    pb_point pt = {c->n, 4, c->seed, &params, 0};
    pb_err err;
    if (pb_topk_problem_init(p, &pt, &err)) {
        fprintf(stderr, "init n=%llu k=%llu rows=%llu: %s\n", (unsigned long long)c->n,
                (unsigned long long)c->k, (unsigned long long)c->rows, err.msg);
        return -1;
    }
    return 0;
}

static int tk_init(pb_topk_problem *p, const tk_cfg *c) { return tk_init_sorted(p, c, 0); }

static void tk_describe(const tk_cfg *c)
{
    fprintf(stderr,
            "  at n=%llu k=%llu rows=%llu ragged=%d misalign=%d largest=%d dist=%s dtype=%s\n",
            (unsigned long long)c->n, (unsigned long long)c->k, (unsigned long long)c->rows,
            c->ragged, c->misalign, c->largest, dist_values[c->dist], dtype_names[c->dtype]);
}

static uint32_t fbits(float f)
{
    return pb_topk_float_bits(f);
}

static float as_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* The value of a 16-bit float's bits (fp16 or bf16), exactly, as a double. */
static double half_value(uint32_t b, int dtype)
{
    int bf = dtype == PB_TOPK_BF16;
    unsigned mbits = bf ? 7 : 10, ebits = bf ? 8 : 5;
    unsigned e = (b >> mbits) & ((1u << ebits) - 1), m = b & ((1u << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1;
    double s = (b & 0x8000u) ? -1.0 : 1.0;
    if (e == (1u << ebits) - 1) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, 1 - bias - (int)mbits);
    return s * ldexp((double)(m | (1u << mbits)), (int)e - bias - (int)mbits);
}

static int cmp_u64_desc(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a < b) - (a > b);
}

/* Every row's order keys (any dtype, widened to 64 bits) sorted best first
 * by qsort: the naive reference. */
static uint64_t *naive_sorted(const pb_topk_problem *p)
{
    uint64_t elems = 0;
    for (uint64_t r = 0; r < p->rows; r++) elems += pb_topk_row_len(p, r);
    uint64_t *s = malloc((elems ? elems : 1) * sizeof *s);
    uint64_t at = 0;
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r);
        for (uint64_t i = 0; i < len; i++)
            s[at + i] = pb_topk_problem_okey64(p, pb_topk_value_at(p, p->begin[r] + i));
        qsort(s + at, len, sizeof *s, cmp_u64_desc);
        at += len;
    }
    return s;
}

/* The twin against the naive sort: row r's twin keys are the first
 * min(k, len) of its sorted keys, in order (the twin is in rank order), and
 * its indices point at its values. */
static int twin_matches(pb_topk_problem *p, const uint64_t *sorted)
{
    pb_err err;
    if (pb_topk_twin_answer(p, &err)) {
        fprintf(stderr, "twin: %s\n", err.msg);
        return 1;
    }
    uint64_t at = 0;
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r), o = p->out_off[r], m = p->out_off[r + 1] - o;
        if (m != (p->k < len ? p->k : len)) {
            fprintf(stderr, "row %llu: %llu results for k=%llu of %llu\n", (unsigned long long)r,
                    (unsigned long long)m, (unsigned long long)p->k, (unsigned long long)len);
            return 1;
        }
        for (uint64_t j = 0; j < m; j++) {
            uint32_t i = p->twin_idx[o + j];
            uint64_t v = pb_topk_out_value(p, pb_topk_twin_values(p), o + j);
            if (i >= len || pb_topk_value_at(p, p->begin[r] + i) != v ||
                pb_topk_problem_okey64(p, v) != sorted[at + j]) {
                fprintf(stderr, "row %llu result %llu: index %u value 0x%llx, sorted key 0x%llx\n",
                        (unsigned long long)r, (unsigned long long)j, i, (unsigned long long)v,
                        (unsigned long long)sorted[at + j]);
                return 1;
            }
        }
        at += len;
    }
    /* And the check accepts the twin's own answer (distinct indices). */
    if (pb_topk_check(p, pb_topk_twin_values(p), p->twin_idx, &err)) {
        fprintf(stderr, "check of the twin: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* k values to try at row length n: the list where valid, and
 * beyond n (the whole row). Returns how many. */
static int k_list(uint64_t n, uint64_t *ks)
{
    const uint64_t fixed[] = {1, 2, 31, 32, 33, 1000};
    int c = 0;
    for (int i = 0; i < 6; i++)
        if (fixed[i] <= n) ks[c++] = fixed[i];
    if (n >= 2) ks[c++] = n / 2;
    if (n >= 2) ks[c++] = n - 1;
    if (n >= 1) ks[c++] = n;
    ks[c++] = n + 3;
    return c;
}

/* ---- the key ---- */

TEST_IMPL(topk_key_order)
{
    /* Ascending, each strictly above the one before. */
    const uint32_t ascending[] = {
        0xff800000u,               /* -inf */
        0xff7fffffu,               /* -FLT_MAX */
        fbits(-1.0f), 0x80000001u, /* the negative subnormal nearest 0 */
        0x80000000u,               /* -0.0 */
        0x00000000u,               /* +0.0 */
        0x00000001u,               /* the smallest positive subnormal */
        fbits(1.0f),  0x7f7fffffu, /* FLT_MAX */
        0x7f800000u,               /* +inf */
        0x7fc00000u,               /* NaN */
    };
    size_t n = sizeof ascending / sizeof ascending[0];
    for (size_t i = 1; i < n; i++)
        ASSERT(pb_topk_key_bits(ascending[i - 1]) < pb_topk_key_bits(ascending[i]));
    /* Known answers. */
    ASSERT_EQ_U64(pb_topk_key(1.0f), 0xbf800000u);
    ASSERT_EQ_U64(pb_topk_key(-1.0f), 0x407fffffu);
    ASSERT_EQ_U64(pb_topk_key(0.0f), 0x80000000u);
    ASSERT_EQ_U64(pb_topk_key(-0.0f), 0x7fffffffu);
    ASSERT_EQ_U64(pb_topk_key(INFINITY), 0xff800000u);
    ASSERT_EQ_U64(pb_topk_key(-INFINITY), 0x007fffffu);
    ASSERT_EQ_U64(pb_topk_key(NAN), PB_TOPK_NAN_KEY);
    /* Every NaN is the canonical one: negative, signalling, any payload. */
    const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                             0x7fffffffu, 0xffffffffu, 0x7fa00000u, 0xffdeadbeu};
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        ASSERT_EQ_U64(pb_topk_key_bits(nans[i]), PB_TOPK_NAN_KEY);
        ASSERT(pb_topk_key_bits(nans[i]) > pb_topk_key(INFINITY));
        /* Smallest: a NaN is the last choice, after +inf. */
        ASSERT(pb_topk_order_key(pb_topk_key_bits(nans[i]), 0) <
               pb_topk_order_key(pb_topk_key(INFINITY), 0));
    }
    ASSERT_EQ_U64(pb_topk_key_to_bits(PB_TOPK_NAN_KEY), PB_TOPK_NAN_BITS);
    /* Order keys: smallest reverses the order; u32 keys are the values. */
    ASSERT(pb_topk_order_key(pb_topk_key(-1.0f), 0) > pb_topk_order_key(pb_topk_key(1.0f), 0));
    ASSERT_EQ_U64(pb_topk_key_of(12345u, PB_TOPK_U32), 12345u);
    /* i32: signed order as unsigned keys, and back. */
    ASSERT(pb_topk_key_of((uint32_t)-1, PB_TOPK_I32) < pb_topk_key_of(0u, PB_TOPK_I32));
    ASSERT(pb_topk_key_of(0x80000000u, PB_TOPK_I32) == 0u); /* INT32_MIN: the least key */
    ASSERT(pb_topk_key_of(0x7fffffffu, PB_TOPK_I32) == UINT32_MAX);
    ASSERT_EQ_U64(pb_topk_raw_of(pb_topk_okey_of((uint32_t)-5, PB_TOPK_I32, 0), PB_TOPK_I32, 0),
                  (uint32_t)-5);
    ASSERT(pb_topk_raw_may_reach((uint32_t)-3, (uint32_t)-4, PB_TOPK_I32, 1));
    ASSERT(!pb_topk_raw_may_reach((uint32_t)-5, (uint32_t)-4, PB_TOPK_I32, 1));
    ASSERT_EQ_U64(pb_topk_key_of(fbits(1.0f), PB_TOPK_F32), 0xbf800000u);
    /* Over many bit patterns: the key orders like the floats (for
     * non-NaNs; -0.0 just below +0.0) and inverts back. */
    uint64_t x = 1;
    for (int i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t a = (uint32_t)(x >> 32), b = (uint32_t)x;
        float fa, fb;
        memcpy(&fa, &a, 4);
        memcpy(&fb, &b, 4);
        if (isnan(fa) || isnan(fb)) continue;
        ASSERT_EQ_U64(pb_topk_key_to_bits(pb_topk_key_bits(a)), a);
        if (fa < fb) ASSERT(pb_topk_key_bits(a) < pb_topk_key_bits(b));
        if (fa > fb) ASSERT(pb_topk_key_bits(a) > pb_topk_key_bits(b));
    }
    return 0;
}

/* fp16 and bf16 keys: over every 16-bit pattern, the key orders like the
 * value (NaNs all one key, above +inf; -0 just below +0) and inverts back
 * (NaNs to the canonical one); smallest's order keys reverse the order and
 * stay below 2^16. Known answers for 1.0, -inf and the NaNs. */
TEST_IMPL(topk_key16_order)
{
    for (int dtype = PB_TOPK_F16; dtype <= PB_TOPK_BF16; dtype++) {
        uint32_t nan = dtype == PB_TOPK_F16 ? PB_TOPK_F16_NAN_BITS : PB_TOPK_BF16_NAN_BITS;
        uint32_t nan_key = pb_topk_key_of(nan, dtype);
        ASSERT(nan_key == (nan | 0x8000u));
        for (uint32_t a = 0; a < 65536; a++) {
            double va = half_value(a, dtype);
            uint32_t ka = pb_topk_key_of(a, dtype);
            ASSERT(ka < 65536);
            ASSERT(pb_topk_okey_of(a, dtype, 0) == (ka ^ 0xffffu));
            if (isnan(va)) {
                ASSERT_EQ_U64(ka, nan_key);
                ASSERT_EQ_U64(pb_topk_raw_of(ka, dtype, 1), nan);
                continue;
            }
            ASSERT(ka < nan_key);
            ASSERT_EQ_U64(pb_topk_raw_of(ka, dtype, 1), a);
            ASSERT_EQ_U64(pb_topk_raw_of(pb_topk_okey_of(a, dtype, 0), dtype, 0), a);
            /* Against a neighbour in value order: the next pattern up. */
            uint32_t b = (a + 0x1234u) & 0xffffu;
            double vb = half_value(b, dtype);
            if (isnan(vb)) continue;
            uint32_t kb = pb_topk_key_of(b, dtype);
            if (va < vb) ASSERT(ka < kb);
            if (va > vb) ASSERT(ka > kb);
            if (va == vb && a != b) ASSERT((a == 0x8000u) == (ka < kb)); /* -0 below +0 */
        }
    }
    ASSERT_EQ_U64(pb_topk_key_of(0x3c00u, PB_TOPK_F16), 0xbc00u); /* fp16 1.0 */
    ASSERT_EQ_U64(pb_topk_key_of(0x3f80u, PB_TOPK_BF16), 0xbf80u); /* bf16 1.0 */
    ASSERT_EQ_U64(pb_topk_key_of(0xfc00u, PB_TOPK_F16), 0x03ffu);  /* fp16 -inf */
    ASSERT_EQ_U64(pb_topk_key_of(0xfc01u, PB_TOPK_F16), 0xfe00u);  /* a negative NaN */
    ASSERT_EQ_U64(pb_topk_key_of(0x7f81u, PB_TOPK_BF16), 0xffc0u); /* a signalling NaN */
    ASSERT_EQ_U64(pb_topk_dtype_bytes(PB_TOPK_F16), 2);
    ASSERT_EQ_U64(pb_topk_dtype_bytes(PB_TOPK_BF16), 2);
    ASSERT_EQ_U64(pb_topk_dtype_bytes(PB_TOPK_I32), 4);
    return 0;
}

/* The nearest 16-bit float to fp32 bits x, ties to the even pattern, found
 * by bisection over the magnitudes (a reference for the bit-twiddling
 * conversion): inf counts as the next step past the largest finite value,
 * so values from the midpoint up round to it, as IEEE rounding does. */
static uint32_t nearest_half(uint32_t x, int dtype)
{
    float f;
    memcpy(&f, &x, 4);
    uint32_t sign = (x >> 16) & 0x8000u, inf = dtype == PB_TOPK_F16 ? 0x7c00u : 0x7f80u;
    double a = fabs((double)f), ulp_top = half_value(inf - 1, dtype) - half_value(inf - 2, dtype);
    uint32_t lo = 0, hi = inf; /* value(lo) <= a, search the largest such */
    double top = half_value(inf - 1, dtype) + ulp_top;
    if (a >= top) return sign | inf;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        double v = mid == inf ? top : half_value(mid, dtype);
        if (v <= a) lo = mid;
        else hi = mid - 1;
    }
    if (lo == inf) return sign | inf;
    double vlo = half_value(lo, dtype), vhi = lo + 1 == inf ? top : half_value(lo + 1, dtype);
    uint32_t q = lo;
    if (a - vlo > vhi - a || (a - vlo == vhi - a && (lo & 1))) q = lo + 1;
    return sign | q;
}

/* The 16-bit draws' rounding (pb_topk_f32_to_f16 / _bf16) against the
 * bisection reference, on special values and a million random fp32
 * patterns each: to nearest, ties to even, overflow to inf, subnormals,
 * signed zeros; NaNs stay NaNs. */
/* pb_topk_okey16x2 (two 16-bit order keys a word) equals pb_topk_okey_of
 * on each half, for every pair of a value with each of a spread of
 * others (every pattern in both halves, NaNs of both signs and every
 * payload among them), fp16 and bf16, largest and smallest. */
TEST_IMPL(topk_key16_pairs)
{
    static const uint32_t other[] = {0x0000u, 0x8000u, 0x7c00u, 0xfc00u, 0x7f80u, 0xff80u,
                                     0x7e00u, 0x7fc0u, 0x7c01u, 0xffffu, 0x3c00u, 0xbc00u};
    for (int dtype = PB_TOPK_F16; dtype <= PB_TOPK_BF16; dtype++)
        for (int largest = 0; largest < 2; largest++)
            for (uint32_t a = 0; a < 0x10000u; a++)
                for (size_t j = 0; j < sizeof other / sizeof other[0] + 1; j++) {
                    uint32_t b = j < sizeof other / sizeof other[0] ? other[j] : (a * 40503u) & 0xffffu;
                    uint32_t lo = pb_topk_okey_of(a, dtype, largest);
                    uint32_t hi = pb_topk_okey_of(b, dtype, largest);
                    uint32_t two = pb_topk_okey16x2(a | b << 16, dtype, largest);
                    if (two != (lo | hi << 16)) {
                        fprintf(stderr, "dtype %d largest %d: %04x %04x -> %08x, want %08x\n", dtype,
                                largest, a, b, two, lo | hi << 16);
                        return 1;
                    }
                    two = pb_topk_okey16x2(b | a << 16, dtype, largest);
                    ASSERT(two == (hi | lo << 16));
                }
    return 0;
}

TEST_IMPL(topk_half_rounding)
{
    const uint32_t special[] = {0,           0x80000000u, fbits(1.0f),  fbits(-1.0f), fbits(65504.0f),
                                fbits(65519.99f), fbits(65520.0f), fbits(65536.0f), 0x477ff000u,
                                0x477fefffu, 0x33000000u, 0x33000001u, 0x38800000u, 0x387fffffu,
                                0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x00000001u, 0x3f808000u,
                                0x3f818000u, 0x3f808001u, fbits(0.1f), fbits(1.0f / 3.0f)};
    enum { NS = sizeof special / sizeof special[0] };
    uint64_t s = 99;
    for (int dtype = PB_TOPK_F16; dtype <= PB_TOPK_BF16; dtype++)
        for (long i = 0; i < NS + 1000000; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t x = i < NS ? special[i] : (uint32_t)(s >> 32);
            uint32_t got = dtype == PB_TOPK_F16 ? pb_topk_f32_to_f16(x) : pb_topk_f32_to_bf16(x);
            ASSERT(got < 65536);
            if (isnan(as_f32(x))) {
                ASSERT(isnan(half_value(got, dtype)));
                ASSERT((got & 0x8000u) == ((x >> 16) & 0x8000u));
                continue;
            }
            uint32_t want = nearest_half(x, dtype);
            if (got != want) {
                fprintf(stderr, "%s of %08x (%g): %04x, want %04x\n", dtype_names[dtype], x,
                        (double)as_f32(x), got, want);
                return 1;
            }
        }
    ASSERT_EQ_U64(pb_topk_f32_to_f16(fbits(1.0f)), 0x3c00u);
    ASSERT_EQ_U64(pb_topk_f32_to_f16(fbits(65504.0f)), 0x7bffu);
    ASSERT_EQ_U64(pb_topk_f32_to_f16(fbits(65520.0f)), 0x7c00u);
    ASSERT_EQ_U64(pb_topk_f32_to_bf16(fbits(1.0f)), 0x3f80u);
    return 0;
}

/* The raw pre-test (pb_topk_raw_may_reach, radik's `quick` filter) never
 * drops a value whose order key reaches the threshold: over special values
 * (NaNs of both signs, +-0, +-inf, subnormals, extremes) and random bit
 * patterns as both value and threshold, fp32 and u32, largest and
 * smallest; and it does drop values well below the threshold (it must
 * filter something to be worth a compare). */
TEST_IMPL(topk_raw_may_reach)
{
    const uint32_t special[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7f800000u,
                                0xff800000u, 0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u,
                                0x7f7fffffu, 0xff7fffffu, fbits(1.0f),  fbits(-1.0f), 0xffffffffu,
                                0x3f000000u};
    enum { NS = sizeof special / sizeof special[0] };
    uint64_t x = 7;
    long dropped = 0;
    for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
        for (int largest = 0; largest < 2 && !pb_topk_dtype_is64(dtype); largest++)
            for (int i = 0; i < NS + 20000; i++) {
                /* (The 64-bit types have no raw pre-test: radik, its user,
                 * refuses them.) 16-bit types: their values and order keys are 16 bits
                 * (the specials' low halves stand in for 16-bit ones). */
                uint32_t mask = pb_topk_dtype_is16(dtype) ? 0xffffu : 0xffffffffu;
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t v = (i < NS ? special[i] : (uint32_t)(x >> 32)) & mask;
                for (int j = 0; j < NS + 8; j++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    /* Thresholds are order keys (radik's are keys of values). */
                    uint32_t thr = j < NS ? pb_topk_okey_of(special[j] & mask, dtype, largest)
                                          : (uint32_t)(x >> 32) & mask;
                    uint32_t tq = pb_topk_raw_of(thr, dtype, largest);
                    int reach = pb_topk_okey_of(v, dtype, largest) >= thr;
                    int may = pb_topk_raw_may_reach(v, tq, dtype, largest);
                    if (reach && !may) {
                        fprintf(stderr, "dtype %d largest %d: value %08x reaches %08x, dropped\n",
                                dtype, largest, v, thr);
                        return 1;
                    }
                    dropped += !may;
                }
            }
    ASSERT(dropped > 100000);
    /* Known answers: 0.5 against a threshold of 1.0 (largest) is dropped,
     * 2.0 kept; a NaN value always may pass. */
    uint32_t one = pb_topk_raw_of(pb_topk_okey_of(fbits(1.0f), PB_TOPK_F32, 1), PB_TOPK_F32, 1);
    ASSERT_EQ_U64(one, fbits(1.0f));
    ASSERT(!pb_topk_raw_may_reach(fbits(0.5f), one, PB_TOPK_F32, 1));
    ASSERT(pb_topk_raw_may_reach(fbits(2.0f), one, PB_TOPK_F32, 1));
    ASSERT(pb_topk_raw_may_reach(0x7fc00000u, one, PB_TOPK_F32, 1));
    ASSERT(pb_topk_raw_may_reach(fbits(0.5f), one, PB_TOPK_F32, 0));
    ASSERT(!pb_topk_raw_may_reach(7u, 8u, PB_TOPK_U32, 1));
    ASSERT(pb_topk_raw_may_reach(7u, 8u, PB_TOPK_U32, 0));
    return 0;
}

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
    return dist == PB_TOPK_UNIFORM || strcmp(dist_values[dist], "few:16") == 0 ||
           (dtype == PB_TOPK_F64 && dist == PB_TOPK_NAN);
}

/* Every k of k_list at row length n (single rows) or around it (batches)
 * for every distribution, direction and dtype. */
static int twin_sweep(const uint64_t *sizes, size_t nsizes, uint64_t rows, int batch)
{
    int tried = 0;
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
                    uint64_t ks[16];
                    int nk = k_list(sizes[s], ks);
                    tk_cfg c = {sizes[s], ks[0], rows,  batch,   batch,
                                largest,  dist,  dtype, 1000 + s, 0};
                    pb_topk_problem p;
                    if (tk_init(&p, &c)) return 1;
                    /* One input for every k: the data does not depend on k. */
                    uint64_t *sorted = naive_sorted(&p);
                    for (int q = 0; q < nk; q++) {
                        c.k = ks[q];
                        pb_topk_problem_set_k(&p, ks[q]);
                        if (twin_matches(&p, sorted)) {
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
            const char *dv = dist_values[dist];
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

/* ---- issue 21's distributions ---- */

static int dist_index(const char *v)
{
    for (int d = 0; d < NDV; d++)
        if (strcmp(dist_values[d], v) == 0) return d;
    return -1;
}

static int cmp_u32_asc(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Distinct values among n raw values. */
static uint64_t distinct_values(const uint32_t *v, uint64_t n)
{
    uint32_t *c = malloc((n ? n : 1) * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    qsort(c, n, sizeof *c, cmp_u32_asc);
    uint64_t d = 0;
    for (uint64_t i = 0; i < n; i++) d += i == 0 || c[i] != c[i - 1];
    free(c);
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
    tk_cfg c = {N, 1, 1, 0, 0, 1, dist_index("relu"), PB_TOPK_F32, 21, 0};
    ASSERT(tk_init(&p, &c) == 0);
    c.dtype = PB_TOPK_U32;
    ASSERT(tk_init(&q, &c) == 0);
    uint64_t zeros = 0;
    double sum = 0;
    for (uint64_t i = 0; i < N; i++) {
        float f = as_f32(p.data[i]);
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
            tk_cfg fc = {N, 1, 1, 0, 0, 1, dist_index(few[f]), dtype, 22, 0};
            ASSERT(tk_init(&p, &fc) == 0);
            ASSERT_EQ_U64(distinct_values(p.data, N), levels[f]);
            uint64_t step = (UINT64_C(1) << 32) / levels[f];
            for (uint64_t i = 0; i < N; i++) {
                if (dtype == PB_TOPK_U32) {
                    ASSERT(p.data[i] % step == 0);
                } else if (dtype == PB_TOPK_I32) {
                    ASSERT((p.data[i] ^ 0x80000000u) % step == 0); /* from INT32_MIN up */
                } else {
                    double x = (double)as_f32(p.data[i]) * (double)levels[f];
                    ASSERT(x >= 0 && x < (double)levels[f] && fabs(x - round(x)) < 1e-3);
                }
            }
            pb_topk_problem_free(&p);
        }

    /* int8 */
    for (int dtype = 0; dtype < 3; dtype++) {
        tk_cfg ic = {N, 1, 1, 0, 0, 1, dist_index("int8"), dtype, 23, 0};
        ASSERT(tk_init(&p, &ic) == 0);
        ASSERT_EQ_U64(distinct_values(p.data, N), 256);
        for (uint64_t i = 0; i < N; i++) {
            if (dtype == PB_TOPK_U32) {
                ASSERT(p.data[i] <= 255);
            } else if (dtype == PB_TOPK_I32) {
                int32_t v = (int32_t)p.data[i];
                ASSERT(v >= -128 && v <= 127);
            } else {
                float f = as_f32(p.data[i]);
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
            tk_cfg mc = {N, 1, 1, 0, 0, 1, dist_index(masked[m]), dtype, 24, 0};
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
                    float f = as_f32(p.data[i]);
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
                             dist_index(rev ? "reversed" : "sorted"), dtype, 25, 0};
                ASSERT(tk_init(&p, &oc) == 0);
                for (uint64_t r = 0; r < p.rows; r++) {
                    const uint32_t *row = p.data + p.begin[r];
                    uint64_t len = pb_topk_row_len(&p, r);
                    for (uint64_t i = 0; i < len; i++) {
                        uint32_t key = pb_topk_key_of(row[i], dtype);
                        if (dtype == PB_TOPK_F32)
                            ASSERT(as_f32(row[i]) >= 0 && as_f32(row[i]) < 1);
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
            const char *dv = dist_values[dist];
            int ordered = strcmp(dv, "sorted") == 0 || strcmp(dv, "reversed") == 0;
            tk_cfg c = {ordered ? 1001 : 4099, 1, 3, 0, 1, dist & 1, dist, dtype, 31, 0};
            pb_topk_problem p, q;
            ASSERT(tk_init(&p, &c) == 0);
            for (uint64_t i = 0; i < p.total; i++) ASSERT(p.data[i] < 65536);
            if (ordered) {
                for (uint64_t r = 0; r < p.rows; r++)
                    for (uint64_t i = p.begin[r] + 1; i < p.end[r]; i++) {
                        double a = half_value(p.data[i - 1], dtype), b = half_value(p.data[i], dtype);
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
                double v = half_value(p.data[i], dtype);
                ASSERT(c.largest ? isnan(v) : v == -INFINITY);
            }
            pb_topk_problem_free(&p);
        }
    return 0;
}

static int run_module(const tk_cfg *c, int threads);

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
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int dist = PB_TOPK_NAN + 1; dist < NDV; dist++)
            for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
                for (int batch = 0; batch < 2; batch++) {
                    uint64_t n = sizes[si];
                    if (batch && n > 4097) continue;
                    /* The 64-bit types at three of the sizes (CI's time). */
                    if (pb_topk_dtype_is64(dtype) && n != 3 && n != 257 && n != 1025) continue;
                    uint64_t ks[16];
                    int nk = 0;
                    uint64_t want[12] = {1, 2, n - 1, n};
                    int nw = 4;
                    const char *dv = dist_values[dist];
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
                        ASSERT(run_module(&c, 2) == 0);
                        c.largest ^= 1;
                        ASSERT(run_module(&c, 2) == 0);
                        runs += 2;
                    }
                }
    printf("%d omp-topk runs\n", runs);
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

/* ---- the module ---- */

/* omp-topk through its descriptor with `threads`, as the harness drives it:
 * two runs, then its verify (the family check). */
static int run_module_sorted(const tk_cfg *c, int threads, int sorted)
{
    const pb_module *m = pb_module_find("omp-topk");
    pb_params params;
    tk_params(c, &params);
    params.v[PB_TOPK_P_SORTED] = sorted;
    params.v[pb_module_param_index(m, "threads")] = threads;
    pb_point pt = {c->n, 4, c->seed, &params, threads};
    void *state = NULL;
    pb_err err;
    const void *res;
    int rc = m->prepare(&pt, &state, &err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = m->run(state, s, &err);
    rc = rc || m->result(state, &res, &err) || m->verify(state, &err);
    if (rc) {
        fprintf(stderr, "omp-topk threads=%d: %s\n", threads, err.msg);
        tk_describe(c);
    }
    if (state) m->release(state);
    return rc;
}

static int run_module(const tk_cfg *c, int threads) { return run_module_sorted(c, threads, 0); }

/* omp-topk passes the check with 1, 2 and 3 threads, and its selection
 * (the same code) picks the same index set per row whatever the thread
 * count: the candidates are distinct, so the k best are one set. */
TEST_IMPL(topk_omp_threads)
{
    const tk_cfg cfgs[] = {
        {1000003, 1, 1, 0, 0, 1, PB_TOPK_UNIFORM, PB_TOPK_F32, 8, 0},
        {1000003, 32, 1, 0, 1, 1, PB_TOPK_EQUAL, PB_TOPK_F32, 8, 0},
        {1000003, 1000, 1, 0, 0, 0, PB_TOPK_NAN, PB_TOPK_F32, 8, 0},
        {1000003, 500001, 1, 0, 0, 1, PB_TOPK_NARROW128, PB_TOPK_F32, 8, 0},
        {1000003, 1000003, 1, 0, 0, 1, PB_TOPK_NORMAL, PB_TOPK_F32, 8, 0},
        {300000, 1000, 2, 1, 1, 1, PB_TOPK_ZIPF, PB_TOPK_F32, 8, 0},
        {300000, 100000, 2, 1, 1, 0, PB_TOPK_INF, PB_TOPK_U32, 8, 0},
        {10000, 33, 17, 1, 1, 1, PB_TOPK_UNIFORM, PB_TOPK_U32, 8, 0},
        {10000, 7000, 17, 1, 1, 0, PB_TOPK_EQUAL, PB_TOPK_F32, 8, 0},
        /* 64-bit keys: split long rows, a whole row, a batch. */
        {1000003, 1000, 1, 0, 1, 1, PB_TOPK_NAN, PB_TOPK_F64, 8, 0},
        {100003, 100003, 1, 0, 0, 0, PB_TOPK_NORMAL, PB_TOPK_F64, 8, 0},
        {300000, 100000, 2, 1, 1, 0, PB_TOPK_UNIFORM, PB_TOPK_U64, 8, 0},
        {10000, 33, 17, 1, 1, 1, PB_TOPK_ZIPF, PB_TOPK_U64, 8, 0},
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        pb_topk_problem p;
        ASSERT(tk_init(&p, &cfgs[c]) == 0);
        uint64_t outs = p.out_total;
        uint64_t *v = malloc((outs + 1) * 8); /* room for either word */
        uint32_t *ix[3], *tmp = malloc((outs + 1) * 4);
        for (int t = 0; t < 3; t++) {
            ASSERT(run_module(&cfgs[c], t + 1) == 0);
            pb_topk_ws ws;
            pb_err err;
            ix[t] = malloc((outs + 1) * 4);
            ASSERT(pb_topk_ws_init(&ws, &p, t + 1, &err) == 0);
            pb_topk_select(&p, &ws, v, ix[t]);
            pb_topk_ws_free(&ws);
            ASSERT(pb_topk_check(&p, v, ix[t], &err) == 0);
        }
        for (uint64_t r = 0; r < p.rows; r++) {
            uint64_t o = p.out_off[r], m = p.out_off[r + 1] - o;
            for (int t = 0; t < 3; t++) pb_topk_sort_u32(ix[t] + o, tmp, (size_t)m);
            ASSERT(memcmp(ix[0] + o, ix[1] + o, m * 4) == 0);
            ASSERT(memcmp(ix[0] + o, ix[2] + o, m * 4) == 0);
        }
        free(v), free(tmp);
        for (int t = 0; t < 3; t++) free(ix[t]);
        pb_topk_problem_free(&p);
    }
    return 0;
}

TEST_IMPL(topk_module_descriptor)
{
    const pb_module *m = pb_module_find("omp-topk");
    ASSERT(m && m->family == &pb_family_topk && m->device == PB_DEVICE_CPU);
    ASSERT(m->verify && m->work && !pb_module_sample_perms(m));
    const char *names[] = {"k", "rows", "ragged", "misalign", "largest", "dist", "dtype", "ties", "sorted"};
    for (int i = 0; i < PB_TOPK_NCOMMON; i++) ASSERT(pb_module_param_index(m, names[i]) == i);
    ASSERT(pb_module_param_index(m, "threads") == PB_TOPK_NCOMMON);
    pb_params params;
    pb_err err;
    pb_params_defaults(m, &params);
    ASSERT(params.v[PB_TOPK_P_K] == 32 && params.v[PB_TOPK_P_ROWS] == 1);
    ASSERT(params.v[PB_TOPK_P_LARGEST] == 1 && params.v[PB_TOPK_P_RAGGED] == 0);
    ASSERT(pb_params_set(m, &params, "dist", "narrow128", &err) == 0);
    ASSERT(params.v[PB_TOPK_P_DIST] == PB_TOPK_NARROW128);
    ASSERT(pb_params_set(m, &params, "k", "2^31", &err) == 0);
    ASSERT(pb_params_set(m, &params, "k", "0", &err) != 0);
    ASSERT(pb_params_set(m, &params, "dtype", "f16", &err) == 0 && params.v[PB_TOPK_P_DTYPE] == PB_TOPK_F16);
    ASSERT(pb_params_set(m, &params, "dtype", "bf16", &err) == 0 && params.v[PB_TOPK_P_DTYPE] == PB_TOPK_BF16);
    ASSERT(pb_params_set(m, &params, "dtype", "f64", &err) == 0 &&
           params.v[PB_TOPK_P_DTYPE] == PB_TOPK_F64);
    ASSERT(pb_params_set(m, &params, "dtype", "u64", &err) == 0 &&
           params.v[PB_TOPK_P_DTYPE] == PB_TOPK_U64);
    ASSERT(pb_params_set(m, &params, "dtype", "f128", &err) != 0);
    ASSERT_CONTAINS(err.msg, "is not one of f32|u32|i32|f16|bf16|f64|u64");
    ASSERT(pb_params_set(m, &params, "dtype", "f32", &err) == 0);
    ASSERT(params.v[PB_TOPK_P_TIES] == PB_TOPK_TIES_ANY);
    ASSERT(pb_params_set(m, &params, "ties", "lowest-index", &err) == 0);
    ASSERT(params.v[PB_TOPK_P_TIES] == PB_TOPK_TIES_LOWEST);
    ASSERT(pb_params_set(m, &params, "ties", "first", &err) != 0);
    ASSERT_CONTAINS(err.msg, "is not one of any|lowest-index");
    ASSERT(params.v[PB_TOPK_P_SORTED] == 0);
    ASSERT(pb_params_set(m, &params, "sorted", "yes", &err) == 0 && params.v[PB_TOPK_P_SORTED] == 1);
    ASSERT(pb_params_set(m, &params, "sorted", "no", &err) == 0 && params.v[PB_TOPK_P_SORTED] == 0);
    ASSERT(pb_params_set(m, &params, "rows", "16", &err) == 0);
    ASSERT(pb_params_set(m, &params, "ragged", "yes", &err) == 0);
    /* Work: rows * n items, ragged too, 4 bytes each. */
    pb_point pt = {1 << 20, 4, 1, &params, 2};
    double items, bytes;
    m->work(&pt, &items, &bytes);
    ASSERT(items == 16.0 * (1 << 20) && bytes == 4 * items);
    ASSERT(m->footprint(&pt) >= 4 * (uint64_t)items);
    /* fp16: 2 bytes a value read; fp64 and u64: 8, and their input twice
     * fp32's on the host. */
    params.v[PB_TOPK_P_DTYPE] = PB_TOPK_F16;
    m->work(&pt, &items, &bytes);
    ASSERT(items == 16.0 * (1 << 20) && bytes == 2 * items);
    uint64_t fp32_bytes = m->footprint(&pt);
    for (int dt = PB_TOPK_F64; dt <= PB_TOPK_U64; dt++) {
        params.v[PB_TOPK_P_DTYPE] = dt;
        m->work(&pt, &items, &bytes);
        ASSERT(items == 16.0 * (1 << 20) && bytes == 8 * items);
        ASSERT(m->footprint(&pt) >= fp32_bytes + 4 * (uint64_t)items);
    }
    params.v[PB_TOPK_P_DTYPE] = PB_TOPK_F32;
    /* 8-byte items are refused with a reason. */
    pt.item_bytes = 8;
    void *state = NULL;
    ASSERT(m->prepare(&pt, &state, &err) != 0);
    ASSERT_CONTAINS(err.msg, "item must be u32");
    m->release(state);
    /* An empty point (n = 0): nothing to select, and that checks. */
    pb_params_defaults(m, &params);
    pb_point empty = {0, 4, 1, &params, 2};
    state = NULL;
    ASSERT(m->prepare(&empty, &state, &err) == 0);
    ASSERT(m->run(state, 0, &err) == 0 && m->verify(state, &err) == 0);
    m->release(state);
    return 0;
}

/* ---- the check ---- */

/* Copies of the twin's answer to corrupt. */
static void twin_copy(const pb_topk_problem *p, uint32_t **v, uint32_t **ix)
{
    *v = malloc(p->out_total * 4);
    *ix = malloc(p->out_total * 4);
    memcpy(*v, p->twin_vals, p->out_total * 4);
    memcpy(*ix, p->twin_idx, p->out_total * 4);
}

TEST_IMPL(topk_check_catches)
{
    tk_cfg c = {1000, 32, 5, 1, 1, 1, PB_TOPK_UNIFORM, PB_TOPK_F32, 31, 0};
    pb_topk_problem p;
    pb_err err;
    ASSERT(tk_init(&p, &c) == 0);
    ASSERT(pb_topk_twin_answer(&p, &err) == 0);
    uint64_t o = p.out_off[2], len = pb_topk_row_len(&p, 2);
    uint32_t *v, *ix;

    /* Unchanged, and in another order within a row: fine. */
    twin_copy(&p, &v, &ix);
    uint32_t t = v[o], u = ix[o];
    v[o] = v[o + 5], ix[o] = ix[o + 5];
    v[o + 5] = t, ix[o + 5] = u;
    ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
    free(v), free(ix);

    /* A wrong value at a right index. */
    twin_copy(&p, &v, &ix);
    v[o + 3] ^= 1;
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: result 3 is");
    ASSERT_CONTAINS(err.msg, "but the row's value at its index");
    free(v), free(ix);

    /* A consistent (index, value) that is not among the best: the row's
     * worst value. */
    twin_copy(&p, &v, &ix);
    uint32_t worst = 0;
    for (uint32_t i = 1; i < len; i++)
        if (pb_topk_problem_okey(&p, p.data[p.begin[2] + i]) <
            pb_topk_problem_okey(&p, p.data[p.begin[2] + worst]))
            worst = i;
    ix[o + 7] = worst;
    v[o + 7] = p.data[p.begin[2] + worst];
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: not the largest 32 values");
    free(v), free(ix);

    /* A duplicated index. */
    twin_copy(&p, &v, &ix);
    ix[o + 1] = ix[o], v[o + 1] = v[o];
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: index");
    ASSERT_CONTAINS(err.msg, "returned twice (again as result 1)");
    free(v), free(ix);

    /* An index outside the row (into the padding or the next row). */
    twin_copy(&p, &v, &ix);
    ix[o + 4] = (uint32_t)len;
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: result 4 has index");
    ASSERT_CONTAINS(err.msg, "outside the row");
    free(v), free(ix);

    /* A module that selected k - 1 or k + 1 per row (in its own compact
     * layout): the rows no longer line up. */
    for (int dk = -1; dk <= 1; dk += 2) {
        tk_cfg c2 = c;
        c2.k = (uint64_t)((int64_t)c.k + dk);
        pb_topk_problem q;
        ASSERT(tk_init(&q, &c2) == 0);
        ASSERT(pb_topk_twin_answer(&q, &err) == 0);
        uint64_t cells = p.out_total > q.out_total ? p.out_total : q.out_total;
        v = calloc(cells, 4), ix = calloc(cells, 4);
        memcpy(v, q.twin_vals, q.out_total * 4);
        memcpy(ix, q.twin_idx, q.out_total * 4);
        ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
        /* k - 1: row 0 lacks its 32nd; k + 1: row 0's are right (its 32
         * best come first, in rank order), row 1 starts one late. */
        ASSERT_CONTAINS(err.msg, dk < 0 ? "row 0:" : "row 1:");
        free(v), free(ix);
        pb_topk_problem_free(&q);
    }
    pb_topk_problem_free(&p);

    /* Smallest: the message says so. */
    c.largest = 0;
    ASSERT(tk_init(&p, &c) == 0);
    ASSERT(pb_topk_twin_answer(&p, &err) == 0);
    twin_copy(&p, &v, &ix);
    uint32_t best = 0;
    for (uint32_t i = 1; i < pb_topk_row_len(&p, 0); i++)
        if (pb_topk_problem_okey(&p, p.data[p.begin[0] + i]) <
            pb_topk_problem_okey(&p, p.data[p.begin[0] + best]))
            best = i;
    ix[0] = best, v[0] = p.data[p.begin[0] + best];
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 0: not the smallest 32 values");
    free(v), free(ix);
    pb_topk_problem_free(&p);
    return 0;
}

/* ---- ties = lowest-index (issue 21) ---- */

/* The distributions with heavy ties, by their place in dist_values:
 * few:2, few:16, few:256, int8, relu, masked:0.5, equal, few:1, masked:1,
 * nan (its NaNs all tie). */
static const char *const tie_dists[] = {"few:2", "few:16",   "few:256", "int8",     "relu",
                                        "masked:0.5", "equal", "few:1", "masked:1", "nan"};
enum { NTIE = sizeof tie_dists / sizeof tie_dists[0] };

/* A value's order key (any dtype, widened to 64 bits) and its index. */
typedef struct tk_pair {
    uint64_t key;
    uint32_t idx;
} tk_pair;

/* Rank order: key descending, then index ascending. */
static int cmp_pair_rank(const void *x, const void *y)
{
    const tk_pair *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? 1 : -1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The brute-force lowest-index answer of row r, written to want[0, m):
 * every (key, index) sorted by key descending, index ascending, the first
 * m indices. Spelled out here rather than through the twin's candidates:
 * for 32-bit keys a qsort of (key << 32 | ~index) descending (tmp as
 * uint64_t, the faster sort), for 64-bit keys a qsort of plain pairs. */
static void brute_lowest(const pb_topk_problem *p, uint64_t r, uint64_t m, tk_pair *tmp,
                         uint32_t *want)
{
    uint64_t len = pb_topk_row_len(p, r);
    if (!pb_topk_dtype_is64(p->dtype)) {
        uint64_t *t = (uint64_t *)tmp;
        const uint32_t *row = p->data + p->begin[r];
        for (uint64_t i = 0; i < len; i++)
            t[i] = (uint64_t)pb_topk_problem_okey(p, row[i]) << 32 | (0xffffffffu - (uint32_t)i);
        qsort(t, len, sizeof *t, cmp_u64_desc);
        for (uint64_t j = 0; j < m; j++) want[j] = 0xffffffffu - (uint32_t)t[j];
        return;
    }
    for (uint64_t i = 0; i < len; i++) {
        tmp[i].key = pb_topk_problem_okey64(p, pb_topk_value_at(p, p->begin[r] + i));
        tmp[i].idx = (uint32_t)i;
    }
    qsort(tmp, len, sizeof *tmp, cmp_pair_rank);
    for (uint64_t j = 0; j < m; j++) want[j] = tmp[j].idx;
}

/* The twin's answer against the brute force, row by row: the same indices
 * in the same (rank) order, so the same set; and the check with ties =
 * lowest-index accepts it. */
static int twin_is_lowest(pb_topk_problem *p)
{
    pb_err err;
    if (pb_topk_twin_answer(p, &err)) {
        fprintf(stderr, "twin: %s\n", err.msg);
        return 1;
    }
    tk_pair *tmp = malloc((p->max_len + 1) * sizeof *tmp);
    uint32_t *want = malloc((p->max_len + 1) * sizeof *want);
    int rc = 0;
    for (uint64_t r = 0; r < p->rows && !rc; r++) {
        uint64_t o = p->out_off[r], m = p->out_off[r + 1] - o;
        brute_lowest(p, r, m, tmp, want);
        for (uint64_t j = 0; j < m && !rc; j++)
            if (p->twin_idx[o + j] != want[j]) {
                fprintf(stderr, "row %llu rank %llu: twin index %u, brute force %u\n",
                        (unsigned long long)r, (unsigned long long)j, p->twin_idx[o + j], want[j]);
                rc = 1;
            }
    }
    free(tmp);
    free(want);
    if (!rc && pb_topk_check(p, pb_topk_twin_values(p), p->twin_idx, &err)) {
        fprintf(stderr, "check of the twin (lowest-index): %s\n", err.msg);
        rc = 1;
    }
    return rc;
}

/* k values for the tie tests at row length n and distribution dv: 1, 2,
 * n - 1, n, past n, and around the number of distinct values. */
static int tie_k_list(uint64_t n, const char *dv, uint64_t *ks)
{
    uint64_t want[16] = {1, 2, n - 1, n, n + 3, 33, 1000};
    int nw = 7, nk = 0;
    if (strncmp(dv, "few:", 4) == 0) {
        uint64_t l = strtoull(dv + 4, NULL, 10);
        want[nw++] = l, want[nw++] = l + 1, want[nw++] = 2 * l + 1;
    } else if (strcmp(dv, "int8") == 0) {
        want[nw++] = 255, want[nw++] = 256, want[nw++] = 257, want[nw++] = 513;
    } else {
        want[nw++] = n / 2, want[nw++] = n / 2 + 1;
    }
    for (int w = 0; w < nw; w++) {
        bool dup = want[w] < 1 || want[w] > n + 3;
        for (int j = 0; j < nk; j++) dup |= ks[j] == want[w];
        if (!dup) ks[nk++] = want[w];
    }
    return nk;
}

/* The twin is the lowest-index answer on every heavy-tie distribution at
 * awkward n (2^j +- 1, rows split across threads at 65537 with 3 threads)
 * and k (1, 2, n - 1, n, past n, at and past the distinct values), both
 * directions and dtypes, single rows and ragged, misaligned batches. */
TEST_IMPL(topk_ties_twin_brute)
{
    const uint64_t sizes[] = {1, 2, 3, 7, 255, 257, 1023, 1025, 65535, 65537};
    int saved = omp_get_max_threads(), tried = 0;
    omp_set_num_threads(3);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int d = 0; d < NTIE; d++)
            for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
                for (int largest = 0; largest < 2; largest++)
                    for (int batch = 0; batch < 2; batch++) {
                        uint64_t n = sizes[si];
                        if (batch && n > 4097) continue;
                        /* The 64-bit types, for CI's time: few:16, int8
                         * and nan, and the long row (65537, split over the
                         * threads) on few:16 alone. */
                        const char *td = tie_dists[d];
                        if (pb_topk_dtype_is64(dtype) &&
                            (n == 65535 || (n == 65537 && strcmp(td, "few:16") != 0) ||
                             (strcmp(td, "few:16") != 0 && strcmp(td, "int8") != 0 &&
                              strcmp(td, "nan") != 0)))
                            continue;
                        tk_cfg c = {n,           1,     batch ? 5 : 1, batch, batch, largest,
                                    dist_index(tie_dists[d]), dtype, 500 + si, PB_TOPK_TIES_LOWEST};
                        ASSERT(c.dist >= 0);
                        pb_topk_problem p;
                        ASSERT(tk_init(&p, &c) == 0);
                        uint64_t ks[16];
                        int nk = tie_k_list(n, tie_dists[d], ks);
                        for (int q = 0; q < nk; q++) {
                            c.k = ks[q];
                            pb_topk_problem_set_k(&p, ks[q]);
                            if (twin_is_lowest(&p)) {
                                tk_describe(&c);
                                omp_set_num_threads(saved);
                                return 1;
                            }
                            tried++;
                        }
                        pb_topk_problem_free(&p);
                    }
    omp_set_num_threads(saved);
    printf("%d twin answers equal the brute force\n", tried);
    return 0;
}

/* -0.0, +0.0 and NaNs of every sign and payload, mixed with 1.0 and -inf
 * in one row: ties are equal keys (topk_key.h), so the NaNs tie with each
 * other and -0.0 does not tie with +0.0. The twin is the brute force's
 * answer at every k, largest and smallest. */
TEST_IMPL(topk_ties_zeros_nans)
{
    const uint32_t pool[] = {0x80000000u, 0x00000000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                             0xffdeadbeu, fbits(1.0f), 0xff800000u};
    const uint64_t n = 97;
    for (int largest = 0; largest < 2; largest++) {
        tk_cfg c = {n, 1, 1, 0, 0, largest, dist_index("equal"), PB_TOPK_F32, 7,
                    PB_TOPK_TIES_LOWEST};
        pb_topk_problem p;
        ASSERT(tk_init(&p, &c) == 0);
        uint64_t x = 12345;
        for (uint64_t i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            p.data[p.begin[0] + i] = pool[(x >> 33) % (sizeof pool / sizeof pool[0])];
        }
        for (uint64_t k = 1; k <= n; k++) {
            pb_topk_problem_set_k(&p, k);
            c.k = k;
            if (twin_is_lowest(&p)) {
                tk_describe(&c);
                return 1;
            }
        }
        pb_topk_problem_free(&p);
    }
    return 0;
}

/* omp-topk with ties = lowest-index passes the check (which then compares
 * index sets) on the heavy-tie distributions, and its selection with 1, 2
 * and 3 threads returns the twin's index set, row by row. */
TEST_IMPL(topk_ties_omp)
{
    const uint64_t sizes[] = {3, 257, 1025, 65537};
    int runs = 0;
    /* fp32 and u32 (by k's place); fp64 and u64 too at the smallest size,
     * and at the largest (long rows split over threads) on few:16, for
     * CI's time. */
    for (int wide = 0; wide < 2; wide++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int d = 0; d < NTIE; d++)
                for (int batch = 0; batch < 2; batch++) {
                    if (wide && si != 0 && (si != 3 || strcmp(tie_dists[d], "few:16") != 0))
                        continue;
                    uint64_t n = sizes[si], ks[16];
                    int nk = tie_k_list(n, tie_dists[d], ks);
                    for (int q = 0; q < nk; q++) {
                        int dtype = wide    ? (q & 2 ? PB_TOPK_U64 : PB_TOPK_F64)
                                    : q & 2 ? PB_TOPK_U32
                                            : PB_TOPK_F32;
                        tk_cfg c = {n,
                                    ks[q],
                                    batch ? 5 : 1,
                                    batch,
                                    batch,
                                    (q & 1),
                                    dist_index(tie_dists[d]),
                                    dtype,
                                    600 + si,
                                    PB_TOPK_TIES_LOWEST};
                        pb_topk_problem p;
                        ASSERT(tk_init(&p, &c) == 0);
                        pb_err err;
                        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
                        uint64_t outs = p.out_total;
                        uint64_t *v = malloc((outs + 1) * 8); /* room for either word */
                        uint32_t *ix = malloc((outs + 1) * 4);
                        uint32_t *tw = malloc((outs + 1) * 4), *tmp = malloc((outs + 1) * 4);
                        /* The module as the harness drives it once (3 threads: long
                         * single rows split), its selection with each count. */
                        if (run_module(&c, 3)) return 1;
                        for (int t = 1; t <= 3; t++) {
                            pb_topk_ws ws;
                            ASSERT(pb_topk_ws_init(&ws, &p, t, &err) == 0);
                            pb_topk_select(&p, &ws, v, ix);
                            pb_topk_ws_free(&ws);
                            memcpy(tw, p.twin_idx, outs * 4);
                            for (uint64_t r = 0; r < p.rows; r++) {
                                uint64_t o = p.out_off[r], m = p.out_off[r + 1] - o;
                                pb_topk_sort_u32(ix + o, tmp, (size_t)m);
                                pb_topk_sort_u32(tw + o, tmp, (size_t)m);
                                ASSERT(memcmp(ix + o, tw + o, m * 4) == 0);
                            }
                            runs++;
                        }
                        free(v), free(ix), free(tw), free(tmp);
                        pb_topk_problem_free(&p);
                    }
                }
    printf("%d omp-topk lowest-index runs\n", runs);
    return 0;
}

/* The check with ties = lowest-index rejects an answer that returns a tied
 * key of a larger index while a smaller one is left out (which `any`
 * accepts), accepts the right set in any order, and still catches what
 * `any` catches. */
TEST_IMPL(topk_ties_check)
{
    for (int ties = 0; ties < 2; ties++) {
        /* few:2: about half of each row is the larger value, so the 32 best
         * all tie. */
        tk_cfg c = {1000, 32, 5, 1, 1, 1, dist_index("few:2"), PB_TOPK_F32, 41, ties};
        pb_topk_problem p;
        pb_err err;
        ASSERT(tk_init(&p, &c) == 0);
        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
        uint64_t o = p.out_off[2], m = p.out_off[3] - o, len = pb_topk_row_len(&p, 2);
        const uint32_t *row = p.data + p.begin[2];
        uint32_t kth = pb_topk_problem_okey(&p, p.twin_vals[o + m - 1]);
        ASSERT(pb_topk_problem_okey(&p, p.twin_vals[o]) == kth); /* all tie */
        /* The twin's largest index (its last, in rank order), and the next
         * tied index after it: left out by the twin. */
        uint32_t last = p.twin_idx[o + m - 1], next = last + 1;
        while (next < len && pb_topk_problem_okey(&p, row[next]) != kth) next++;
        ASSERT(next < len);
        uint32_t *v, *ix;

        /* The right set, reversed: fine either way. */
        twin_copy(&p, &v, &ix);
        for (uint64_t j = 0; j < m / 2; j++) {
            uint32_t t = v[o + j], u = ix[o + j];
            v[o + j] = v[o + m - 1 - j], ix[o + j] = ix[o + m - 1 - j];
            v[o + m - 1 - j] = t, ix[o + m - 1 - j] = u;
        }
        ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
        free(v), free(ix);

        /* The twin's first tie (index `first`) swapped for `next`: the same
         * keys, a larger index returned, a smaller one left out. */
        for (int at = 0; at < 2; at++) {
            uint64_t j = at ? m - 1 : 0;
            twin_copy(&p, &v, &ix);
            uint32_t dropped = ix[o + j];
            ix[o + j] = next, v[o + j] = row[next];
            int rc = pb_topk_check(&p, v, ix, &err);
            if (ties == PB_TOPK_TIES_ANY) {
                ASSERT(rc == 0);
            } else {
                ASSERT(rc != 0);
                char want[160];
                snprintf(want, sizeof want,
                         "row 2: ties = lowest-index, but result %llu is index %u, a key equal "
                         "to the k-th, while index %u, smaller with the same key, is left out",
                         (unsigned long long)j, next, dropped);
                ASSERT_CONTAINS(err.msg, want);
            }
            free(v), free(ix);
        }

        /* A wrong key is still a wrong key. */
        twin_copy(&p, &v, &ix);
        uint32_t low = 0;
        while (pb_topk_problem_okey(&p, row[low]) == kth) low++;
        ix[o + 3] = low, v[o + 3] = row[low];
        ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
        ASSERT_CONTAINS(err.msg, "row 2: not the largest 32 values");
        free(v), free(ix);
        pb_topk_problem_free(&p);
    }
    return 0;
}

/* sorted = yes (issue 21, item 5): omp-topk's rows come back in rank order,
 * equal keys by increasing index (its verify checks the order), at awkward
 * n and k, with heavy ties and none, both tie policies, both directions,
 * single rows (split over 3 threads from 2^15 values) and ragged,
 * misaligned batches; and the check rejects the right answer out of order
 * (reversed, or two equal keys swapped) with sorted = yes, and only then. */
TEST_IMPL(topk_sorted)
{
    const uint64_t sizes[] = {1, 2, 3, 1023, 65537};
    const char *dists[] = {"uniform", "few:2", "equal", "nan", "relu"};
    int runs = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int ties = 0; ties < 2; ties++)
                for (int batch = 0; batch < 2; batch++) {
                    uint64_t n = sizes[si];
                    const uint64_t ks[] = {1, 2, n > 1 ? n - 1 : 1, n, 17};
                    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
                        tk_cfg c = {n,     ks[q], batch ? 5 : 1, batch, batch, (int)(q & 1), dist_index(dists[d]),
                                    PB_TOPK_F32, 900 + si, ties};
                        if (run_module_sorted(&c, 3, 1)) return 1;
                        runs++;
                        /* fp64 and u64 (by k's place) at 2 and 1023 on
                         * uniform, few:2 and nan, and 65537 on uniform. */
                        if ((n == 2 || n == 1023 || (n == 65537 && d == 0)) && d < 4 && d != 2) {
                            c.dtype = q & 2 ? PB_TOPK_U64 : PB_TOPK_F64;
                            if (run_module_sorted(&c, 3, 1)) return 1;
                            runs++;
                        }
                    }
                }
    printf("%d omp-topk sorted runs\n", runs);

    for (int sorted = 0; sorted < 2; sorted++) {
        /* few:2: the 32 best of each row all tie. */
        tk_cfg c = {1000, 32, 5, 1, 1, 1, dist_index("few:2"), PB_TOPK_F32, 43, PB_TOPK_TIES_LOWEST};
        pb_topk_problem p;
        pb_err err;
        ASSERT(tk_init_sorted(&p, &c, sorted) == 0);
        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
        uint64_t o = p.out_off[2], m = p.out_off[3] - o;
        uint32_t *v, *ix;
        /* The twin's answer is in rank order. */
        twin_copy(&p, &v, &ix);
        ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
        free(v), free(ix);
        /* Row 2 reversed; then only its first two results swapped. */
        for (int swap_two = 0; swap_two < 2; swap_two++) {
            twin_copy(&p, &v, &ix);
            for (uint64_t j = 0; j < (swap_two ? 1 : m / 2); j++) {
                uint64_t a = o + j, b = swap_two ? o + 1 : o + m - 1 - j;
                uint32_t t = v[a], u = ix[a];
                v[a] = v[b], ix[a] = ix[b];
                v[b] = t, ix[b] = u;
            }
            int rc = pb_topk_check(&p, v, ix, &err);
            if (sorted) {
                ASSERT(rc != 0);
                ASSERT_CONTAINS(err.msg, "row 2: sorted = yes, but result 1");
            } else {
                ASSERT(rc == 0);
            }
            free(v), free(ix);
        }
        pb_topk_problem_free(&p);
    }
    return 0;
}

/* ---- 64-bit keys: fp64 and u64 (issue 21, item 3) ---- */

static uint64_t dbits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static double as_f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* fp64 keys: strictly ascending over every class of bit pattern (-inf,
 * -DBL_MAX, normals, the smallest normal, subnormals, -0.0, +0.0, +inf, NaN),
 * known answers, every NaN (either sign, quiet or signalling, any payload)
 * one key above +inf and the last for smallest; over random patterns (and
 * patterns near zero, subnormal) the key orders like the double compare,
 * -0.0 just below +0.0, and inverts back for both directions. u64: the key
 * is the value, smallest its complement. The *64 functions give the 32-bit
 * functions' answers for the other dtypes. */
TEST_IMPL(topk_key64_order)
{
    const uint64_t ascending[] = {
        0xfff0000000000000u,                      /* -inf */
        0xffefffffffffffffu,                      /* -DBL_MAX */
        dbits(-1.0),         0x8010000000000000u, /* -DBL_MIN, the negative normal nearest 0 */
        0x800fffffffffffffu,                      /* the negative subnormal farthest from 0 */
        0x8000000000000001u,                      /* the negative subnormal nearest 0 */
        0x8000000000000000u,                      /* -0.0 */
        0x0000000000000000u,                      /* +0.0 */
        0x0000000000000001u,                      /* the smallest positive subnormal */
        0x000fffffffffffffu,                      /* the largest subnormal */
        0x0010000000000000u,                      /* DBL_MIN */
        dbits(1.0),          dbits(1.0) + 1,      /* 1 + DBL_EPSILON */
        0x7fefffffffffffffu,                      /* DBL_MAX */
        0x7ff0000000000000u,                      /* +inf */
        0x7ff8000000000000u,                      /* NaN */
    };
    size_t n = sizeof ascending / sizeof ascending[0];
    for (size_t i = 1; i < n; i++) {
        ASSERT(pb_topk_okey64_of(ascending[i - 1], PB_TOPK_F64, 1) <
               pb_topk_okey64_of(ascending[i], PB_TOPK_F64, 1));
        ASSERT(pb_topk_okey64_of(ascending[i - 1], PB_TOPK_F64, 0) >
               pb_topk_okey64_of(ascending[i], PB_TOPK_F64, 0));
    }
    /* Known answers. */
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(1.0)), 0xbff0000000000000u);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(-1.0)), 0x400fffffffffffffu);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(0.0)), 0x8000000000000000u);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(-0.0)), 0x7fffffffffffffffu);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(INFINITY)), 0xfff0000000000000u);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(-INFINITY)), 0x000fffffffffffffu);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(dbits(NAN)), PB_TOPK_F64_NAN_KEY);
    ASSERT_EQ_U64(pb_topk_okey64_of(1, PB_TOPK_F64, 1), 0x8000000000000001u);
    /* Every NaN is the canonical one, above +inf, and comes back as it. */
    const uint64_t nans[] = {0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u,
                             0xfff0000000000001u, 0x7fffffffffffffffu, 0xffffffffffffffffu,
                             0x7ff4000000000000u, 0xfff8deadbeef0001u, 0x7ff0000100000000u};
    uint64_t pinf = dbits(INFINITY);
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        ASSERT(isnan(as_f64(nans[i])));
        ASSERT_EQ_U64(pb_topk_key_f64_bits(nans[i]), PB_TOPK_F64_NAN_KEY);
        ASSERT(pb_topk_okey64_of(nans[i], PB_TOPK_F64, 1) >
               pb_topk_okey64_of(pinf, PB_TOPK_F64, 1));
        /* Smallest: a NaN is the last choice, after +inf. */
        ASSERT(pb_topk_okey64_of(nans[i], PB_TOPK_F64, 0) <
               pb_topk_okey64_of(pinf, PB_TOPK_F64, 0));
        for (int l = 0; l < 2; l++)
            ASSERT_EQ_U64(
                pb_topk_raw64_of(pb_topk_okey64_of(nans[i], PB_TOPK_F64, l), PB_TOPK_F64, l),
                PB_TOPK_F64_NAN_BITS);
    }
    /* Random patterns, and patterns near zero (the exponent field small:
     * subnormals and tiny normals), against the double compare. */
    uint64_t x = 3;
    for (int i = 0; i < 400000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t a = x;
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t b = x;
        if (i & 1) {
            /* Keep sign and 52 bits of mantissa; exponent 0 .. 3. */
            a = (a & 0x800fffffffffffffu) | ((a >> 12) & 3) << 52;
            b = (b & 0x800fffffffffffffu) | ((b >> 12) & 3) << 52;
        }
        if (i % 5 == 0) b = a + 1 - 2 * (uint64_t)(i % 10 == 0); /* a neighbouring pattern */
        double da = as_f64(a), db = as_f64(b);
        if (isnan(da) || isnan(db)) continue;
        for (int l = 0; l < 2; l++) {
            uint64_t ka = pb_topk_okey64_of(a, PB_TOPK_F64, l),
                     kb = pb_topk_okey64_of(b, PB_TOPK_F64, l);
            ASSERT_EQ_U64(pb_topk_raw64_of(ka, PB_TOPK_F64, l), a);
            if (da < db) ASSERT(l ? ka < kb : ka > kb);
            if (da > db) ASSERT(l ? ka > kb : ka < kb);
            if (da == db && a != b)
                ASSERT((a == PB_TOPK_SIGN64) == (l ? ka < kb : ka > kb)); /* -0 below +0 */
            if (a == b) ASSERT(ka == kb);
        }
        /* u64: the value, and its complement for smallest. */
        ASSERT_EQ_U64(pb_topk_okey64_of(a, PB_TOPK_U64, 1), a);
        ASSERT_EQ_U64(pb_topk_okey64_of(a, PB_TOPK_U64, 0), ~a);
        ASSERT_EQ_U64(pb_topk_raw64_of(~a, PB_TOPK_U64, 0), a);
        ASSERT((a < b) ==
               (pb_topk_okey64_of(a, PB_TOPK_U64, 1) < pb_topk_okey64_of(b, PB_TOPK_U64, 1)));
        /* The 32-bit dtypes through the 64-bit functions: the same answers. */
        uint32_t w = (uint32_t)a;
        for (int dt = 0; dt < PB_TOPK_F64; dt++) {
            uint32_t v = pb_topk_dtype_is16(dt) ? w & 0xffffu : w;
            ASSERT_EQ_U64(pb_topk_okey64_of(v, dt, i & 1), pb_topk_okey_of(v, dt, i & 1));
            uint32_t k = pb_topk_okey_of(v, dt, i & 1);
            ASSERT_EQ_U64(pb_topk_raw64_of(k, dt, i & 1), pb_topk_raw_of(k, dt, i & 1));
        }
    }
    ASSERT_EQ_U64(pb_topk_okey64_of(0, PB_TOPK_U64, 1), 0);
    ASSERT_EQ_U64(pb_topk_okey64_of(UINT64_MAX, PB_TOPK_U64, 0), 0);
    for (int dt = PB_TOPK_F64; dt <= PB_TOPK_U64; dt++) {
        ASSERT(pb_topk_dtype_is64(dt) && !pb_topk_dtype_is16(dt));
        ASSERT_EQ_U64(pb_topk_dtype_bytes(dt), 8);
        ASSERT_EQ_U64(pb_topk_key_bits_of(dt), 64);
        ASSERT_EQ_U64(pb_topk_word_bytes(dt), 8);
        ASSERT_EQ_U64(pb_topk_cand_bytes(dt), 16);
    }
    ASSERT(!pb_topk_dtype_is64(PB_TOPK_F32) && pb_topk_word_bytes(PB_TOPK_F16) == 4);
    return 0;
}

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
            double d = as_f64(p->data64[i]);
            float f = as_f32(q->data[i]), want;
            if (isnan(f)) {
                if (!isnan(d) || (p->data64[i] >> 63) != (q->data[i] >> 31)) goto bad;
                continue;
            }
            if (isinf(d) || (!trunc24 && !trunc23))
                want = (float)d;
            else
                want =
                    (float)(floor(d * (trunc24 ? 0x1p24 : 0x1p23)) * (trunc24 ? 0x1p-24 : 0x1p-23));
            if (want != f || fbits(want) != q->data[i]) goto bad;
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
        const char *dv = dist_values[dist];
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
                ASSERT(largest ? isnan(as_f64(p.data64[i])) : as_f64(p.data64[i]) == -INFINITY);
                ASSERT_EQ_U64(u.data64[i], largest ? UINT64_MAX : 0);
            }
            if (ordered) {
                for (uint64_t r = 0; r < p.rows; r++)
                    for (uint64_t i = p.begin[r]; i < p.end[r]; i++) {
                        double a = as_f64(p.data64[i]);
                        ASSERT(a >= 0 && a < 1);
                        if (i == p.begin[r]) continue;
                        double b = as_f64(p.data64[i - 1]);
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
                        ASSERT_EQ_U64(v, (uint64_t)as_f64(f));
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
TEST_IMPL(topk_check_catches_64)
{
    pb_err err;
    for (int dtype = PB_TOPK_F64; dtype <= PB_TOPK_U64; dtype++)
        for (int largest = 0; largest < 2; largest++) {
            tk_cfg c = {1000, 32, 5, 1, 1, largest, PB_TOPK_UNIFORM, dtype, 51, 0};
            pb_topk_problem p;
            ASSERT(tk_init(&p, &c) == 0);
            ASSERT(pb_topk_twin_answer(&p, &err) == 0);
            uint64_t o = p.out_off[2], len = pb_topk_row_len(&p, 2), outs = p.out_total;
            uint64_t *v = malloc(outs * 8);
            uint32_t *ix = malloc(outs * 4);
            memcpy(ix, p.twin_idx, outs * 4);
            memcpy(v, p.twin_vals64, outs * 8);
            /* Another order within a row: fine. */
            uint64_t t = v[o];
            uint32_t u = ix[o];
            v[o] = v[o + 5], ix[o] = ix[o + 5];
            v[o + 5] = t, ix[o + 5] = u;
            ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
            /* The lowest bit of a value. */
            v[o + 3] ^= 1;
            ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
            ASSERT_CONTAINS(err.msg, "row 2: result 3 is");
            if (dtype == PB_TOPK_F64) ASSERT_CONTAINS(err.msg, "(0x3f");
            v[o + 3] ^= 1;
            /* The row's worst value at its index. */
            uint32_t worst = 0;
            for (uint32_t i = 1; i < len; i++)
                if (pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[2] + i)) <
                    pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[2] + worst)))
                    worst = i;
            t = v[o + 7], u = ix[o + 7];
            ix[o + 7] = worst, v[o + 7] = pb_topk_value_at(&p, p.begin[2] + worst);
            ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
            ASSERT_CONTAINS(err.msg, largest ? "row 2: not the largest 32 values"
                                             : "row 2: not the smallest 32 values");
            v[o + 7] = t, ix[o + 7] = u;
            ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
            free(v), free(ix);
            pb_topk_problem_free(&p);
        }

    /* ties = lowest-index on few:2 (the 32 best of a row all tie). */
    for (int dtype = PB_TOPK_F64; dtype <= PB_TOPK_U64; dtype++) {
        tk_cfg c = {1000, 32, 5, 1, 1, 1, dist_index("few:2"), dtype, 53, PB_TOPK_TIES_LOWEST};
        pb_topk_problem p;
        ASSERT(tk_init(&p, &c) == 0);
        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
        uint64_t o = p.out_off[2], m = p.out_off[3] - o, len = pb_topk_row_len(&p, 2);
        uint64_t kth = pb_topk_problem_okey64(&p, p.twin_vals64[o + m - 1]);
        ASSERT(pb_topk_problem_okey64(&p, p.twin_vals64[o]) == kth);
        uint32_t next = p.twin_idx[o + m - 1] + 1;
        while (next < len &&
               pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[2] + next)) != kth)
            next++;
        ASSERT(next < len);
        uint64_t *v = malloc(p.out_total * 8);
        uint32_t *ix = malloc(p.out_total * 4);
        memcpy(v, p.twin_vals64, p.out_total * 8);
        memcpy(ix, p.twin_idx, p.out_total * 4);
        ix[o] = next, v[o] = pb_topk_value_at(&p, p.begin[2] + next);
        ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
        ASSERT_CONTAINS(err.msg, "row 2: ties = lowest-index, but result 0 is index");
        p.ties = PB_TOPK_TIES_ANY;
        ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
        free(v), free(ix);
        pb_topk_problem_free(&p);
    }

    /* The NaN policy on fp64. */
    tk_cfg c = {10007, 1, 1, 0, 0, 1, PB_TOPK_NAN, PB_TOPK_F64, 21, 0};
    pb_topk_problem p;
    ASSERT(tk_init(&p, &c) == 0);
    uint64_t nans = 0;
    for (uint64_t i = 0; i < p.total; i++) nans += isnan(as_f64(p.data64[i])) != 0;
    pb_topk_problem_free(&p);
    ASSERT(nans > 100);
    for (int largest = 0; largest < 2; largest++)
        for (uint64_t extra = 0; extra < 2; extra++) {
            c.largest = largest;
            c.k = (largest ? nans + 1 : 10007 - nans) + extra;
            ASSERT(tk_init(&p, &c) == 0);
            ASSERT(pb_topk_twin_answer(&p, &err) == 0);
            uint64_t got_nan = 0, got_pinf = 0;
            uint64_t *v = malloc(p.out_total * 8);
            for (uint64_t j = 0; j < p.out_total; j++) {
                double d = as_f64(p.twin_vals64[j]);
                got_nan += isnan(d) != 0;
                got_pinf += d == INFINITY;
                /* Any NaN bit pattern is as good as the input's. */
                v[j] = isnan(d) ? UINT64_C(0xfff0000000000001) : p.twin_vals64[j];
            }
            if (largest) {
                ASSERT_EQ_U64(got_nan, nans);
                ASSERT_EQ_U64(got_pinf, 1 + extra);
                ASSERT(isnan(as_f64(p.twin_vals64[0]))); /* rank order: NaNs first */
            } else {
                ASSERT_EQ_U64(got_nan, extra);
            }
            ASSERT(pb_topk_check(&p, v, p.twin_idx, &err) == 0);
            free(v);
            pb_topk_problem_free(&p);
        }
    return 0;
}

/* fp64 -0.0, +0.0, NaNs of every sign and payload, the subnormals nearest
 * zero, +-inf and 1.0 in one row: NaNs tie with each other, -0.0 does not
 * tie with +0.0. And u64 values that differ only in their low 32 bits, or
 * only in their high ones. The twin is the brute force's lowest-index
 * answer at every k, largest and smallest. */
TEST_IMPL(topk_ties_zeros_nans_64)
{
    const uint64_t f64_pool[] = {
        0x8000000000000000u, 0, 0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u,
        0xfff8deadbeef0001u, 1, 0x8000000000000001u, 0x7ff0000000000000u, 0xfff0000000000000u,
        dbits(1.0)};
    const uint64_t u64_pool[] = {0,
                                 1,
                                 0xffffffffu,
                                 0x100000000u,
                                 0x100000001u,
                                 0xffffffff00000000u,
                                 0xfffffffffffffffeu,
                                 UINT64_MAX,
                                 0x8000000000000000u};
    const uint64_t n = 97;
    for (int dtype = PB_TOPK_F64; dtype <= PB_TOPK_U64; dtype++)
        for (int largest = 0; largest < 2; largest++) {
            const uint64_t *pool = dtype == PB_TOPK_F64 ? f64_pool : u64_pool;
            size_t npool = dtype == PB_TOPK_F64 ? sizeof f64_pool / 8 : sizeof u64_pool / 8;
            tk_cfg c = {n, 1, 1, 0, 0, largest, dist_index("equal"), dtype, 7, PB_TOPK_TIES_LOWEST};
            pb_topk_problem p;
            ASSERT(tk_init(&p, &c) == 0);
            uint64_t x = 12345;
            for (uint64_t i = 0; i < n; i++) {
                x = x * 6364136223846793005ull + 1442695040888963407ull;
                p.data64[p.begin[0] + i] = pool[(x >> 33) % npool];
            }
            for (uint64_t k = 1; k <= n; k++) {
                pb_topk_problem_set_k(&p, k);
                c.k = k;
                if (twin_is_lowest(&p)) {
                    tk_describe(&c);
                    return 1;
                }
            }
            pb_topk_problem_free(&p);
        }
    return 0;
}

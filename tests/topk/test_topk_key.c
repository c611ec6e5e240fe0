/* The top-k family's order-preserving keys (families/topk/topk_key.h): the
 * 32-bit key and its NaN policy (-inf < -1 < -0.0 < +0.0 < 1 < +inf < NaN,
 * every NaN one key above +inf), the 16-bit keys of fp16 and bf16 and their
 * rounding, the raw values a draw may reach, and the 64-bit keys of fp64
 * and u64 over every class of bit pattern against the double compare. */
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

/* ---- the key ---- */

TEST_IMPL(topk_key_order)
{
    /* Ascending, each strictly above the one before. */
    const uint32_t ascending[] = {
        0xff800000u,               /* -inf */
        0xff7fffffu,               /* -FLT_MAX */
        tk_fbits(-1.0f), 0x80000001u, /* the negative subnormal nearest 0 */
        0x80000000u,               /* -0.0 */
        0x00000000u,               /* +0.0 */
        0x00000001u,               /* the smallest positive subnormal */
        tk_fbits(1.0f),  0x7f7fffffu, /* FLT_MAX */
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
    ASSERT_EQ_U64(pb_topk_key_of(tk_fbits(1.0f), PB_TOPK_F32), 0xbf800000u);
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
            double va = tk_half_value(a, dtype);
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
            double vb = tk_half_value(b, dtype);
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
    double a = fabs((double)f), ulp_top = tk_half_value(inf - 1, dtype) - tk_half_value(inf - 2, dtype);
    uint32_t lo = 0, hi = inf; /* value(lo) <= a, search the largest such */
    double top = tk_half_value(inf - 1, dtype) + ulp_top;
    if (a >= top) return sign | inf;
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        double v = mid == inf ? top : tk_half_value(mid, dtype);
        if (v <= a) lo = mid;
        else hi = mid - 1;
    }
    if (lo == inf) return sign | inf;
    double vlo = tk_half_value(lo, dtype), vhi = lo + 1 == inf ? top : tk_half_value(lo + 1, dtype);
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
    const uint32_t special[] = {0,           0x80000000u, tk_fbits(1.0f),  tk_fbits(-1.0f), tk_fbits(65504.0f),
                                tk_fbits(65519.99f), tk_fbits(65520.0f), tk_fbits(65536.0f), 0x477ff000u,
                                0x477fefffu, 0x33000000u, 0x33000001u, 0x38800000u, 0x387fffffu,
                                0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x00000001u, 0x3f808000u,
                                0x3f818000u, 0x3f808001u, tk_fbits(0.1f), tk_fbits(1.0f / 3.0f)};
    enum { NS = sizeof special / sizeof special[0] };
    uint64_t s = 99;
    for (int dtype = PB_TOPK_F16; dtype <= PB_TOPK_BF16; dtype++)
        for (long i = 0; i < NS + 1000000; i++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t x = i < NS ? special[i] : (uint32_t)(s >> 32);
            uint32_t got = dtype == PB_TOPK_F16 ? pb_topk_f32_to_f16(x) : pb_topk_f32_to_bf16(x);
            ASSERT(got < 65536);
            if (isnan(tk_as_f32(x))) {
                ASSERT(isnan(tk_half_value(got, dtype)));
                ASSERT((got & 0x8000u) == ((x >> 16) & 0x8000u));
                continue;
            }
            uint32_t want = nearest_half(x, dtype);
            if (got != want) {
                fprintf(stderr, "%s of %08x (%g): %04x, want %04x\n", tk_dtype_names[dtype], x,
                        (double)tk_as_f32(x), got, want);
                return 1;
            }
        }
    ASSERT_EQ_U64(pb_topk_f32_to_f16(tk_fbits(1.0f)), 0x3c00u);
    ASSERT_EQ_U64(pb_topk_f32_to_f16(tk_fbits(65504.0f)), 0x7bffu);
    ASSERT_EQ_U64(pb_topk_f32_to_f16(tk_fbits(65520.0f)), 0x7c00u);
    ASSERT_EQ_U64(pb_topk_f32_to_bf16(tk_fbits(1.0f)), 0x3f80u);
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
                                0x7f7fffffu, 0xff7fffffu, tk_fbits(1.0f),  tk_fbits(-1.0f), 0xffffffffu,
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
    uint32_t one = pb_topk_raw_of(pb_topk_okey_of(tk_fbits(1.0f), PB_TOPK_F32, 1), PB_TOPK_F32, 1);
    ASSERT_EQ_U64(one, tk_fbits(1.0f));
    ASSERT(!pb_topk_raw_may_reach(tk_fbits(0.5f), one, PB_TOPK_F32, 1));
    ASSERT(pb_topk_raw_may_reach(tk_fbits(2.0f), one, PB_TOPK_F32, 1));
    ASSERT(pb_topk_raw_may_reach(0x7fc00000u, one, PB_TOPK_F32, 1));
    ASSERT(pb_topk_raw_may_reach(tk_fbits(0.5f), one, PB_TOPK_F32, 0));
    ASSERT(!pb_topk_raw_may_reach(7u, 8u, PB_TOPK_U32, 1));
    ASSERT(pb_topk_raw_may_reach(7u, 8u, PB_TOPK_U32, 0));
    return 0;
}

/* ---- 64-bit keys: fp64 and u64 ---- */

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
        tk_dbits(-1.0),         0x8010000000000000u, /* -DBL_MIN, the negative normal nearest 0 */
        0x800fffffffffffffu,                      /* the negative subnormal farthest from 0 */
        0x8000000000000001u,                      /* the negative subnormal nearest 0 */
        0x8000000000000000u,                      /* -0.0 */
        0x0000000000000000u,                      /* +0.0 */
        0x0000000000000001u,                      /* the smallest positive subnormal */
        0x000fffffffffffffu,                      /* the largest subnormal */
        0x0010000000000000u,                      /* DBL_MIN */
        tk_dbits(1.0),          tk_dbits(1.0) + 1,      /* 1 + DBL_EPSILON */
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
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(1.0)), 0xbff0000000000000u);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(-1.0)), 0x400fffffffffffffu);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(0.0)), 0x8000000000000000u);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(-0.0)), 0x7fffffffffffffffu);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(INFINITY)), 0xfff0000000000000u);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(-INFINITY)), 0x000fffffffffffffu);
    ASSERT_EQ_U64(pb_topk_key_f64_bits(tk_dbits(NAN)), PB_TOPK_F64_NAN_KEY);
    ASSERT_EQ_U64(pb_topk_okey64_of(1, PB_TOPK_F64, 1), 0x8000000000000001u);
    /* Every NaN is the canonical one, above +inf, and comes back as it. */
    const uint64_t nans[] = {0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u,
                             0xfff0000000000001u, 0x7fffffffffffffffu, 0xffffffffffffffffu,
                             0x7ff4000000000000u, 0xfff8deadbeef0001u, 0x7ff0000100000000u};
    uint64_t pinf = tk_dbits(INFINITY);
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        ASSERT(isnan(tk_as_f64(nans[i])));
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
        double da = tk_as_f64(a), db = tk_as_f64(b);
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


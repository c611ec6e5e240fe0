/* Top-k problem points: parameter checks, the row layout and the value
 * generator (the twin's answer and the check are topk_check.c).
 *
 * Value i of the buffer is drawn from one Philox4x32-10 block keyed by the
 * seed with i in the counter (topk_block), so any thread can generate any
 * value and the input depends on the seed alone. Ragged row lengths come
 * from their own stream in row order. */
#include "families/topk/topk_problem.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"
#include "core/rng.h"

/* Tags in the counter's second word keep these streams apart from those of
 * pb_rng_init users (whose second word stays 0 below 2^32 blocks). */
enum { TOPK_TAG_VALUES = 0x746b7631, TOPK_TAG_LENGTHS = 0x746b6c31 };

static philox4x32_ctr_t topk_block(uint64_t seed, uint64_t i)
{
    philox4x32_ctr_t c = {{0, TOPK_TAG_VALUES, (uint32_t)i, (uint32_t)(i >> 32)}};
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    return philox4x32(c, k);
}

/* ---- parameters and sizes ---- */

static uint64_t max_len_of(const pb_point *pt)
{
    return pt->n + (pt->params->v[PB_TOPK_P_RAGGED] ? pt->n / 2 : 0);
}

static uint64_t rows_of(const pb_point *pt)
{
    return (uint64_t)pt->params->v[PB_TOPK_P_ROWS];
}

int pb_topk_point_check(const pb_point *pt, pb_err *err)
{
    const long long *v = pt->params->v;
    if (pt->item_bytes != 4)
        return pb_err_set(
            err,
            "top-k values are held in 32-bit words: item must be u32 (the dtype "
            "parameter picks f32, u32, i32, f16, bf16, f64 or u64), not %u-byte items",
            pt->item_bytes);
    if (v[PB_TOPK_P_K] < 1 || v[PB_TOPK_P_K] > PB_TOPK_MAX_K)
        return pb_err_set(err, "k=%lld is outside 1..2^31", v[PB_TOPK_P_K]);
    if (v[PB_TOPK_P_ROWS] < 1 || v[PB_TOPK_P_ROWS] > PB_TOPK_MAX_ROWS)
        return pb_err_set(err, "rows=%lld is outside 1..2^26", v[PB_TOPK_P_ROWS]);
    long long dv = v[PB_TOPK_P_DIST], dist = pb_param_choice(dv), arg = pb_param_arg(dv);
    if (!pb_param_file(dv)) {
        if (dist < 0 || dist >= PB_TOPK_NDIST)
            return pb_err_set(err, "dist=%lld is not one of %s", dv, PB_TOPK_DIST_CHOICES);
        bool takes = dist == PB_TOPK_FEW || dist == PB_TOPK_MASKED;
        if (takes != (arg >= 0))
            return pb_err_set(err, "dist=%lld: %s", dv,
                              takes ? "few and masked need their argument (few:L, masked:F)"
                                    : "only few:L and masked:F take an argument");
        if (dist == PB_TOPK_FEW && (arg < 1 || arg > PB_TOPK_FEW_MAX))
            return pb_err_set(err, "dist=few:%lld: L is outside 1..2^24", arg);
        if (dist == PB_TOPK_MASKED && arg > 1000000)
            return pb_err_set(err, "dist=masked: the fraction is above 1");
    }
    if (v[PB_TOPK_P_DTYPE] < PB_TOPK_F32 || v[PB_TOPK_P_DTYPE] >= PB_TOPK_NDTYPES)
        return pb_err_set(err, "dtype=%lld is not one of %s", v[PB_TOPK_P_DTYPE],
                          PB_TOPK_DTYPE_CHOICES);
    if (v[PB_TOPK_P_TIES] < PB_TOPK_TIES_ANY || v[PB_TOPK_P_TIES] > PB_TOPK_TIES_LOWEST)
        return pb_err_set(err, "ties=%lld is not one of %s", v[PB_TOPK_P_TIES],
                          PB_TOPK_TIES_CHOICES);
    /* Indices within a row are u32. */
    if (max_len_of(pt) > (UINT64_C(1) << 32))
        return pb_err_set(err, "rows of up to %llu values cannot be indexed by u32 (at most 2^32)",
                          (unsigned long long)max_len_of(pt));
    uint64_t total = pt->n * rows_of(pt) + 4 * rows_of(pt);
    if (total > SIZE_MAX / 16)
        return pb_err_set(err, "%llu rows of %llu values do not fit in memory",
                          (unsigned long long)rows_of(pt), (unsigned long long)pt->n);
    return 0;
}

int pb_topk_check_point(const pb_module *m, const pb_point *pt, pb_err *err)
{
    /* Every top-k module declares the common parameters first; anything
     * else (a ceiling) has no data file to check. */
    if (pb_module_param_index(m, "dist") != PB_TOPK_P_DIST) return 0;
    pb_data_file *f = pb_param_file(pt->params->v[PB_TOPK_P_DIST]);
    if (!f) return 0;
    if (pb_topk_point_check(pt, err)) return -1;
    uint64_t have, rows = rows_of(pt);
    if (pb_data_file_check(f, pb_topk_dtype_bytes((int)pt->params->v[PB_TOPK_P_DTYPE]), 0, &have, err))
        return -1;
    /* rows * n cannot overflow once n <= have / rows. */
    if (pt->n > have / rows) {
        if (pt->n > UINT64_MAX / rows)
            return pb_err_set(err, "rows x n = %llu x %llu values, beyond the %llu in file:%s",
                              (unsigned long long)rows, (unsigned long long)pt->n,
                              (unsigned long long)have, f->path);
        return pb_err_set(err, "rows x n = %llu x %llu = %llu values, beyond the %llu in file:%s",
                          (unsigned long long)rows, (unsigned long long)pt->n,
                          (unsigned long long)(rows * pt->n), (unsigned long long)have, f->path);
    }
    return 0;
}

uint64_t pb_topk_out_bound(const pb_point *pt)
{
    /* Ragged rows come in pairs n + d, n - d, and min(k, .) is concave, so
     * a pair returns at most 2 min(k, n): the bound holds ragged too. */
    uint64_t k = (uint64_t)pt->params->v[PB_TOPK_P_K];
    return rows_of(pt) * (k < pt->n ? k : pt->n);
}

uint64_t pb_topk_problem_host_bytes(const pb_point *pt)
{
    uint64_t rows = rows_of(pt), outb = pb_topk_out_bound(pt);
    int dtype = (int)pt->params->v[PB_TOPK_P_DTYPE];
    uint64_t word = pb_topk_word_bytes(dtype), cand = pb_topk_dtype_is64(dtype) ? 16 : 8;
    uint64_t data = word * (pt->n * rows + 4 * rows + 1);
    uint64_t offsets = 8 * (3 * rows + 3);
    /* The twin's answer, and the larger of what computing it (a pair of
     * candidate buffers: 16 bytes a candidate for 64-bit keys) and checking
     * against it (64-bit keys and a sort buffer, a bitmap a thread) hold
     * for a moment. */
    uint64_t twin = (word + 4) * outb;
    uint64_t transient = 2 * cand * outb + (uint64_t)omp_get_num_procs() * (max_len_of(pt) / 8 + 8);
    uint64_t zipf = pt->params->v[PB_TOPK_P_DIST] == PB_TOPK_ZIPF ? 8 * PB_TOPK_ZIPF_RANKS : 0;
    return data + offsets + twin + transient + zipf;
}

void pb_topk_work(const pb_point *pt, double *items, double *bytes)
{
    *items = (double)pt->n * (double)rows_of(pt);
    *bytes = (double)pb_topk_dtype_bytes((int)pt->params->v[PB_TOPK_P_DTYPE]) * *items;
}

/* ---- values ---- */

/* Zipf(s) over ranks 1..R by inversion: cdf[r - 1] = P(X <= r). Built once
 * per process (8 MiB), in a fixed order, so every run draws the same ranks. */
static double *zipf_cdf;
static pthread_once_t zipf_once = PTHREAD_ONCE_INIT;

static void zipf_build(void)
{
    double *c = malloc(PB_TOPK_ZIPF_RANKS * sizeof *c);
    if (!c) return;
    double sum = 0;
    for (uint32_t r = 1; r <= PB_TOPK_ZIPF_RANKS; r++) sum += pow((double)r, -PB_TOPK_ZIPF_S);
    double run = 0;
    for (uint32_t r = 1; r <= PB_TOPK_ZIPF_RANKS; r++) {
        run += pow((double)r, -PB_TOPK_ZIPF_S);
        c[r - 1] = run / sum;
    }
    c[PB_TOPK_ZIPF_RANKS - 1] = 1.0; /* rounding must not leave a gap at the top */
    zipf_cdf = c;
}

/* The smallest rank whose cumulative probability exceeds u in [0, 1). */
static uint32_t zipf_rank(double u)
{
    uint32_t lo = 0, len = PB_TOPK_ZIPF_RANKS;
    while (len > 0) {
        uint32_t half = len >> 1;
        if (zipf_cdf[lo + half] <= u) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo + 1;
}

static uint32_t f32_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Uniform in [0, 1) with 53 bits. */
static double u53(uint32_t hi, uint32_t lo)
{
    return (double)(((uint64_t)hi << 32 | lo) >> 11) * 0x1.0p-53;
}

/* U[-1, 1) in steps of 2^-23 (every step a float). */
static uint32_t signed_unit(uint32_t w)
{
    return f32_bits((float)((int32_t)(w >> 8) - (1 << 23)) * 0x1.0p-23f);
}

#define F32_PINF 0x7f800000u
#define F32_NINF 0xff800000u

uint32_t pb_topk_f32_to_f16(uint32_t x)
{
    uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > F32_PINF) {
        /* A NaN stays one, quiet or signalling as it was: the top mantissa
         * bits, or 1 where they are all zero. */
        uint32_t m = (ax >> 13) & 0x3ffu;
        return sign | 0x7c00u | (m ? m : 1u);
    }
    if (ax >= 0x477ff000u) return sign | 0x7c00u; /* 65520 and up round to inf */
    if (ax <= 0x33000000u) return sign;           /* 2^-25 and below round to 0 */
    uint32_t q, rem, half;
    if (ax < 0x38800000u) {
        /* Below 2^-14: a subnormal, round(x * 2^24) units of 2^-24. */
        uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, shift = 126 - e;
        q = m >> shift;
        rem = m & ((1u << shift) - 1);
        half = 1u << (shift - 1);
    } else {
        /* Normal: the exponent rebiased (127 -> 15), 13 mantissa bits cut. */
        uint32_t r = ax - 0x38000000u;
        q = r >> 13;
        rem = r & 0x1fffu;
        half = 0x1000u;
    }
    q += rem > half || (rem == half && (q & 1u)); /* to nearest, ties to even */
    return sign | q;
}

uint32_t pb_topk_f32_to_bf16(uint32_t x)
{
    if ((x & 0x7fffffffu) > F32_PINF) {
        uint32_t h = x >> 16;
        return (h & 0x7fu) ? h : h | 1u; /* a NaN stays one */
    }
    return (x + 0x7fffu + ((x >> 16) & 1u)) >> 16; /* to nearest, ties to even */
}

/* N(0, 1) from 53 bits of the block. */
static double normal_of(philox4x32_ctr_t w)
{
    /* The midpoint of a 2^-53 cell: never 0 or 1, where Pinv is infinite. */
    uint64_t x = ((uint64_t)w.v[0] << 32 | w.v[1]) >> 11;
    return gsl_cdf_ugaussian_Pinv(((double)x + 0.5) * 0x1.0p-53);
}

/* masked:F: whether the block's value is masked, with probability
 * `millionths` / 10^6 (to 2^-32). */
static int masked_of(philox4x32_ctr_t w, uint64_t millionths)
{
    return (uint64_t)w.v[2] * 1000000u < millionths << 32;
}

/* few:L: the level, uniform in 0..L-1 (multiply-shift). */
static uint32_t level_of(philox4x32_ctr_t w, uint64_t levels)
{
    return (uint32_t)(((uint64_t)w.v[0] * levels) >> 32);
}

/* The fp32 value a Philox block draws, as its bits; arg: dist_arg. */
static uint32_t draw_f32(pb_topk_dist dist, uint64_t arg, philox4x32_ctr_t w)
{
    switch (dist) {
    case PB_TOPK_UNIFORM:
        return f32_bits((float)(w.v[0] >> 8) * 0x1.0p-24f);
    case PB_TOPK_NARROW:
        return f32_bits((float)(0.6 + 0.1 * u53(w.v[0], w.v[1])));
    case PB_TOPK_NARROW128:
        return f32_bits((float)(128.6 + 0.1 * u53(w.v[0], w.v[1])));
    case PB_TOPK_ZIPF:
        return f32_bits((float)zipf_rank(u53(w.v[0], w.v[1])));
    case PB_TOPK_NORMAL:
        return f32_bits((float)normal_of(w));
    case PB_TOPK_RELU:
        /* |N(0, 1)| is never 0 as a float (at least ~1e-16): the zeros are
         * exactly the half drawn as zeros. */
        return (w.v[2] >> 31) ? f32_bits((float)fabs(normal_of(w))) : 0u;
    case PB_TOPK_FEW:
        return f32_bits((float)((double)level_of(w, arg) / (double)arg));
    case PB_TOPK_INT8:
        return f32_bits((float)((int32_t)(w.v[0] >> 24) - 128));
    case PB_TOPK_MASKED:
        return masked_of(w, arg) ? F32_NINF : f32_bits((float)(w.v[0] >> 8) * 0x1.0p-24f);
    case PB_TOPK_EQUAL:
        return f32_bits(1.0f);
    case PB_TOPK_INF: {
        uint32_t sel = w.v[2] >> 30;
        if (sel == 0) return F32_PINF;
        if (sel == 1) return F32_NINF;
        return signed_unit(w.v[0]);
    }
    case PB_TOPK_NAN: {
        uint32_t sel = w.v[2] >> 28;
        if (sel < 2) {
            /* Any sign and payload, quiet or signalling: canonicalisation
             * must make them all one NaN. */
            uint32_t mant = w.v[3] & 0x7fffffu;
            return (w.v[3] & 0x80000000u) | F32_PINF | (mant ? mant : 1u);
        }
        if (sel == 2) return F32_PINF;
        if (sel == 3) return F32_NINF;
        return signed_unit(w.v[0]);
    }
    default:
        return 0;
    }
}

static uint32_t draw_u32(pb_topk_dist dist, uint64_t arg, philox4x32_ctr_t w)
{
    switch (dist) {
    case PB_TOPK_UNIFORM:
        return w.v[0];
    case PB_TOPK_RELU:
        return draw_f32(dist, arg, w); /* non-negative: the bits are in order */
    case PB_TOPK_FEW:
        return (uint32_t)(level_of(w, arg) * ((UINT64_C(1) << 32) / arg));
    case PB_TOPK_INT8:
        return w.v[0] >> 24;
    case PB_TOPK_MASKED:
        return masked_of(w, arg) ? 0u : 1u + (uint32_t)(((uint64_t)w.v[0] * 0xffffffffu) >> 32);
    case PB_TOPK_ZIPF:
        return zipf_rank(u53(w.v[0], w.v[1]));
    case PB_TOPK_EQUAL:
        return 1000;
    default:
        return pb_topk_key_bits(draw_f32(dist, arg, w));
    }
}

/* i32: the u32 draw moved to the signed range (its sign bit flipped: the
 * same order), except where the u32 values already mean what an int32
 * should hold: relu's zeros and positives, zipf's ranks, equal's 1000; and
 * int8 is the signed byte -128 .. 127 (quantised scores). masked's -inf is
 * INT32_MIN. */
static uint32_t draw_i32(pb_topk_dist dist, uint64_t arg, philox4x32_ctr_t w)
{
    switch (dist) {
    case PB_TOPK_RELU:
    case PB_TOPK_ZIPF:
    case PB_TOPK_EQUAL:
        return draw_u32(dist, arg, w);
    case PB_TOPK_INT8:
        return (uint32_t)(int32_t)(int8_t)(uint8_t)(w.v[0] >> 24);
    default:
        return draw_u32(dist, arg, w) ^ 0x80000000u;
    }
}

/* fp16 and bf16: the fp32 draw rounded to the type (to nearest, ties to
 * even, as a cast does): the same distributions with the type's
 * resolution, so U[0, 1) has 2^10-ish levels an octave and ties are common
 * (as in real fp16 scores), and values beyond fp16's 65504 (zipf's top
 * ranks) are +inf. */
static uint32_t draw(pb_topk_dist dist, uint64_t arg, pb_topk_dtype dtype, philox4x32_ctr_t w)
{
    if (dtype == PB_TOPK_F16) return pb_topk_f32_to_f16(draw_f32(dist, arg, w));
    if (dtype == PB_TOPK_BF16) return pb_topk_f32_to_bf16(draw_f32(dist, arg, w));
    if (dtype == PB_TOPK_F32) return draw_f32(dist, arg, w);
    return dtype == PB_TOPK_I32 ? draw_i32(dist, arg, w) : draw_u32(dist, arg, w);
}

/* ---- 64-bit values ---- */

/* Wide products and quotients of the 64-bit draws (core/rng.h's idiom). */
__extension__ typedef unsigned __int128 topk_u128;

#define F64_NINF UINT64_C(0xfff0000000000000)

static uint64_t f64_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

/* The block's first 53 bits, (w0 w1) >> 11: u53's numerator. Their top 24
 * are w0 >> 8, the fp32 uniform draw's, so the 64-bit uniform values refine
 * the fp32 ones. */
static uint64_t bits53(philox4x32_ctr_t w)
{
    return ((uint64_t)w.v[0] << 32 | w.v[1]) >> 11;
}

/* U[-1, 1) in steps of 2^-52 (every step a double): signed_unit's fp32
 * value, 29 bits finer. */
static uint64_t signed_unit64(philox4x32_ctr_t w)
{
    return f64_bits((double)((int64_t)bits53(w) - (INT64_C(1) << 52)) * 0x1.0p-52);
}

/* The fp64 value a Philox block draws, as its bits: draw_f32's
 * distributions in double precision (topk_problem.h says how each relates
 * to the fp32 draw). */
static uint64_t draw_f64(pb_topk_dist dist, uint64_t arg, philox4x32_ctr_t w)
{
    switch (dist) {
    case PB_TOPK_UNIFORM:
        return f64_bits((double)bits53(w) * 0x1.0p-53);
    case PB_TOPK_NARROW:
        return f64_bits(0.6 + 0.1 * u53(w.v[0], w.v[1]));
    case PB_TOPK_NARROW128:
        return f64_bits(128.6 + 0.1 * u53(w.v[0], w.v[1]));
    case PB_TOPK_ZIPF:
        return f64_bits((double)zipf_rank(u53(w.v[0], w.v[1])));
    case PB_TOPK_NORMAL:
        return f64_bits(normal_of(w));
    case PB_TOPK_RELU:
        /* |N(0, 1)| is never 0 (at least ~3e-16): the zeros are exactly
         * the half drawn as zeros. */
        return (w.v[2] >> 31) ? f64_bits(fabs(normal_of(w))) : 0u;
    case PB_TOPK_FEW:
        return f64_bits((double)level_of(w, arg) / (double)arg);
    case PB_TOPK_INT8:
        return f64_bits((double)((int32_t)(w.v[0] >> 24) - 128));
    case PB_TOPK_MASKED:
        return masked_of(w, arg) ? F64_NINF : f64_bits((double)bits53(w) * 0x1.0p-53);
    case PB_TOPK_EQUAL:
        return f64_bits(1.0);
    case PB_TOPK_INF: {
        uint32_t sel = w.v[2] >> 30;
        if (sel == 0) return PB_TOPK_F64_INF_BITS;
        if (sel == 1) return F64_NINF;
        return signed_unit64(w);
    }
    case PB_TOPK_NAN: {
        uint32_t sel = w.v[2] >> 28;
        if (sel < 2) {
            /* Any sign and 52-bit payload (its top bit: quiet or
             * signalling), as draw_f32's NaNs. */
            uint64_t mant = ((uint64_t)(w.v[3] & 0xfffffu) << 32) | w.v[1];
            return ((uint64_t)(w.v[3] >> 31) << 63) | PB_TOPK_F64_INF_BITS | (mant ? mant : 1u);
        }
        if (sel == 2) return PB_TOPK_F64_INF_BITS;
        if (sel == 3) return F64_NINF;
        return signed_unit64(w);
    }
    default:
        return 0;
    }
}

/* u64: draw_u32's rules on 64 bits (topk_problem.h). */
static uint64_t draw_u64(pb_topk_dist dist, uint64_t arg, philox4x32_ctr_t w)
{
    uint64_t x = (uint64_t)w.v[0] << 32 | w.v[1];
    switch (dist) {
    case PB_TOPK_UNIFORM:
        return x;
    case PB_TOPK_RELU:
        return draw_f64(dist, arg, w); /* non-negative: the bits are in order */
    case PB_TOPK_FEW:
        /* floor(2^64 / L) (for L = 1 it wraps to 0, but the level is 0). */
        return level_of(w, arg) * (uint64_t)(((topk_u128)1 << 64) / arg);
    case PB_TOPK_INT8:
        return w.v[0] >> 24;
    case PB_TOPK_MASKED:
        return masked_of(w, arg) ? 0u : 1u + (uint64_t)(((topk_u128)x * UINT64_MAX) >> 64);
    case PB_TOPK_ZIPF:
        return zipf_rank(u53(w.v[0], w.v[1]));
    case PB_TOPK_EQUAL:
        return 1000;
    default:
        return pb_topk_key_f64_bits(draw_f64(dist, arg, w));
    }
}

static uint64_t draw64(pb_topk_dist dist, uint64_t arg, pb_topk_dtype dtype, philox4x32_ctr_t w)
{
    return dtype == PB_TOPK_F64 ? draw_f64(dist, arg, w) : draw_u64(dist, arg, w);
}

/* sorted and reversed: the value at position j of a row of m (j < m). */
static uint32_t ordered_value(pb_topk_dtype dtype, uint64_t j, uint64_t m)
{
    if (dtype == PB_TOPK_U32) return (uint32_t)((j << 32) / m); /* j < m <= 2^32 */
    if (dtype == PB_TOPK_I32) return (uint32_t)((j << 32) / m) ^ 0x80000000u;
    if (dtype == PB_TOPK_F16) return (uint32_t)(j * UINT64_C(0x3c00) / m); /* 1.0 is 0x3c00 */
    if (dtype == PB_TOPK_BF16) return (uint32_t)(j * UINT64_C(0x3f80) / m);
    return (uint32_t)(j * UINT64_C(0x3f800000) / m);
}

static uint64_t ordered_value64(pb_topk_dtype dtype, uint64_t j, uint64_t m)
{
    if (dtype == PB_TOPK_U64) return (uint64_t)(((topk_u128)j << 64) / m); /* j < m */
    return (uint64_t)((topk_u128)j * UINT64_C(0x3ff0000000000000) / m);    /* 1.0's bits */
}

/* sorted and reversed: every row from positions alone. Each thread takes
 * a contiguous stretch of the buffer and finds its first row by bisection;
 * padding is left for the caller. */
static void fill_ordered(pb_topk_problem *p)
{
    int rev = p->dist == PB_TOPK_REVERSED, wide = pb_topk_dtype_is64(p->dtype);
    uint32_t *data = wide ? NULL : p->data; /* the union's active view only */
    uint64_t *data64 = wide ? p->data64 : NULL;
    uint64_t total = p->total;
    const uint64_t *begin = p->begin, *end = p->end;
    uint64_t rows = p->rows;
    pb_topk_dtype dtype = p->dtype;
#pragma omp parallel if (total >= PB_TOPK_PAR_MIN)
    {
        uint64_t nt = (uint64_t)omp_get_num_threads(), t = (uint64_t)omp_get_thread_num();
        uint64_t lo = total / nt * t + (t < total % nt ? t : total % nt);
        uint64_t hi = lo + total / nt + (t < total % nt);
        uint64_t a = 0, b = rows; /* the first row ending past lo */
        while (a < b) {
            uint64_t mid = a + (b - a) / 2;
            if (end[mid] <= lo) a = mid + 1;
            else b = mid;
        }
        for (uint64_t r = a, i = lo; r < rows && i < hi; r++) {
            uint64_t m = end[r] - begin[r];
            if (i < begin[r]) i = begin[r];
            for (; i < end[r] && i < hi; i++) {
                uint64_t j = i - begin[r], at = rev ? m - 1 - j : j;
                if (wide)
                    data64[i] = ordered_value64(dtype, at, m);
                else
                    data[i] = ordered_value(dtype, at, m);
            }
        }
    }
}

/* The value a module reading outside its row would most like to select. */
static uint64_t padding_value(const pb_topk_problem *p)
{
    if (p->dtype == PB_TOPK_U64) return p->largest ? UINT64_MAX : 0;
    if (p->dtype == PB_TOPK_F64) return p->largest ? UINT64_C(0x7ff8dead0000dead) : F64_NINF;
    if (p->dtype == PB_TOPK_U32) return p->largest ? UINT32_MAX : 0;
    if (p->dtype == PB_TOPK_I32) return p->largest ? 0x7fffffffu : 0x80000000u;
    if (p->dtype == PB_TOPK_F16) return p->largest ? 0x7deau : 0xfc00u;
    if (p->dtype == PB_TOPK_BF16) return p->largest ? 0x7fdeu : 0xff80u;
    return p->largest ? 0x7fc0dead : F32_NINF;
}

/* ---- the problem ---- */

/* Row lengths: n each, or (ragged) pairs n + d, n - d with d uniform in
 * [-n/2, n/2], so every length is uniform in [n - n/2, n + n/2] and the
 * total stays rows * n (an odd last row has n). */
static void lay_out(pb_topk_problem *p)
{
    pb_rng r;
    pb_rng_init(&r, p->seed, 0);
    r.ctr.v[1] = TOPK_TAG_LENGTHS;
    uint64_t h = p->n / 2, pos = 0, d = 0;
    p->max_len = 0;
    for (uint64_t row = 0; row < p->rows; row++) {
        uint64_t len = p->n;
        if (p->ragged && h > 0 && (row | 1) < p->rows) {
            if ((row & 1) == 0) d = pb_rng_below64(&r, 2 * h + 1); /* the pair's */
            len = (row & 1) == 0 ? p->n - h + d : p->n + h - d;
        }
        if (p->misalign) pos += (1 - pos) & 3; /* to the next 1 mod 4 */
        p->begin[row] = pos;
        p->end[row] = pos + len;
        pos += len;
        if (len > p->max_len) p->max_len = len;
    }
    p->begin[p->rows] = pos;
    p->total = pos;
}

/* The output layout: min(k, length) results a row. */
static void lay_out_results(pb_topk_problem *p)
{
    p->out_off[0] = 0;
    for (uint64_t row = 0; row < p->rows; row++) {
        uint64_t len = pb_topk_row_len(p, row);
        p->out_off[row + 1] = p->out_off[row] + (p->k < len ? p->k : len);
    }
    p->out_total = p->out_off[p->rows];
}

/* The rows from the data file, in order: its first `elems` values, row r's
 * into [begin[r], end[r]), straight into the buffer (the padding between
 * misaligned rows is filled after). */
static int read_rows(pb_topk_problem *p, pb_err *err)
{
    unsigned w = pb_topk_dtype_bytes(p->dtype);
    pb_data_reader r;
    if (pb_data_reader_open(&r, p->file, w, p->elems, err)) return -1;
    int rc = 0;
    for (uint64_t row = 0; row < p->rows && !rc; row++) {
        uint64_t len = pb_topk_row_len(p, row);
        if (w == 8) {
            /* 64-bit words: the file's keys as they are. */
            rc = pb_data_reader_next(&r, p->data64 + p->begin[row], len, err);
            continue;
        }
        uint32_t *d = p->data + p->begin[row];
        rc = pb_data_reader_next(&r, d, len, err);
        if (rc || w == 4) continue;
        /* 16-bit values were read into the row's first half: widened in
         * place from the end. Word i covers 16-bit slots 2i and 2i + 1,
         * values already widened for i >= 1; for i = 0, value 0 itself,
         * read before the word is written. */
        const uint16_t *h = (const uint16_t *)(void *)d;
        for (uint64_t i = len; i-- > 0;) {
            uint16_t x;
            memcpy(&x, h + i, sizeof x);
            d[i] = x;
        }
    }
    pb_data_reader_close(&r);
    return rc;
}

void pb_topk_twin_drop(pb_topk_problem *p)
{
    if (pb_topk_dtype_is64(p->dtype)) {
        free(p->twin_vals64);
        p->twin_vals64 = NULL;
    } else {
        free(p->twin_vals);
        p->twin_vals = NULL;
    }
    free(p->twin_idx);
    p->twin_idx = NULL;
    p->have_twin = false;
}

void pb_topk_problem_set_k(pb_topk_problem *p, uint64_t k)
{
    p->k = k;
    lay_out_results(p);
    pb_topk_twin_drop(p);
}

int pb_topk_problem_init(pb_topk_problem *p, const pb_point *pt, pb_err *err)
{
    memset(p, 0, sizeof *p);
    if (pb_topk_point_check(pt, err)) return -1;
    const long long *v = pt->params->v;
    p->n = pt->n;
    p->rows = (uint64_t)v[PB_TOPK_P_ROWS];
    p->k = (uint64_t)v[PB_TOPK_P_K];
    p->ragged = v[PB_TOPK_P_RAGGED] != 0;
    p->misalign = v[PB_TOPK_P_MISALIGN] != 0;
    p->largest = v[PB_TOPK_P_LARGEST] != 0;
    p->file = pb_param_file(v[PB_TOPK_P_DIST]);
    p->dist = p->file ? PB_TOPK_NDIST : (pb_topk_dist)pb_param_choice(v[PB_TOPK_P_DIST]);
    long long darg = pb_param_arg(v[PB_TOPK_P_DIST]);
    p->dist_arg = p->file || darg < 0 ? 0 : (uint64_t)darg;
    p->dtype = (pb_topk_dtype)v[PB_TOPK_P_DTYPE];
    p->ties = (pb_topk_ties)v[PB_TOPK_P_TIES];
    p->sorted = v[PB_TOPK_P_SORTED] != 0;
    p->seed = pt->seed;
    p->elems = p->n * p->rows;

    p->begin = malloc((p->rows + 1) * sizeof *p->begin);
    p->end = malloc(p->rows * sizeof *p->end);
    p->out_off = malloc((p->rows + 1) * sizeof *p->out_off);
    if (!p->begin || !p->end || !p->out_off) goto oom;
    lay_out(p);
    lay_out_results(p);
    /* Through the view the dtype uses, the union's active member. */
    size_t cells = (size_t)(p->total ? p->total : 1);
    if (pb_topk_dtype_is64(p->dtype))
        p->data64 = malloc(cells * sizeof *p->data64);
    else
        p->data = malloc(cells * sizeof *p->data);
    if (!pb_topk_values(p)) goto oom;
    if (p->dist == PB_TOPK_ZIPF) {
        pthread_once(&zipf_once, zipf_build);
        if (!zipf_cdf) goto oom;
    }

    bool wide = pb_topk_dtype_is64(p->dtype);
    uint32_t *data = wide ? NULL : p->data; /* the union's active view only */
    uint64_t *data64 = wide ? p->data64 : NULL;
    uint64_t seed = p->seed, total = p->total;
    pb_topk_dist dist = p->dist;
    pb_topk_dtype dtype = p->dtype;
    uint64_t arg = p->dist_arg;
    if (p->file) {
        if (read_rows(p, err)) {
            pb_topk_problem_free(p);
            return -1;
        }
    } else if (dist == PB_TOPK_SORTED || dist == PB_TOPK_REVERSED) {
        fill_ordered(p);
    } else if (wide) {
#pragma omp parallel for schedule(static) if (total >= PB_TOPK_PAR_MIN)
        for (uint64_t i = 0; i < total; i++)
            data64[i] = draw64(dist, arg, dtype, topk_block(seed, i));
    } else {
#pragma omp parallel for schedule(static) if (total >= PB_TOPK_PAR_MIN)
        for (uint64_t i = 0; i < total; i++)
            data[i] = draw(dist, arg, dtype, topk_block(seed, i));
    }
    uint64_t pad = padding_value(p);
    for (uint64_t r = 0, from = 0; r < p->rows; from = p->end[r], r++)
        for (uint64_t i = from; i < p->begin[r]; i++) {
            if (wide)
                data64[i] = pad;
            else
                data[i] = (uint32_t)pad;
        }
    return 0;
oom:
    pb_topk_problem_free(p);
    return pb_err_set(err, "out of memory for %llu rows of %llu values",
                      (unsigned long long)v[PB_TOPK_P_ROWS], (unsigned long long)pt->n);
}

void pb_topk_problem_free(pb_topk_problem *p)
{
    free(pb_topk_values(p));
    free(p->begin);
    free(p->end);
    free(p->out_off);
    pb_topk_twin_drop(p);
    memset(p, 0, sizeof *p);
}

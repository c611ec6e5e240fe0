/* A top-k problem point on the host: a batch of rows of 32-bit values in one
 * buffer, generated from the seed, and (computed on first use) the C twin's
 * answer that every module's output is checked against.
 *
 * Every topk-family module declares PB_TOPK_COMMON_PARAMS first, so the
 * shared code finds them at fixed indices (enum pb_topk_param). The point's
 * n is the nominal row length; its item must be u32 (the sweep's item
 * names no width here: the `dtype` parameter says what the values are).
 * On the host a value is held in a word (pb_topk_word_bytes): 32-bit words
 * for the dtypes up to 32 bits (fp32, u32, i32, or fp16 / bf16
 * zero-extended), 64-bit words for fp64 and u64; a GPU module's input is
 * the values at their own width (2 bytes for fp16 and bf16, 8 for fp64 and
 * u64).
 *
 * Why two word widths, not one: the 32-bit dtypes' rows are what omp-topk
 * scans and what the GPU modules upload as they are, at 4 bytes a value;
 * widening every value to 64 bits would double those reads and copies for
 * the common case. Two 32-bit words a 64-bit value would keep one element
 * type but make every index a pair of them. So the buffer is one
 * allocation with two typed views (`data` and `data64`, a union), the one
 * the dtype says being the only one ever read or written; code that serves
 * every dtype reads values widened to 64 bits (pb_topk_value_at).
 *
 * Layout. Row r is data[begin[r], end[r]). Without `misalign` the rows are
 * back to back from 0, so begin[] (rows + 1 entries, begin[rows] = total) is
 * a CSR offset array; with it, row r starts at an offset that is 1 mod 4
 * elements (4 bytes past a 16-byte boundary of the buffer; on the device 2
 * bytes for 16-bit types, 8 for 64-bit ones), so no row can be read as
 * aligned 16-byte vectors: one element of padding before the first
 * row and 0-3 between rows. begin/end are CUB's segmented form
 * (d_begin_offsets, d_end_offsets). Padding holds the value a module would
 * most like to select (NaN or u32 max for largest, -inf or 0 for smallest),
 * so reading outside a row shows up in the check.
 *
 * Output layout (every module): one compact pair of arrays, row r's results
 * at [out_off[r], out_off[r + 1]), min(k, row length) of them: the raw
 * values, in words of the host's width (uint32_t, or uint64_t for fp64 and
 * u64: pb_topk_out_value), and their indices within the row (u32; the
 * row's first element is index 0). A k larger than a row means the whole
 * row. The order inside a row is free. Ties at the k-th value (keys equal in topk_key.h's
 * order: every NaN is one key, -0.0 and +0.0 are two) follow `ties`: with
 * `any` any of the tied keys fill the row's k; with `lowest-index` those
 * with the smallest indices do, so the row's set of (key, index) pairs is
 * unique (its order still is not). With `sorted = yes` the order is fixed
 * too: rank order, best key first, equal keys by increasing index. */
#ifndef PB_TOPK_PROBLEM_H
#define PB_TOPK_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/data_file.h"
#include "core/module.h"
#include "families/topk/topk_key.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_topk_param {
    PB_TOPK_P_K,        /* values per row */
    PB_TOPK_P_ROWS,     /* batch size */
    PB_TOPK_P_RAGGED,   /* bool: row lengths vary */
    PB_TOPK_P_MISALIGN, /* bool: rows start off 16-byte boundaries */
    PB_TOPK_P_LARGEST,  /* bool: largest (else smallest) */
    PB_TOPK_P_DIST,     /* pb_topk_dist */
    PB_TOPK_P_DTYPE,    /* pb_topk_dtype */
    PB_TOPK_P_TIES,     /* pb_topk_ties */
    PB_TOPK_P_SORTED,   /* bool: each row's results in rank order */
    PB_TOPK_NCOMMON
};

/* Value distributions (the RadiK paper's Section 5 and the list).
 * fp32:
 *   uniform    U[0, 1): multiples of 2^-24 (torch.rand's values)
 *   narrow     U[0.6, 0.7]: distinguished by the top 12 key bits (Fig. 14 case 1)
 *   narrow128  U[128.6, 128.7]: one top 12-bit digit for all (Fig. 14 case 2,
 *              adversarial for radix select)
 *   zipf       Zipf(1.1) over ranks 1..2^20, the value being the rank (Fig. 15)
 *   normal     N(0, 1)
 *   equal      every value 1.0
 *   inf        1/4 +inf, 1/4 -inf, the rest U[-1, 1)
 *   nan        1/8 NaN (random sign, payload, quiet or signalling), 1/16 +inf,
 *              1/16 -inf, the rest U[-1, 1)
 *   relu       half +0.0 (exact zeros), half |N(0, 1)|: ReLU activations
 *   few:L      L distinct values j / L, j uniform in 0..L-1 (1 <= L <= 2^24:
 *              quantised scores, categorical data; ties everywhere)
 *   int8       the 256 integers -128..127, uniform (int8 scores cast)
 *   masked:F   -inf with probability F (0 <= F <= 1, at most 6 decimals),
 *              the rest U[0, 1) as uniform: masked logits
 *   sorted     row position j of m holds the float with bit pattern
 *              floor(j * 0x3f800000 / m): increasing through [0, 1), keys
 *              evenly spread, distinct for rows up to 0x3f800000 values
 *   reversed   the same, decreasing (position j holds sorted's m - 1 - j)
 * u32: uniform is uniform over all 2^32 values, zipf the rank, equal a
 * constant; relu the fp32 draw's bit pattern (zeros are 0, a non-negative
 * float's bits are in its order); few:L the values j * floor(2^32 / L),
 * spread over the range; int8 the level + 128, 0..255 (an unsigned byte:
 * the top 24 bits all zero); masked:F 0 for a masked value (u32 has no
 * -inf: 0 is its least value), the rest uniform over 1..2^32-1; sorted and
 * reversed floor(j * 2^32 / m), distinct for every row length. Every other
 * distribution is the key (topk_key.h) of its fp32 draw, so the keys keep
 * the fp32 order structure (a narrow range shares its top bits,
 * infinities and NaNs sit at the extremes). A drawn distribution takes
 * each value from the Philox block of its buffer index, sorted and
 * reversed from the position alone: the input depends on the seed (and
 * the layout) only.
 * i32: the u32 value with its sign bit flipped (the same order over the
 * signed range: uniform over all 2^32 values, few:L spread over the range,
 * masked's least value INT32_MIN, sorted and reversed increasing from
 * INT32_MIN), except relu, zipf and equal, whose u32 values are already
 * non-negative int32s, and int8, the signed byte -128..127 itself.
 *
 * Or `dist = file:PATH`, the user's own values (config/data_file.h): raw
 * little-endian 32-bit values, fp32 bit patterns, u32 or i32 by `dtype`, the
 * first rows * n of them filling the rows in order (padding is still the
 * problem's own); the file must hold that many. 16-bit dtypes read
 * little-endian 16-bit values, 64-bit dtypes little-endian 64-bit ones.
 *
 * f16 and bf16: the fp32 draw rounded to the type (to nearest, ties to
 * even, as a cast does; NaNs stay NaNs); sorted and reversed spread over
 * the bit patterns below 1.0 (0x3c00, 0x3f80).
 *
 * f64: the same distributions drawn in double precision from the same
 * Philox block. Where the fp32 draw is a double computation rounded to
 * float (narrow, narrow128, normal, relu, few:L) the f64 value is that
 * double, so (float) of it is the fp32 draw; zipf's ranks, int8's
 * integers, equal's 1.0 and the infinities are the same values; the
 * uniform values (uniform, masked's rest: U[0, 1) in steps of 2^-53; inf's
 * and nan's rest: U[-1, 1) in steps of 2^-52) extend the fp32 draw's 24
 * (23) bits by 29 more of the block, so truncating one to the fp32 step
 * gives the fp32 draw; NaNs take a random sign and 52-bit payload, quiet
 * or signalling. sorted and reversed: the bit patterns floor(j *
 * 0x3ff0000000000000 / m), below 1.0.
 * u64: the u32 rules on 64 bits: uniform over all 2^64 values; relu the
 * f64 draw's bit pattern; few:L the values j * floor(2^64 / L); int8
 * 0..255; masked:F 0 masked, the rest uniform over 1..2^64-1; zipf the
 * rank and equal 1000; sorted and reversed floor(j * 2^64 / m); every
 * other distribution the key (topk_key.h) of its f64 draw. */
typedef enum pb_topk_dist {
    PB_TOPK_UNIFORM,
    PB_TOPK_NARROW,
    PB_TOPK_NARROW128,
    PB_TOPK_ZIPF,
    PB_TOPK_NORMAL,
    PB_TOPK_EQUAL,
    PB_TOPK_INF,
    PB_TOPK_NAN,
    PB_TOPK_RELU,
    PB_TOPK_FEW,    /* few:L (the argument: L) */
    PB_TOPK_INT8,
    PB_TOPK_MASKED, /* masked:F (the argument: F in millionths) */
    PB_TOPK_SORTED,
    PB_TOPK_REVERSED,
    PB_TOPK_NDIST
} pb_topk_dist;

#define PB_TOPK_DIST_CHOICES                                                                       \
    "uniform|narrow|narrow128|zipf|normal|equal|inf|nan|relu|few:L|int8|masked:F|sorted|"          \
    "reversed|" PB_CHOICE_FILE
/* Which of the keys equal to a row's k-th key are returned; the `ties`
 * parameter's choices in this order. */
typedef enum pb_topk_ties { PB_TOPK_TIES_ANY, PB_TOPK_TIES_LOWEST } pb_topk_ties;
#define PB_TOPK_TIES_CHOICES "any|lowest-index"

#define PB_TOPK_FEW_MAX (1LL << 24) /* few:L: L distinct fp32 values j / L */
#define PB_TOPK_ZIPF_RANKS (1u << 20)
#define PB_TOPK_ZIPF_S 1.1
#define PB_TOPK_MAX_K (1LL << 31)
#define PB_TOPK_MAX_ROWS (1LL << 26)
/* Work on fewer values than this runs on one thread: a parallel region
 * costs more than it saves, and far more when the cores are oversubscribed
 * (every region then waits for a descheduled thread). */
#define PB_TOPK_PAR_MIN (UINT64_C(1) << 15)

/* clang-format off */
#define PB_TOPK_COMMON_PARAMS                                                                      \
    {"k", PB_PARAM_INT, 32, 1, PB_TOPK_MAX_K, NULL,                                                \
     "values selected per row; a row shorter than k is returned whole"},                           \
    {"rows", PB_PARAM_INT, 1, 1, PB_TOPK_MAX_ROWS, NULL,                                           \
     "rows in the batch, one query each (n is the row length)"},                                   \
    {"ragged", PB_PARAM_BOOL, 0, 0, 1, NULL,                                                       \
     "row lengths vary uniformly in [n - n/2, n + n/2] (total still rows * n)"},                   \
    {"misalign", PB_PARAM_BOOL, 0, 0, 1, NULL,                                                     \
     "every row starts 4 bytes past a 16-byte boundary (padding between rows)"},                   \
    {"largest", PB_PARAM_BOOL, 1, 0, 1, NULL, "select the largest values (no: the smallest)"},     \
    {"dist", PB_PARAM_ENUM, PB_TOPK_UNIFORM, 0, 0, PB_TOPK_DIST_CHOICES,                           \
     "values: U[0,1], U[0.6,0.7], U[128.6,128.7], Zipf(1.1), N(0,1), all equal, many +-inf, "      \
     "some NaNs, half zeros (relu), L levels (few:L), 256 integer levels (int8), a fraction F "    \
     "of -inf (masked:F), sorted, reversed; or a file of raw little-endian values of the "         \
     "dtype's width"},                                                                             \
    {"dtype", PB_PARAM_ENUM, PB_TOPK_F32, 0, 0, PB_TOPK_DTYPE_CHOICES,                             \
     "value type: fp32, u32, i32, fp16, bf16, fp64 or u64 (item stays u32; the GPU reads each "   \
     "type at its width: 2 bytes a value for fp16 / bf16, 8 for fp64 / u64)"},                     \
    {"ties", PB_PARAM_ENUM, PB_TOPK_TIES_ANY, 0, 0, PB_TOPK_TIES_CHOICES,                          \
     "keys equal to the k-th: any of them fill the k, or those with the smallest indices "        \
     "(a unique answer)"},                                                                          \
    {"sorted", PB_PARAM_BOOL, 0, 0, 1, NULL,                                                       \
     "each row's results in rank order, best first, equal keys by increasing index (as "          \
     "torch.topk's sorted=True); no: in any order"}
/* clang-format on */

typedef struct pb_topk_problem {
    uint64_t n; /* nominal row length */
    uint64_t rows;
    uint64_t k; /* as asked; a row returns min(k, its length) */
    bool ragged, misalign, largest;
    pb_topk_dist dist;  /* PB_TOPK_NDIST when the values come from `file` */
    uint64_t dist_arg;  /* few:L: L; masked:F: F in millionths; else 0 */
    pb_data_file *file; /* dist = file:PATH, else NULL */
    pb_topk_dtype dtype;
    pb_topk_ties ties;
    bool sorted; /* results in rank order */
    uint64_t seed;

    uint64_t elems;   /* values in rows: rows * n, ragged or not */
    uint64_t total;   /* data's length: the rows and their padding */
    uint64_t max_len; /* the longest row */
    /* Raw values, rows and padding: in 32-bit words (fp32 bits, u32, i32,
     * 16-bit bits zero-extended), or for fp64 and u64 in 64-bit words
     * (data64). One buffer, accessed only through the view of its dtype
     * (see the top of this file). */
    union {
        uint32_t *data;
        uint64_t *data64;
    };
    uint64_t *begin;  /* rows + 1; begin[rows] = total */
    uint64_t *end;    /* rows */

    uint64_t *out_off; /* rows + 1: the output layout */
    uint64_t out_total;

    /* The twin's answer (pb_topk_twin_answer): per row in rank order, best
     * first, ties by smaller index; the values in the dtype's words. */
    union {
        uint32_t *twin_vals;
        uint64_t *twin_vals64;
    };
    uint32_t *twin_idx;
    bool have_twin;
} pb_topk_problem;

static inline uint64_t pb_topk_row_len(const pb_topk_problem *p, uint64_t r)
{
    return p->end[r] - p->begin[r];
}

/* The order key (larger = to be selected) of a raw value of this problem
 * (dtypes up to 32 bits). */
static inline uint32_t pb_topk_problem_okey(const pb_topk_problem *p, uint32_t raw)
{
    return pb_topk_okey_of(raw, p->dtype, p->largest);
}

/* Bytes of the host's word for a value of `dtype`: 8 for fp64 and u64, else
 * 4 (16-bit values are held zero-extended). Output values take the same. */
static inline unsigned pb_topk_word_bytes(int dtype)
{
    return pb_topk_dtype_is64(dtype) ? 8u : 4u;
}

/* The value buffer through the view its dtype writes and reads (the
 * union's active member), for code that handles it as bytes. */
static inline void *pb_topk_values(const pb_topk_problem *p)
{
    return pb_topk_dtype_is64(p->dtype) ? (void *)p->data64 : (void *)p->data;
}

/* The twin's values (pb_topk_twin_answer) through their active view: an
 * output array for pb_topk_out_value. */
static inline const void *pb_topk_twin_values(const pb_topk_problem *p)
{
    return pb_topk_dtype_is64(p->dtype) ? (const void *)p->twin_vals64 : (const void *)p->twin_vals;
}

/* Any dtype, widened to 64 bits: the raw value at buffer position i, a
 * raw value's order key, and value j of an output array `vals` (the
 * problem's output layout, in its words). */
static inline uint64_t pb_topk_value_at(const pb_topk_problem *p, uint64_t i)
{
    return pb_topk_dtype_is64(p->dtype) ? p->data64[i] : p->data[i];
}

static inline uint64_t pb_topk_problem_okey64(const pb_topk_problem *p, uint64_t raw)
{
    return pb_topk_okey64_of(raw, p->dtype, p->largest);
}

static inline uint64_t pb_topk_out_value(const pb_topk_problem *p, const void *vals, uint64_t j)
{
    return pb_topk_dtype_is64(p->dtype) ? ((const uint64_t *)vals)[j] : ((const uint32_t *)vals)[j];
}

/* fp32 bits rounded to fp16 / bf16 bits (to nearest, ties to even; a NaN
 * stays a NaN, its sign and top payload bits kept): the 16-bit draws. */
uint32_t pb_topk_f32_to_f16(uint32_t f32_bits);
uint32_t pb_topk_f32_to_bf16(uint32_t f32_bits);

/* Validates the point (item width 4, row lengths that fit a u32 index,
 * buffers that fit in size_t), lays out the rows and generates the values
 * from pt->seed with OpenMP. Every value is drawn from its own Philox
 * block, the counter holding its index in the buffer, so the input depends
 * on the seed alone, never on the thread count. With a data file, the rows
 * are read from it instead (an error if it no longer holds what the plan
 * checked). */
int pb_topk_problem_init(pb_topk_problem *p, const pb_point *pt, pb_err *err);
void pb_topk_problem_free(pb_topk_problem *p);

/* The same input with another k (1 <= k): a new output layout, and the
 * twin's answer dropped. For sweeps over k on one input (tests). */
void pb_topk_problem_set_k(pb_topk_problem *p, uint64_t k);

/* Frees the twin's answer, which the next use computes again. */
void pb_topk_twin_drop(pb_topk_problem *p);

/* Only validates the point (for footprint and plan checks). */
int pb_topk_point_check(const pb_point *pt, pb_err *err);

/* The family's check_point hook: the point is valid and, for dist =
 * file:PATH, the file holds the rows * n values it needs (one line naming
 * both numbers otherwise). Modules without the common parameters pass. */
int pb_topk_check_point(const pb_module *m, const pb_point *pt, pb_err *err);

/* Host bytes a problem of this point and its twin answer hold at most. */
uint64_t pb_topk_problem_host_bytes(const pb_point *pt);
/* The most results a point's problem has (sum over rows of min(k, length)). */
uint64_t pb_topk_out_bound(const pb_point *pt);

/* The module descriptor's `work` hook for every top-k module: rows * n items
 * (exact, ragged too), each read once: the dtype's width an item. */
void pb_topk_work(const pb_point *pt, double *items, double *bytes);

#ifdef __cplusplus
}
#endif

#endif

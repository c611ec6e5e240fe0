/* RadiK's radix select, the part that decides (host and device share it).
 *
 * Keys are order keys (topk_key.h: larger = to be selected), so a top-k is
 * the k largest keys of a row. A row's radix select keeps an interval
 * [lo, hi] of keys that still holds its pivot (the k-th largest key); every
 * pass histograms the candidates in the interval by a digit, and the select
 * step narrows the interval to the pivot's bin. Keys above the interval are
 * in the answer; keys below are not.
 *
 * Digits. A pass's digit is (key - lo) >> shift with at most PB_RADIK_BITS
 * (13) bits, so three passes take the full 32-bit interval to one key
 * (shifts 19, 6, 0) — except that the first digit can be *scaled*.
 *
 * Key widths. Order keys are 32-bit for every dtype up to 32 bits and
 * 64-bit for fp64 and u64 (topk_key.h). The row state and every function
 * that holds a key exist at both widths (radik_digit_w.h, included twice):
 * pb_radik_row and the plain names for 32-bit keys, pb_radik_row64 and the
 * names ending in 64 for 64-bit ones (C++ also has the latter under the
 * plain names, as overloads, for the kernels' templates). Digits stay 13
 * bits, so a 64-bit interval takes five plain passes (shifts 51, 38, 25,
 * 12, 0); counts and indices stay 32-bit (rows below 2^31).
 *
 * Scaling (the paper's Section 4.3). An input whose values share their top
 * bits (U[128.6, 128.7]: every key has the same top 12 bits) puts every
 * element into the pivot's bin of the first pass, and the first pass then
 * narrows nothing. The paper subtracts a randomly drawn element x0 from
 * every value in fp32, so that values near x0 spread over many exponents.
 * We do the same in the key domain, exactly: d = key - ref (as a 64-bit
 * signed number; ref is the key of the drawn element) is binned
 * logarithmically, like a float with 7 mantissa bits: |d| < 256 exactly,
 * then 128 bins per octave. The binning is monotone in the key, so a bin is
 * an interval of keys (pb_radik_scaled_interval inverts it exactly), no two
 * keys ever swap order, and the returned set cannot change — fp32
 * subtraction would round, merge distinct values near large ones and need a
 * tie-breaking pass. The interval of a scaled bin spans at most 2^24 keys,
 * so two 13-bit passes (shifts 11, 0) still finish the select.
 * 64-bit keys: |d| has up to 64 bits, 56 octaves past the exact 256, and
 * 128 bins an octave would need 256 + 56 * 128 = 7424 bins a side, past
 * the 4096 (PB_RADIK_MID) there are; with 6 mantissa bits (PB_RADIK_MANT64)
 * it is 256 + 56 * 64 = 3840. A bin then spans at most 2^57 keys: five
 * more passes (shifts 44, 31, 18, 5, 0). The difference is taken after the
 * compare (key - ref or ref - key - 1, never negative), so no 65-bit
 * signed arithmetic is needed, and the interval is clamped to [0, 2^64 - 1]
 * end by end.
 *
 * The drawn element: `random` is the paper's choice, a pseudo-random
 * element of the row, and always scales; `pivot` draws a sample of the row,
 * takes the sample's estimate of the pivot itself (so the finest bins sit
 * where the select needs them), and scales only when the sample shows that
 * the plain first digit would keep more than 1/256 of the row: adaptive, so
 * an input the plain digit splits well keeps the cheaper first pass.
 *
 * The sampled pre-filter (our addition, not the paper's; radik's `filter`
 * parameter). A top-k of a long row keeps a small fraction of it, and the
 * same sample bounds that fraction: its key of rank j (descending, j well
 * past the rank the pivot has in the sample, pb_radik_filter_rank) is below
 * the pivot unless at least j + 1 sample keys lie above the pivot, which
 * has a probability under 1e-7. The first pass over the input then keeps
 * the keys at or above that threshold as candidates and histograms them by
 * the scaled digit around the sample's pivot estimate (mode FILTER): a
 * query reads its input once. If fewer than `need` keys pass (the sample
 * was wrong), the row starts over with the two-read passes, so the answer
 * never depends on the sample.
 *
 * Ties at the threshold (`tie_aware`, on by default). On an all-equal row,
 * half-zero ReLU outputs or a few quantised levels, the sample's threshold
 * key is shared by much of the row, so "at or above it" keeps far more than
 * 1/16 and the row used to take the two-read passes, writing every tied key
 * as a candidate through every candidate pass (many times the uniform
 * row's time: docs/measured.md). A strict filter is used instead (also where the threshold
 * is selective but more than 1/64 of the sample equals it: few:16's top
 * level, 1/16 of the row, at a small k): keys above the threshold
 * are candidates as before, and the keys equal to it are counted on the
 * row's `eq` counter, saturating past `take` (a block stops adding once it
 * has seen it full). Which keys equal to the threshold go on:
 *   - ties = any (strict = PB_RADIK_STRICT_KEEP): the first `take` to claim
 *     an `eq` slot become candidates too. The candidates then hold every key
 *     above the threshold and min(c_eq, take) keys equal to it, so a top
 *     `take` of them is a top `take` of the row whenever the row has `take`
 *     keys at or above the threshold — the same condition, checked the same
 *     way (written >= need), as the plain filter's;
 *   - ties = lowest-index (PB_RADIK_STRICT_COUNT): none (which ones must be
 *     chosen by index). If the keys above number c_gt >= take, the pivot
 *     lies above the threshold and the row goes on as usual; if c_gt < take
 *     <= c_gt + c_eq, the pivot is the threshold: every candidate is taken
 *     and the tie pass (radik_ties.cuh) fills take - c_gt from the
 *     threshold's first indices (tie_key, tie_need); else the row falls
 *     back. */
#ifndef PB_RADIK_DIGIT_H
#define PB_RADIK_DIGIT_H

#include <math.h>
#include <stdint.h>

#include "algorithms/topk/radik/radik_tuning.h"

#if defined(__CUDACC__)
#define PB_RADIK_HD __host__ __device__ __forceinline__
#else
#define PB_RADIK_HD static inline
#endif

/* What the next pass does with a row's candidates. */
enum pb_radik_mode {
    PB_RADIK_COUNT = 0, /* first pass: histogram only */
    PB_RADIK_SPLIT = 1, /* output keys > hi, keep [lo, hi] and histogram them */
    PB_RADIK_TAKE = 2,  /* output every key >= lo: all of them are needed */
    PB_RADIK_FINAL = 3, /* lo == hi is the pivot: output keys > hi, and `need` of the ties */
    PB_RADIK_DONE = 4,
    PB_RADIK_FILTER = 5, /* first pass, sampled: keep keys >= lo, histogram them scaled */
};

/* A filter's treatment of keys equal to its threshold (see above). */
enum pb_radik_strict {
    PB_RADIK_STRICT_OFF = 0,   /* keys >= threshold are candidates */
    PB_RADIK_STRICT_KEEP = 1,  /* > threshold, and `take` of those equal */
    PB_RADIK_STRICT_COUNT = 2, /* > threshold; those equal only counted */
};

/* Where the next pass of a row reads: the input or its candidates. */
enum pb_radik_src { PB_RADIK_SRC_INPUT = 0, PB_RADIK_SRC_CAND = 1 };

/* The sample rank (0-based, descending) of the pre-filter's threshold for a
 * sample of s keys of a row of len keys with `take` results: the number of
 * sample keys above the pivot is about Poisson(mu), mu = s * take / len,
 * and the threshold lies above the pivot only if j + 1 of them do:
 * j = mu + 5 sqrt(mu) + 5 puts that below 1e-7 (1e-12 at mu = 1). */
PB_RADIK_HD uint32_t pb_radik_filter_rank(uint32_t s, uint32_t take, uint32_t len)
{
    double mu = (double)s * take / len;
    double j = mu + 5.0 * sqrt(mu) + 5.0;
    return j < (double)s ? (uint32_t)j : s;
}

/* Whether a sampled threshold that `tied` keys of a sample of s share is a
 * level (radik's `tie_level`, radik_args.cuh): two or more sample keys, and
 * about tied * len / s keys of the row, past twice the take. fp16 values
 * of U[0, 1) have a level of 2^-11 of the row below 1.0: at 2^29, k = 32,
 * the refined threshold is 1.0 or that level, and the level's 262 K keys
 * were all written as candidates. */
PB_RADIK_HD int pb_radik_level_tied(uint32_t tied, uint32_t s, uint32_t len, uint32_t take)
{
    return tied >= 2 && (uint64_t)tied * len > 2 * (uint64_t)take * s;
}

/* Whether `tie_level = up` may move a level threshold of sample rank j up
 * to the next sample key, which `above` sample keys reach where the
 * threshold is reached by j + 1: on a rank bound three below j's, and at
 * least three keys (pb_radik_filter_rank: at mu = 0.001, a probability
 * about 2e-10 that the row then has fewer than take keys at or above it,
 * whose cost is the fallback, never a wrong answer). */
PB_RADIK_HD int pb_radik_level_may_rise(uint32_t above, uint32_t j)
{
    return above >= 3 && above + 2 >= j;
}

/* A 32-bit mix for the sample's positions (radik_sample.cuh), host and
 * device alike so that a host replay of the sample
 * (tests/topk/radik_sample_replay.c) reads the keys the kernel reads. */
PB_RADIK_HD uint32_t pb_radik_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* The position in its row (of len keys) of sample key s: hashed, so that
 * the sample does not depend on the row's order. The small sample's keys
 * are s < PB_RADIK_SAMPLE, `refine`'s extra ones the next. salt: the
 * query's seed folded to 32 bits (radik.cu). */
PB_RADIK_HD uint32_t pb_radik_sample_pos(uint32_t s, uint32_t row, uint32_t salt, uint32_t len)
{
    return pb_radik_hash(s ^ (row * 0x85ebca6bU) ^ salt) % len;
}

/* Whether a row of len keys with `take` results may filter, before its
 * sample says whether the threshold is selective: a long row, and (unless
 * any_k) a take whose threshold rank could be selective at all. */
PB_RADIK_HD int pb_radik_filterable(uint64_t len, uint64_t take, int any_k)
{
    if (len < PB_RADIK_FILTER_MIN || take >= len) return 0;
    return any_k || (pb_radik_filter_rank(PB_RADIK_SAMPLE, (uint32_t)take, (uint32_t)len) + 1) *
                            PB_RADIK_FILTER_KEEP <=
                        PB_RADIK_SAMPLE;
}

#define PB_RADIK_KW 32
#include "algorithms/topk/radik/radik_digit_w.h"
#undef PB_RADIK_KW
#define PB_RADIK_KW 64
#include "algorithms/topk/radik/radik_digit_w.h"
#undef PB_RADIK_KW

#ifdef __cplusplus
/* The 64-bit functions under the plain names, for code templated over the
 * key type (the kernels, radik_args.cuh): the row's type, or the key's, picks the
 * width. */
PB_RADIK_HD uint32_t pb_radik_scaled_digit(uint64_t key, uint64_t ref)
{
    return pb_radik_scaled_digit64(key, ref);
}
PB_RADIK_HD uint32_t pb_radik_digit(const pb_radik_row64 *r, uint64_t key)
{
    return pb_radik_digit64(r, key);
}
PB_RADIK_HD void pb_radik_row_init(pb_radik_row64 *r, uint32_t len, uint64_t k, int scaled,
                                   uint64_t ref, uint64_t kmax)
{
    pb_radik_row_init64(r, len, k, scaled, ref, kmax);
}
PB_RADIK_HD void pb_radik_row_filter(pb_radik_row64 *r, uint64_t thr, uint64_t ref,
                                     uint32_t strict)
{
    pb_radik_row_filter64(r, thr, ref, strict);
}
PB_RADIK_HD void pb_radik_row_advance(pb_radik_row64 *r, uint32_t bin, uint32_t above,
                                      uint32_t count, uint32_t written)
{
    pb_radik_row_advance64(r, bin, above, count, written);
}
PB_RADIK_HD uint32_t pb_radik_tie_need(const pb_radik_row64 *r) { return pb_radik_tie_need64(r); }
PB_RADIK_HD uint64_t pb_radik_tie_key(const pb_radik_row64 *r) { return pb_radik_tie_key64(r); }
#endif

#endif

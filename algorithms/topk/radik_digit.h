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
 * as a candidate through every candidate pass (19x the uniform time at 2^29
 * on an H200). A strict filter is used instead (also where the threshold
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

#if defined(__CUDACC__)
#define PB_RADIK_HD __host__ __device__ __forceinline__
#else
#define PB_RADIK_HD static inline
#endif

#define PB_RADIK_BITS 13
#define PB_RADIK_BINS (1u << PB_RADIK_BITS)
/* Scaled digit: |d| < 2^EXACT_BITS binned exactly, then 2^MANT bins per
 * octave; positive d above the middle bin, negative below. */
#define PB_RADIK_EXACT_BITS 8
#define PB_RADIK_MANT 7
#define PB_RADIK_MID (PB_RADIK_BINS / 2)

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

/* The sample (scaling reference and pre-filter), and the rows the filter
 * considers. */
#define PB_RADIK_SAMPLE 2048
#define PB_RADIK_FILTER_MIN (1u << 16)
/* A threshold is used when it keeps at most 1/PB_RADIK_FILTER_KEEP of the
 * sample: beyond that the candidates cost about what a second read does. */
#define PB_RADIK_FILTER_KEEP 16

/* One row's select state (device memory; the counters are atomics). */
typedef struct pb_radik_row {
    uint32_t lo, hi;  /* the candidates' interval */
    uint32_t shift;   /* digit of the next pass: (key - lo) >> shift */
    uint32_t scaled;  /* first pass: the digit is pb_radik_scaled_digit(key, ref) */
    uint32_t ref;     /* the scaling reference key */
    uint32_t mode;    /* pb_radik_mode of the next pass */
    uint32_t need;    /* keys still to choose among the candidates in [lo, hi] */
    uint32_t take;    /* min(k, row length): the row's whole answer */
    uint32_t len_in;  /* candidates the next pass reads (input passes: the row) */
    uint32_t wr;      /* candidates the running pass has written */
    uint32_t nout;    /* results written (keys above the interval, in any order) */
    uint32_t ties;    /* final pass: pivot keys claimed */
    uint32_t tie_need; /* after a final pass: the ties it had to choose (`need`), else 0 */
    uint32_t tie_key;  /* ... and their key (the pivot) */
    uint32_t strict;   /* pb_radik_strict of a filtering row (lo is the threshold) */
    uint32_t eq;       /* strict filter: keys equal to the threshold seen (saturates past take) */
    uint32_t src;     /* pb_radik_src of the next pass */
    uint32_t cscaled, cref; /* the counting pass's scaling, should a filter fall back */
    uint32_t kmax;    /* the largest order key the dtype has (2^16 - 1 for 16-bit types) */
} pb_radik_row;

PB_RADIK_HD uint32_t pb_radik_bitlen(uint32_t x)
{
#if defined(__CUDA_ARCH__)
    return 32 - __clz(x);
#else
    return x ? 32 - (uint32_t)__builtin_clz(x) : 0;
#endif
}

/* The log bin of u = |d| or |d| - 1, 0 .. 3327. */
PB_RADIK_HD uint32_t pb_radik_log_bin(uint32_t u)
{
    if (u < (1u << PB_RADIK_EXACT_BITS)) return u;
    uint32_t e = pb_radik_bitlen(u); /* 9 .. 32 */
    uint32_t t = (u >> (e - 1 - PB_RADIK_MANT)) & ((1u << PB_RADIK_MANT) - 1);
    return (1u << PB_RADIK_EXACT_BITS) + ((e - PB_RADIK_EXACT_BITS - 1) << PB_RADIK_MANT) + t;
}

/* The u range [*ulo, *uhi] of log bin v. */
PB_RADIK_HD void pb_radik_log_range(uint32_t v, uint64_t *ulo, uint64_t *uhi)
{
    if (v < (1u << PB_RADIK_EXACT_BITS)) {
        *ulo = *uhi = v;
        return;
    }
    v -= 1u << PB_RADIK_EXACT_BITS;
    uint32_t e = (v >> PB_RADIK_MANT) + PB_RADIK_EXACT_BITS + 1;
    uint32_t t = v & ((1u << PB_RADIK_MANT) - 1);
    uint32_t s = e - 1 - PB_RADIK_MANT;
    *ulo = (uint64_t)((1u << PB_RADIK_MANT) + t) << s;
    *uhi = *ulo + ((uint64_t)1 << s) - 1;
}

/* The scaled first digit of `key` around `ref`: monotone in key. */
PB_RADIK_HD uint32_t pb_radik_scaled_digit(uint32_t key, uint32_t ref)
{
    /* One log bin either side (the select keeps it branch-free). */
    uint32_t up = key >= ref;
    uint32_t v = pb_radik_log_bin(up ? key - ref : ref - key - 1);
    return up ? PB_RADIK_MID + v : PB_RADIK_MID - 1 - v;
}

/* The keys whose scaled digit around ref is `bin`; returns 0 if none. */
PB_RADIK_HD int pb_radik_scaled_interval(uint32_t bin, uint32_t ref, uint32_t *lo, uint32_t *hi)
{
    uint64_t ulo, uhi;
    int64_t klo, khi;
    if (bin >= PB_RADIK_MID) {
        pb_radik_log_range(bin - PB_RADIK_MID, &ulo, &uhi);
        klo = (int64_t)ref + (int64_t)ulo;
        khi = (int64_t)ref + (int64_t)uhi;
    } else {
        pb_radik_log_range(PB_RADIK_MID - 1 - bin, &ulo, &uhi);
        klo = (int64_t)ref - (int64_t)uhi - 1;
        khi = (int64_t)ref - (int64_t)ulo - 1;
    }
    if (klo < 0) klo = 0;
    if (khi > (int64_t)UINT32_MAX) khi = UINT32_MAX;
    if (klo > khi) return 0;
    *lo = (uint32_t)klo;
    *hi = (uint32_t)khi;
    return 1;
}

/* The digit of a candidate key in the current pass. */
PB_RADIK_HD uint32_t pb_radik_digit(const pb_radik_row *r, uint32_t key)
{
    return r->scaled ? pb_radik_scaled_digit(key, r->ref) : (key - r->lo) >> r->shift;
}

/* The shift that makes (key - lo) >> shift fit the digit for [lo, hi]. */
PB_RADIK_HD uint32_t pb_radik_shift_for(uint32_t lo, uint32_t hi)
{
    uint32_t b = pb_radik_bitlen(hi - lo);
    return b > PB_RADIK_BITS ? b - PB_RADIK_BITS : 0;
}

/* A row before its first pass: the whole key range [0, kmax] (kmax: the
 * dtype's largest order key, 2^bits - 1), `take` results. 16-bit keys
 * thus take two plain passes (shifts 3, 0), not three. */
PB_RADIK_HD void pb_radik_row_init(pb_radik_row *r, uint32_t len, uint64_t k, int scaled,
                                   uint32_t ref, uint32_t kmax)
{
    r->kmax = kmax;
    r->lo = 0;
    r->hi = kmax;
    r->shift = pb_radik_shift_for(0, kmax);
    r->scaled = scaled ? 1u : 0u;
    r->ref = ref;
    r->take = k < len ? (uint32_t)k : len;
    r->need = r->take;
    r->len_in = len;
    r->wr = r->nout = r->ties = r->tie_need = r->tie_key = 0;
    r->strict = PB_RADIK_STRICT_OFF;
    r->eq = 0;
    r->src = PB_RADIK_SRC_INPUT;
    r->mode = r->take == 0 ? PB_RADIK_DONE : r->take == len ? PB_RADIK_TAKE : PB_RADIK_COUNT;
    if (r->mode == PB_RADIK_TAKE) r->scaled = 0;
    r->cscaled = r->scaled;
    r->cref = ref;
}

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

/* A counting row turned into a filtering one: keys >= thr (strict: > thr,
 * and per `strict` those equal) are kept and histogrammed by the scaled
 * digit around ref. Other rows are left alone. */
PB_RADIK_HD void pb_radik_row_filter(pb_radik_row *r, uint32_t thr, uint32_t ref, uint32_t strict)
{
    if (r->mode != PB_RADIK_COUNT) return;
    r->mode = PB_RADIK_FILTER;
    r->strict = strict;
    r->eq = 0;
    r->lo = thr;
    r->hi = r->kmax;
    r->scaled = 1;
    r->ref = ref;
}

/* The select step after a pass: `bin` holds the pivot, `above` candidates
 * lie in higher bins (they are output by the next pass), `count` in the
 * bin. Sets up the next pass. `written` is what the pass wrote as
 * candidates: the next pass reads them after a split or filter pass, and
 * the input again after the counting pass. Passes that only output finish
 * the row. */
PB_RADIK_HD void pb_radik_row_advance(pb_radik_row *r, uint32_t bin, uint32_t above,
                                      uint32_t count, uint32_t written)
{
    if (r->mode == PB_RADIK_TAKE || r->mode == PB_RADIK_FINAL || r->mode == PB_RADIK_DONE) {
        /* A final pass leaves lo (the pivot), take and need as they were:
         * with ties = lowest-index the tie pass reads them. */
        if (r->mode == PB_RADIK_FINAL) {
            r->tie_need = r->need;
            r->tie_key = r->lo;
        }
        r->mode = PB_RADIK_DONE;
        return;
    }
    if (r->mode == PB_RADIK_FILTER && written < r->need && r->strict == PB_RADIK_STRICT_COUNT &&
        (uint64_t)written + r->eq >= r->need) {
        /* The pivot is the threshold: the `written` keys above it are all
         * in, and the tie pass chooses the rest among the keys equal to it. */
        r->tie_key = r->lo;
        r->tie_need = r->need - written;
        r->need = written;
        r->lo = r->lo == r->kmax ? r->kmax : r->lo + 1; /* none above kmax: nothing kept */
        r->hi = r->kmax;
        r->scaled = 0;
        r->len_in = written;
        r->src = PB_RADIK_SRC_CAND;
        r->wr = 0;
        r->mode = written ? PB_RADIK_TAKE : PB_RADIK_DONE;
        return;
    }
    if (r->mode == PB_RADIK_FILTER && written < r->need) {
        /* Fewer keys passed the threshold than the row needs (it wrote no
         * results): the two-read passes from the start. */
        pb_radik_row_init(r, r->len_in, r->take, (int)r->cscaled, r->cref, r->kmax);
        return;
    }
    if (r->mode == PB_RADIK_SPLIT || r->mode == PB_RADIK_FILTER) {
        r->len_in = written;
        r->src = PB_RADIK_SRC_CAND;
    }
    uint32_t lo = 0, hi = 0;
    if (r->scaled) {
        /* A filter's candidates lie in [r->lo, kmax]: the bin's keys there. */
        pb_radik_scaled_interval(bin, r->ref, &lo, &hi);
        if (lo < r->lo) lo = r->lo;
        if (hi > r->kmax) hi = r->kmax;
        r->scaled = 0;
    } else {
        lo = r->lo + (bin << r->shift);
        uint64_t top = (uint64_t)lo + ((uint64_t)1 << r->shift) - 1;
        hi = top < r->hi ? (uint32_t)top : r->hi;
    }
    r->lo = lo;
    r->hi = hi;
    r->need -= above;
    r->wr = 0;
    if (count == r->need)
        r->mode = PB_RADIK_TAKE;
    else if (lo == hi)
        r->mode = PB_RADIK_FINAL;
    else {
        r->mode = PB_RADIK_SPLIT;
        r->shift = pb_radik_shift_for(lo, hi);
    }
}

/* After the query's last pass: the ties at the pivot (lo) a row's final
 * pass left to choose (ties = lowest-index), 0 if none. A row whose final
 * pass was the query's last is still in mode FINAL (no select follows the
 * last pass); one whose final pass came earlier was advanced to DONE with
 * tie_need set. Either way take - need keys above the pivot were output. */
PB_RADIK_HD uint32_t pb_radik_tie_need(const pb_radik_row *r)
{
    return r->mode == PB_RADIK_FINAL ? r->need : r->tie_need;
}

/* ... and their key: the pivot. */
PB_RADIK_HD uint32_t pb_radik_tie_key(const pb_radik_row *r)
{
    return r->mode == PB_RADIK_FINAL ? r->lo : r->tie_key;
}

#endif

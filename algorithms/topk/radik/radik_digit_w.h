/* The key-width part of radik_digit.h: the row state and every function
 * that holds a key, written once and included twice by radik_digit.h, with
 * PB_RADIK_KW 32 (32-bit order keys: every dtype up to 32 bits, under the
 * plain names) and 64 (fp64 and u64: pb_radik_row64 and the names with a
 * `64` suffix). Only radik_digit.h includes it (hence no include guard).
 * Where the widths differ the code says so under #if: the 32-bit
 * expansion does the operations radik's code did before 64-bit keys came,
 * so its kernels compile as they did (the PTX of the 32-bit kernels was
 * compared).
 *
 * Inside: PB_RADIK_K is the key type, PB_RADIK_ROW the row state,
 * PB_RADIK_FN(name) a function's name at this width, PB_RADIK_WMANT the
 * scaled digit's mantissa bits (radik_digit.h says why 64-bit keys take 6). */
#if PB_RADIK_KW == 32
#define PB_RADIK_K uint32_t
#define PB_RADIK_ROW pb_radik_row
#define PB_RADIK_FN(name) name
#define PB_RADIK_WMANT PB_RADIK_MANT
#elif PB_RADIK_KW == 64
#define PB_RADIK_K uint64_t
#define PB_RADIK_ROW pb_radik_row64
#define PB_RADIK_FN(name) name##64
#define PB_RADIK_WMANT PB_RADIK_MANT64
#else
#error "radik_digit_w.h: PB_RADIK_KW must be 32 or 64"
#endif

/* One row's select state (device memory; the counters are atomics). The
 * keys (lo, hi, ref, tie_key, cref, kmax) have the width's type; counts
 * and indices are 32-bit at both widths (rows below 2^31). */
typedef struct PB_RADIK_ROW {
    PB_RADIK_K lo, hi; /* the candidates' interval */
    uint32_t shift;    /* digit of the next pass: (key - lo) >> shift */
    uint32_t scaled;   /* first pass: the digit is pb_radik_scaled_digit(key, ref) */
    PB_RADIK_K ref;    /* the scaling reference key */
    uint32_t mode;     /* pb_radik_mode of the next pass */
    uint32_t need;     /* keys still to choose among the candidates in [lo, hi] */
    uint32_t take;     /* min(k, row length): the row's whole answer */
    uint32_t len_in;   /* candidates the next pass reads (input passes: the row) */
    uint32_t wr;       /* candidates the running pass has written */
    uint32_t nout;     /* results written (keys above the interval, in any order) */
    uint32_t ties;     /* final pass: pivot keys claimed */
    uint32_t tie_need; /* after a final pass: the ties it had to choose (`need`), else 0 */
    PB_RADIK_K tie_key; /* ... and their key (the pivot) */
    uint32_t strict;   /* pb_radik_strict of a filtering row (lo is the threshold) */
    uint32_t eq;       /* strict filter: keys equal to the threshold seen (saturates past take) */
    uint32_t src;      /* pb_radik_src of the next pass */
    uint32_t cscaled;  /* the counting pass's scaling, should a filter fall back */
    PB_RADIK_K cref;
    PB_RADIK_K kmax;   /* the largest order key the dtype has (2^16 - 1 for 16-bit types) */
} PB_RADIK_ROW;

PB_RADIK_HD uint32_t PB_RADIK_FN(pb_radik_bitlen)(PB_RADIK_K x)
{
#if PB_RADIK_KW == 32
#if defined(__CUDA_ARCH__)
    return 32 - __clz(x);
#else
    return x ? 32 - (uint32_t)__builtin_clz(x) : 0;
#endif
#else
#if defined(__CUDA_ARCH__)
    return 64 - __clzll((long long)x);
#else
    return x ? 64 - (uint32_t)__builtin_clzll(x) : 0;
#endif
#endif
}

/* The log bin of u = |d| or |d| - 1: 0 .. 3327 (32-bit keys), 0 .. 3839
 * (64-bit). */
PB_RADIK_HD uint32_t PB_RADIK_FN(pb_radik_log_bin)(PB_RADIK_K u)
{
    if (u < (1u << PB_RADIK_EXACT_BITS)) return (uint32_t)u;
    uint32_t e = PB_RADIK_FN(pb_radik_bitlen)(u); /* 9 .. 32 (64) */
    uint32_t t = (uint32_t)(u >> (e - 1 - PB_RADIK_WMANT)) & ((1u << PB_RADIK_WMANT) - 1);
    return (1u << PB_RADIK_EXACT_BITS) + ((e - PB_RADIK_EXACT_BITS - 1) << PB_RADIK_WMANT) + t;
}

/* The u range [*ulo, *uhi] of log bin v (for 64-bit keys, v below
 * PB_RADIK_LOG_BINS64: the bins past it would need u beyond 2^64). */
PB_RADIK_HD void PB_RADIK_FN(pb_radik_log_range)(uint32_t v, uint64_t *ulo, uint64_t *uhi)
{
    if (v < (1u << PB_RADIK_EXACT_BITS)) {
        *ulo = *uhi = v;
        return;
    }
    v -= 1u << PB_RADIK_EXACT_BITS;
    uint32_t e = (v >> PB_RADIK_WMANT) + PB_RADIK_EXACT_BITS + 1;
    uint32_t t = v & ((1u << PB_RADIK_WMANT) - 1);
    uint32_t s = e - 1 - PB_RADIK_WMANT;
    *ulo = (uint64_t)((1u << PB_RADIK_WMANT) + t) << s;
    *uhi = *ulo + ((uint64_t)1 << s) - 1;
}

/* The scaled first digit of `key` around `ref`: monotone in key. The
 * subtraction follows the compare, so it never wraps (no 65-bit signed
 * difference is needed for 64-bit keys). */
PB_RADIK_HD uint32_t PB_RADIK_FN(pb_radik_scaled_digit)(PB_RADIK_K key, PB_RADIK_K ref)
{
    /* One log bin either side (the select keeps it branch-free). */
    uint32_t up = key >= ref;
    uint32_t v = PB_RADIK_FN(pb_radik_log_bin)(up ? key - ref : ref - key - 1);
    return up ? PB_RADIK_MID + v : PB_RADIK_MID - 1 - v;
}

/* The keys whose scaled digit around ref is `bin`; returns 0 if none. */
PB_RADIK_HD int PB_RADIK_FN(pb_radik_scaled_interval)(uint32_t bin, PB_RADIK_K ref,
                                                      PB_RADIK_K *lo, PB_RADIK_K *hi)
{
    uint64_t ulo, uhi;
#if PB_RADIK_KW == 32
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
#else
    /* No wider type holds ref +- u: each end is clamped before it is
     * computed (up: keys ref + u, clamped at 2^64 - 1; down: ref - 1 - u,
     * clamped at 0). */
    uint32_t up = bin >= PB_RADIK_MID;
    uint32_t v = up ? bin - PB_RADIK_MID : PB_RADIK_MID - 1 - bin;
    if (v >= PB_RADIK_LOG_BINS64) return 0; /* no u of 64 bits has it */
    pb_radik_log_range64(v, &ulo, &uhi);
    if (up) {
        if (ulo > UINT64_MAX - ref) return 0; /* above every key */
        *lo = ref + ulo;
        *hi = uhi > UINT64_MAX - ref ? UINT64_MAX : ref + uhi;
    } else {
        if (ulo >= ref) return 0; /* below key 0 */
        *lo = uhi >= ref ? 0 : ref - uhi - 1;
        *hi = ref - ulo - 1;
    }
    return 1;
#endif
}

/* The digit of a candidate key in the current pass. */
PB_RADIK_HD uint32_t PB_RADIK_FN(pb_radik_digit)(const PB_RADIK_ROW *r, PB_RADIK_K key)
{
    return r->scaled ? PB_RADIK_FN(pb_radik_scaled_digit)(key, r->ref)
                     : (uint32_t)((key - r->lo) >> r->shift);
}

/* The shift that makes (key - lo) >> shift fit the digit for [lo, hi]. */
PB_RADIK_HD uint32_t PB_RADIK_FN(pb_radik_shift_for)(PB_RADIK_K lo, PB_RADIK_K hi)
{
    uint32_t b = PB_RADIK_FN(pb_radik_bitlen)(hi - lo);
    return b > PB_RADIK_BITS ? b - PB_RADIK_BITS : 0;
}

/* A row before its first pass: the whole key range [0, kmax] (kmax: the
 * dtype's largest order key, 2^bits - 1), `take` results. 16-bit keys
 * thus take two plain passes (shifts 3, 0), 32-bit ones three (19, 6, 0),
 * 64-bit ones five (51, 38, 25, 12, 0). */
PB_RADIK_HD void PB_RADIK_FN(pb_radik_row_init)(PB_RADIK_ROW *r, uint32_t len, uint64_t k,
                                                int scaled, PB_RADIK_K ref, PB_RADIK_K kmax)
{
    r->kmax = kmax;
    r->lo = 0;
    r->hi = kmax;
    r->shift = PB_RADIK_FN(pb_radik_shift_for)(0, kmax);
    r->scaled = scaled ? 1u : 0u;
    r->ref = ref;
    r->take = k < len ? (uint32_t)k : len;
    r->need = r->take;
    r->len_in = len;
    r->wr = r->nout = r->ties = r->tie_need = 0;
    r->tie_key = 0;
    r->strict = PB_RADIK_STRICT_OFF;
    r->eq = 0;
    r->src = PB_RADIK_SRC_INPUT;
    r->mode = r->take == 0 ? PB_RADIK_DONE : r->take == len ? PB_RADIK_TAKE : PB_RADIK_COUNT;
    if (r->mode == PB_RADIK_TAKE) r->scaled = 0;
    r->cscaled = r->scaled;
    r->cref = ref;
}

/* A counting row turned into a filtering one: keys >= thr (strict: > thr,
 * and per `strict` those equal) are kept and histogrammed by the scaled
 * digit around ref. Other rows are left alone. */
PB_RADIK_HD void PB_RADIK_FN(pb_radik_row_filter)(PB_RADIK_ROW *r, PB_RADIK_K thr,
                                                  PB_RADIK_K ref, uint32_t strict)
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
PB_RADIK_HD void PB_RADIK_FN(pb_radik_row_advance)(PB_RADIK_ROW *r, uint32_t bin,
                                                   uint32_t above, uint32_t count,
                                                   uint32_t written)
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
        PB_RADIK_FN(pb_radik_row_init)(r, r->len_in, r->take, (int)r->cscaled, r->cref, r->kmax);
        return;
    }
    if (r->mode == PB_RADIK_SPLIT || r->mode == PB_RADIK_FILTER) {
        r->len_in = written;
        r->src = PB_RADIK_SRC_CAND;
    }
    PB_RADIK_K lo = 0, hi = 0;
    if (r->scaled) {
        /* A filter's candidates lie in [r->lo, kmax]: the bin's keys there. */
        PB_RADIK_FN(pb_radik_scaled_interval)(bin, r->ref, &lo, &hi);
        if (lo < r->lo) lo = r->lo;
        if (hi > r->kmax) hi = r->kmax;
        r->scaled = 0;
    } else {
#if PB_RADIK_KW == 32
        lo = r->lo + (bin << r->shift);
        uint64_t top = (uint64_t)lo + ((uint64_t)1 << r->shift) - 1;
        hi = top < r->hi ? (uint32_t)top : r->hi;
#else
        /* The bin's last key, lo + 2^shift - 1, may lie past 2^64 - 1
         * (then past r->hi): min(it, r->hi) without computing it. */
        lo = r->lo + ((uint64_t)bin << r->shift);
        uint64_t span = ((uint64_t)1 << r->shift) - 1;
        hi = lo > UINT64_MAX - span || lo + span >= r->hi ? r->hi : lo + span;
#endif
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
        r->shift = PB_RADIK_FN(pb_radik_shift_for)(lo, hi);
    }
}

/* After the query's last pass: the ties at the pivot (lo) a row's final
 * pass left to choose (ties = lowest-index), 0 if none. A row whose final
 * pass was the query's last is still in mode FINAL (no select follows the
 * last pass); one whose final pass came earlier was advanced to DONE with
 * tie_need set. Either way take - need keys above the pivot were output. */
PB_RADIK_HD uint32_t PB_RADIK_FN(pb_radik_tie_need)(const PB_RADIK_ROW *r)
{
    return r->mode == PB_RADIK_FINAL ? r->need : r->tie_need;
}

/* ... and their key: the pivot. */
PB_RADIK_HD PB_RADIK_K PB_RADIK_FN(pb_radik_tie_key)(const PB_RADIK_ROW *r)
{
    return r->mode == PB_RADIK_FINAL ? r->lo : r->tie_key;
}

#undef PB_RADIK_K
#undef PB_RADIK_ROW
#undef PB_RADIK_FN
#undef PB_RADIK_WMANT

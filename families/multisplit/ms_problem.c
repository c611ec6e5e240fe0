/* Multisplit problem points: parameter checks, the bucket identifier and the
 * input generator.
 *
 * Every key is drawn from its own Philox stream, keyed by the seed with the
 * key's index in the counter (see ms_open), so any thread can generate any
 * index and the input depends on the seed alone, never on the thread count
 * or schedule. A key is drawn in two steps: first the bucket it must land in,
 * by the point's distribution over buckets (Section 6.4 of the paper:
 * uniform, binomial B(m-1, 1/2), alpha-uniform), then a key uniform among
 * the keys of that bucket. Drawing the bucket first is what makes the
 * distribution over buckets exact for every bucket identifier, nonlinear
 * ones (range) included. */
#include "families/multisplit/ms_problem.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"
#include "core/rng.h"


static unsigned log2_u32(uint32_t x)
{
    unsigned l = 0;
    while (x > 1) x >>= 1, l++;
    return l;
}

int pb_ms_params_check(const pb_params *params, pb_err *err)
{
    long long m = params->v[PB_MS_P_BUCKETS], kind = params->v[PB_MS_P_BUCKET];
    long long shift = params->v[PB_MS_P_SHIFT], dist = params->v[PB_MS_P_DIST];
    long long alpha = params->v[PB_MS_P_ALPHA];
    if (m < 2 || m > PB_MS_MAX_BUCKETS)
        return pb_err_set(err, "buckets=%lld is outside 2..%d", m, PB_MS_MAX_BUCKETS);
    if (kind < PB_BUCKET_DELTA || kind > PB_BUCKET_RANGE)
        return pb_err_set(err, "bucket=%lld is not one of %s", kind, PB_BUCKET_CHOICES);
    if ((dist < PB_MS_UNIFORM || dist >= PB_MS_NDIST) && !pb_param_file(dist))
        return pb_err_set(err, "dist=%lld is not one of %s", dist, PB_MS_DIST_CHOICES);
    if (alpha < 0 || alpha > 100) return pb_err_set(err, "alpha=%lld is outside 0..100", alpha);
    if (kind == PB_BUCKET_RADIX) {
        if (m & (m - 1))
            return pb_err_set(err,
                              "bucket=radix needs a power-of-two number of buckets, not "
                              "buckets=%lld",
                              m);
        unsigned bits = log2_u32((uint32_t)m);
        if (shift < 0 || shift + bits > 32)
            return pb_err_set(err,
                              "bucket=radix: shift=%lld plus the digit's %u bits "
                              "(buckets=%lld) exceeds the key's 32 bits",
                              shift, bits, m);
    }
    return 0;
}

int pb_ms_check_point(const pb_module *m, const pb_point *pt, pb_err *err)
{
    if (pb_module_param_index(m, "dist") != PB_MS_P_DIST) return 0;
    pb_data_file *f = pb_param_file(pt->params->v[PB_MS_P_DIST]);
    if (!f) return 0;
    uint64_t have;
    if (pb_data_file_check(f, 4, 0, &have, err)) return -1;
    if (pt->n > have)
        return pb_err_set(err, "n = %llu keys, beyond the %llu in file:%s",
                          (unsigned long long)pt->n, (unsigned long long)have, f->path);
    return 0;
}

uint64_t pb_ms_problem_host_bytes(const pb_point *pt)
{
    /* The input and the twin's answer, each n items of the point's width. */
    return 2 * pt->n * (uint64_t)pt->item_bytes;
}

/* The stream of index i (or of a set-up draw): Philox keyed by the seed,
 * counter (block, tag, i). The tag keeps the generator's streams apart from
 * those of pb_rng_init users, whose second counter word stays 0. */
enum { MS_TAG_KEYS = 0x6d73706b, MS_TAG_SETUP = 0x6d737073 };
enum { MS_SETUP_SPLITTERS, MS_SETUP_HEAVY };

static inline void ms_open(pb_rng *r, uint64_t seed, uint32_t tag, uint64_t i)
{
    pb_rng_init(r, seed, i);
    r->ctr.v[1] = tag; /* a stream uses far fewer than 2^32 blocks: no carry reaches it */
}

/* Range splitters: s_j = (j + 1) * delta + jitter, jitter in [0, delta / 2),
 * so they ascend strictly (consecutive ones differ by more than delta / 2),
 * every bucket is non-empty, and buckets are uneven, as real splitters are.
 * The last one stays below 2^32: (m - 1) * delta + delta / 2 < 2^32 for m <=
 * 256. */
static void ms_make_splitters(pb_ms_problem *p)
{
    uint32_t delta = pb_bucket_delta(p->m);
    pb_rng r;
    ms_open(&r, p->seed, MS_TAG_SETUP, MS_SETUP_SPLITTERS);
    for (uint32_t j = 0; j + 1 < p->m; j++)
        p->splitters[j] = (j + 1) * delta + pb_rng_below32(&r, delta / 2);
}

/* The smallest key of every bucket, and 2^32 after the last, for the kinds
 * whose buckets are intervals (delta, range): a key of bucket b is drawn
 * from [lo[b], lo[b + 1]). Computed once per input, not per key (a delta
 * bound is a 64-bit division). Range: s_{-1} = 0, s_{m-1} = 2^32. */
static void ms_bucket_bounds(const pb_ms_problem *p, uint64_t *lo)
{
    for (uint32_t b = 0; b <= p->m; b++) {
        if (p->kind == PB_BUCKET_DELTA)
            lo[b] = pb_bucket_delta_lo(p->m, b);
        else if (b == 0)
            lo[b] = 0;
        else if (b == p->m)
            lo[b] = UINT64_C(1) << 32;
        else
            lo[b] = p->splitters[b - 1];
    }
}

/* The bucket of key i, by the point's distribution. */
static inline uint32_t ms_draw_bucket(const pb_ms_problem *p, uint32_t alpha, uint32_t heavy,
                                      pb_rng *r)
{
    switch (p->dist) {
    case PB_MS_BINOMIAL: {
        /* The number of heads among m - 1 fair coins. */
        uint32_t b = 0;
        for (uint32_t left = p->m - 1; left > 0;) {
            uint32_t x = pb_rng_u32(r);
            if (left < 32) x &= (UINT32_C(1) << left) - 1;
            b += (uint32_t)__builtin_popcount(x);
            left = left < 32 ? 0 : left - 32;
        }
        return b;
    }
    case PB_MS_ALPHA:
        if (pb_rng_below32(r, 100) >= alpha) return heavy;
        return pb_rng_below32(r, p->m);
    default:
        return pb_rng_below32(r, p->m);
    }
}

/* A key uniform among the keys of bucket b (`lo`: ms_bucket_bounds). */
static inline uint32_t ms_draw_key(const pb_ms_problem *p, const uint64_t *lo, uint32_t b,
                                   pb_rng *r)
{
    switch (p->kind) {
    case PB_BUCKET_IDENTITY:
        return b;
    case PB_BUCKET_RADIX: {
        uint32_t digit = (p->m - 1) << p->fn.shift;
        return (pb_rng_u32(r) & ~digit) | b << p->fn.shift;
    }
    default:
        return (uint32_t)(lo[b] + pb_rng_below32(r, (uint32_t)(lo[b + 1] - lo[b])));
    }
}

uint32_t pb_ms_heavy_bucket(const pb_ms_problem *p)
{
    pb_rng r;
    ms_open(&r, p->seed, MS_TAG_SETUP, MS_SETUP_HEAVY);
    return pb_rng_below32(&r, p->m);
}

uint32_t pb_ms_drawn_bucket(const pb_ms_problem *p, uint64_t i, uint32_t alpha)
{
    pb_rng r;
    ms_open(&r, p->seed, MS_TAG_KEYS, i);
    return ms_draw_bucket(p, alpha, pb_ms_heavy_bucket(p), &r);
}

static void ms_generate(pb_ms_problem *p, uint32_t alpha)
{
    const uint32_t heavy = pb_ms_heavy_bucket(p);
    uint64_t lo[PB_MS_MAX_BUCKETS + 1];
    ms_bucket_bounds(p, lo);
    uint32_t *restrict keys = p->keys, *restrict vals = p->vals;
    const uint64_t n = p->n;
    /* Static chunks: each thread first-touches the pages it writes. */
#pragma omp parallel for schedule(static) if (n >= PB_MS_PAR_MIN)
    for (uint64_t i = 0; i < n; i++) {
        pb_rng r;
        ms_open(&r, p->seed, MS_TAG_KEYS, i);
        uint32_t b = ms_draw_bucket(p, alpha, heavy, &r);
        keys[i] = ms_draw_key(p, lo, b, &r);
        if (vals) vals[i] = (uint32_t)i;
    }
}

/* The keys from the data file: its first n, straight into the input; values
 * are positions, as for drawn keys. */
static int ms_read(pb_ms_problem *p, pb_err *err)
{
    pb_data_reader r;
    if (pb_data_reader_open(&r, p->file, 4, p->n, err)) return -1;
    int rc = pb_data_reader_next(&r, p->keys, p->n, err);
    pb_data_reader_close(&r);
    if (p->vals)
        for (uint64_t i = 0; i < p->n; i++) p->vals[i] = (uint32_t)i;
    return rc;
}

int pb_ms_problem_init(pb_ms_problem *p, const pb_point *pt, pb_err *err)
{
    memset(p, 0, sizeof *p);
    const pb_params *par = pt->params;
    if (pb_ms_params_check(par, err)) return -1;
    if (pt->item_bytes != 4 && pt->item_bytes != 8)
        return pb_err_set(err, "multisplit items are 4 (key) or 8 (key and value) bytes, not %u",
                          pt->item_bytes);
    if (pt->n > (uint64_t)UINT32_MAX + 1)
        return pb_err_set(err, "n=%llu: values are 32-bit input positions, so n is at most 2^32",
                          (unsigned long long)pt->n);
    p->n = pt->n;
    p->pairs = pt->item_bytes == 8;
    p->seed = pt->seed;
    p->kind = (pb_bucket_kind)par->v[PB_MS_P_BUCKET];
    p->file = pb_param_file(par->v[PB_MS_P_DIST]);
    p->dist = p->file ? PB_MS_NDIST : (pb_ms_dist)par->v[PB_MS_P_DIST];
    p->m = (uint32_t)par->v[PB_MS_P_BUCKETS];
    p->fn.kind = p->kind;
    p->fn.m = p->m;
    p->fn.delta = pb_bucket_delta(p->m);
    p->fn.shift = p->kind == PB_BUCKET_RADIX ? (uint32_t)par->v[PB_MS_P_SHIFT] : 0;
    p->fn.splitters = p->splitters;
    if (p->kind == PB_BUCKET_RANGE) ms_make_splitters(p);

    size_t bytes = (size_t)p->n * sizeof(uint32_t);
    p->keys = malloc(bytes ? bytes : 1);
    if (p->pairs) p->vals = malloc(bytes ? bytes : 1);
    if (!p->keys || (p->pairs && !p->vals)) {
        pb_ms_problem_free(p);
        return pb_err_set(err, "cannot allocate %zu bytes of multisplit input",
                          bytes * (p->pairs ? 2 : 1));
    }
    if (!p->file) {
        ms_generate(p, (uint32_t)par->v[PB_MS_P_ALPHA]);
    } else if (ms_read(p, err)) {
        pb_ms_problem_free(p);
        return -1;
    }
    return 0;
}

void pb_ms_problem_free(pb_ms_problem *p)
{
    free(p->keys);
    free(p->vals);
    free(p->twin_keys);
    free(p->twin_vals);
    memset(p, 0, sizeof *p);
}

/* The stable multisplit on the CPU: a counting sort by bucket id.
 *
 * Sequentially: count the buckets, scan the counts into offsets, scatter
 * every item to the next free slot of its bucket. In parallel: the input is
 * cut into T contiguous chunks; each chunk counts its own histogram, one
 * scan over (bucket, chunk) — bucket-major, chunks in input order inside a
 * bucket — gives each chunk its first slot in every bucket, and each chunk
 * scatters independently. Items of one bucket keep their input order inside
 * a chunk, and chunks of one bucket follow each other in input order, so the
 * result is the sequential one, item for item, for any T. */
#include <omp.h>
#include <stdlib.h>

#include "families/multisplit/ms_host_bucket.h"
#include "families/multisplit/ms_problem.h"

/* What a loop needs to find a bucket: the identifier and, for range
 * buckets on large inputs, the slice table. */
typedef struct ms_ctx {
    pb_bucket_fn f;
    const pb_ms_range_table *rt;
} ms_ctx;

/* The loops, specialised per bucket kind: with the kind a constant the
 * switch in pb_ms_bucket_host folds away and each inner loop is one
 * expression. */
#define MS_LOOPS(NAME, KIND)                                                                       \
    static void ms_count_##NAME(ms_ctx c, const uint32_t *restrict keys, uint64_t lo, uint64_t hi, \
                                uint64_t *restrict cnt)                                            \
    {                                                                                              \
        c.f.kind = KIND;                                                                           \
        for (uint64_t i = lo; i < hi; i++) cnt[pb_ms_bucket_host(c.f, c.rt, keys[i])]++;           \
    }                                                                                              \
    static void ms_scatter_##NAME(                                                                 \
        ms_ctx c, const uint32_t *restrict keys, const uint32_t *restrict vals, uint64_t lo,       \
        uint64_t hi, uint32_t *restrict ok, uint32_t *restrict ov, uint64_t *restrict pos)         \
    {                                                                                              \
        c.f.kind = KIND;                                                                           \
        if (vals) {                                                                                \
            for (uint64_t i = lo; i < hi; i++) {                                                   \
                uint32_t k = keys[i];                                                              \
                uint64_t d = pos[pb_ms_bucket_host(c.f, c.rt, k)]++;                               \
                ok[d] = k;                                                                         \
                ov[d] = vals[i];                                                                   \
            }                                                                                      \
        } else {                                                                                   \
            for (uint64_t i = lo; i < hi; i++) {                                                   \
                uint32_t k = keys[i];                                                              \
                ok[pos[pb_ms_bucket_host(c.f, c.rt, k)]++] = k;                                    \
            }                                                                                      \
        }                                                                                          \
    }
MS_LOOPS(delta, PB_BUCKET_DELTA)
MS_LOOPS(identity, PB_BUCKET_IDENTITY)
MS_LOOPS(radix, PB_BUCKET_RADIX)
MS_LOOPS(range, PB_BUCKET_RANGE)

static void ms_count(const ms_ctx *c, const uint32_t *keys, uint64_t lo, uint64_t hi, uint64_t *cnt)
{
    switch (c->f.kind) {
    case PB_BUCKET_DELTA:
        ms_count_delta(*c, keys, lo, hi, cnt);
        break;
    case PB_BUCKET_IDENTITY:
        ms_count_identity(*c, keys, lo, hi, cnt);
        break;
    case PB_BUCKET_RADIX:
        ms_count_radix(*c, keys, lo, hi, cnt);
        break;
    default:
        ms_count_range(*c, keys, lo, hi, cnt);
        break;
    }
}

static void ms_scatter(const ms_ctx *c, const uint32_t *keys, const uint32_t *vals, uint64_t lo,
                       uint64_t hi, uint32_t *ok, uint32_t *ov, uint64_t *pos)
{
    switch (c->f.kind) {
    case PB_BUCKET_DELTA:
        ms_scatter_delta(*c, keys, vals, lo, hi, ok, ov, pos);
        break;
    case PB_BUCKET_IDENTITY:
        ms_scatter_identity(*c, keys, vals, lo, hi, ok, ov, pos);
        break;
    case PB_BUCKET_RADIX:
        ms_scatter_radix(*c, keys, vals, lo, hi, ok, ov, pos);
        break;
    default:
        ms_scatter_range(*c, keys, vals, lo, hi, ok, ov, pos);
        break;
    }
}

static void ms_split_seq(const ms_ctx *c, const uint32_t *keys, const uint32_t *vals, uint64_t n,
                         uint32_t *out_keys, uint32_t *out_vals, uint64_t *offsets)
{
    uint64_t pos[PB_MS_MAX_BUCKETS] = {0};
    ms_count(c, keys, 0, n, pos);
    uint64_t run = 0;
    for (uint32_t b = 0; b < c->f.m; b++) {
        uint64_t k = pos[b];
        offsets[b] = pos[b] = run;
        run += k;
    }
    offsets[c->f.m] = run;
    ms_scatter(c, keys, vals, 0, n, out_keys, out_vals, pos);
}

void pb_ms_split(const pb_bucket_fn *fn, const uint32_t *keys, const uint32_t *vals, uint64_t n,
                 uint32_t *out_keys, uint32_t *out_vals, uint64_t *offsets, int threads)
{
    const uint64_t m = fn->m;
    /* Values travel only when there is somewhere to put them. */
    if (!out_vals) vals = NULL;
    /* The table costs 8192 searches: worth it from a few thousand keys. */
    pb_ms_range_table rt;
    ms_ctx c = {*fn, NULL};
    if (fn->kind == PB_BUCKET_RANGE && n >= PB_MS_RT_MIN) {
        pb_ms_range_table_build(fn, &rt);
        c.rt = &rt;
    }
    uint64_t nch = threads > 1 && n >= PB_MS_PAR_MIN ? (uint64_t)threads : 1;
    uint64_t *cnt = nch > 1 ? calloc(nch * m, sizeof *cnt) : NULL;
    if (!cnt) {
        /* Sequential, or out of memory for the histograms: the same result. */
        ms_split_seq(&c, keys, vals, n, out_keys, out_vals, offsets);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        /* Chunks, not threads, own the histograms: a smaller team than
         * asked for still gives the same result. */
#pragma omp for schedule(static)
        for (uint64_t ch = 0; ch < nch; ch++)
            ms_count(&c, keys, n * ch / nch, n * (ch + 1) / nch, cnt + ch * m);
#pragma omp single
        {
            uint64_t run = 0;
            for (uint64_t b = 0; b < m; b++) {
                offsets[b] = run;
                for (uint64_t ch = 0; ch < nch; ch++) {
                    uint64_t k = cnt[ch * m + b];
                    cnt[ch * m + b] = run;
                    run += k;
                }
            }
            offsets[m] = run;
        }
#pragma omp for schedule(static)
        for (uint64_t ch = 0; ch < nch; ch++)
            ms_scatter(&c, keys, vals, n * ch / nch, n * (ch + 1) / nch, out_keys, out_vals,
                       cnt + ch * m);
    }
    free(cnt);
}

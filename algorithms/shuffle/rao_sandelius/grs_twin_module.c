/* The GPU Rao-Sandelius shuffle's C models as modules, so that the
 * algorithm and the orders the GPU modules run it in are validated,
 * sampled for the quality battery and timed like any other shuffle, and so
 * that the GPU modules have references to equal bit for bit:
 *   cpu-rao-sandelius-twin  the model (grs_twin.h), for gpu-rao-sandelius;
 *   cpu-l2-shuffle-twin     the model in the L2 order (l2s_twin.h), for
 *                           gpu-l2-shuffle: the same output whatever its
 *                           bucket_cap. */

#include <stdlib.h>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"
#include "algorithms/shuffle/rao_sandelius/l2s_twin.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

static const pb_param_spec params[] = {PB_GRS_SHAPE_PARAMS(PB_GRS_MAX_LEVEL_BITS)};
static const pb_param_spec l2s_params[] = {PB_GRS_SHAPE_PARAMS(PB_GRS_MAX_LEVEL_BITS), PB_L2S_PARAMS};

enum { P_TARGET = 1, P_BUCKET_CAP = 4 };

/* One shuffle of a model: n items of ib bytes, in -> out. */
typedef int (*twin_fn)(const pb_params *p, const void *in, void *out, uint64_t n, unsigned ib, uint64_t seed,
                       uint64_t sample, pb_err *err);

static int grs_one(const pb_params *p, const void *in, void *out, uint64_t n, unsigned ib, uint64_t seed,
                   uint64_t sample, pb_err *err)
{
    pb_grs_shape s = pb_grs_shape_of(p->v, n);
    return pb_grs_twin_shuffle(in, out, n, ib, &s, seed, sample, NULL, NULL, err);
}

static int l2s_one(const pb_params *p, const void *in, void *out, uint64_t n, unsigned ib, uint64_t seed,
                   uint64_t sample, pb_err *err)
{
    pb_grs_shape s = pb_grs_shape_of(p->v, n);
    uint64_t slot = pb_l2s_slot_items(p->v[P_BUCKET_CAP], PB_L2S_MODEL_L2_BYTES, PB_L2S_RING, ib);
    return pb_l2s_twin_shuffle(in, out, n, ib, &s, (uint64_t)p->v[P_TARGET], slot, seed, sample, NULL, NULL, err);
}

static int run_with(twin_fn one, void *state, uint64_t sample, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    return one(b->pt.params, b->in, b->out, b->pt.n, b->pt.item_bytes, b->pt.seed, sample, err);
}

/* count permutations of the identity, one a sample, across the cores */
static int sample_with(twin_fn one, const char *name, const pb_params *p, uint32_t n, uint64_t seed,
                       uint64_t first, uint64_t count, uint32_t *out, pb_err *err)
{
    uint32_t *id = malloc((n ? n : 1) * sizeof *id);
    if (!id) return pb_err_set(err, "%s: out of memory", name);
    for (uint32_t i = 0; i < n; i++) id[i] = i;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (uint64_t j = 0; j < count; j++) {
        pb_err e;
        bad |= one(p, id, out + j * n, n, 4, seed, first + j, &e) != 0;
    }
    free(id);
    return bad ? pb_err_set(err, "%s: a sample failed (sample past 2^62?)", name) : 0;
}

static int run(void *state, uint64_t sample, pb_err *err) { return run_with(grs_one, state, sample, err); }

static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                        uint32_t *out, pb_err *err)
{
    return sample_with(grs_one, "cpu-rao-sandelius-twin", p, n, seed, first, count, out, err);
}

static int l2s_run(void *state, uint64_t sample, pb_err *err) { return run_with(l2s_one, state, sample, err); }

static int l2s_sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                            uint32_t *out, pb_err *err)
{
    return sample_with(l2s_one, "cpu-l2-shuffle-twin", p, n, seed, first, count, out, err);
}

PB_SHUFFLE_MODULE(grs_twin, "cpu-rao-sandelius-twin", pb_shuffle_cpu_outofplace_hooks, sample_perms,
    .summary = "GPU Rao-Sandelius shuffle in sequential C: a radix sort by random labels, then "
               "each bucket split by random labels and finished by Fisher-Yates (the model "
               "gpu-rao-sandelius equals; exactly uniform)",
    PB_PARAMS(params), .run = run);

PB_SHUFFLE_MODULE(l2s_twin, "cpu-l2-shuffle-twin", pb_shuffle_cpu_outofplace_hooks, l2s_sample_perms,
    .summary = "the GPU Rao-Sandelius shuffle in gpu-l2-shuffle's order, in sequential C: the last level a "
               "group of buckets at a time through an L2-sized slot (the model gpu-l2-shuffle equals; "
               "output that of cpu-rao-sandelius-twin; exactly uniform)",
    PB_PARAMS(l2s_params), .max_n = PB_L2S_MAX_ITEMS, .run = l2s_run);

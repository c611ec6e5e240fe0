/* grs-twin: the GPU Rao-Sandelius shuffle's C model (grs_twin.h) as a
 * module, so that the algorithm is validated, sampled for the quality
 * battery and timed like any other shuffle, and so that gpu-rao-sandelius
 * has a reference to equal bit for bit. */

#include <stdlib.h>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

static const pb_param_spec params[] = {PB_GRS_SHAPE_PARAMS(PB_GRS_MAX_LEVEL_BITS)};

static int run(void *state, uint64_t sample, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    pb_grs_shape s = pb_grs_shape_of(b->pt.params->v, b->pt.n);
    return pb_grs_twin_shuffle(b->in, b->out, b->pt.n, b->pt.item_bytes, &s, b->pt.seed, sample,
                                NULL, NULL, err);
}

static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    pb_grs_shape s = pb_grs_shape_of(p->v, n);
    uint32_t *id = malloc((n ? n : 1) * sizeof *id);
    if (!id) return pb_err_set(err, "cpu-rao-sandelius-twin: out of memory");
    for (uint32_t i = 0; i < n; i++) id[i] = i;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (uint64_t j = 0; j < count; j++) {
        pb_err e;
        bad |= pb_grs_twin_shuffle(id, out + j * n, n, 4, &s, seed, first + j, NULL, NULL, &e) != 0;
    }
    free(id);
    return bad ? pb_err_set(err, "cpu-rao-sandelius-twin: a sample failed (sample past 2^62?)") : 0;
}

PB_SHUFFLE_MODULE(grs_twin, "cpu-rao-sandelius-twin", pb_shuffle_cpu_outofplace_hooks, sample_perms,
    .summary = "GPU Rao-Sandelius shuffle in sequential C: a radix sort by random labels, then "
               "each bucket split by random labels and finished by Fisher-Yates (the model "
               "gpu-rao-sandelius equals; exactly uniform)",
    PB_PARAMS(params), .run = run);

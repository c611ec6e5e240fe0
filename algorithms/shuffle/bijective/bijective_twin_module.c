/* bijective-twin: the bijective shuffle run sequentially in plain C, the
 * twin every bijective GPU kernel must equal bit for bit, here as a module
 * so it can be timed, validated and sampled like any other. */

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

enum { P_BIJECTION, P_ROUNDS };

static const pb_param_spec params[] = {PB_BIJ_PARAMS};

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    const pb_params *p = b->pt.params;
    pb_bijective_twin_shuffle(b->in, b->out, b->pt.n, b->pt.item_bytes,
                              (pb_bij_kind)p->v[P_BIJECTION], (int)p->v[P_ROUNDS], b->pt.seed,
                              sample);
    return 0;
}

static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    (void)err;
#pragma omp parallel for schedule(static)
    for (uint64_t j = 0; j < count; j++)
        pb_bijective_twin_indices(out + j * n, n, (pb_bij_kind)p->v[P_BIJECTION],
                                  (int)p->v[P_ROUNDS], seed, first + j);
    return 0;
}

PB_SHUFFLE_MODULE(bijective_twin, "cpu-bijective-twin", pb_shuffle_cpu_outofplace_hooks, sample_perms,
    .summary = "bijective shuffle in sequential C: the twin of the GPU kernels",
    PB_PARAMS(params), .run = run, .reference = "cpu-tbb-bijective");

/* pov-shuffle: the POV-shuffle (algorithms/shuffle/pov/pov.h, docs/pov.md) in
 * place on the CPU, virtual blocks in parallel (OpenMP), the offset and
 * the block assignment on the calling thread. Approximately uniform: the
 * iterations trade time for bias. This is also the C twin of
 * gpu-pov-shuffle. */
#include <omp.h>
#include <stdlib.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "algorithms/shuffle/pov/pov_twin.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

enum { P_THREADS, P_ITERATIONS, P_BLOCK, P_VBLOCK };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"iterations", PB_PARAM_INT, PB_POV_DEFAULT_ITERATIONS, 1, PB_POV_MAX_ITERATIONS, NULL,
     "POV iterations (offset, block assignment, shuffle of each virtual block)"},
    {"block", PB_PARAM_INT, PB_POV_DEFAULT_BLOCK, 1, PB_POV_MAX_VBLOCK_ITEMS, NULL, "items a physical block"},
    {"vblock", PB_PARAM_INT, PB_POV_DEFAULT_VBLOCK, 1, PB_POV_MAX_VBLOCK_ITEMS, NULL,
     "physical blocks a virtual block (block x vblock <= 4096)"},
};

static pb_pov_params pov_params(const pb_params *p)
{
    return (pb_pov_params){(uint32_t)p->v[P_ITERATIONS], (uint32_t)p->v[P_BLOCK], (uint32_t)p->v[P_VBLOCK]};
}

static uint64_t footprint(const pb_point *pt)
{
    return pb_shuffle_footprint_inplace(pt) + pb_pov_blocks(pt->n, (uint32_t)pt->params->v[P_BLOCK]) * 4;
}

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    pb_pov_params pp = pov_params(pt->params);
    if (pb_pov_check(pt->n, &pp, err)) return -1;
    if (pb_shuffle_prepare_inplace(pt, state, err)) return -1;
    pb_shuffle_buffers *b = *state;
    b->extra = malloc((pb_pov_blocks(pt->n, pp.block) + 1) * sizeof(uint32_t));
    if (!b->extra) {
        pb_shuffle_release(b);
        return pb_err_set(err, "cpu-pov-shuffle: out of memory for the block assignment");
    }
    return 0;
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    pb_pov_params pp = pov_params(&b->params);
    return pb_pov_shuffle(b->out, b->pt.n, b->pt.item_bytes, &pp, b->pt.seed, sample,
                          pb_cs_team(b->pt.threads, b->pt.n), b->extra, err);
}

/* Permutation j: the shuffle of the identity for sample first + j by the
 * same code, one permutation a thread. */
static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                        uint32_t *out, pb_err *err)
{
    pb_pov_params pp = pov_params(p);
    if (pb_pov_check(n, &pp, err)) return -1;
    int threads = pb_cs_threads(p->v[P_THREADS]), failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        uint32_t *sigma = malloc((pb_pov_blocks(n, pp.block) + 1) * sizeof *sigma);
        failed = !sigma;
#pragma omp for schedule(dynamic, 16)
        for (uint64_t j = 0; j < count; j++) {
            uint32_t *a = out + j * n;
            for (uint32_t i = 0; i < n; i++) a[i] = i;
            pb_err e;
            if (!failed) failed = pb_pov_shuffle(a, n, 4, &pp, seed, first + j, 1, sigma, &e) != 0;
        }
        free(sigma);
    }
    return failed ? pb_err_set(err, "cpu-pov-shuffle: out of memory") : 0;
}

/* The twin moves items of any width by memcpy: records whole. */
PB_SHUFFLE_MODULE(pov_shuffle, "cpu-pov-shuffle", pb_shuffle_cpu_inplace_hooks, sample_perms,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE | PB_MOD_APPROXIMATE,
    .summary = "POV-shuffle: offset physical blocks, random virtual blocks, Fisher-Yates in each (OpenMP); "
               "approximately uniform, the C twin of gpu-pov-shuffle",
    PB_PARAMS(params), .max_n = PB_POV_MAX_N, .footprint = footprint, .prepare = prepare, .run = run,
    .items = PB_ITEM_ANY);

/* fisher-yates: the sequential in-place shuffle (Durstenfeld's form of
 * Fisher-Yates), the role std::shuffle plays in the papers' tables. Swaps
 * position i with a uniform j in [0, i], drawn from Philox by Lemire's
 * unbiased method. */
#include "core/module.h"
#include "core/rng.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_leaf.h"

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    pb_rng r;
    pb_rng_init(&r, b->pt.seed, sample);
    pb_fisher_yates(b->out, b->pt.n, b->pt.item_bytes, &r);
    return 0;
}

/* Permutation j is the shuffle of the identity for sample first + j: the
 * same stream run() uses for that sample. */
static int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    (void)params, (void)err;
#pragma omp parallel for schedule(static)
    for (uint64_t j = 0; j < count; j++) {
        uint32_t *p = out + j * n;
        for (uint32_t i = 0; i < n; i++) p[i] = i;
        pb_rng r;
        pb_rng_init(&r, seed, first + j);
        pb_fisher_yates_u32(p, n, &r);
    }
    return 0;
}

/* Records: each swap moves whole records (shuffle_leaf.h). */
PB_SHUFFLE_MODULE(fisher_yates, "cpu-fisher-yates", pb_shuffle_cpu_inplace_hooks, sample_perms,
    .summary = "sequential in-place Fisher-Yates (std::shuffle's role), Philox + Lemire",
    .run = run, .items = PB_ITEM_ANY);

/* fisher-yates: the sequential in-place shuffle (Durstenfeld's form of
 * Fisher-Yates), the role std::shuffle plays in the papers' tables. Swaps
 * position i with a uniform j in [0, i], drawn from Philox by Lemire's
 * unbiased method. */
#include "core/module.h"
#include "core/rng.h"
#include "families/shuffle/shuffle_buffers.h"

/* One loop per item width, so the inner loop moves whole items. */
#define FISHER_YATES(T)                                                                            \
    static void fisher_yates_##T(T *a, uint64_t n, pb_rng *r)                                      \
    {                                                                                              \
        for (uint64_t i = n; i > 1; i--) {                                                         \
            uint64_t j = pb_rng_below64(r, i);                                                     \
            T t = a[i - 1];                                                                        \
            a[i - 1] = a[j];                                                                       \
            a[j] = t;                                                                              \
        }                                                                                          \
    }
FISHER_YATES(uint32_t)
FISHER_YATES(uint64_t)

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    pb_rng r;
    pb_rng_init(&r, b->pt.seed, sample);
    if (b->pt.item_bytes == 4) fisher_yates_uint32_t(b->out, b->pt.n, &r);
    else fisher_yates_uint64_t(b->out, b->pt.n, &r);
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
        fisher_yates_uint32_t(p, n, &r);
    }
    return 0;
}

const pb_module pb_module_fisher_yates = {
    .name = "fisher-yates",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "sequential in-place Fisher-Yates (std::shuffle's role), Philox + Lemire",
    .params = PB_NO_PARAMS,
    .footprint = pb_shuffle_footprint_inplace,
    .prepare = pb_shuffle_prepare_inplace,
    .run = run,
    .result = pb_shuffle_result,
    .release = pb_shuffle_release,
    .sample_perms = sample_perms,
};

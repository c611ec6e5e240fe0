/* gpu-pov-shuffle on a CUDA device equals its C twin (pov-shuffle's
 * pb_pov_shuffle) bit for bit: the timed run at awkward sizes (0, 1, 2,
 * sizes no block divides, a deck smaller than one block, large) and shapes
 * (one-item blocks, one-block virtual blocks, the largest virtual block,
 * the defaults), 4- and 8-byte items, several samples; and its sample
 * permutations, a batch at a time, equal the twin's. SKIP without a
 * device. */
#include <stdlib.h>

#include "algorithms/shuffle/pov/pov_twin.h"
#include "config/params.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/test.h"

static int need_gpu(const pb_module **m)
{
    char why[256];
    *m = pb_module_find("gpu-pov-shuffle");
    if (!*m) {
        printf("skipped: gpu-pov-shuffle is not in this build (no CUDA)\n");
        return PB_TEST_SKIP;
    }
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

static const pb_pov_params shapes[] = {
    {4, 64, 4}, {1, 1, 1}, {3, 3, 5}, {2, 7, 3}, {1, 4096, 1}, {2, 1, 4096}, {5, 5, 1}, {8, 2, 2}, {2, 64, 64},
};

static void set_shape(const pb_module *m, pb_params *p, const pb_pov_params *s)
{
    pb_params_defaults(m, p);
    p->v[pb_module_param_index(m, "iterations")] = s->iterations;
    p->v[pb_module_param_index(m, "block")] = s->block;
    p->v[pb_module_param_index(m, "vblock")] = s->vblock;
}

TEST_IMPL(gpu_pov_twin)
{
    const pb_module *m;
    int rc = need_gpu(&m);
    if (rc) return rc;
    static const uint64_t sizes[] = {0,    1,     2,     3,          5,          63,        64,
                                     65,   100,   1000,  4095,       4097,       10007,     (1u << 16) + 3,
                                     1u << 20, (1u << 22) + 1, 3000017};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (unsigned bytes = 4; bytes <= 8; bytes += 4) {
                uint64_t n = sizes[k];
                /* The big sizes with the defaults and one-item blocks only. */
                if (n > (1u << 16) + 3 && s > 1) continue;
                pb_params params;
                set_shape(m, &params, &shapes[s]);
                pb_point pt = {n, bytes, 31, &params, 0};
                void *state = NULL, *twin = malloc(n * bytes + 8);
                uint32_t *sigma = malloc((n + 1) * sizeof *sigma);
                const void *out;
                pb_err err;
                ASSERT(twin && sigma);
                rc = m->prepare(&pt, &state, &err);
                for (uint64_t sample = 0; sample < 3 && !rc; sample++) {
                    rc = m->refresh(state, &err);
                    if (!rc) rc = m->run(state, sample, &err);
                    if (!rc) rc = m->result(state, &out, &err);
                    if (rc) break;
                    pb_shuffle_fill(twin, n, bytes);
                    if (pb_pov_shuffle(twin, n, bytes, &shapes[s], 31, sample, 2, sigma, &err)) rc = 1;
                    else if (memcmp(out, twin, n * bytes) != 0)
                        rc = pb_err_set(&err, "sample %llu differs from the C twin", (unsigned long long)sample);
                }
                if (!rc && state) rc = m->verify(state, &err);
                if (rc)
                    fprintf(stderr, "gpu-pov-shuffle n=%llu item=%u block %u vblock %u iterations %u: %s\n",
                            (unsigned long long)n, bytes, shapes[s].block, shapes[s].vblock, shapes[s].iterations,
                            err.msg);
                if (state) m->release(state);
                free(twin), free(sigma);
                if (rc) return 1;
            }
    return 0;
}

TEST_IMPL(gpu_pov_sample_perms)
{
    const pb_module *m;
    int rc = need_gpu(&m);
    if (rc) return rc;
    static const uint32_t ns[] = {2, 5, 8, 100, 1000, 4097};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            uint32_t n = ns[t];
            uint64_t count = n > 1000 ? 20 : 500;
            pb_params params;
            pb_err err;
            set_shape(m, &params, &shapes[s]);
            uint32_t *p = malloc(count * n * 4), *twin = malloc(n * 4), *sigma = malloc((n + 1) * 4);
            ASSERT(p && twin && sigma);
            if (pb_module_sample_perms(m)(&params, n, 8, 100, count, p, &err)) {
                fprintf(stderr, "gpu-pov-shuffle n=%u: %s\n", n, err.msg);
                return 1;
            }
            for (uint64_t j = 0; j < count; j++) {
                for (uint32_t i = 0; i < n; i++) twin[i] = i;
                ASSERT(pb_pov_shuffle(twin, n, 4, &shapes[s], 8, 100 + j, 1, sigma, &err) == 0);
                if (memcmp(twin, p + j * n, n * 4) != 0) {
                    fprintf(stderr, "gpu-pov-shuffle n=%u block %u vblock %u: sample %llu differs from the twin\n", n,
                            shapes[s].block, shapes[s].vblock, (unsigned long long)j);
                    return 1;
                }
            }
            free(p), free(twin), free(sigma);
        }
    return 0;
}

/* Every CPU module: a permutation of its input at awkward sizes and both
 * item widths; reproducible from its seed, and different for another seed. */
#include <stdlib.h>

#include "baselines/affine.h"
#include "config/params.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "stats/lehmer.h"
#include "tests/module_driver.h"
#include "tests/support/chi_square.h"
#include "tests/test.h"

TEST_IMPL(modules_cpu_valid) { return pb_drive_all_valid(PB_DEVICE_CPU, NULL); }

/* Same seed, same output; another seed or another sample, another output.
 * Unseeded ceilings (copy) reproduce their input exactly. */
TEST_IMPL(modules_cpu_seeds) { return pb_check_seeds(PB_DEVICE_CPU); }

/* Parallel ceilings give the same output whatever the thread count. */
TEST_IMPL(modules_cpu_thread_independent)
{
    const char *names[] = {"cpu-copy", "cpu-gather"};
    for (int i = 0; i < 2; i++) {
        const pb_module *m = pb_module_find(names[i]);
        void *a, *b;
        pb_err err;
        ASSERT(pb_drive_module(m, 100003, 8, 5, 1, 1, &a, &err) == 0);
        ASSERT(pb_drive_module(m, 100003, 8, 5, 1, 3, &b, &err) == 0);
        ASSERT(memcmp(a, b, 100003 * 8) == 0);
        free(a), free(b);
    }
    return 0;
}

/* The gather ceilings' bijections differ from one sample to the next at
 * every n >= 2 (the harness fails a module whose sample repeats the one
 * before): an offset drawn afresh each sample repeated with probability 1/n
 * and failed cpu-gather at n = 16, seed 3. */
TEST_IMPL(modules_gather_samples_differ)
{
    for (uint64_t n = 2; n <= 3000; n += n < 64 ? 1 : 97)
        for (uint64_t seed = 0; seed < 8; seed++)
            for (uint64_t s = 1; s < 64; s++) {
                pb_affine f = pb_affine_make(n, seed, s), g = pb_affine_make(n, seed, s - 1);
                ASSERT(f.a != g.a || f.c != g.c);
                ASSERT(f.c < n && f.a < n && f.a > 0);
            }
    const pb_module *m = pb_module_find("cpu-gather");
    void *a, *b;
    pb_err err;
    ASSERT(pb_drive_module(m, 16, 4, 3, 1, 1, &a, &err) == 0);
    ASSERT(pb_drive_module(m, 16, 4, 3, 2, 1, &b, &err) == 0);
    ASSERT(memcmp(a, b, 16 * 4) != 0);
    free(a), free(b);
    return 0;
}

/* Known answer (PCG-C style): fisher-yates with seed 42 on ten items. A
 * change of generator, stream layout or bounded draw changes these. */
TEST_IMPL(modules_fisher_yates_kat)
{
    /* Checked against an independent model (Python: Philox4x32-10 from its
     * definition, Lemire's draw, Durstenfeld's loop), not only recorded. */
    static const uint64_t expect[10] = {7, 3, 8, 9, 1, 5, 2, 0, 4, 6};
    uint64_t *out;
    pb_err err;
    ASSERT(pb_drive_module(pb_module_find("cpu-fisher-yates"), 10, 8, 42, 1, 0, (void **)&out, &err) == 0);
    int same = 1;
    for (int i = 0; i < 10; i++) same &= pb_shuffle_item_index(out[i], 8) == expect[i];
    if (!same) {
        fprintf(stderr, "cpu-fisher-yates seed 42 gave:");
        for (int i = 0; i < 10; i++) fprintf(stderr, " %llu", (unsigned long long)pb_shuffle_item_index(out[i], 8));
        fprintf(stderr, "\n");
        return 1;
    }
    free(out);
    return 0;
}

/* The sequential shuffles draw every permutation of 4 items equally often:
 * a chi-square over the 24 cells. An off-by-one in the bounded draw (the
 * classic j in [0, i) bug) leaves some permutations unreachable. */
TEST_IMPL(modules_sequential_uniform)
{
    const char *names[] = {"cpu-fisher-yates", "cpu-gsl-shuffle"};
    enum { N = 4, CELLS = 24, DRAWS = 48000 };
    for (int k = 0; k < 2; k++) {
        const pb_module *m = pb_module_find(names[k]);
        unsigned count[CELLS] = {0};
        pb_params params;
        pb_err err;
        memset(&params, 0, sizeof params);
        pb_point pt = {N, 8, 2026, &params, 1};
        void *state;
        ASSERT(m->prepare(&pt, &state, &err) == 0);
        const void *res;
        ASSERT(m->result(state, &res, &err) == 0);
        uint64_t *items = (uint64_t *)res;
        uint32_t idx[N];
        /* Each sample is a fresh draw; in place, it permutes the last
         * output, which is as uniform as starting afresh. */
        for (int s = 0; s < DRAWS; s++) {
            ASSERT(m->run(state, (uint64_t)s, &err) == 0);
            for (int i = 0; i < N; i++) idx[i] = (uint32_t)pb_shuffle_item_index(items[i], 8);
            uint64_t rank = pb_lehmer_rank(idx, N);
            ASSERT(rank < CELLS);
            count[rank]++;
        }
        m->release(state);
        ASSERT(pb_test_chi_square(m->name, count, CELLS, DRAWS) == 0);
    }
    return 0;
}

/* The sample-permutation path: valid permutations, the same series however
 * it is batched, independent permutations differ. */
TEST_IMPL(modules_sample_perms)
{
    enum { N = 50, COUNT = 10000 };
    int tried = 0;
    uint32_t *all = malloc(sizeof(uint32_t) * N * COUNT), *part = malloc(sizeof(uint32_t) * N * COUNT);
    ASSERT(all && part);
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (!pb_module_sample_perms(m) || m->device != PB_DEVICE_CPU) continue;
        pb_params params;
        pb_err err;
        pb_params_defaults(m, &params);
        ASSERT(pb_module_sample_perms(m)(&params, N, 9, 0, COUNT, all, &err) == 0);
        /* In three uneven batches. */
        ASSERT(pb_module_sample_perms(m)(&params, N, 9, 0, 1234, part, &err) == 0);
        ASSERT(pb_module_sample_perms(m)(&params, N, 9, 1234, 4096, part + 1234 * N, &err) == 0);
        ASSERT(pb_module_sample_perms(m)(&params, N, 9, 1234 + 4096, COUNT - 1234 - 4096, part + (1234 + 4096) * N, &err) == 0);
        ASSERT(memcmp(all, part, sizeof(uint32_t) * N * COUNT) == 0);
        for (int k = 0; k < COUNT; k++) {
            unsigned char seen[N] = {0};
            for (int j = 0; j < N; j++) {
                uint32_t v = all[k * N + j];
                ASSERT(v < N && !seen[v]);
                seen[v] = 1;
            }
        }
        int same = 0;
        for (int k = 1; k < COUNT; k++) same += memcmp(all + k * N, all + (k - 1) * N, N * 4) == 0;
        ASSERT(same == 0);
        ASSERT(pb_module_sample_perms(m)(&params, N, 10, 0, 1, part, &err) == 0);
        ASSERT(memcmp(all, part, N * 4) != 0);
        tried++;
    }
    free(all), free(part);
    return tried >= 2 ? 0 : 1;
}

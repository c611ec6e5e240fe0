/* Record items on a CUDA device: every GPU shuffle module that
 * takes records gives a valid permutation of whole records (its device
 * check and the host's) at awkward sizes for every record width, equal bit
 * for bit to its reference module's output where it has one (gather to
 * cpu-gather, gpu-pov-shuffle to pov-shuffle) and the same permutation it
 * gives 8-byte items (sort-shuffle, thrust-shuffle); bijective0/1/2 equal
 * the bijective C twin on records; gpu-pov-shuffle equals its
 * C twin on records at several shapes, with virtual blocks in shared
 * memory and in global scratch; the device fingerprint of records is the
 * host's; the device check finds a record whose bytes were split. SKIP
 * without a device. */
#include <stdlib.h>

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "algorithms/shuffle/pov/pov_twin.h"
#include "config/params.h"
#include "core/fingerprint.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_family.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/support/record_widths.h"
#include "tests/test.h"
#ifdef PB_HAVE_CUDA
#include "tests/broken_modules.h"
#endif

static int need_gpu(void)
{
    char why[256];
    if (!pb_module_find("gpu-copy")) {
        printf("skipped: no GPU modules in this build (no CUDA)\n");
        return PB_TEST_SKIP;
    }
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

TEST_IMPL(gpu_records_valid)
{
    int rc = need_gpu();
    if (rc) return rc;
    const pb_module *mods[64];
    size_t nm = 0;
    for (size_t i = 0; i < pb_module_count() && nm < 64; i++) {
        const pb_module *m = pb_module_at(i);
        if (m->device == PB_DEVICE_GPU && m->family == &pb_family_shuffle && pb_module_takes(m, 256))
            mods[nm++] = m;
    }
    /* The ceilings every record sweep adds, and the POV kernel. */
    int seen = 0;
    for (size_t i = 0; i < nm; i++)
        seen += !strcmp(mods[i]->name, "gpu-copy") + !strcmp(mods[i]->name, "gpu-gather") +
                !strcmp(mods[i]->name, "gpu-pov-shuffle");
    ASSERT(seen == 3);
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (size_t w = 0; w < nw; w++) {
        unsigned R = widths[w];
        uint64_t big = (UINT64_C(1) << 26) / R + 1; /* 64 MiB of records */
        const uint64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 10007, big};
        for (size_t i = 0; i < nm; i++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                uint64_t n = sizes[s];
                pb_err err;
                void *out = NULL, *ref = NULL;
                const pb_module *r = mods[i]->reference ? pb_module_find(mods[i]->reference) : NULL;
                rc = pb_drive_module(mods[i], n, R, 99, 2, 0, &out, &err);
                if (!rc && r) rc = pb_drive_module(r, n, R, 99, 2, 0, &ref, &err);
                if (!rc && r && memcmp(out, ref, (size_t)n * R) != 0)
                    rc = pb_err_set(&err, "differs from its reference %s", r->name);
                free(ref), ref = NULL;
                /* The width moves bytes, never decides where they go: the
                 * module's own permutation of 8-byte items (modules whose
                 * atomics decide are exempt). */
                if (!rc && !(mods[i]->flags & PB_MOD_NONDETERMINISTIC) && n <= 10007) {
                    rc = pb_drive_module(mods[i], n, 8, 99, 2, 0, &ref, &err);
                    for (uint64_t p = 0; !rc && p < n; p++) {
                        uint64_t a, b;
                        memcpy(&a, (const unsigned char *)out + p * R, 8);
                        memcpy(&b, (const unsigned char *)ref + p * 8, 8);
                        if (a != b) rc = pb_err_set(&err, "record %llu goes elsewhere than 8-byte item %llu",
                                                    (unsigned long long)p, (unsigned long long)p);
                    }
                }
                free(out), free(ref);
                if (rc) {
                    fprintf(stderr, "%s n=%llu item=%u: %s\n", mods[i]->name, (unsigned long long)n, R, err.msg);
                    return 1;
                }
            }
    }
    return 0;
}

/* bijective0, 1 and 2 on records against the C twin's
 * pb_bijective_twin_shuffle, both bijections, sizes around powers of two
 * (the padded domain's edges) and tiles. */
TEST_IMPL(gpu_records_bijective_twin)
{
    int rc = need_gpu();
    if (rc) return rc;
    static const char *names[] = {"gpu-bijective0", "gpu-bijective1", "gpu-bijective2"};
    static const uint64_t sizes[] = {1, 2, 3, 31, 32, 33, 2047, 2048, 2049, 65535, 65536, 65537, 1000003};
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (size_t v = 0; v < 3; v++) {
        const pb_module *m = pb_module_find(names[v]);
        ASSERT(m && pb_module_takes(m, 256));
        for (int kind = 0; kind < 2; kind++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
                for (size_t w = 0; w < nw; w++) {
                    uint64_t n = sizes[k];
                    unsigned R = widths[w];
                    if ((uint64_t)n * R > (UINT64_C(1) << 26)) continue; /* 64 MiB at most */
                    pb_params params;
                    pb_params_defaults(m, &params);
                    int bi = pb_module_param_index(m, "bijection"), ri = pb_module_param_index(m, "rounds");
                    params.v[bi] = kind;
                    pb_point pt = {n, R, 31, &params, 0};
                    void *state = NULL;
                    unsigned char *in = malloc((size_t)n * R), *twin = malloc((size_t)n * R);
                    const void *out;
                    pb_err err;
                    ASSERT(in && twin);
                    pb_shuffle_fill(in, n, R);
                    pb_bijective_twin_shuffle(in, twin, n, R, (pb_bij_kind)kind, (int)params.v[ri], 31, 2);
                    rc = m->prepare(&pt, &state, &err);
                    for (uint64_t sample = 0; sample < 3 && !rc; sample++) rc = m->run(state, sample, &err);
                    if (!rc) rc = m->result(state, &out, &err);
                    if (!rc && memcmp(out, twin, (size_t)n * R) != 0)
                        rc = pb_err_set(&err, "output differs from the C twin");
                    if (!rc) rc = m->verify(state, &err);
                    if (rc)
                        fprintf(stderr, "%s %s n=%llu item=%u: %s\n", names[v], kind ? "lcg" : "varphilox",
                                (unsigned long long)n, R, err.msg);
                    if (state) m->release(state);
                    free(in), free(twin);
                    if (rc) return 1;
                }
    }
    return 0;
}

/* gpu-pov-shuffle against pb_pov_shuffle on records, sample by sample,
 * as tests/shuffle/test_gpu_pov.c does for 4- and 8-byte items. {2, 64, 64} with
 * rec256 (1 MiB a virtual block) and the defaults with rec1024 (256 KiB)
 * stage in global scratch; the others in shared memory. */
TEST_IMPL(gpu_records_pov_twin)
{
    int rc = need_gpu();
    if (rc) return rc;
    const pb_module *m = pb_module_find("gpu-pov-shuffle");
    ASSERT(m);
    static const pb_pov_params shapes[] = {{4, 64, 4}, {1, 1, 1}, {3, 3, 5}, {2, 7, 3}, {1, 4096, 1}, {2, 64, 64}};
    static const uint64_t sizes[] = {0, 1, 2, 3, 63, 64, 65, 1000, 4095, 4097, 10007, (1u << 16) + 3};
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (size_t w = 0; w < nw; w++) {
                uint64_t n = sizes[k];
                unsigned R = widths[w];
                pb_params params;
                pb_params_defaults(m, &params);
                params.v[pb_module_param_index(m, "iterations")] = shapes[sh].iterations;
                params.v[pb_module_param_index(m, "block")] = shapes[sh].block;
                params.v[pb_module_param_index(m, "vblock")] = shapes[sh].vblock;
                pb_point pt = {n, R, 31, &params, 0};
                void *state = NULL, *twin = malloc((size_t)n * R + 8);
                uint32_t *sigma = malloc((n + 1) * sizeof *sigma);
                const void *out;
                pb_err err;
                ASSERT(twin && sigma);
                rc = m->prepare(&pt, &state, &err);
                for (uint64_t sample = 0; sample < 2 && !rc; sample++) {
                    rc = m->refresh(state, &err);
                    if (!rc) rc = m->run(state, sample, &err);
                    if (!rc) rc = m->result(state, &out, &err);
                    if (rc) break;
                    pb_shuffle_fill(twin, n, R);
                    if (pb_pov_shuffle(twin, n, R, &shapes[sh], 31, sample, 2, sigma, &err)) rc = 1;
                    else if (memcmp(out, twin, (size_t)n * R) != 0)
                        rc = pb_err_set(&err, "sample %llu differs from the C twin", (unsigned long long)sample);
                }
                if (!rc && state) rc = m->verify(state, &err);
                if (rc)
                    fprintf(stderr, "gpu-pov-shuffle n=%llu item=%u block %u vblock %u iterations %u: %s\n",
                            (unsigned long long)n, R, shapes[sh].block, shapes[sh].vblock, shapes[sh].iterations,
                            err.msg);
                if (state) m->release(state);
                free(twin), free(sigma);
                if (rc) return 1;
            }
    return 0;
}

/* The device fingerprint of records is the host's (the copy module's
 * output is the input), and the device check finds a split record. */
TEST_IMPL(gpu_records_check_and_fingerprint)
{
    int rc = need_gpu();
    if (rc) return rc;
#ifdef PB_HAVE_CUDA
    const pb_module *copy = pb_module_find("gpu-copy");
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (size_t w = 0; w < nw; w++) {
        unsigned R = widths[w];
        enum { N = 100003 };
        pb_params params;
        pb_params_defaults(copy, &params);
        pb_point pt = {N, R, 1, &params, 0};
        void *state = NULL;
        pb_err err;
        uint64_t fp;
        unsigned char *host = malloc((size_t)N * R);
        ASSERT(host);
        pb_shuffle_fill(host, N, R);
        ASSERT(copy->prepare(&pt, &state, &err) == 0);
        ASSERT(copy->run(state, 0, &err) == 0 && pb_gpu_sync(&err) == 0);
        ASSERT(copy->fingerprint(state, &fp, &err) == 0);
        ASSERT_EQ_U64(fp, pb_fingerprint(host, N, R));
        copy->release(state);
        free(host);

        const pb_module *split = &pb_broken_gpu_split;
        state = NULL;
        ASSERT(split->prepare(&pt, &state, &err) == 0);
        ASSERT(split->run(state, 0, &err) == 0 && pb_gpu_sync(&err) == 0);
        ASSERT(split->verify(state, &err) != 0);
        ASSERT_CONTAINS(err.msg, "did not travel together");
        ASSERT_CONTAINS(err.msg, "position 0");
        split->release(state);
    }
#endif
    return 0;
}

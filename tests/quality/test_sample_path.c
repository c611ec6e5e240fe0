/* The statistics test what is timed: for every deterministic module with a
 * sample-permutation path, the permutation sample_perms draws for stream s
 * equals, bit for bit, the one run() applies to the input for stream s (the
 * output's items mapped back to their input indices). Nondeterministic
 * modules (dart-throwing) share their kernel with the sample path instead,
 * which no output comparison can show; they are checked to be valid. */
#include <stdlib.h>

#include "config/params.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/instance.h"
#include "registry/registry.h"
#include "tests/test.h"

/* Modules whose sample path is their timed code seeded another way, and why. */
static const char *exempt(const char *name)
{
    if (strcmp(name, "cpu-gsl-shuffle") == 0)
        return "gsl_ran_shuffle both ways; MT19937 takes 32-bit seeds, so samples come from one "
               "generator a chunk of 2^12 permutations, not one seed each";
    return NULL;
}

static int compare(const pb_module *m, uint32_t n, uint64_t seed, uint64_t stream)
{
    pb_instance in = {.mod = m};
    pb_params_defaults(m, &in.params);
    pb_params params;
    pb_instance_resolved_params(&in, &params);
    pb_point pt = {n, 4, seed, &params, pb_instance_threads(&in)};
    pb_err err;
    void *state = NULL;
    const void *out;
    uint32_t *timed = malloc((size_t)n * 4), *sampled = malloc((size_t)n * 4);
    int rc = !timed || !sampled;
    if (!rc && (m->prepare(&pt, &state, &err) || m->refresh(state, &err) ||
                m->run(state, stream, &err) ||
                (m->device == PB_DEVICE_GPU && pb_gpu_sync(&err)) ||
                m->result(state, &out, &err) ||
                pb_module_sample_perms(m)(&params, n, seed, stream, 1, sampled, &err))) {
        fprintf(stderr, "%s n=%u: %s\n", m->name, n, err.msg);
        rc = 1;
    }
    for (uint32_t i = 0; !rc && i < n; i++) timed[i] = (uint32_t)pb_shuffle_item_index(((const uint32_t *)out)[i], 4);
    if (!rc && memcmp(timed, sampled, (size_t)n * 4) != 0) {
        uint32_t i = 0;
        while (timed[i] == sampled[i]) i++;
        fprintf(stderr, "%s n=%u stream %llu: the sample path differs from run() at %u (%u, %u)\n",
                m->name, n, (unsigned long long)stream, i, sampled[i], timed[i]);
        rc = 1;
    }
    if (state) m->release(state);
    free(timed);
    free(sampled);
    return rc;
}

static int check_device(pb_device dev)
{
    static const uint32_t ns[] = {1, 2, 5, 100, 1000, 65537};
    int tried = 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (m->device != dev || !pb_module_sample_perms(m) || (m->flags & PB_MOD_NONDETERMINISTIC)) continue;
        const char *why = exempt(m->name);
        if (why) {
            printf("%s: exempt: %s\n", m->name, why);
            continue;
        }
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++)
            for (uint64_t s = 0; s < 3; s++)
                if (compare(m, ns[t], 77, s * 5)) return 1;
        printf("%s: sample path equals run() (%zu sizes x 3 streams)\n", m->name,
               sizeof ns / sizeof ns[0]);
        tried++;
    }
    return tried ? 0 : PB_TEST_SKIP;
}

TEST_IMPL(sample_path_is_timed)
{
    return check_device(PB_DEVICE_CPU);
}

TEST_IMPL(gpu_sample_path_is_timed)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) == 0) {
        printf("SKIP: %s\n", why);
        return PB_TEST_SKIP;
    }
    return check_device(PB_DEVICE_GPU);
}

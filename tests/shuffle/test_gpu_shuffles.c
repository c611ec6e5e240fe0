/* The GPU shuffles on a CUDA device: bijective0/1/2 equal their C twin bit
 * for bit with either bijection at sizes 1, 2, 3, 2^k-1, 2^k, 2^k+1 up to
 * 2^26; the sample-permutation path gives valid permutations, equal to the
 * twin's for the bijective modules. SKIP without a device. */
#include <stdlib.h>

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "config/params.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/test.h"

static int need_gpu(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

/* Runs `m` with the given bijection for samples 0..2 and compares the
 * output of sample 2 with the twin's. */
static int compare(const pb_module *m, int kind, uint64_t n, unsigned bytes, const void *twin)
{
    pb_params params;
    pb_err err;
    pb_params_defaults(m, &params);
    params.v[pb_module_param_index(m, "bijection")] = kind;
    pb_point pt = {n, bytes, 31, &params, 0};
    void *state = NULL;
    const void *out;
    int rc = m->prepare(&pt, &state, &err);
    for (uint64_t s = 0; s < 3 && !rc; s++) rc = m->run(state, s, &err);
    if (!rc) rc = m->result(state, &out, &err);
    if (!rc && memcmp(out, twin, n * bytes) != 0) rc = pb_err_set(&err, "output differs from the C twin");
    if (rc)
        fprintf(stderr, "%s %s n=%llu item=%u: %s\n", m->name, kind ? "lcg" : "varphilox",
                (unsigned long long)n, bytes, err.msg);
    if (state) m->release(state);
    return rc ? 1 : 0;
}

TEST_IMPL(gpu_bijective_twin)
{
    int rc = need_gpu();
    if (rc) return rc;
    const pb_module *mods[3] = {pb_module_find("gpu-bijective0"), pb_module_find("gpu-bijective1"),
                                pb_module_find("gpu-bijective2")};
    uint64_t sizes[3 + 3 * 25];
    size_t ns = 0;
    sizes[ns++] = 1, sizes[ns++] = 2, sizes[ns++] = 3;
    for (int k = 2; k <= 26; k++) {
        uint64_t p = UINT64_C(1) << k;
        sizes[ns++] = p - 1, sizes[ns++] = p, sizes[ns++] = p + 1;
    }
    for (int kind = 0; kind < 2; kind++)
        for (unsigned bytes = 4; bytes <= 8; bytes += 4)
            for (size_t i = 0; i < ns; i++) {
                uint64_t n = sizes[i];
                /* 4-byte items at every size up to 2^20, then spot sizes. */
                if (bytes == 4 && n > (1u << 20) + 1 && (i % 3) != 2) continue;
                void *in = malloc(n * bytes), *twin = malloc(n * bytes);
                ASSERT(in && twin);
                pb_shuffle_fill(in, n, bytes);
                pb_bijective_twin_shuffle(in, twin, n, bytes, (pb_bij_kind)kind, 24, 31, 2);
                for (int v = 0; v < 3; v++)
                    if (compare(mods[v], kind, n, bytes, twin)) return 1;
                free(in), free(twin);
            }
    return 0;
}

TEST_IMPL(gpu_sample_perms)
{
    int rc = need_gpu();
    if (rc) return rc;
    static const uint32_t ns[] = {2, 5, 100, 1000, 65537};
    static const uint64_t counts[] = {4096, 4096, 1000, 300, 4};
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (m->device != PB_DEVICE_GPU || !pb_module_sample_perms(m)) continue;
        /* The bijective shuffles equal the twin's indices; another module
         * built on a bijection (dist-shuffle: its own streams) has its
         * own test (test_gpu_dist.c). */
        int bijective = pb_module_param_index(m, "bijection") >= 0 && strncmp(m->name, "bijective", 9) == 0;
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            uint32_t n = ns[t];
            uint64_t count = counts[t];
            uint32_t *p = malloc(count * n * 4), *twin = malloc(n * 4), *again = malloc(count * n * 4);
            pb_params params;
            pb_err err;
            pb_params_defaults(m, &params);
            ASSERT(p && twin && again);
            if (pb_module_sample_perms(m)(&params, n, 8, 100, count, p, &err)) {
                fprintf(stderr, "%s n=%u: %s\n", m->name, n, err.msg);
                return 1;
            }
            int distinct = 0;
            for (uint64_t j = 0; j < count; j++) {
                unsigned char *seen = calloc(n, 1);
                for (uint32_t k = 0; k < n; k++) {
                    uint32_t v = p[j * n + k];
                    if (v >= n || seen[v]) {
                        fprintf(stderr, "%s n=%u: sample %llu is not a permutation\n", m->name, n,
                                (unsigned long long)j);
                        return 1;
                    }
                    seen[v] = 1;
                }
                free(seen);
                if (j) distinct += memcmp(p + j * n, p + (j - 1) * n, n * 4) != 0;
                if (bijective) {
                    pb_bijective_twin_indices(twin, n, PB_BIJ_VARPHILOX, 24, 8, 100 + j);
                    if (memcmp(twin, p + j * n, n * 4) != 0) {
                        fprintf(stderr, "%s n=%u: sample %llu differs from the twin\n", m->name, n,
                                (unsigned long long)j);
                        return 1;
                    }
                }
            }
            if (n >= 5) ASSERT(distinct > (int)count / 2);
            /* Deterministic modules: the same series in another batching. */
            if (!(m->flags & PB_MOD_NONDETERMINISTIC) && count > 2) {
                uint64_t half = count / 2;
                ASSERT(pb_module_sample_perms(m)(&params, n, 8, 100, half, again, &err) == 0);
                ASSERT(pb_module_sample_perms(m)(&params, n, 8, 100 + half, count - half, again + half * n, &err) == 0);
                ASSERT(memcmp(p, again, count * n * 4) == 0);
            }
            free(p), free(twin), free(again);
        }
    }
    return 0;
}

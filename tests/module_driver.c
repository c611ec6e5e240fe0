#include "tests/module_driver.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"
#include "families/shuffle/shuffle_family.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/test.h"

const uint64_t pb_awkward_sizes[] = {1, 2, 3, 5, 31, 32, 33, 1023, 1024, 1025, 65535, 65536, 65537, 1000003, (1u << 22) + 1, 0};

int pb_drive_module(const pb_module *m, uint64_t n, unsigned item_bytes, uint64_t seed, int runs,
                    int threads, void **out, pb_err *err)
{
    pb_params params;
    pb_params_defaults(m, &params);
    int ti = pb_module_param_index(m, "threads");
    int t = m->device == PB_DEVICE_GPU ? 0 : 1;
    if (ti >= 0) {
        if (threads > 0) params.v[ti] = threads;
        t = params.v[ti] > 0 ? (int)params.v[ti] : omp_get_num_procs();
        params.v[ti] = t;
    }
    pb_point pt = {n, item_bytes, seed, &params, t};
    void *state = NULL;
    if (m->prepare(&pt, &state, err)) {
        if (state) m->release(state);
        return -1;
    }
    int rc = 0;
    for (int s = 0; s < runs && !rc; s++) rc = m->run(state, (uint64_t)s, err);
    const void *res = NULL;
    if (!rc) rc = m->result(state, &res, err);
    if (!rc && m->verify) rc = m->verify(state, err);
    /* The family's own check (a permutation, for shuffles) as well. Other
     * families have no check that works on result() alone, so their
     * verify must. */
    if (!rc && m->family->check) rc = m->family->check(m, state, &pt, err);
    else if (!rc && !m->verify)
        rc = pb_err_set(err, "%s module %s has no verify", m->family->name, m->name);
    if (!rc && out) {
        size_t bytes = (size_t)n * item_bytes;
        *out = malloc(bytes ? bytes : 1);
        if (*out) memcpy(*out, res, bytes);
        else rc = pb_err_set(err, "out of memory");
    }
    m->release(state);
    return rc;
}

static int drive_sizes(const pb_module *m, const uint64_t *sizes, int *tried)
{
    for (unsigned bytes = 4; bytes <= 8; bytes += 4)
        for (size_t k = 0;; k++) {
            uint64_t n = sizes[k];
            pb_err err;
            /* 2^22 + 1 not under the sanitizers: 10^6 + 3 already takes
             * every module past its caches and into its deepest levels,
             * and the release suite runs the larger size. */
            if (PB_TEST_SANITIZED && n > (1u << 21)) continue;
            /* Two runs: a repeat works on the previous output (in place) or
             * the same input again, and must still give a permutation. */
            if (pb_drive_module(m, n, bytes, 99, 2, 0, NULL, &err)) {
                fprintf(stderr, "%s n=%llu item=%u: %s\n", m->name, (unsigned long long)n, bytes,
                        err.msg);
                return 1;
            }
            ++*tried;
            if (n == 0) break;
        }
    return 0;
}

int pb_drive_all_valid(pb_device dev, const uint64_t *extra)
{
    int tried = 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        /* Shuffle modules only: other families have their own tests. */
        if (m->device != dev || m->family != &pb_family_shuffle) continue;
        if (drive_sizes(m, pb_awkward_sizes, &tried)) return 1;
        if (extra && drive_sizes(m, extra, &tried)) return 1;
    }
    return tried ? 0 : PB_TEST_SKIP;
}

int pb_check_seeds(pb_device dev)
{
    enum { N = 1000 };
    int tried = 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        /* Shuffle modules only: other families have their own tests. */
        if (m->device != dev || m->family != &pb_family_shuffle) continue;
        for (unsigned bytes = 4; bytes <= 8; bytes += 4) {
            void *a, *b, *c, *d;
            pb_err err;
            size_t sz = (size_t)N * bytes;
            if (pb_drive_module(m, N, bytes, 1, 1, 0, &a, &err) ||
                pb_drive_module(m, N, bytes, 1, 1, 0, &b, &err) ||
                pb_drive_module(m, N, bytes, 2, 1, 0, &c, &err) ||
                pb_drive_module(m, N, bytes, 1, 2, 0, &d, &err)) {
                fprintf(stderr, "%s: %s\n", m->name, err.msg);
                return 1;
            }
            if (!(m->flags & PB_MOD_NONDETERMINISTIC) && memcmp(a, b, sz) != 0) {
                fprintf(stderr, "%s: the same seed gave different outputs\n", m->name);
                return 1;
            }
            if (m->flags & PB_MOD_SEEDED) {
                if (memcmp(a, c, sz) == 0 || memcmp(a, d, sz) == 0) {
                    fprintf(stderr, "%s: output does not change with the seed or sample\n", m->name);
                    return 1;
                }
            } else {
                void *in = malloc(sz);
                pb_shuffle_fill(in, N, bytes);
                int same = memcmp(a, in, sz) == 0 && memcmp(c, in, sz) == 0;
                free(in);
                if (!same) {
                    fprintf(stderr, "%s: an unseeded module changed its input's order\n", m->name);
                    return 1;
                }
            }
            free(a), free(b), free(c), free(d);
            tried++;
        }
    }
    return tried ? 0 : PB_TEST_SKIP;
}

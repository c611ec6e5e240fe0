#include "tests/module_driver.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "harness/family_shuffle.h"
#include "harness/params.h"
#include "harness/registry.h"
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
    if (!rc) rc = pb_shuffle_check(res, n, item_bytes, err);
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
        if (m->device != dev) continue;
        if (drive_sizes(m, pb_awkward_sizes, &tried)) return 1;
        if (extra && drive_sizes(m, extra, &tried)) return 1;
    }
    return tried ? 0 : PB_TEST_SKIP;
}

/* cub-topk (CUB's DeviceTopK / DeviceBatchedTopK) against the family check
 * (the C twin's key multiset per row, valid distinct indices; with ties =
 * lowest-index the twin's index sets; with sorted = yes rank order).
 *
 *  - gpu_cub_topk: every dtype, both directions, ties any and lowest-index,
 *    sorted = yes, at awkward shapes: n = 1, 2, 3, 2^10 +- 1, 2^16 + 1,
 *    2^21 (the batch API's longest row) and 2^21 + 1 (a batch of such rows
 *    takes the row loop), k = 1, 2, 31, 32, 33, 1000, n - 1, n, n + 1;
 *    single rows (aligned or not), batches of 1 row, 5 ragged misaligned
 *    rows, 16 misaligned rows and 1000 short rows. Distributions (ties, NaN
 *    of both signs, infinities) by a hash of the point. SKIP without a device,
 *    or where this build has no CCCL with the top-k (the module says why).
 *  - gpu_cub_topk_refusal: ties = lowest-index on a batch with a row longer
 *    than 2^21 is refused at prepare with one line naming the limit.
 *  - cub_topk_build (no GPU needed): the module is registered in a CUDA
 *    build, and its availability says what CMake found: available where
 *    the headers were (PB_TEST_CUB_TOPK=1), otherwise unavailable with the
 *    reason naming the header and PB_CCCL_ROOT; the build's provenance
 *    (build.cccl_topk) names the CCCL version exactly when it was built. */
#include <stdio.h>
#include <string.h>

#include "core/build_info.h"
#include "core/gpu.h"
#include "families/topk/topk_problem.h"
#include "registry/registry.h"
#include "tests/test.h"
#include "tests/topk/gpu_topk_helpers.h"

/* cub-topk, or NULL (printed) when it cannot run here: SKIP then (a build
 * without CUDA has no device). */
static const pb_module *cub_topk_here(int *rc)
{
    *rc = gtk_need_gpu();
    if (*rc) return NULL;
    const pb_module *m = pb_module_find("gpu-cub-topk");
    if (!m) {
        fprintf(stderr, "no module 'gpu-cub-topk' in this CUDA build\n");
        *rc = 1;
        return NULL;
    }
    char why[256] = "";
    if (!pb_module_available(m, why, sizeof why)) {
        printf("skipped: gpu-cub-topk: %s\n", why);
        *rc = PB_TEST_SKIP;
        return NULL;
    }
    return m;
}

TEST_IMPL(gpu_cub_topk)
{
    int rc;
    const pb_module *m = cub_topk_here(&rc);
    if (!m) return rc;
    static const tk_case cases[] = {
        {"gpu-cub-topk", NULL, NULL},
        {"gpu-cub-topk", "ties", "lowest-index"},
        {"gpu-cub-topk", "sorted", "yes"},
    };
    enum { NC = sizeof cases / sizeof cases[0] };
    static const tk_shape shapes[] = {{1, 0, 0}, {1, 0, 1}, {1, 1, 1}, {5, 1, 1}, {16, 0, 1}, {1000, 1, 1}};
    enum { NSH = sizeof shapes / sizeof shapes[0] };
    static const uint64_t sizes[] = {1, 2, 3, 1023, 1025, 65537, 1u << 21, (1u << 21) + 1};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    tk_tally t = {0, 0};
    bool go = true;
    long skipped = 0;
    char why[256] = "";
    double t0 = gtk_now_s();
    for (int ci = 0; ci < NC && go; ci++)
        for (int si = 0; si < NS && go; si++)
            for (int dt = 0; dt < PB_TOPK_NDTYPES && go; dt++)
                for (int sh = 0; sh < NSH && go; sh++) {
                    uint64_t n = sizes[si];
                    const tk_shape *s = &shapes[sh];
                    /* Long rows: batches of a few only (the host's twin is the cost). */
                    if (n > 65537 && s->rows > 5) continue;
                    /* Refused by design (gpu_cub_topk_refusal): lowest-index past 2^21
                     * in a batch, ragged rows reaching past it too. */
                    if (cases[ci].param && !strcmp(cases[ci].param, "ties") &&
                        (n > (1u << 21) || (n == (1u << 21) && s->ragged)))
                        continue;
                    const uint64_t want[] = {1, 2, 31, 32, 33, 1000, n - 1, n, n + 1};
                    for (int ki = 0; ki < 9 && go; ki++) {
                        uint64_t k = want[ki];
                        if (k < 1 || (ki < 6 && k > n + 1)) continue;
                        uint32_t h = gtk_coords(0xc7, ci, dt, ki, si * NSH + sh);
                        if (n > 4096 && gtk_hash(h) % 4 != 0) continue;
                        tk_point q = {n, k, *s, (int)(gtk_hash(h ^ 0x9e37u) % NDISTS), (int)(h & 1), dt};
                        /* Below compute capability 9.0 code the module
                         * refuses batches and lowest-index (its
                         * `available`): those points are skipped. */
                        pb_params pp;
                        pb_err e2 = {{0}};
                        if (gtk_set_params(m, &cases[ci], &q, &pp, &e2) == 0 &&
                            !pb_module_available_with(m, &pp, why, sizeof why)) {
                            skipped++;
                            continue;
                        }
                        go = gtk_tally(&t, m, &cases[ci], &q);
                    }
                }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, gtk_now_s() - t0, t.failures);
    if (skipped) printf("%ld points skipped: %s\n", skipped, why);
    return t.failures != 0 || t.runs + skipped < 1000 || t.runs < 100;
}

TEST_IMPL(gpu_cub_topk_refusal)
{
    int rc;
    const pb_module *m = cub_topk_here(&rc);
    if (!m) return rc;
    tk_case c = {"gpu-cub-topk", "ties", "lowest-index"};
    tk_point q = {(1u << 21) + 1, 32, {2, 0, 0}, 0, 1, PB_TOPK_F32};
    pb_params p;
    pb_err err = {{0}};
    ASSERT(gtk_set_params(m, &c, &q, &p, &err) == 0);
    pb_point pt = {q.n, 4, 1, &p, 0};
    void *st = NULL;
    rc = m->prepare(&pt, &st, &err);
    if (st) m->release(st);
    printf("%s\n", err.msg);
    ASSERT(rc != 0);
    ASSERT(strstr(err.msg, "2^21") != NULL);
    ASSERT(strchr(err.msg, '\n') == NULL);
    return 0;
}

TEST_IMPL(cub_topk_build)
{
#ifndef PB_HAVE_CUDA
    printf("skipped: gpu-cub-topk is a GPU module, and this build has no CUDA\n");
    return PB_TEST_SKIP;
#else
    const pb_module *m = pb_module_find("gpu-cub-topk");
    ASSERT(m != NULL);
    ASSERT(m->available != NULL);
    char why[256] = "";
    bool ok = m->available(NULL, why, sizeof why);
    printf("available: %s %s\n", ok ? "yes" : "no", why);
    /* The build's provenance names the CCCL it was built with, or none. */
    ASSERT((pb_build.cccl_topk[0] != '\0') == (PB_TEST_CUB_TOPK != 0));
#if PB_TEST_CUB_TOPK
    ASSERT(ok);
    ASSERT(strchr(pb_build.cccl_topk, '.') != NULL);
#else
    ASSERT(!ok);
    ASSERT(strstr(why, "cub/device/device_topk.cuh") != NULL);
    ASSERT(strstr(why, "PB_CCCL_ROOT") != NULL);
#endif
    return 0;
#endif
}

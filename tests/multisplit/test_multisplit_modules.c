/* The CPU multisplit modules through the descriptor, as the harness drives
 * them: registered, driven, and their parameters checked. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "config/params.h"
#include "core/rng.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_host_bucket.h"
#include "families/multisplit/ms_problem.h"
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/multisplit/ms_helpers.h"
#include "tests/test.h"

/* ---- the modules ---- */

static int set_params(const pb_module *m, pb_params *par, const char *spec)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    pb_params_defaults(m, par);
    pb_err err;
    for (char *save = NULL, *one = strtok_r(buf, ",", &save); one;
         one = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(one, '=');
        *eq = '\0';
        if (pb_params_set(m, par, one, eq + 1, &err)) {
            fprintf(stderr, "%s: %s\n", m->name, err.msg);
            return -1;
        }
    }
    return 0;
}

TEST_IMPL(ms_modules_registry)
{
    const char *names[] = {"cpu-multisplit-twin", "cpu-multisplit"};
    for (int i = 0; i < 2; i++) {
        const pb_module *m = pb_module_find(names[i]);
        ASSERT(m && m->family == &pb_family_multisplit && m->device == PB_DEVICE_CPU);
        ASSERT(m->verify && !pb_module_sample_perms(m) && !(m->flags & PB_MOD_SEEDED));
        ASSERT(pb_module_param_index(m, "buckets") == PB_MS_P_BUCKETS);
        ASSERT(pb_module_param_index(m, "bucket") == PB_MS_P_BUCKET);
        ASSERT(pb_module_param_index(m, "shift") == PB_MS_P_SHIFT);
        ASSERT(pb_module_param_index(m, "dist") == PB_MS_P_DIST);
        ASSERT(pb_module_param_index(m, "alpha") == PB_MS_P_ALPHA);
        pb_params par;
        ASSERT(set_params(m, &par, "bucket=radix,buckets=64,shift=26") == 0);
        pb_point pt = {1000, 8, 1, &par, 1};
        ASSERT_EQ_U64(m->footprint(&pt), 3 * 1000 * 8);
        pb_err err;
        void *state = NULL;
        ASSERT(m->prepare(&pt, &state, &err) == 0);
        m->release(state);
        ASSERT(set_params(m, &par, "bucket=radix,buckets=64,shift=27") == 0);
        ASSERT(m->prepare(&pt, &state, &err) != 0);
        ASSERT_CONTAINS(err.msg, "shift=27");
    }
    const pb_module *o = pb_module_find("cpu-multisplit");
    ASSERT(pb_module_param_index(o, "threads") == PB_MS_NCOMMON);
    ASSERT(pb_module_param_index(pb_module_find("cpu-multisplit-twin"), "threads") < 0);
    return 0;
}

/* Both modules as the harness drives them (prepare, two runs, result,
 * verify, release), default parameters, both widths; their outputs agree. */
TEST_IMPL(ms_modules_drive)
{
    static const uint64_t sizes[] = {0, 1, 2, 1000, 100003};
    const pb_module *tw = pb_module_find("cpu-multisplit-twin"), *om = pb_module_find("cpu-multisplit");
    ASSERT(tw && om);
    for (size_t is = 0; is < 5; is++)
        for (unsigned item = 4; item <= 8; item += 4) {
            uint64_t n = sizes[is];
            void *a, *b, *c;
            pb_err err;
            if (pb_drive_module(tw, n, item, 17, 2, 0, &a, &err) ||
                pb_drive_module(om, n, item, 17, 2, 3, &b, &err) ||
                pb_drive_module(om, n, item, 17, 1, 0, &c, &err)) {
                fprintf(stderr, "n=%" PRIu64 " item=%u: %s\n", n, item, err.msg);
                return 1;
            }
            ASSERT(memcmp(a, b, n * item) == 0 && memcmp(a, c, n * item) == 0);
            free(a), free(b), free(c);
        }
    return 0;
}

/* The modules with every bucket kind and distribution: their output is the
 * twin's answer of an independently prepared problem at the same point,
 * keys then values; corrupting it makes verify fail. */
TEST_IMPL(ms_modules_params)
{
    static const char *specs[] = {
        "",
        "bucket=identity,buckets=100,dist=alpha,alpha=10",
        "bucket=radix,buckets=32,shift=3,dist=binomial",
        "bucket=radix,buckets=256,shift=24",
        "bucket=range,buckets=7",
        "bucket=range,buckets=256,dist=binomial",
        "bucket=delta,buckets=3,dist=alpha,alpha=0",
    };
    static const uint64_t sizes[] = {0, 33, 70001};
    const char *names[] = {"cpu-multisplit-twin", "cpu-multisplit"};
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++)
        for (int mi = 0; mi < 2; mi++)
            for (int is = 0; is < 3; is++)
                for (unsigned item = 4; item <= 8; item += 4) {
                    const pb_module *m = pb_module_find(names[mi]);
                    uint64_t n = sizes[is];
                    pb_params par;
                    ASSERT(set_params(m, &par, specs[sp]) == 0);
                    int ti = pb_module_param_index(m, "threads");
                    if (ti >= 0) par.v[ti] = 2;
                    pb_point pt = {n, item, 41, &par, 2};
                    pb_err err;
                    void *state;
                    const void *res;
                    ASSERT(m->prepare(&pt, &state, &err) == 0);
                    ASSERT(m->run(state, 0, &err) == 0 && m->run(state, 1, &err) == 0);
                    ASSERT(m->result(state, &res, &err) == 0);
                    if (m->verify(state, &err)) {
                        fprintf(stderr, "%s [%s] n=%" PRIu64 ": %s\n", m->name, specs[sp], n,
                                err.msg);
                        return 1;
                    }
                    pb_ms_problem p;
                    ASSERT(ms_init(&p, n, item, 41, &par) == 0);
                    ASSERT(pb_ms_twin_answer(&p, &err) == 0);
                    const uint32_t *out = res;
                    ASSERT(n == 0 || memcmp(out, p.twin_keys, n * 4) == 0);
                    ASSERT(n == 0 || !p.pairs || memcmp(out + n, p.twin_vals, n * 4) == 0);
                    if (n > 1) {
                        /* The output is the module's own: corrupt it. */
                        uint32_t *w = (uint32_t *)res;
                        w[n - 1] ^= 1;
                        if (p.pairs) w[2 * n - 1] ^= 1;
                        ASSERT(m->verify(state, &err) != 0);
                        ASSERT_CONTAINS(err.msg, "differs from the twin");
                    }
                    pb_ms_problem_free(&p);
                    m->release(state);
                }
    return 0;
}

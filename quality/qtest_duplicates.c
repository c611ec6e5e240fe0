/* duplicates: the birthday test (stats/duplicates.h): repeated
 * permutations among N against their expectation, where n! >= 64 N. Each
 * sample is kept as a 128-bit hash, so N is at most 2^28 (4 GiB). */
#include <stdlib.h>

#include "quality/qtest.h"
#include "stats/duplicates.h"

#define MAX_SAMPLES (UINT64_C(1) << 28)

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    pb_err e;
    if (pb_dups_applicable(n, samples, &e))
        return pb_err_set(err, "duplicates at n = %u: %s", n, e.msg), PB_QT_BAD_N;
    if (samples > MAX_SAMPLES)
        return pb_err_set(err, "duplicates_samples = %llu: at most 2^28 (16 bytes are kept per sample)",
                          (unsigned long long)samples),
               PB_QT_BAD_SAMPLES;
    return PB_QT_OK;
}

static int init(void **state, uint32_t n, uint64_t samples, const pb_qsettings *s, pb_err *err)
{
    (void)s;
    pb_dups *d = malloc(sizeof *d);
    if (!d) return pb_err_set(err, "out of memory");
    if (pb_dups_init(d, n, samples, err)) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)
{
    (void)err;
    pb_dups_add(state, perms, count);
    return 0;
}

static void finish(void *state, size_t which, const pb_qsettings *s, pb_test_result *r)
{
    (void)which;
    pb_dups_result(state, s->alpha, r);
}

static void release(void *state)
{
    if (!state) return;
    pb_dups_free(state);
    free(state);
}

static const char *const results[] = {"duplicates"};

const pb_qtest pb_qtest_duplicates = {
    .name = "duplicates",
    .summary = "repeated permutations against the birthday expectation",
    .results = results,
    .nresults = 1,
    .expected_name = "expected_repeats",
    .aux_name = "cells",
    /* Repeats are 0 or a failure: nothing to draw against a parameter. */
    .applies = applies,
    .init = init,
    .add = add,
    .finish = finish,
    .release = release,
};

/* positional: the positional TVD bias metric (stats/positional.h), the mean
 * over items of the TVD between an item's final position and uniform,
 * against its exact null mean and noise; one-sided normal verdict. */
#include <stdlib.h>

#include "quality/qtest.h"
#include "stats/positional.h"

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    if (n < PB_POSITIONAL_MIN_N || n > PB_POSITIONAL_MAX_N)
        return pb_err_set(err, "positional at n = %u: n must be %d .. %d (N^2 counts)", n, PB_POSITIONAL_MIN_N,
                          PB_POSITIONAL_MAX_N),
               PB_QT_BAD_N;
    if (samples < 2 || samples >= UINT32_MAX)
        return pb_err_set(err, "positional_samples = %llu: 2 .. 2^32 - 2", (unsigned long long)samples),
               PB_QT_BAD_SAMPLES;
    return PB_QT_OK;
}

static int init(void **state, uint32_t n, uint64_t samples, const pb_qsettings *s, pb_err *err)
{
    (void)samples, (void)s;
    pb_positional *t = malloc(sizeof *t);
    if (!t) return pb_err_set(err, "out of memory");
    if (pb_positional_init(t, n, err)) {
        free(t);
        return -1;
    }
    *state = t;
    return 0;
}

static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)
{
    (void)err;
    pb_positional_add(state, perms, count);
    return 0;
}

static void finish(void *state, size_t which, const pb_qsettings *s, pb_test_result *r)
{
    (void)which;
    pb_positional_result(state, s->alpha, r);
}

static void release(void *state)
{
    if (!state) return;
    pb_positional_free(state);
    free(state);
}

static const char *const results[] = {"positional-tvd"};
static const char *const thresholds[] = {"threshold (uniform mean + z sd)"};

const pb_qtest pb_qtest_positional = {
    .name = "positional",
    .summary = "positional TVD: each item's final position against uniform (3 <= n <= 4096)",
    .results = results,
    .nresults = 1,
    .expected_name = "expected_tvd",
    .aux_name = "sd_tvd",
    .figure = "positional",
    .ylabel = "positional TVD",
    .threshold_titles = thresholds,
    .applies = applies,
    .init = init,
    .add = add,
    .finish = finish,
    .release = release,
};

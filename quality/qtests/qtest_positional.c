/* positional: the positional TVD bias metric (stats/positional.h), the mean
 * over items of the TVD between an item's final position and uniform,
 * against its exact null mean and noise; one-sided normal verdict. */
#include "quality/qtests/qtest_state.h"
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

PB_QTEST_STATE_INIT(init, pb_positional, pb_positional_init(t, n, err))
PB_QTEST_STATE_ADD_VOID(pb_positional_add)
PB_QTEST_STATE_ONE_RESULT(pb_positional_result, pb_positional_free)

static const char *const results[] = {"positional-tvd"};
static const char *const thresholds[] = {"threshold (uniform mean + z sd)"};

const pb_qtest pb_qtest_positional = {
    .name = "positional",
    .summary = "positional TVD: each item's final position against uniform (3 <= n <= 4096)",
    .results = results, .nresults = 1,
    .expected_name = "expected_tvd", .aux_name = "sd_tvd",
    .figure = "positional", .ylabel = "positional TVD", .threshold_titles = thresholds,
    PB_QTEST_STATE_HOOKS,
};

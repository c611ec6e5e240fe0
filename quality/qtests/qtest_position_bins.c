/* position_bins: where items land at any n, in b x b bins of input and
 * output positions (stats/position_bins.h); chi-square verdict. The
 * positional TVD's coarse cousin for n beyond its n x n table. */
#include "quality/qtests/qtest_state.h"
#include "stats/position_bins.h"

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    if (n < PB_POSITION_BINS_MIN_N)
        return pb_err_set(err, "position_bins at n = %u: n must be at least %d", n, PB_POSITION_BINS_MIN_N),
               PB_QT_BAD_N;
    double e = pb_position_bins_min_expected(n, samples);
    if (samples < 2 || e < PB_POSITION_BINS_MIN_EXPECTED) {
        uint32_t b = pb_position_bins_at(n);
        return pb_err_set(err, "position_bins at n = %u needs about %.0f samples (%d expected in each of %u x %u "
                               "cells), not %llu",
                          n, PB_POSITION_BINS_MIN_EXPECTED * (double)n / ((double)(n / b) * (n / b)) + 1,
                          PB_POSITION_BINS_MIN_EXPECTED, b, b, (unsigned long long)samples),
               PB_QT_BAD_SAMPLES;
    }
    return PB_QT_OK;
}

PB_QTEST_STATE_INIT(init, pb_position_bins, pb_position_bins_init(t, n, err))
PB_QTEST_STATE_ADD_VOID(pb_position_bins_add)
PB_QTEST_STATE_ONE_RESULT(pb_position_bins_result, pb_position_bins_free)

static const char *const results[] = {"position-bins"};
static const char *const thresholds[] = {"chi-square threshold"};

const pb_qtest pb_qtest_position_bins = {
    .name = "position_bins",
    .summary = "binned positions: items' final positions in 32 x 32 bins against uniform (any n >= 2)",
    .results = results, .nresults = 1,
    .expected_name = "null_mean", .aux_name = "min_expected_per_cell",
    .figure = "position-bins", .ylabel = "chi-square statistic (n-1)/n", .threshold_titles = thresholds,
    PB_QTEST_STATE_HOOKS,
};

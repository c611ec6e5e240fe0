/* chisq: Pearson's chi-square over all n! permutations (stats/chisq.h),
 * 2 <= n <= 8, with at least 5 samples expected in every cell. */
#include "quality/qtests/qtest_state.h"
#include "stats/chisq.h"
#include "stats/lehmer.h"

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    if (n < PB_CHISQ_MIN_N || n > PB_CHISQ_MAX_N)
        return pb_err_set(err, "chisq at n = %u: the test counts all n! permutations, so n must be %d .. %d",
                          n, PB_CHISQ_MIN_N, PB_CHISQ_MAX_N),
               PB_QT_BAD_N;
    uint64_t cells = pb_factorial(n), need = PB_CHISQ_MIN_EXPECTED * cells;
    if (samples < need)
        return pb_err_set(err, "chisq at n = %u needs at least %llu samples (%d expected per cell of %llu), not %llu",
                          n, (unsigned long long)need, PB_CHISQ_MIN_EXPECTED, (unsigned long long)cells,
                          (unsigned long long)samples),
               PB_QT_BAD_SAMPLES;
    return PB_QT_OK;
}

PB_QTEST_STATE_INIT(init, pb_chisq, pb_chisq_init(t, n, err))
PB_QTEST_STATE_ADD_VOID(pb_chisq_add)
PB_QTEST_STATE_ONE_RESULT(pb_chisq_result, pb_chisq_free)

static const char *const results[] = {"chisq"};
static const char *const thresholds[] = {"chi-square threshold"};

const pb_qtest pb_qtest_chisq = {
    .name = "chisq", .summary = "chi-square over all n! permutations (2 <= n <= 8)",
    .results = results, .nresults = 1,
    .expected_name = "expected_per_cell", .aux_name = "degrees_of_freedom",
    .figure = "chisq", .ylabel = "chi-square statistic", .threshold_titles = thresholds,
    PB_QTEST_STATE_HOOKS,
};

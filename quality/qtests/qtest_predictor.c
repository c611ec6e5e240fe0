/* predictor: the predictability bias metric (stats/predictor.h), our
 * stand-in for the POV-shuffle README's LSTM: a transition table learned on
 * the first half of the samples predicts each next item from the previous
 * one on the second half; accuracy against its exact null mean 1/(N-1) and
 * noise, one-sided normal verdict. */
#include "quality/qtests/qtest_state.h"
#include "stats/predictor.h"

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    pb_err e;
    if (n < PB_PREDICTOR_MIN_N || n > PB_PREDICTOR_MAX_N)
        return pb_err_set(err, "predictor at n = %u: n must be %d .. %d (an N^2 transition table)", n,
                          PB_PREDICTOR_MIN_N, PB_PREDICTOR_MAX_N),
               PB_QT_BAD_N;
    if (pb_predictor_applicable(n, samples, &e))
        return pb_err_set(err, "predictor_samples: %s", e.msg), PB_QT_BAD_SAMPLES;
    return PB_QT_OK;
}

PB_QTEST_STATE_INIT(init, pb_predictor, pb_predictor_init(t, n, samples, err))

static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)
{
    return pb_predictor_add(state, perms, count, err);
}

PB_QTEST_STATE_ONE_RESULT(pb_predictor_result, pb_predictor_free)

static const char *const results[] = {"predictor-accuracy"};
static const char *const thresholds[] = {"threshold (1/(N-1) + z sd)"};

const pb_qtest pb_qtest_predictor = {
    .name = "predictor",
    .summary = "next-item predictability: transition table trained on half the samples (3 <= n <= 4096)",
    .results = results, .nresults = 1,
    .expected_name = "expected_accuracy", .aux_name = "sd_accuracy",
    .figure = "predictor", .ylabel = "next-item prediction accuracy",
    .threshold_titles = thresholds,
    PB_QTEST_STATE_HOOKS,
};

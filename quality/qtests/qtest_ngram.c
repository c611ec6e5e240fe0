/* bigram and trigram: the N-gram TVD bias metric (stats/ngram.h) of order
 * 2 and 3: windows of that many consecutive items over all samples against
 * uniform over the ordered tuples, against its exact null mean and noise;
 * one-sided normal verdict. One test a order, the same code. */
#include "quality/qtests/qtest_state.h"
#include "stats/ngram.h"

/* The tuples of the largest n fit a 63-bit key; the table bounds it further. */
#define MAX_N 65535

static int applies(const char *name, unsigned order, uint32_t n, uint64_t samples, pb_err *err)
{
    pb_err e;
    if (n < order + 1 || n > MAX_N)
        return pb_err_set(err, "%s at n = %u: n must be %u .. %d", name, n, order + 1, MAX_N), PB_QT_BAD_N;
    if (samples < 2 || pb_ngram_applicable(n, order, samples, &e))
        return pb_err_set(err, "%s_samples = %llu at n = %u: %s", name, (unsigned long long)samples, n,
                          samples < 2 ? "at least 2" : e.msg),
               PB_QT_BAD_SAMPLES;
    return PB_QT_OK;
}

static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)
{
    return pb_ngram_add(state, perms, count, err);
}

PB_QTEST_STATE_ONE_RESULT(pb_ngram_result, pb_ngram_free)

static const char *const thresholds[] = {"threshold (uniform mean + z sd)"};

#define PB_QTEST_NGRAM(NAME, ORDER)                                                                \
    static int NAME##_applies(uint32_t n, uint64_t samples, pb_err *err)                           \
    {                                                                                              \
        return applies(#NAME, ORDER, n, samples, err);                                             \
    }                                                                                              \
    PB_QTEST_STATE_INIT(NAME##_init, pb_ngram, pb_ngram_init(t, n, ORDER, samples, err))          \
    static const char *const NAME##_results[] = {#NAME "-tvd"};                                    \
    const pb_qtest pb_qtest_##NAME = {                                                             \
        .name = #NAME,                                                                             \
        .summary = #NAME " TVD: which items follow which, against uniform",                        \
        .results = NAME##_results,                                                                 \
        .nresults = 1,                                                                             \
        .expected_name = "expected_tvd",                                                           \
        .aux_name = "sd_tvd",                                                                      \
        .figure = #NAME,                                                                           \
        .ylabel = #NAME " TVD",                                                                    \
        .threshold_titles = thresholds,                                                            \
        .applies = NAME##_applies,                                                                 \
        .init = NAME##_init,                                                                       \
        .add = add,                                                                                \
        .finish = finish,                                                                          \
        .release = release,                                                                        \
    };

PB_QTEST_NGRAM(bigram, 2)
PB_QTEST_NGRAM(trigram, 3)

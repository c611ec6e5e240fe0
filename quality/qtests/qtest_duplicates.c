/* duplicates: the birthday test (stats/duplicates.h): repeated
 * permutations among N against their expectation, where n! >= 64 N. Each
 * sample is kept as a 128-bit hash, so N is at most 2^28 (4 GiB). */
#include "quality/qtests/qtest_state.h"
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

PB_QTEST_STATE_INIT(init, pb_dups, pb_dups_init(t, n, samples, err))
PB_QTEST_STATE_ADD_VOID(pb_dups_add)
PB_QTEST_STATE_ONE_RESULT(pb_dups_result, pb_dups_free)

static const char *const results[] = {"duplicates"};

const pb_qtest pb_qtest_duplicates = {
    .name = "duplicates", .summary = "repeated permutations against the birthday expectation",
    .results = results, .nresults = 1,
    .expected_name = "expected_repeats", .aux_name = "cells",
    /* Repeats are 0 or a failure: nothing to draw against a parameter. */
    PB_QTEST_STATE_HOOKS,
};

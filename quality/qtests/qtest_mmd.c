/* mmd: the Mallows-kernel MMD one-sample test of Mitchell et al. (2024,
 * section 5) (stats/mmd.h), reported with its Hoeffding (eq. 4) and CLT
 * (eq. 5) acceptance bounds; `mmd_bounds` picks either. Any n >= 2. */
#include "quality/qtests/qtest_state.h"
#include "stats/mmd.h"

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    (void)n, (void)samples, (void)err;
    return PB_QT_OK;
}

PB_QTEST_STATE_INIT(init, pb_mmd, pb_mmd_init(t, n, s->lambda, err))

static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)
{
    return pb_mmd_add(state, perms, count, err);
}

static void finish(void *state, size_t which, const pb_qsettings *s, pb_test_result *r)
{
    if (which == 0) pb_mmd_result_hoeffding(state, s->alpha, r);
    else pb_mmd_result_clt(state, s->alpha, r);
}

static void release(void *state) { free(state); }

static const char *const results[] = {"mmd-hoeffding", "mmd-clt"};
static const char *const words[] = {"hoeffding", "clt"};
static const char *const thresholds[] = {"Hoeffding bound (eq. 4)", "CLT bound (eq. 5)"};

const pb_qtest pb_qtest_mmd = {
    .name = "mmd", .summary = "Mallows-kernel MMD, Hoeffding (eq. 4) and CLT (eq. 5) bounds",
    .results = results, .nresults = 2, .select_key = "mmd_bounds", .select_words = words,
    .expected_name = "expected_k", .aux_name = "variance_k",
    .figure = "mmd", .ylabel = "|MMD^2| (Mallows kernel)", .threshold_titles = thresholds,
    PB_QTEST_STATE_HOOKS,
};

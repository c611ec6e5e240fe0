/* Quality configs (`permbench quality`, quality/quality_config.h) from
 * text: the INI reader, the [quality] keys and each test's n list and
 * samples, module sections resolved against the registry. */
#include "quality/quality_config.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pb_fuzz_text(data, size);
    if (!text) return 0;
    pb_quality_config cfg;
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_quality_config_load_text("fuzz.ini", "fuzz", text, &cfg, &err)) {
        pb_fuzz_check_err(&err);
        free(text);
        return 0;
    }
    PB_FUZZ_ASSERT(cfg.inst.n >= 1 && cfg.inst.n <= PB_MAX_INSTANCES);
    bool any = false;
    for (size_t k = 0; k < pb_qtest_count(); k++) {
        const pb_qtest_spec *t = &cfg.test[k];
        PB_FUZZ_ASSERT(t->nn <= PB_Q_MAX_N);
        any |= t->nn > 0;
        for (size_t i = 0; i < t->nn; i++) {
            PB_FUZZ_ASSERT(t->ns[i] >= 2 && t->ns[i] <= UINT32_MAX);
            if (i) PB_FUZZ_ASSERT(t->ns[i - 1] < t->ns[i]);
        }
        if (t->nn) PB_FUZZ_ASSERT(t->samples >= 1);
    }
    PB_FUZZ_ASSERT(any);
    uint64_t ns[PB_Q_MAX_TESTS * PB_Q_MAX_N];
    size_t nn = pb_quality_config_sizes(&cfg, ns, sizeof ns / sizeof ns[0]);
    PB_FUZZ_ASSERT(nn >= 1);
    for (size_t i = 0; i < cfg.inst.n; i++) PB_FUZZ_ASSERT(cfg.inst.v[i].mod->sample_perms);
    pb_quality_config_free(&cfg);
    free(text);
    return 0;
}

/* Quality configs (`permbench quality`, quality/quality_config.h) from
 * text: the INI reader, the [quality] keys and each test's n list and
 * samples, module sections resolved against the registry. */
#include "config/data_file.h"
#include "families/shuffle/shuffle_hooks.h"
#include "quality/qinput.h"
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
        pb_data_files_clear();
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
    /* Every module draws sample permutations; an external input
     * (quality/qinput.h) reads its rows instead and has a path. */
    for (size_t i = 0; i < cfg.inst.n; i++)
        PB_FUZZ_ASSERT(pb_instance_is_input(&cfg.inst.v[i])
                           ? pb_quality_config_input(&cfg, &cfg.inst.v[i]) != NULL
                           : pb_module_sample_perms(cfg.inst.v[i].mod) != NULL);
    pb_quality_config_free(&cfg);
    pb_data_files_clear(); /* each input from an empty table of key files */
    free(text);
    return 0;
}

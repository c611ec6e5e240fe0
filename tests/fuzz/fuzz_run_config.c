/* Sweep configs (`permbench run`, bench/sweep_config.h) from text: the INI
 * reader, the [sweep] keys, module sections resolved against the registry
 * and their lists expanded, then the ceilings added as a run does. */
#include "bench/sweep_config.h"
#include "config/params.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pb_fuzz_text(data, size);
    if (!text) return 0;
    pb_config cfg;
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_config_load_text("fuzz.ini", "fuzz", text, &cfg, &err)) {
        pb_fuzz_check_err(&err);
        pb_data_files_clear();
        free(text);
        return 0;
    }
    PB_FUZZ_ASSERT(cfg.family && cfg.nsizes >= 1 && cfg.nsizes <= PB_MAX_SIZES);
    for (size_t i = 0; i < cfg.nsizes; i++) PB_FUZZ_ASSERT(cfg.sizes[i] >= 1);
    PB_FUZZ_ASSERT(cfg.nitems >= 1 && cfg.nitems <= PB_MAX_ITEMS);
    PB_FUZZ_ASSERT(cfg.min_samples >= 1 && cfg.max_samples >= cfg.min_samples);
    PB_FUZZ_ASSERT(cfg.inst.n >= 1 && cfg.inst.n <= PB_MAX_INSTANCES);
    for (size_t i = 0; i < cfg.inst.n; i++) {
        const pb_instance *in = &cfg.inst.v[i];
        PB_FUZZ_ASSERT(in->mod && strlen(in->label) < sizeof in->label);
        for (size_t j = 0; j < in->mod->nparams; j++) {
            const pb_param_spec *s = &in->mod->params[j];
            if (s->type == PB_PARAM_INT)
                PB_FUZZ_ASSERT(in->params.v[j] >= s->min && in->params.v[j] <= s->max);
            else if (s->type == PB_PARAM_ENUM && pb_param_file(in->params.v[j]))
                PB_FUZZ_ASSERT(pb_param_takes_file(s)); /* `file:` only where it is taken */
        }
    }
    pb_config_add_ceilings(&cfg);
    pb_config_free(&cfg);
    pb_data_files_clear(); /* each input from an empty table of key files */
    free(text);
    return 0;
}

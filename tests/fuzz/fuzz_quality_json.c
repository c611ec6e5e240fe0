/* quality.json as `permbench quality --replot` reads it
 * (quality/quality_plot.h): the document parsed as json_load_file would,
 * read by pb_quality_replot_read, and every figure's gnuplot input built
 * by pb_quality_figures, checked instead of drawn. Beside the sanitizers: a
 * refusal says why in one line, and the gnuplot input holds no value that
 * leaves its quotes. */
#include "quality/quality_plot.h"
#include "tests/fuzz/fuzz.h"

static int check_figure(void *user, const char *stem, const char *vars,
                        const pb_embedded_file *script, pb_err *err)
{
    (void)user, (void)err;
    PB_FUZZ_ASSERT(stem[0] && !strchr(stem, '/') && !strchr(stem, '\''));
    PB_FUZZ_ASSERT(script && script->data);
    pb_fuzz_check_gnuplot_vars(vars);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)data, size, 0, &je);
    if (!root) return 0;
    pb_quality_config *cfg = malloc(sizeof *cfg);
    pb_qrun *run = malloc(sizeof *run);
    PB_FUZZ_ASSERT(cfg && run);
    bool plot;
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_quality_replot_read(root, "fuzz/quality.json", cfg, run, &plot, &err)) {
        pb_fuzz_check_err(&err);
    } else if (plot) {
        pb_fuzz_err_clear(&err);
        if (pb_quality_figures("fuzz-dir", cfg, run, check_figure, NULL, &err))
            pb_fuzz_check_err(&err);
    }
    pb_quality_replot_free(cfg, run);
    free(cfg);
    free(run);
    json_decref(root);
    return 0;
}

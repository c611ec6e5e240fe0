/* Figures of a quality run: for each test and n at which some section swept
 * a parameter (VariablePhilox rounds, say), the statistic against that
 * parameter with the acceptance thresholds, drawn by plots/quality-sweep.gp:
 * <dir>/chisq-n<N>.{png,svg} and <dir>/mmd-n<N>.{png,svg}. */
#ifndef PB_QUALITY_PLOT_H
#define PB_QUALITY_PLOT_H

#include <jansson.h>
#include <stdbool.h>

#include "config/embedded.h"
#include "quality/battery.h"

int pb_quality_plot(const char *gnuplot, const char *dir, const pb_quality_config *cfg,
                    const pb_qrun *run, bool quiet, pb_err *err);

/* What is done with one figure's gnuplot input: `vars` (assignments the
 * script reads) before `script`, for <dir>/<stem>.{png,svg}. */
typedef int (*pb_qfigure_fn)(void *user, const char *stem, const char *vars,
                             const pb_embedded_file *script, pb_err *err);

/* Builds the gnuplot input of every figure pb_quality_plot draws and hands
 * each to `fn` (pb_quality_plot's runs gnuplot; the fuzz harness checks the
 * text instead). */
int pb_quality_figures(const char *dir, const pb_quality_config *cfg, const pb_qrun *run,
                       pb_qfigure_fn fn, void *user, pb_err *err);

/* Redraws the figures of a finished quality run from its quality.json (and
 * quality.csv, which the script reads). */
int pb_quality_replot(const char *dir, bool quiet, pb_err *err);

/* The reading half of pb_quality_replot: the parts of a config and a run the
 * figures need, from a quality.json document (`path` names it in
 * messages). *plot is false when the run drew no figures (cfg and run are
 * then empty). Free both with pb_quality_replot_free, also after an error. */
int pb_quality_replot_read(json_t *root, const char *path, pb_quality_config *cfg, pb_qrun *run,
                           bool *plot, pb_err *err);
void pb_quality_replot_free(pb_quality_config *cfg, pb_qrun *run);

#endif

/* Figures of a quality run: for each test and n at which some section swept
 * a parameter (VariablePhilox rounds, say), the statistic against that
 * parameter with the acceptance thresholds, drawn by plots/quality-sweep.gp:
 * <dir>/chisq-n<N>.{png,svg} and <dir>/mmd-n<N>.{png,svg}. */
#ifndef PB_QUALITY_PLOT_H
#define PB_QUALITY_PLOT_H

#include <stdbool.h>

#include "quality/battery.h"

int pb_quality_plot(const char *gnuplot, const char *dir, const pb_quality_config *cfg,
                    const pb_qrun *run, bool quiet, pb_err *err);

/* Redraws the figures of a finished quality run from its quality.json (and
 * quality.csv, which the script reads). */
int pb_quality_replot(const char *dir, bool quiet, pb_err *err);

#endif

/* Drawing a result directory's figures with gnuplot, found at run time. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

/* The gnuplot to use: $PERMBENCH_GNUPLOT, else the first on PATH. */
bool pb_gnuplot_find(char *path, size_t len);

typedef struct pb_plot_request {
    const char *dir;    /* holds results.csv; figures are written beside it */
    const char *kind;   /* plots/<kind>.gp */
    const char *title;
    const char *labels; /* space-separated */
    const char *items;  /* space-separated item widths in bytes, e.g. "8" */
    /* For the axis plots: the sections (lines), the sizes, the varied
     * parameter and its values in order of appearance. */
    const char *series;
    const char *sizes;
    const char *axis;
    const char *axis_values;
    /* The figure's second title line: family, item widths, machine (GPU and
     * CPU), commit, so a figure taken out of its directory still says
     * what it shows. */
    const char *subtitle;
} pb_plot_request;

/* Writes <dir>/<kind>.png and <dir>/<kind>.svg. */
int pb_plot_draw(const char *gnuplot, const pb_plot_request *req, pb_err *err);

/* Runs `script` through gnuplot for <dir>/<stem>.png and <dir>/<stem>.svg,
 * after `vars` (gnuplot assignments the script reads). */
int pb_gnuplot_draw(const char *gnuplot, const char *vars, const char *script, size_t script_len,
                    const char *dir, const char *stem, pb_err *err);

/* Redraws every figure a result directory's results.json asks for. */
int pb_plot_dir(const char *dir, bool quiet, pb_err *err);

#endif

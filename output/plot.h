/* Drawing a result directory's figures with gnuplot, found at run time. */
#ifndef PB_PLOT_H
#define PB_PLOT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/embedded.h"
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
    /* Every label of the run, space-separated (NULL: `labels`): a label's
     * colour is its place here, so one module has one colour in every
     * figure of a run, whichever labels a figure leaves out. */
    const char *colour_labels;
} pb_plot_request;

/* Writes <dir>/<kind>.png and <dir>/<kind>.svg. */
int pb_plot_draw(const char *gnuplot, const pb_plot_request *req, pb_err *err);

/* What pb_plot_draw hands gnuplot for `req`: the script of its kind, and
 * the variable assignments before it (a fresh string to free), or NULL
 * with err set when a value would break out of gnuplot's quotes or the
 * kind has no script. */
char *pb_plot_vars(const pb_plot_request *req, const pb_embedded_file **script, pb_err *err);

/* Whether `s` may stand inside a single-quoted gnuplot string: no quote
 * to end it early, no control character (a newline would end the command
 * and run the rest, system() included, as gnuplot input). */
bool pb_gnuplot_quotable(const char *s);
/* Makes `s` quotable in place: each quote or control character becomes a
 * space (for descriptive text read from a file: subtitles, run names). */
void pb_gnuplot_unquote(char *s);

/* Runs `script` through gnuplot for <dir>/<stem>.png and <dir>/<stem>.svg,
 * after `vars` (gnuplot assignments the script reads). */
int pb_gnuplot_draw(const char *gnuplot, const char *vars, const char *script, size_t script_len,
                    const char *dir, const char *stem, pb_err *err);

/* What a results.json asks to draw, as the lists pb_plot_request takes:
 * space-separated, in order of first appearance, cut at their sizes. */
typedef struct pb_plot_set {
    const char *title; /* "" when none; points into the document */
    json_t *kinds;     /* sweep.plots: an array of strings */
    char labels[16384];
    char others[16384]; /* the labels less the copies (the share-of-copy figure) */
    char subtitle[512]; /* family, items, machine, commit */
    char items[32];
    char series[4096];
    char sizes[2048];
    char axis[64];
    char axis_values[2048];
    /* The share-of-one-read figure's lines and shapes (output/plot_share.h). */
    char share_lines[4096];
    char share_shapes[4096];
} pb_plot_set;

/* Reads a results.json document (`path` names it in messages). The set
 * points into `root`, which must outlive it. Everything a figure needs is
 * checked here, so a hostile file is refused in one line. */
int pb_plot_read(json_t *root, const char *path, pb_plot_set *set, pb_err *err);

/* Redraws every figure a result directory's results.json asks for. */
int pb_plot_dir(const char *dir, bool quiet, pb_err *err);

#endif

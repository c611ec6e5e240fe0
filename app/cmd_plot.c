/* permbench plot: redraw a finished run's figures from its saved results. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "app/cli.h"
#include "output/plot.h"

static const char help[] =
    "usage: permbench plot RESULT_DIR | RESULT_DIR/results.json\n"
    "\n"
    "Redraws the figures a run's config asked for (its results.json, or a packed\n"
    "run's results.json.gz, names them) from RESULT_DIR/results.csv with gnuplot,\n"
    "as RESULT_DIR/<kind>.png and .svg.\n"
    "gnuplot is found on PATH, or named by $PERMBENCH_GNUPLOT.\n";

int pb_cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    int c;
    while ((c = pb_cli_getopt("plot", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
    }
    if (optind != argc - 1) return pb_cli_fail("plot: expected one RESULT_DIR (see 'permbench plot --help')");
    /* A run's results.json (or .json.gz) stands for its directory, as it
     * does for compare. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", argv[optind]);
    struct stat st;
    const char *slash = strrchr(dir, '/'), *base = slash ? slash + 1 : dir;
    if (stat(dir, &st) == 0 && S_ISREG(st.st_mode) &&
        (strcmp(base, "results.json") == 0 || strcmp(base, "results.json.gz") == 0)) {
        if (slash == dir) snprintf(dir, sizeof dir, "/");
        else if (slash) dir[slash - dir] = '\0';
        else snprintf(dir, sizeof dir, ".");
    }
    pb_err err;
    if (pb_plot_dir(dir, false, &err)) return pb_cli_fail("plot: %s", err.msg);
    return PB_EXIT_OK;
}

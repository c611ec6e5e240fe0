/* permbench plot: redraw a finished run's figures from its saved results. */
#include <getopt.h>
#include <stdio.h>

#include "app/cli.h"
#include "output/plot.h"

static const char help[] =
    "usage: permbench plot RESULT_DIR\n"
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
    pb_err err;
    if (pb_plot_dir(argv[optind], false, &err)) return pb_cli_fail("plot: %s", err.msg);
    return PB_EXIT_OK;
}

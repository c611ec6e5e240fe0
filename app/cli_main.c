/* permbench's command line: dispatches to the subcommands. main() is
 * app/main.c; a program that adds its own modules calls pb_main too. */
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "core/build_info.h"
#include "core/gpu.h"

static const char usage[] =
    "usage: permbench COMMAND [OPTIONS]\n"
    "\n"
    "Benchmarks and validates parallel permutation primitives (shuffle, multisplit,\n"
    "top-k) on CPUs and NVIDIA GPUs.\n"
    "\n"
    "commands:\n"
    "  list               modules in this build, whether each can run here, their parameters\n"
    "  info               this machine: CPU, threads, memory; GPU, SMs, clocks, driver, CUDA\n"
    "  run [CONFIG.ini]   run a sweep (default: the built-in configs/default.ini)\n"
    "  plot RESULT_DIR    redraw the figures of a finished run\n"
    "  quality [CONFIG]   statistical tests of the shuffles' permutations, a release gate\n"
    "                     (default: the built-in configs/quality/release.ini), or of\n"
    "                     permutations from a file (--input FILE --n N)\n"
    "  sample MODULE      write the permutations a module draws for the tests to a file\n"
    "  compare BASE NEW   two runs row by row: medians, ratios, a Mann-Whitney U verdict\n"
    "  dmm growth|tile|run  the bank-conflict simulator: the paper's algorithms' growth,\n"
    "                     predictions for the GPU tile kernels, single runs\n"
    "\n"
    "'permbench COMMAND --help' describes each. Exit status: 0 success, 1 a result\n"
    "failed verification or could not be measured, 2 bad input.\n";

int pb_main(int argc, char **argv)
{
    /* GSL's default handler aborts; every GSL result is checked instead. */
    gsl_set_error_handler_off();
    /* Past a file size limit, write() fails with EFBIG and the writer says
     * so, instead of the process dying half-way through a file. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        fputs(usage, stderr);
        return PB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return PB_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("permbench %s (%s%s)\n", pb_build.version, pb_build.commit,
               strcmp(pb_build.dirty, "yes") == 0 ? ", dirty" : "");
        return PB_EXIT_OK;
    }
    /* A binary with no code this GPU can run (neither its SASS nor PTX it
     * can compile) fails every kernel: said once, before anything starts. */
    if (strcmp(cmd, "list") == 0 || strcmp(cmd, "info") == 0 || strcmp(cmd, "run") == 0 ||
        strcmp(cmd, "quality") == 0 || strcmp(cmd, "sample") == 0) {
        pb_err err;
        if (pb_gpu_code_check(NULL, &err)) return pb_cli_fail("%s", err.msg);
    }
    /* Each subcommand sees argv from its own name on. */
    if (strcmp(cmd, "list") == 0) return pb_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0) return pb_cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0) return pb_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0) return pb_cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "quality") == 0) return pb_cmd_quality(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0) return pb_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "sample") == 0) return pb_cmd_sample(argc - 1, argv + 1);
    if (strcmp(cmd, "dmm") == 0) return pb_cmd_dmm(argc - 1, argv + 1);
    if (cmd[0] == '-') return pb_cli_fail("unknown option '%s' (see 'permbench --help')", cmd);
    return pb_cli_fail("unknown command '%s' (commands: list, info, run, plot, quality, compare, sample, dmm; see 'permbench --help')",
                       cmd);
}

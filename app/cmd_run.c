/* permbench run: a sweep from a config, with results, provenance and figures. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/cli.h"
#include "bench/outdir.h"
#include "bench/plot.h"
#include "bench/progress.h"
#include "bench/provenance.h"
#include "bench/results.h"
#include "bench/runner.h"
#include "bench/sweep_config.h"
#include "bench/table.h"
#include "config/embedded.h"
#include "registry/registry.h"

static const char help[] =
    "usage: permbench run [CONFIG.ini] [--out DIR] [--only NAME,...] [--quiet]\n"
    "\n"
    "Runs every module instance of CONFIG.ini at every size and item width of its\n"
    "[sweep], with the copy (and, for shuffles, gather) ceilings of each device\n"
    "measured in the same run. Without CONFIG, runs the built-in\n"
    "configs/default.ini: the shuffle modules this machine can run.\n"
    "\n"
    "Writes results/<config>/<UTC timestamp>/ (or DIR): results.csv, results.json\n"
    "(the same rows, raw samples and provenance) and the config's figures, drawn\n"
    "with gnuplot when it is installed. Finished rows are printed on stdout as they\n"
    "come; a progress line with the time left goes to stderr.\n"
    "\n"
    "  --out DIR         write the results to DIR (created; must not hold results)\n"
    "  --only NAME,...   run only the instances with these labels or module names\n"
    "  --quiet           no table and no progress line\n"
    "\n"
    "Exit status: 0 all rows verified, 1 a row failed or could not run, 2 bad input\n"
    "(nothing is written then).\n";

typedef struct run_ui {
    bool quiet;
    const char *dir;
} run_ui;

static void on_progress(size_t done, size_t total, double eta, const pb_instance *in, uint64_t n,
                        void *user)
{
    if (!((run_ui *)user)->quiet) pb_progress_update(done, total, eta, in, n);
}

static void on_row(const pb_run *run, const pb_row *row, void *user)
{
    run_ui *ui = user;
    if (!ui->quiet) pb_table_row(row);
    /* The rows so far, so a sweep cut short still leaves what it measured,
     * under a name that says it is partial. */
    char path[1200];
    snprintf(path, sizeof path, "%s/results.partial.csv", ui->dir);
    pb_err err;
    if (pb_results_write_csv(path, run, &err)) fprintf(stderr, "permbench: %s\n", err.msg);
}

static void on_skipped(const pb_instance *in, const char *why, void *user)
{
    pb_skips_add(user, in, why);
}

int pb_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"only", required_argument, NULL, 'n'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {NULL, 0, NULL, 0}};
    const char *out_opt = NULL, *only = NULL;
    bool quiet = false;
    int c;
    while ((c = pb_cli_getopt("run", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 'o') out_opt = optarg;
        if (c == 'n') only = optarg;
        if (c == 'q') quiet = true;
    }
    if (argc - optind > 1) return pb_cli_fail("run: expected at most one CONFIG.ini, got '%s' too", argv[optind + 1]);

    pb_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) return pb_cli_fail("out of memory");
    pb_err err;
    int rc;
    if (optind < argc) {
        rc = pb_config_load_file(argv[optind], cfg, &err);
    } else {
        const pb_embedded_file *def = pb_embedded_find("configs/default.ini");
        rc = def ? pb_config_load_text("(built-in) configs/default.ini", "default", def->data, cfg, &err)
                 : pb_err_set(&err, "no built-in default config");
    }
    if (rc) {
        free(cfg);
        return pb_cli_fail("%s", err.msg);
    }
    int status = PB_EXIT_USAGE;
    pb_run run = {0};
    pb_skips skips = {0};
    char dir[1024];
    if ((only && pb_instances_only(&cfg->inst, only, cfg->path, &err)) ||
        pb_instances_available(&cfg->inst, cfg->skip_unavailable, cfg->path, "sweep", on_skipped,
                               &skips, &err)) {
        pb_cli_fail("%s", err.msg);
        goto out;
    }
    if (!quiet) pb_skips_print(&skips);
    pb_config_add_ceilings(cfg);
    if (pb_run_check_plan(cfg, &err)) {
        pb_cli_fail("%s", err.msg);
        goto out;
    }

    /* Only now, with the whole sweep known to be runnable, is anything written. */
    if (out_opt) {
        snprintf(dir, sizeof dir, "%s", out_opt);
        if (pb_dir_has(dir, "results.csv") || pb_dir_has(dir, "results.json")) {
            pb_cli_fail("run: %s already holds results; choose another --out", dir);
            goto out;
        }
    } else if (pb_results_dir("", cfg->name, dir, sizeof dir)) {
        pb_cli_fail("run: cannot choose a results directory under results/%s", cfg->name);
        goto out;
    }
    if (pb_mkdir_p(dir) != 0) {
        pb_cli_fail("run: cannot create %s: %s", dir, strerror(errno));
        goto out;
    }

    run_ui ui = {quiet, dir};
    pb_run_hooks hooks = {on_row, on_progress, &ui};
    if (!quiet) {
        printf("# %s -> %s\n", cfg->path, dir);
        pb_table_header();
    }
    status = PB_EXIT_FAILED;
    if (pb_run_sweep(cfg, &hooks, &run, &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }
    if (!quiet) pb_progress_done(run.nrows, run.wall_s);

    char path[1200];
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (pb_results_write_csv(path, &run, &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }
    snprintf(path, sizeof path, "%s/results.partial.csv", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (pb_results_write_json(path, cfg, &run, pb_provenance_json(cfg->path, cfg->name, cfg->text, cfg->hash, argc, argv), &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }
    if (!quiet) printf("results: %s/results.csv, %s/results.json\n", dir, dir);

    char gnuplot[1024];
    if (cfg->nplots && !pb_gnuplot_find(gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "permbench: note: gnuplot not found; figures not drawn "
                        "(install gnuplot-nox, then 'permbench plot %s')\n", dir);
    } else if (cfg->nplots && pb_plot_dir(dir, quiet, &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }

    pb_table_failures(&run, cfg->max_noise);
    status = PB_EXIT_OK;
    for (size_t i = 0; i < run.nrows; i++)
        if (run.rows[i].status != PB_ROW_OK || (cfg->fail_noisy && run.rows[i].noisy))
            status = PB_EXIT_FAILED;
out:
    pb_run_free(&run);
    pb_config_free(cfg);
    free(cfg);
    return status;
}

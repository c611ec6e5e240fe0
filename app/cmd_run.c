/* permbench run: a sweep from a config, with results, provenance and figures. */
#include <errno.h>
#include <signal.h>
#include <getopt.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/cli.h"
#include "core/cache_flush.h"
#include "output/interrupt.h"
#include "config/ini_override.h"
#include "config/sizes.h"
#include "output/outdir.h"
#include "output/plot.h"
#include "output/progress.h"
#include "output/provenance.h"
#include "bench/journal.h"
#include "bench/results.h"
#include "bench/results_read.h"
#include "bench/runner.h"
#include "bench/sweep_config.h"
#include "bench/table.h"
#include "config/embedded.h"
#include "registry/registry.h"

static const char help[] =
    "usage: permbench run [CONFIG.ini] [--out DIR] [--only NAME,...] [-D SECTION.KEY=VALUE]...\n"
    "                     [--dry-run] [--quiet]\n"
    "       permbench run --resume DIR [CONFIG.ini]\n"
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
    "  --out DIR         write the results to DIR (created; must not hold results;\n"
    "                    locked while the run lasts)\n"
    "  --resume DIR      finish the interrupted run in DIR (stopped by a signal,\n"
    "                    SIGKILL, the OOM killer or a full disk): the points it has\n"
    "                    not measured, with the config text, --only and -D it\n"
    "                    recorded; a CONFIG.ini given too must be that same text\n"
    "  --only NAME,...   run only the instances with these labels or module names\n"
    "  -D SECTION.KEY=VALUE  set KEY in [SECTION] over the config's own value (or add\n"
    "                    it), e.g. -D sweep.sizes=2^20 -D sweep.timeout=5; checked\n"
    "                    as the file's line would be, and recorded in results.json\n"
    "  --dry-run         print the points and the time they should take (three\n"
    "                    calibration samples at each instance's cheaper sizes),\n"
    "                    and write nothing\n"
    "  --quiet           no table and no progress line: the results directory alone\n"
    "\n"
    "SIGINT or SIGTERM stops the run within the point it is measuring (that point\n"
    "is measured again on resume): the finished rows go to results.json, marked\n"
    "interrupted, with their provenance. A second signal ends it at once. Every\n"
    "finished row is also appended to DIR/journal.jsonl and synced to disk, so a\n"
    "run stopped any other way (SIGKILL, a full disk) is resumed from there.\n"
    "\n"
    "Exit status: 0 all rows verified, 1 a row failed or could not run, 2 bad input\n"
    "(nothing is written then), 130 interrupted by SIGINT (143 by SIGTERM).\n";

typedef struct run_ui {
    bool quiet;
    const char *dir;
    const pb_config *cfg;
    pb_journal *journal;
    double wall0, t0; /* the run's wall time before this process, and when it began */
} run_ui;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_progress(size_t done, size_t total, double eta, const pb_instance *in, uint64_t n,
                        void *user)
{
    if (!((run_ui *)user)->quiet) pb_progress_update(done, total, eta, in, n);
}

static int on_row(const pb_run *run, const pb_row *row, void *user, pb_err *e)
{
    run_ui *ui = user;
    /* On disk first: a row the journal cannot keep stops the run. */
    if (pb_run_journal_row(ui->journal, ui->cfg, row, ui->wall0 + mono_s() - ui->t0, e)) return -1;
    if (!ui->quiet) pb_table_row(row);
    /* The rows so far, so a sweep cut short still leaves what it measured,
     * under a name that says it is partial. */
    char path[1200];
    snprintf(path, sizeof path, "%s/results.partial.csv", ui->dir);
    pb_err err;
    if (pb_results_write_csv(path, run, &err)) fprintf(stderr, "permbench: %s\n", err.msg);
    return 0;
}

static void on_skipped(const pb_instance *in, const char *why, void *user)
{
    pb_skips_add(user, in, why);
}

static void print_point(const pb_instance *in, uint64_t n, unsigned item_bytes, double est_s, void *user)
{
    (void)user;
    char nb[32], tb[32];
    printf("%-28s %-4s %12s %5u %10s\n", in->label, pb_device_name(in->mod->device),
           pb_size_format(n, nb, sizeof nb), item_bytes, pb_duration_format(est_s, tb, sizeof tb));
}

/* --dry-run: the points in order and the time they should take; nothing
 * is written. */
static int dry_run(const pb_config *cfg, pb_err *err)
{
    bool seeds = false;
    for (size_t i = 0; i < cfg->inst.n; i++) seeds |= pb_config_seeds(cfg, &cfg->inst.v[i]) > 1;
    printf("# %s: the points, with the time each should take%s\n", cfg->path,
           seeds ? " (over all its seeds: a point of N seeds is measured N times)" : "");
    printf("%-28s %-4s %12s %5s %10s\n", "label", "dev", "n", "item", "estimate");
    pb_run_estimate est;
    if (pb_run_dry(cfg, print_point, NULL, &est, err)) return -1;
    char a[32], b[32], k[32];
    printf("%zu points: about %s (the stopping rule played over three samples at each instance's sizes "
           "up to where a point costs 1.5 s, extrapolated beyond; calibrated in %s), "
           "at most about %s (every point to its %.0f s timeout%s)\n",
           est.points, pb_duration_format(est.likely_s, a, sizeof a),
           pb_duration_format(est.calibration_s, k, sizeof k), pb_duration_format(est.most_s, b, sizeof b),
           cfg->timeout, seeds ? ", once a seed" : "");
    return 0;
}

/* results.json's provenance, and the journal's header: the machine and the
 * config, with the --only and -D overrides a resume runs again. */
static json_t *run_provenance(const pb_config *cfg, const char *only, const char *const *defs, size_t ndefs,
                              int argc, char **argv)
{
    json_t *p = pb_provenance_json(cfg->path, cfg->name, cfg->text, cfg->hash, argc, argv);
    json_object_set_new(p, "only", only ? json_string(only) : json_null());
    json_t *d = json_array();
    for (size_t i = 0; i < ndefs; i++) json_array_append_new(d, json_string(defs[i]));
    json_object_set_new(p, "defines", d);
    return p;
}

static const char *const run_results[] = {"results.csv", "results.json", NULL};
static const char *const run_partial[] = {"results.partial.csv", PB_RUN_JOURNAL, NULL};
static const pb_outdir_kind run_dirs = {"", run_results, run_partial, "run"};

/* The whole of a file, NUL-ended (NULL: unreadable, errno says why). */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) free(buf);
            buf = b;
        }
    }
    if (buf) buf[len] = '\0';
    fclose(f);
    return buf;
}

/* What --resume DIR resumes from: the journal where there is one (every
 * finished row to the last bit), else the results.json an interrupted run
 * of an older permbench wrote. 0 with `from` set, or an error. */
static int resume_source(const char *dir, char *from, size_t len, bool *journal)
{
    if (pb_dir_has(dir, "results.csv"))
        return pb_cli_fail("run: --resume %s: that run finished; nothing to resume", dir);
    snprintf(from, len, "%s/%s", dir, PB_RUN_JOURNAL);
    *journal = access(from, F_OK) == 0;
    if (*journal) return 0;
    snprintf(from, len, "%s/results.json", dir);
    if (access(from, F_OK) != 0)
        return pb_cli_fail("run: --resume %s: no %s or results.json there (%s)", dir, PB_RUN_JOURNAL, strerror(errno));
    return 0;
}

/* The config to run: CONFIG.ini, the built-in default, or (--resume) the
 * one an interrupted run recorded in its results.json, with its --only. */
static int load_config(int argc, char **argv, const char *resume, const char **only,
                       pb_config *cfg, char *only_buf, size_t only_len, const char **defs, size_t *ndefs)
{
    static char def_store[PB_MAX_DEFINES][512];
    pb_err err;
    int rc;
    if (resume) {
        if (*only) return pb_cli_fail("run: --resume takes no --only (it keeps the run's own)");
        char path[1200];
        bool journal;
        if (resume_source(resume, path, sizeof path, &journal)) return -1;
        pb_resume_info info;
        if (journal ? pb_results_read_journal_resume(path, &info, &err) : pb_results_read_resume(path, &info, &err))
            return pb_cli_fail("run: --resume: %s", err.msg);
        if (!info.interrupted) {
            pb_resume_info_free(&info);
            return pb_cli_fail("run: --resume %s: that run finished; nothing to resume", resume);
        }
        /* The recorded text is what runs; a CONFIG given as well is only
         * checked against it, so an edited file never mixes into the rows. */
        if (optind < argc) {
            char *given = slurp(argv[optind]);
            bool same = given && strcmp(given, info.config_text) == 0;
            int e = errno;
            free(given);
            if (!same) {
                pb_resume_info_free(&info);
                return given ? pb_cli_fail("run: --resume %s: %s is not the config the run recorded (%s); "
                                           "resume without it, or start a new run", resume, argv[optind], info.path)
                             : pb_cli_fail("run: --resume %s: cannot read %s: %s", resume, argv[optind], strerror(e));
            }
        }
        /* The run's own -D overrides, as it applied them. */
        for (*ndefs = 0; *ndefs < info.ndefines && *ndefs < PB_MAX_DEFINES; ++*ndefs) {
            snprintf(def_store[*ndefs], sizeof def_store[0], "%s", info.defines[*ndefs]);
            defs[*ndefs] = def_store[*ndefs];
        }
        pb_ini_set_overrides(defs, *ndefs);
        rc = pb_config_load_text(info.path, info.name, info.config_text, cfg, &err);
        snprintf(only_buf, only_len, "%s", info.only);
        *only = only_buf[0] ? only_buf : NULL;
        pb_resume_info_free(&info);
    } else if (optind < argc) {
        rc = pb_config_load_file(argv[optind], cfg, &err);
    } else {
        const pb_embedded_file *def = pb_embedded_find("configs/default.ini");
        rc = def ? pb_config_load_text(PB_INI_BUILTIN "configs/default.ini", "default", def->data, cfg, &err)
                 : pb_err_set(&err, "no built-in default config");
    }
    if (rc) return pb_cli_fail("%s", err.msg);
    return 0;
}

int pb_cmd_run(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"only", required_argument, NULL, 'n'},
                                         {"resume", required_argument, NULL, 'r'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"define", required_argument, NULL, 'D'},
                                         {"dry-run", no_argument, NULL, 1001},
                                         {NULL, 0, NULL, 0}};
    const char *out_opt = NULL, *only = NULL, *resume = NULL;
    const char *defs[PB_MAX_DEFINES];
    size_t ndefs = 0;
    bool quiet = false, dry = false;
    pb_err err;
    int c;
    while ((c = pb_cli_getopt("run", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 'o') out_opt = optarg;
        if (c == 'n') only = optarg;
        if (c == 'r') resume = optarg;
        if (c == 'q') quiet = true;
        if (c == 1001) dry = true;
        if (c == 'D') {
            if (ndefs == PB_MAX_DEFINES) return pb_cli_fail("run: at most %d -D options", PB_MAX_DEFINES);
            if (pb_ini_override_check(optarg, &err)) return pb_cli_fail("run: %s", err.msg);
            defs[ndefs++] = optarg;
        }
    }
    if (resume && ndefs) return pb_cli_fail("run: --resume takes no -D (it keeps the run's own)");
    if (resume && dry) return pb_cli_fail("run: --resume and --dry-run do not go together");
    pb_ini_set_overrides(defs, ndefs);
    if (argc - optind > 1) return pb_cli_fail("run: expected at most one CONFIG.ini, got '%s' too", argv[optind + 1]);
    if (resume && out_opt) return pb_cli_fail("run: --resume DIR writes into DIR; --out is not for it");

    pb_config *cfg = calloc(1, sizeof *cfg);
    if (!cfg) return pb_cli_fail("out of memory");
    char only_buf[1024];
    if (load_config(argc, argv, resume, &only, cfg, only_buf, sizeof only_buf, defs, &ndefs)) {
        free(cfg);
        return PB_EXIT_USAGE;
    }
    int status = PB_EXIT_USAGE;
    pb_run run = {0};
    pb_skips skips = {0};
    pb_outdir od = {.lock_fd = -1};
    pb_journal journal = {.fd = -1};
    if ((only && pb_instances_only(&cfg->inst, only, cfg->path, &err)) ||
        pb_instances_available(&cfg->inst, cfg->skip_unavailable, cfg->path, "sweep", on_skipped,
                               &skips, &err)) {
        pb_cli_fail("%s", err.msg);
        goto out;
    }
    if (!quiet) pb_skips_print(&skips);
    /* More threads than the machine has is allowed (it is how thread-count
     * independence is tested) but never silent: the times measure the
     * oversubscription. */
    for (size_t i = 0; i < cfg->inst.n; i++) {
        int t = pb_instance_threads(&cfg->inst.v[i]), cpus = omp_get_num_procs();
        if (cfg->inst.v[i].mod->device == PB_DEVICE_CPU && t > cpus)
            fprintf(stderr, "permbench: note: [%s] runs %d threads on %d logical CPUs (oversubscribed)\n",
                    cfg->inst.v[i].label, t, cpus);
    }
    pb_config_add_ceilings(cfg);
    if (pb_run_check_plan(cfg, &err)) {
        pb_cli_fail("%s", err.msg);
        goto out;
    }

    if (dry) {
        status = dry_run(cfg, &err) ? (pb_cli_fail("%s", err.msg), PB_EXIT_FAULT) : PB_EXIT_OK;
        goto out;
    }

    /* Only now, with the whole sweep known to be runnable, is a directory
     * claimed: checked, created and locked before any point is measured. */
    if (pb_outdir_claim(resume ? resume : out_opt, cfg->name, &run_dirs, resume != NULL, &od, &err)) {
        pb_cli_fail("run: %s", err.msg);
        goto out;
    }
    const char *dir = od.path;
    char path[1200];
    bool have_journal = resume && pb_dir_has(dir, PB_RUN_JOURNAL);
    snprintf(path, sizeof path, "%s/%s", dir, have_journal ? PB_RUN_JOURNAL : "results.json");
    if (resume && (have_journal ? pb_results_read_journal_rows(path, cfg, &run, &err)
                                : pb_results_read_rows(path, cfg, &run, &err))) {
        pb_cli_fail("run: --resume: %s", err.msg);
        goto out;
    }
    /* The journal: continued, or begun with the provenance (config text,
     * --only, -D) a resume needs, and the rows of an older run's
     * results.json when that is what is resumed. */
    if (have_journal) {
        if (pb_run_journal_continue(&journal, dir, &err)) {
            pb_cli_fail("run: %s", err.msg);
            goto out;
        }
    } else {
        json_t *head = run_provenance(cfg, only, defs, ndefs, argc, argv);
        int jr = pb_run_journal_start(&journal, dir, head, &err);
        for (size_t i = 0; i < run.nrows && !jr; i++)
            jr = pb_run_journal_row(&journal, cfg, &run.rows[i], run.wall_s, &err);
        if (jr) {
            pb_cli_fail("run: %s", err.msg);
            /* Nothing measured yet: a new run leaves the directory as it found it. */
            if (!resume) {
                static const char *const begun[] = {PB_RUN_JOURNAL, NULL};
                pb_outdir_abandon(&od, begun);
            }
            goto out;
        }
    }

    run_ui ui = {quiet, dir, cfg, &journal, run.wall_s, mono_s()};
    pb_run_hooks hooks = {on_row, on_progress, &ui};
    if (!quiet) {
        printf("# %s -> %s%s\n", cfg->path, dir, resume ? " (resumed)" : "");
        /* A flush of a guessed size is where a small point's time goes on
         * such a machine: never silent either (a header line, so stderr
         * keeps its one line a problem). */
        bool guessed = false;
        for (size_t i = 0; i < cfg->inst.n && cfg->flush_cache && !guessed; i++)
            if (cfg->inst.v[i].mod->device == PB_DEVICE_CPU) pb_cpu_flush_bytes(&guessed);
        if (guessed)
            printf("# note: this machine reports no cache sizes; each CPU sample is preceded by a "
                   "%llu MiB cache flush (-D sweep.flush_cache=no skips it)\n",
                   (unsigned long long)pb_cpu_flush_bytes(NULL) >> 20);
        bool seeds = false;
        for (size_t i = 0; i < cfg->inst.n; i++) seeds |= pb_config_seeds(cfg, &cfg->inst.v[i]) > 1;
        pb_table_header(seeds);
    }
    status = PB_EXIT_FAILED;
    pb_interrupt_install();
    if (resume ? pb_run_resume(cfg, &hooks, &run, &err) : pb_run_sweep(cfg, &hooks, &run, &err)) {
        /* A row the journal could not keep (a full disk): the journal still
         * ends at the row before, whole, and a resume goes on from it. */
        if (!quiet) pb_progress_clear();
        fprintf(stderr, "permbench: %s; finish with 'permbench run --resume %s'\n", err.msg, dir);
        status = PB_EXIT_FAULT;
        goto out;
    }
    if (!quiet && !run.interrupted) pb_progress_done(run.nrows, run.wall_s);

    json_t *prov = run_provenance(cfg, only, defs, ndefs, argc, argv);
    if (run.interrupted) {
        /* What finished, complete and marked interrupted; the partial CSV
         * stays as the sign that the directory is not done. */
        int sig = pb_interrupt_signal();
        if (!quiet) pb_progress_clear();
        status = PB_EXIT_FAULT;
        snprintf(path, sizeof path, "%s/results.partial.csv", dir);
        if (pb_results_write_csv(path, &run, &err) ||
            (snprintf(path, sizeof path, "%s/results.json", dir),
             pb_results_write_json(path, cfg, &run, prov, &err))) {
            fprintf(stderr, "permbench: %s\n", err.msg);
            goto out;
        }
        fprintf(stderr, "permbench: interrupted (%s) after %zu of %zu points; finish with 'permbench run --resume %s'\n",
                sig == SIGTERM ? "SIGTERM" : "SIGINT", run.nrows, run.planned, dir);
        status = 128 + sig;
        goto out;
    }
    /* A fault from here on (a full disk, a file size limit) is exit 2 with
     * the OS's reason, and leaves no half-written file: results.json first,
     * the whole record; then results.csv; the partial CSV, holding every
     * row, goes only when both are in place. */
    status = PB_EXIT_FAULT;
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (pb_results_write_json(path, cfg, &run, prov, &err)) {
        fprintf(stderr, "permbench: %s (the rows are in %s/%s; finish with 'permbench run --resume %s')\n",
                err.msg, dir, PB_RUN_JOURNAL, dir);
        goto out;
    }
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (pb_results_write_csv(path, &run, &err)) {
        fprintf(stderr, "permbench: %s (the rows are in %s/results.json)\n", err.msg, dir);
        goto out;
    }
    snprintf(path, sizeof path, "%s/%s", dir, PB_RUN_JOURNAL);
    remove(path);
    snprintf(path, sizeof path, "%s/results.partial.csv", dir);
    remove(path);
    if (!quiet) printf("results: %s/results.csv, %s/results.json\n", dir, dir);
    else printf("%s\n", dir); /* a script's way to its results: dir=$(permbench run --quiet) */

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
    pb_journal_close(&journal);
    pb_outdir_release(&od);
    pb_run_free(&run);
    pb_config_free(cfg);
    free(cfg);
    return status;
}

/* permbench quality: the statistical release gate. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/quality_input.h"
#include "output/interrupt.h"
#include "output/json_file.h"
#include "output/outdir.h"
#include "config/ini_override.h"
#include "output/plot.h"
#include "output/progress.h"
#include "output/provenance.h"
#include "config/embedded.h"
#include "config/sizes.h"
#include "families/shuffle/shuffle_hooks.h"
#include "quality/quality_plot.h"
#include "quality/quality_results.h"
#include "registry/registry.h"

static const char help[] =
    "usage: permbench quality [CONFIG.ini] [--out DIR] [--only NAME,...] [-D SECTION.KEY=VALUE]... [--quiet]\n"
    "       permbench quality --input FILE|- --n N [--format u32|u64|text|npy] [--count C] [--label NAME]\n"
    "                         [--out DIR] [-D SECTION.KEY=VALUE]... [--quiet] [CONFIG.ini]\n"
    "       permbench quality --replot RESULT_DIR\n"
    "       permbench quality --resume DIR\n"
    "\n"
    "Draws sample permutations through each shuffle module's own code path (its\n"
    "GPU kernels on a GPU), in batches, and runs the statistical tests of\n"
    "CONFIG.ini's [quality] section at its n, sample counts and alpha:\n"
    "%s"
    "Without CONFIG, runs the built-in configs/quality/release.ini.\n"
    "\n"
    "Prints per (module, n, test): samples, statistic, threshold, p-value and a\n"
    "verdict: FAIL (p < 1e-6, or outside the acceptance region at alpha), SUSPECT\n"
    "(p < 0.001), PASS. Writes results/quality-<config>/<UTC timestamp>/ (or DIR):\n"
    "quality.csv, quality.json (with provenance) and, with plot = sweep, figures.\n"
    "\n"
    "  --out DIR         write the results to DIR (created; must not hold results)\n"
    "  --only NAME,...   test only the instances with these labels, sections or modules\n"
    "  -D SECTION.KEY=VALUE  set KEY in [SECTION] over the config's own value (or\n"
    "                    add it), e.g. -D quality.mmd_samples=10^5; recorded in quality.json\n"
    "  --quiet           no table and no progress line\n"
    "  --replot DIR      redraw the figures of a finished quality run\n"
    "  --resume DIR      finish the interrupted run in DIR: the (instance, n) it has\n"
    "                    no rows of, with the config text, --only and -D it recorded\n"
    "\n"
    "External permutations (made by another program, or by 'permbench sample'):\n"
    "  --input FILE      test the rows of FILE (- : standard input), read a batch at a\n"
    "                    time, instead of the config's modules; each row must be a\n"
    "                    permutation of 0..N-1, else one line names the row (exit 2)\n"
    "  --n N             the length of every row (npy: its header's, if not given)\n"
    "  --format F        u32 (default) or u64: N little-endian integers a row; text: a\n"
    "                    row a line, integers separated by blanks or commas; npy: a\n"
    "                    NumPy .npy array (rows, N) or (N,) of int32/int64/uint32/\n"
    "                    uint64, the default for a FILE named *.npy\n"
    "  --count C         rows to test (the rest are hashed, not parsed); needed for\n"
    "                    a pipe without CONFIG. Default: every row of FILE\n"
    "  --label NAME      its label in the results (default: FILE's name)\n"
    "With CONFIG, its [quality] tests at n = N run with its sample counts (or C);\n"
    "without, every test of the release battery that applies at N, with C samples.\n"
    "An input with fewer rows than a test needs is refused (exit 2), not tested on\n"
    "fewer. A config may name inputs too: a section with input = FILE, n = N, format.\n"
    "\n"
    "SIGINT or SIGTERM stops the run between batches (the (instance, n) being\n"
    "drawn is drawn again on resume): the finished rows go to quality.json, marked\n"
    "interrupted, and quality.partial.csv; no quality.csv. A second signal ends it\n"
    "at once. A run of --input (or of a config naming inputs) cannot be resumed.\n"
    "\n"
    "Exit status: 0 no test failed, 1 a test failed (or a module could not draw\n"
    "its samples), 2 bad input (nothing is written then), 130 interrupted by\n"
    "SIGINT (143 by SIGTERM). With gate = no in [quality], failures are reported\n"
    "but the status stays 0.\n";

/* The -D overrides in force (the command line's, or on resume the run's
 * own), as recorded in quality.json. */
static json_t *defines_json(void)
{
    json_t *a = json_array();
    char sec[256], key[256];
    const char *value, *def;
    for (size_t i = 0; pb_ini_override_get(i, sec, sizeof sec, key, sizeof key, &value, &def) == 0; i++)
        json_array_append_new(a, json_string(def));
    return a;
}

/* quality.json's provenance: the machine and the config, with the -D
 * overrides and --only a resume runs again. */
static json_t *quality_provenance(const pb_quality_config *cfg, const char *only, int argc, char **argv)
{
    json_t *p = pb_provenance_json(cfg->path, cfg->name, cfg->text, cfg->hash, argc, argv);
    json_object_set_new(p, "defines", defines_json());
    json_object_set_new(p, "only", only ? json_string(only) : json_null());
    return p;
}

/* ---- --resume ----------------------------------------------------------- */

static const char *const quality_results[] = {"quality.csv", "quality.json", NULL};
static const char *const quality_partial[] = {"quality.partial.csv", NULL};
static const pb_outdir_kind quality_dirs = {"quality-", quality_results, quality_partial, "quality"};

/* An interrupted run's quality.json (a new reference in *root) and the
 * config it recorded, loaded with its -D overrides; its --only in only_buf. */
static int resume_load(const char *dir, json_t **root, pb_quality_config *cfg, char *only_buf, size_t only_len)
{
    static char def_store[PB_MAX_DEFINES][512];
    static const char *defs[PB_MAX_DEFINES];
    char path[1200];
    if (pb_dir_has(dir, "quality.csv")) return pb_cli_fail("quality: --resume %s: that run finished; nothing to resume", dir);
    snprintf(path, sizeof path, "%s/quality.json", dir);
    if (access(path, F_OK) != 0)
        return pb_cli_fail("quality: --resume %s: no quality.json there (%s)", dir, strerror(errno));
    json_error_t je;
    *root = pb_json_load_file(path, &je);
    if (!*root) return pb_cli_fail("quality: --resume: %s: not a quality.json (%s)", path, je.text);
    json_t *prov = json_object_get(*root, "provenance"), *conf = json_object_get(prov, "config");
    const char *text = json_string_value(json_object_get(conf, "text"));
    const char *cpath = json_string_value(json_object_get(conf, "path"));
    const char *name = json_string_value(json_object_get(conf, "name"));
    if (!json_is_true(json_object_get(json_object_get(*root, "summary"), "interrupted")))
        return pb_cli_fail("quality: --resume %s: that run was not interrupted; nothing to resume", dir);
    if (!text || !cpath || !name)
        return pb_cli_fail("quality: --resume: %s: no config in its provenance, so it cannot be resumed", path);
    /* An input is read once, maybe from a pipe: its run is run again whole. */
    json_t *cmd = json_object_get(prov, "command_line");
    for (size_t i = 0; i < json_array_size(cmd); i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (a && (strcmp(a, "--input") == 0 || strncmp(a, "--input=", 8) == 0))
            return pb_cli_fail("quality: --resume %s: a run of --input cannot be resumed; run it again", dir);
    }
    json_t *dj = json_object_get(prov, "defines");
    size_t ndefs = 0;
    for (size_t i = 0; i < json_array_size(dj) && ndefs < PB_MAX_DEFINES; i++) {
        const char *d = json_string_value(json_array_get(dj, i));
        if (!d) continue;
        snprintf(def_store[ndefs], sizeof def_store[0], "%s", d);
        defs[ndefs] = def_store[ndefs];
        ndefs++;
    }
    pb_ini_set_overrides(defs, ndefs);
    const char *only = json_string_value(json_object_get(prov, "only"));
    snprintf(only_buf, only_len, "%s", only ? only : "");
    pb_err err;
    if (pb_quality_config_load_text(cpath, name, text, cfg, &err)) return pb_cli_fail("%s", err.msg);
    for (size_t i = 0; i < cfg->inst.n; i++)
        if (pb_quality_config_input(cfg, &cfg->inst.v[i])) {
            pb_quality_config_free(cfg);
            return pb_cli_fail("quality: --resume %s: its config names inputs, which cannot be resumed; run it again", dir);
        }
    return 0;
}

/* Instances this machine cannot run, when skip_unavailable drops them:
 * named on stderr and listed in the JSON. */
typedef struct skip_note {
    pb_skips skips;
    json_t *skipped;
} skip_note;

static void on_skipped(const pb_instance *in, const char *why, void *user)
{
    skip_note *s = user;
    pb_skips_add(&s->skips, in, why);
    json_array_append_new(s->skipped, json_pack("{s:s, s:s, s:s}", "label", in->label, "module",
                                                in->mod->name, "reason", why));
}

/* With modules = all|cpu|gpu, the shuffle modules left out because they
 * cannot hand over sample permutations are named, not silently dropped. */
static void note_untestable(const pb_quality_config *cfg, bool quiet, json_t *skipped)
{
    if (cfg->modules == PB_QMOD_NONE) return;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        bool approximate = pb_module_sample_perms(m) && (m->flags & PB_MOD_APPROXIMATE);
        if (!m->family->permutes || (m->flags & PB_MOD_CEILING) || (pb_module_sample_perms(m) && !approximate)) continue;
        if ((cfg->modules == PB_QMOD_CPU && m->device != PB_DEVICE_CPU) ||
            (cfg->modules == PB_QMOD_GPU && m->device != PB_DEVICE_GPU))
            continue;
        bool named = false; /* a section tests it */
        for (size_t k = 0; k < cfg->inst.n && !named; k++) named = cfg->inst.v[k].mod == m;
        if (named) continue;
        const char *why = approximate ? "approximately uniform by design (test it in a config that names it)"
                                      : "no sample-permutation path";
        if (!quiet) fprintf(stderr, "permbench: note: %s: %s; not tested\n", m->name, why);
        json_array_append_new(skipped, json_pack("{s:s, s:s, s:s}", "label", m->name, "module",
                                                 m->name, "reason", why));
    }
}

/* ---- terminal output ---------------------------------------------------- */

typedef struct ui {
    bool quiet;
    const char *dir;
    bool shown;     /* a progress line is on the terminal */
    double last;    /* when the last progress line was logged (not a terminal) */
} ui;

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void clear_progress(ui *u)
{
    if (u->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        u->shown = false;
    }
}

static void header(void)
{
    printf("%-24s %-4s %9s %-14s %9s %12s %12s %10s %s\n", "label", "dev", "n", "test", "samples",
           "statistic", "threshold", "p-value", "verdict");
    fflush(stdout);
}

static void on_row(const pb_qrun *run, const pb_qrow *r, void *user)
{
    ui *u = user;
    if (!u->quiet) {
        clear_progress(u);
        char nb[48];
        pb_size_format(r->n, nb, sizeof nb);
        /* "ext" keeps an external input in the column's width. */
        const char *dev = pb_instance_is_input(r->in) ? "ext" : pb_device_name(r->in->mod->device);
        if (r->error)
            printf("%-24s %-4s %9s %-14s %9s %12s %12s %10s FAIL (%s)\n", r->in->label, dev, nb, r->test, "-", "-", "-", "-",
                   r->message);
        else
            printf("%-24s %-4s %9s %-14s %9llu %12.6g %12.6g %10.3g %s%s%s%s\n", r->in->label, dev, nb,
                   r->test,
                   (unsigned long long)r->r.samples, r->r.statistic, r->r.threshold, r->r.p_value,
                   pb_verdict_name(r->r.verdict), r->message[0] ? " (" : "", r->message,
                   r->message[0] ? ")" : "");
        fflush(stdout);
    }
    char path[1200];
    pb_err err;
    snprintf(path, sizeof path, "%s/quality.partial.csv", u->dir);
    if (pb_quality_write_csv(path, run, &err)) fprintf(stderr, "permbench: %s\n", err.msg);
}

static void on_progress(const pb_instance *in, uint32_t n, uint64_t drawn, uint64_t total,
                        double frac, double eta, void *user)
{
    ui *u = user;
    if (u->quiet) return;
    char nb[48], d[32], left[64] = "time left: estimating";
    pb_size_format(n, nb, sizeof nb);
    if (eta >= 0) snprintf(left, sizeof left, "about %s left", pb_duration_format(eta, d, sizeof d));
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r\033[K%3.0f%% %s n=%s: %llu/%llu samples ... %s", 100 * frac,
                in->label, nb, (unsigned long long)drawn, (unsigned long long)total, left);
        fflush(stderr);
        u->shown = true;
        return;
    }
    double t = mono();
    if (t - u->last >= 10) {
        fprintf(stderr, "progress: %.0f%% done; %s n=%s: %llu/%llu samples; %s\n", 100 * frac,
                in->label, nb, (unsigned long long)drawn, (unsigned long long)total, left);
        u->last = t;
    }
}

/* ---- the command -------------------------------------------------------- */

int pb_cmd_quality(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"out", required_argument, NULL, 'o'},
                                         {"only", required_argument, NULL, 'n'},
                                         {"quiet", no_argument, NULL, 'q'},
                                         {"replot", required_argument, NULL, 'r'},
                                         {"define", required_argument, NULL, 'D'},
                                         /* long only: values outside A..z get no short form */
                                         {"input", required_argument, NULL, 1001},
                                         {"n", required_argument, NULL, 1002},
                                         {"format", required_argument, NULL, 1003},
                                         {"count", required_argument, NULL, 1004},
                                         {"label", required_argument, NULL, 1005},
                                         {"resume", required_argument, NULL, 1006},
                                         {NULL, 0, NULL, 0}};
    const char *out_opt = NULL, *only = NULL, *replot = NULL, *resume = NULL;
    pb_input_opts io = {0};
    const char *defs[PB_MAX_DEFINES];
    size_t ndefs = 0;
    bool quiet = false;
    int c;
    while ((c = pb_cli_getopt("quality", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') {
            char tests[1024] = "";
            size_t off = 0;
            for (size_t k = 0; k < pb_qtest_count() && off < sizeof tests; k++)
                off += (size_t)snprintf(tests + off, sizeof tests - off, "  %-11s %s\n",
                                        pb_qtest_at(k)->name, pb_qtest_at(k)->summary);
            printf(help, tests);
            return PB_EXIT_OK;
        }
        if (c == 'o') out_opt = optarg;
        if (c == 'n') only = optarg;
        if (c == 'q') quiet = true;
        if (c == 'r') replot = optarg;
        if (c == 1001) io.path = optarg;
        if (c == 1002) io.n = optarg;
        if (c == 1003) io.format = optarg;
        if (c == 1004) io.count = optarg;
        if (c == 1005) io.label = optarg;
        if (c == 1006) resume = optarg;
        if (c == 'D') {
            pb_err e;
            if (ndefs == PB_MAX_DEFINES) return pb_cli_fail("quality: at most %d -D options", PB_MAX_DEFINES);
            if (pb_ini_override_check(optarg, &e)) return pb_cli_fail("quality: %s", e.msg);
            defs[ndefs++] = optarg;
        }
    }
    pb_ini_set_overrides(defs, ndefs);
    if (argc - optind > 1)
        return pb_cli_fail("quality: expected at most one CONFIG.ini, got '%s' too", argv[optind + 1]);
    bool input_given = io.n || io.format || io.count || io.label;
    if (replot) {
        if (optind < argc || out_opt || only || ndefs || io.path || input_given)
            return pb_cli_fail("quality: --replot takes a result directory and nothing else");
        pb_err err;
        if (pb_quality_replot(replot, quiet, &err)) return pb_cli_fail("quality: %s", err.msg);
        return PB_EXIT_OK;
    }

    pb_qinput input;
    uint64_t count = 0;
    if (!io.path && input_given)
        return pb_cli_fail("quality: --n, --format, --count and --label describe an --input FILE");
    if (io.path && only)
        return pb_cli_fail("quality: --only picks a config's instances; with --input the input alone is tested");
    if (io.path && pb_input_parse(&io, &input, &count)) return PB_EXIT_USAGE;
    bool own_tests = optind < argc;
    if (io.path && !own_tests && !count && pb_input_rows(&input, &count)) return PB_EXIT_USAGE;

    pb_quality_config cfg;
    pb_err err;
    int rc;
    json_t *resumed = NULL;
    char only_buf[1024];
    if (resume) {
        if (optind < argc || out_opt || only || ndefs || io.path || input_given)
            return pb_cli_fail("quality: --resume DIR takes nothing else (it runs the recorded config, --only and -D)");
        if (resume_load(resume, &resumed, &cfg, only_buf, sizeof only_buf)) {
            json_decref(resumed);
            return PB_EXIT_USAGE;
        }
        only = only_buf[0] ? only_buf : NULL;
        rc = 0;
    } else if (optind < argc) {
        rc = pb_quality_config_load_file(argv[optind], &cfg, &err);
    } else {
        const pb_embedded_file *def = pb_embedded_find("configs/quality/release.ini");
        rc = def ? pb_quality_config_load_text(PB_INI_BUILTIN "configs/quality/release.ini", "release",
                                               def->data, &cfg, &err)
                 : pb_err_set(&err, "no built-in release config");
    }
    if (!rc && io.path) {
        /* The input alone, tested by the config's [quality] section or the
         * release battery's settings; results under its label. */
        rc = pb_quality_config_use_input(&cfg, &input, count, own_tests, &err);
        if (rc) pb_quality_config_free(&cfg);
        else if (!own_tests) snprintf(cfg.name, sizeof cfg.name, "%s", input.label);
    }
    if (rc) return pb_cli_fail("%s", err.msg);

    int status = PB_EXIT_USAGE;
    pb_qrun run = {0};
    json_t *skipped = json_array();
    pb_outdir od = {.lock_fd = -1};
    skip_note note = {.skipped = skipped};
    if ((only && pb_instances_only(&cfg.inst, only, cfg.path, &err)) ||
        pb_instances_available(&cfg.inst, cfg.skip_unavailable, cfg.path, "quality", on_skipped,
                               &note, &err)) {
        pb_cli_fail("%s", err.msg);
        goto out;
    }
    if (pb_quality_config_check_inputs(&cfg, &err)) {
        pb_cli_fail("%s", err.msg);
        goto out;
    }
    if (!quiet) pb_skips_print(&note.skips);
    note_untestable(&cfg, quiet, skipped);

    /* Only now, with the whole battery known to be runnable, is a directory
     * claimed: checked, created and locked before any test runs. */
    if (pb_outdir_claim(resume ? resume : out_opt, cfg.name, &quality_dirs, resume != NULL, &od, &err)) {
        pb_cli_fail("quality: %s", err.msg);
        goto out;
    }
    const char *dir = od.path;
    if (resume && pb_quality_read_rows(resumed, resume, &cfg, &run, &err)) {
        pb_cli_fail("quality: --resume: %s", err.msg);
        goto out;
    }

    /* Logged progress (not a terminal) starts after 10 s: a short run, or
     * one stopped by a bad input row, leaves stderr to its one message. */
    ui u = {quiet, dir, false, mono()};
    pb_qhooks hooks = {on_row, on_progress, &u};
    if (!quiet) {
        if (io.path)
            pb_input_header(&cfg, dir, own_tests);
        else
            printf("# %s -> %s (alpha = %g, seed = %llu)%s\n", cfg.path, dir, cfg.settings.alpha,
                   (unsigned long long)cfg.seed, resume ? " (resumed)" : "");
        header();
    }
    status = PB_EXIT_FAILED;
    pb_interrupt_install();
    rc = resume ? pb_quality_resume(&cfg, &hooks, &run, &err) : pb_quality_run(&cfg, &hooks, &run, &err);
    if (rc == PB_QRUN_BAD_INPUT) {
        /* A malformed input is bad input: one line, no verdict, and the
         * directory claimed for it taken back. */
        clear_progress(&u);
        static const char *const partial[] = {"quality.partial.csv", NULL};
        pb_outdir_abandon(&od, partial);
        status = pb_cli_fail("%s", err.msg);
        goto out;
    }
    if (rc) {
        clear_progress(&u);
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }
    clear_progress(&u);

    /* A fault from here on (a full disk) is exit 2 with the OS's reason. */
    status = PB_EXIT_FAULT;
    char path[1200];
    if (run.interrupted) {
        /* What finished, in quality.json marked interrupted and in the
         * partial CSV, which stays as the sign the directory is not done. */
        int sig = pb_interrupt_signal();
        json_t *prov = quality_provenance(&cfg, only, argc, argv);
        json_incref(skipped);
        snprintf(path, sizeof path, "%s/quality.partial.csv", dir);
        if (pb_quality_write_csv(path, &run, &err) ||
            (snprintf(path, sizeof path, "%s/quality.json", dir),
             pb_quality_write_json(path, &cfg, &run, prov, skipped, &err))) {
            fprintf(stderr, "permbench: %s\n", err.msg);
            goto out;
        }
        fprintf(stderr, "permbench: interrupted (%s) after %zu test results; finish with 'permbench quality --resume %s'\n",
                sig == SIGTERM ? "SIGTERM" : "SIGINT", run.nrows, dir);
        status = 128 + sig;
        goto out;
    }
    snprintf(path, sizeof path, "%s/quality.csv", dir);
    if (pb_quality_write_csv(path, &run, &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }
    snprintf(path, sizeof path, "%s/quality.partial.csv", dir);
    remove(path);
    snprintf(path, sizeof path, "%s/quality.json", dir);
    json_incref(skipped);
    json_t *prov = quality_provenance(&cfg, only, argc, argv);
    if (pb_quality_write_json(path, &cfg, &run, prov, skipped,
                              &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }
    if (!quiet) {
        char d[32];
        printf("results: %s/quality.csv, %s/quality.json (%llu permutations in %s)\n", dir, dir,
               (unsigned long long)run.permutations, pb_duration_format(run.wall_s, d, sizeof d));
    }

    char gnuplot[1024];
    if (cfg.plot && !pb_gnuplot_find(gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "permbench: note: gnuplot not found; figures not drawn (install gnuplot-nox)\n");
    } else if (cfg.plot && pb_quality_plot(gnuplot, dir, &cfg, &run, quiet, &err)) {
        fprintf(stderr, "permbench: %s\n", err.msg);
        goto out;
    }

    size_t fails = 0, suspects = 0;
    for (size_t i = 0; i < run.nrows; i++) {
        fails += run.rows[i].r.verdict == PB_VERDICT_FAIL;
        suspects += run.rows[i].r.verdict == PB_VERDICT_SUSPECT;
    }
    if (fails) {
        fprintf(stderr, "permbench: %zu of %zu tests FAILED:", fails, run.nrows);
        for (size_t i = 0, shown = 0; i < run.nrows && shown < 8; i++)
            if (run.rows[i].r.verdict == PB_VERDICT_FAIL) {
                fprintf(stderr, "%s %s n=%u %s", shown ? "," : "", run.rows[i].in->label,
                        run.rows[i].n, run.rows[i].test);
                shown++;
            }
        fprintf(stderr, "%s%s\n", fails > 8 ? ", ..." : "",
                cfg.gate ? "" : " (gate = no: exit status 0)");
    } else if (!quiet) {
        printf("quality: all %zu tests passed%s\n", run.nrows, suspects ? " (some SUSPECT)" : "");
    }
    status = fails && cfg.gate ? PB_EXIT_FAILED : PB_EXIT_OK;
out:
    pb_outdir_release(&od);
    json_decref(resumed);
    json_decref(skipped);
    pb_qrun_free(&run);
    pb_quality_config_free(&cfg);
    return status;
}

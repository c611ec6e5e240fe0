/* permbench compare: two runs row by row, with a rank test per row. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "compare/compare.h"
#include "output/outdir.h"
#include "output/plot.h"
#include "config/sizes.h"

static const char help[] =
    "usage: permbench compare BASE NEW [--threshold PCT] [--alpha A] [--fail-on-slower PCT]\n"
    "                         [--strict] [--markdown] [--out DIR]\n"
    "\n"
    "Compares two runs of one family, row by row. BASE and NEW are result\n"
    "directories (holding results.json, or a packed run's results.json.gz) or such\n"
    "files, plain or gzip. Rows are matched by label, n, item width and axis value;\n"
    "rows on one side only, and rows not ok on a side, are listed. For each matched\n"
    "row: both medians, the ratio NEW/BASE and a verdict from both runs' raw\n"
    "samples: SLOWER when a two-sided Mann-Whitney U test rejects at alpha and the\n"
    "ratio exceeds 1 + threshold, FASTER when it rejects and the ratio is below\n"
    "1 / (1 + threshold), SAME otherwise; UNSTABLE instead when a side is noisy\n"
    "(its median's 95% interval wider than its run's max_noise), multimodal (its\n"
    "samples in two clusters) or busy (measured on a busy machine). When the runs\n"
    "are on different devices,\n"
    "each row's share of its ceiling is compared too. The runs' provenance comes\n"
    "first, differences marked.\n"
    "\n"
    "  --threshold PCT       smallest change called FASTER or SLOWER (default 2)\n"
    "  --alpha A             the U test's level (default 0.05)\n"
    "  --fail-on-slower PCT  exit 1 when a row is SLOWER by more than PCT percent\n"
    "                        (UNSTABLE rows are passed over)\n"
    "  --strict              with --fail-on-slower: an UNSTABLE row whose median\n"
    "                        ratio exceeds 1 + PCT% fails too\n"
    "  --markdown            print the report as Markdown\n"
    "  --out DIR             also write DIR/compare.md (the Markdown report),\n"
    "                        compare.json, compare.csv and the figure compare.png\n"
    "                        and .svg (DIR must not hold a comparison already)\n"
    "\n"
    "Exit status: 0 compared, 1 a row SLOWER beyond --fail-on-slower, 2 bad input\n"
    "(nothing is written then).\n";

/* A number from an option: all of `s` (a trailing % allowed for
 * percentages), finite, within [lo, hi] (open at the ends when `open`). */
static int number(const char *opt, const char *s, double lo, double hi, bool open, bool pct, double *v)
{
    char *end;
    *v = strtod(s, &end);
    if (pct && *end == '%') end++;
    bool ok = end != s && *end == '\0' && isfinite(*v) && (open ? *v > lo && *v < hi : *v >= lo && *v <= hi);
    if (ok) return 0;
    if (pct) pb_cli_fail("compare: %s '%s' is not a percentage (a number from %g to %g)", opt, s, lo, hi);
    else pb_cli_fail("compare: %s '%s' is not a level (a number between %g and %g)", opt, s, lo, hi);
    return -1;
}

static const char *const compare_results[] = {"compare.json", "compare.csv", "compare.md", NULL};
static const pb_outdir_kind compare_dirs = {"compare-", compare_results, NULL, NULL};

/* The rows that fail --fail-on-slower, named on one line. */
static void name_slower(const pb_compare *c)
{
    fprintf(stderr, "permbench: compare: %zu row%s SLOWER%s by more than %g%%:", c->slower_beyond_fail,
            c->slower_beyond_fail == 1 ? "" : "s", c->opts.strict ? " (or UNSTABLE, --strict)" : "",
            c->opts.fail_pct);
    size_t shown = 0;
    for (size_t i = 0; i < c->nrows && shown < 8; i++) {
        const pb_cmp_row *r = &c->rows[i];
        bool counts = r->verdict == PB_CMP_SLOWER || (c->opts.strict && r->verdict == PB_CMP_UNSTABLE);
        if (!counts || !(r->ratio > 1 + c->opts.fail_pct / 100)) continue;
        char nb[48];
        fprintf(stderr, "%s %s n=%s (%.3fx)", shown++ ? "," : "", r->key.label,
                pb_size_format(r->key.n, nb, sizeof nb), r->ratio);
    }
    fprintf(stderr, "%s\n", c->slower_beyond_fail > shown ? ", ..." : "");
}

int pb_cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"threshold", required_argument, NULL, 't'},
                                         {"alpha", required_argument, NULL, 'a'},
                                         {"fail-on-slower", required_argument, NULL, 'f'},
                                         {"markdown", no_argument, NULL, 'm'},
                                         {"strict", no_argument, NULL, 's'},
                                         {"out", required_argument, NULL, 'o'},
                                         {NULL, 0, NULL, 0}};
    pb_compare_opts o = {0.05, 2.0, NAN, false};
    const char *out_dir = NULL;
    bool markdown = false;
    int c;
    while ((c = pb_cli_getopt("compare", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 't' && number("--threshold", optarg, 0, 1000, false, true, &o.threshold_pct)) return PB_EXIT_USAGE;
        if (c == 'a' && number("--alpha", optarg, 0, 1, true, false, &o.alpha)) return PB_EXIT_USAGE;
        if (c == 'f' && number("--fail-on-slower", optarg, 0, 1000, false, true, &o.fail_pct)) return PB_EXIT_USAGE;
        if (c == 'm') markdown = true;
        if (c == 's') o.strict = true;
        if (c == 'o') out_dir = optarg;
    }
    if (o.strict && isnan(o.fail_pct))
        return pb_cli_fail("compare: --strict needs --fail-on-slower (it says which UNSTABLE rows fail)");
    if (argc - optind != 2)
        return pb_cli_fail("compare: expected BASE and NEW, got %d argument%s (see 'permbench compare --help')",
                           argc - optind, argc - optind == 1 ? "" : "s");

    pb_compare cmp;
    pb_err err;
    int status = PB_EXIT_USAGE;
    pb_outdir od = {.lock_fd = -1};
    if (pb_compare_runs(argv[optind], argv[optind + 1], &o, &cmp, &err)) {
        pb_cli_fail("compare: %s", err.msg);
        goto out;
    }
    /* A run's own directory is its run's: compare.* beside its results
     * would be taken for part of it. */
    static const char *const run_files[] = {"results.json", "results.json.gz", "results.csv", "quality.json"};
    for (size_t i = 0; out_dir && i < sizeof run_files / sizeof run_files[0]; i++)
        if (pb_dir_has(out_dir, run_files[i])) {
            pb_cli_fail("compare: --out %s holds a run's results (%s); choose another directory", out_dir,
                        run_files[i]);
            goto out;
        }
    /* Everything is known to be comparable before the directory is made. */
    if (out_dir && pb_outdir_claim(out_dir, "compare", &compare_dirs, false, &od, &err)) {
        pb_cli_fail("compare: %s", err.msg);
        goto out;
    }
    pb_compare_print(&cmp, markdown, stdout);
    fflush(stdout);
    status = PB_EXIT_FAULT;
    if (out_dir) {
        char gnuplot[1024];
        bool drew = false;
        if (pb_compare_write(&cmp, od.path, argc, argv, &err)) {
            fprintf(stderr, "permbench: %s\n", err.msg);
            goto out;
        }
        if (!pb_gnuplot_find(gnuplot, sizeof gnuplot))
            fprintf(stderr, "permbench: note: gnuplot not found; compare.png not drawn (install gnuplot-nox)\n");
        else if (cmp.nrows && !(drew = pb_compare_plot(&cmp, od.path, gnuplot, &err) == 0)) {
            fprintf(stderr, "permbench: %s\n", err.msg);
            goto out;
        }
        /* stdout stays pure Markdown with --markdown. */
        if (!markdown)
            printf("\ncomparison: %s/compare.md, compare.json, compare.csv%s\n", od.path,
                   drew ? ", compare.png, compare.svg" : "");
    }
    status = PB_EXIT_OK;
    if (cmp.slower_beyond_fail) {
        name_slower(&cmp);
        status = PB_EXIT_FAILED;
    }
out:
    pb_outdir_release(&od);
    pb_compare_free(&cmp);
    return status;
}

/* The comparison as text or Markdown: where each run ran (differences
 * marked), a line per compared row, the rows not compared, a summary that
 * names the test. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare/compare.h"
#include "config/sizes.h"

#define PB_CMP_TEST_NAME "Mann-Whitney U test (two-sided; normal approximation with tie and continuity corrections)"

static void fmt_ms(double v, char *buf, size_t len) { snprintf(buf, len, "%.4g", v); }

static void fmt_p(double p, char *buf, size_t len)
{
    /* The normal tail underflows below about 1e-300. */
    if (p < 1e-300) snprintf(buf, len, "<1e-300");
    else if (p < 1e-4) snprintf(buf, len, "%.1e", p);
    else snprintf(buf, len, "%.4f", p);
}

static bool any_other_device(const pb_compare *c)
{
    for (size_t i = 0; i < c->nrows; i++)
        if (c->rows[i].other_device) return true;
    return false;
}

static void share_text(const pb_cmp_row *r, char *buf, size_t len)
{
    if (!r->other_device || isnan(r->share_ratio)) snprintf(buf, len, "-");
    else snprintf(buf, len, "%.3f", r->share_ratio);
}

static void print_skips(const pb_compare *c, bool md, FILE *out)
{
    static const char *const heads[] = {"Only in BASE", "Only in NEW", "Not compared (status not ok)"};
    for (int part = 0; part < 3; part++) {
        size_t count = 0;
        for (size_t i = 0; i < c->nskips; i++) {
            const pb_cmp_skip *s = &c->skips[i];
            int kind = !s->new_status ? 0 : !s->base_status ? 1 : 2;
            if (kind != part) continue;
            if (!count++) fprintf(out, md ? "\n**%s:**\n\n" : "\n%s:\n", heads[part]);
            char nb[48];
            pb_size_format(s->key.n, nb, sizeof nb);
            fprintf(out, md ? "- `%s` n = %s, %u B" : "  %s  n = %s, %u B", s->key.label, nb, s->key.item_bytes);
            if (part == 2) fprintf(out, " (BASE %s, NEW %s)", s->base_status, s->new_status);
            else if (strcmp(part ? s->new_status : s->base_status, "ok") != 0)
                fprintf(out, " (%s)", part ? s->new_status : s->base_status);
            fputc('\n', out);
        }
    }
}

static void print_summary(const pb_compare *c, bool md, FILE *out)
{
    fprintf(out, "\n%s%zu row%s compared: %zu SAME, %zu FASTER, %zu SLOWER, %zu UNSTABLE", md ? "**" : "",
            c->nrows, c->nrows == 1 ? "" : "s", c->same, c->faster, c->slower, c->unstable);
    if (!isnan(c->opts.fail_pct))
        fprintf(out, " (%zu %s by more than %g%%)", c->slower_beyond_fail,
                c->opts.strict ? "slower or unstable and slower" : "slower", c->opts.fail_pct);
    fprintf(out, "%s\n", md ? "**" : "");
    fprintf(out, "%sverdict: %s at alpha %g on the samples_ms of both runs, and a median ratio NEW/BASE "
                 "beyond %g%% (SLOWER above %.4f, FASTER below %.4f); SAME otherwise.\n",
            md ? "\n" : "", PB_CMP_TEST_NAME, c->opts.alpha, c->opts.threshold_pct,
            1 + c->opts.threshold_pct / 100, 1 / (1 + c->opts.threshold_pct / 100));
    fprintf(out, "%sUNSTABLE: no verdict, a side cannot be trusted: noisy (its median's 95%% interval wider "
                 "than its run's max_noise), multimodal (its samples in two clusters) or busy (measured on a busy "
                 "machine); --fail-on-slower passes over these rows%s.\n",
            md ? "\n" : "", c->opts.strict ? " except, with --strict, those whose ratio exceeds its bound" : " unless --strict");
    if (any_other_device(c))
        fprintf(out, "%sshare ratio: the row's share of its ceiling (pct_of_copy) NEW/BASE, the runs being on "
                     "different devices: near 1, the row moved with the copy; below 1, it gained less than "
                     "the copy (not bound by memory bandwidth).\n",
                md ? "\n" : "");
}

static void print_machine(const pb_compare *c, bool md, int w, FILE *out);

static void print_text(const pb_compare *c, FILE *out)
{
    pb_cmp_prov_line l[PB_CMP_PROV_LINES];
    size_t n = pb_compare_prov_lines(c, l);
    int w = 4;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(l[i].base) > w) w = (int)strlen(l[i].base);
    for (size_t i = 0; i < c->nmachine; i++)
        if ((int)strlen(c->machine[i].base) > w) w = (int)strlen(c->machine[i].base);
    fprintf(out, "# BASE %s\n# NEW  %s\n\n", c->base.path, c->new_.path);
    fprintf(out, "%-14s %-*s  %s\n", "", w, "BASE", "NEW");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%-14s %-*s  %s%s\n", l[i].what, w, l[i].base, l[i].new_,
                strcmp(l[i].base, l[i].new_) ? "   (differs)" : "");
    print_machine(c, false, w, out);
    bool share = any_other_device(c);
    fprintf(out, "\n%-24s %12s %4s %11s %11s %11s %7s %9s %-*s%s\n", "label", "n", "item", "samples",
            "base_ms", "new_ms", "ratio", "p", share ? 7 : 0, "verdict", share ? "  share ratio" : "");
    for (size_t i = 0; i < c->nrows; i++) {
        const pb_cmp_row *r = &c->rows[i];
        char nb[48], bm[24], nm[24], p[24], sh[24], ns[48];
        pb_size_format(r->key.n, nb, sizeof nb);
        fmt_ms(r->base_ms, bm, sizeof bm);
        fmt_ms(r->new_ms, nm, sizeof nm);
        fmt_p(r->p_value, p, sizeof p);
        share_text(r, sh, sizeof sh);
        snprintf(ns, sizeof ns, "%zu/%zu", r->base_samples, r->new_samples);
        fprintf(out, "%-24s %12s %4u %11s %11s %11s %7.3f %9s %-*s", r->key.label, nb, r->key.item_bytes, ns, bm,
                nm, r->ratio, p, share ? 7 : 0, pb_cmp_verdict_name(r->verdict));
        if (share) fprintf(out, "  %11s", sh);
        fputc('\n', out);
    }
}

static void print_markdown(const pb_compare *c, FILE *out)
{
    pb_cmp_prov_line l[PB_CMP_PROV_LINES];
    size_t n = pb_compare_prov_lines(c, l);
    fprintf(out, "## permbench compare\n\nBASE: `%s`  \nNEW: `%s`\n\n", c->base.path, c->new_.path);
    fprintf(out, "| | BASE | NEW | |\n| --- | --- | --- | --- |\n");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "| %s | %s | %s | %s |\n", l[i].what, l[i].base, l[i].new_,
                strcmp(l[i].base, l[i].new_) ? "differs" : "");
    print_machine(c, true, 0, out);
    bool share = any_other_device(c);
    fprintf(out, "\n| label | n | item | base ms | new ms | ratio | verdict | p-value |%s\n", share ? " share ratio |" : "");
    fprintf(out, "| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |%s\n", share ? " ---: |" : "");
    for (size_t i = 0; i < c->nrows; i++) {
        const pb_cmp_row *r = &c->rows[i];
        char nb[48], bm[24], nm[24], p[24], sh[24];
        pb_size_format(r->key.n, nb, sizeof nb);
        fmt_ms(r->base_ms, bm, sizeof bm);
        fmt_ms(r->new_ms, nm, sizeof nm);
        fmt_p(r->p_value, p, sizeof p);
        share_text(r, sh, sizeof sh);
        /* A swept parameter's value is in the label ("gpu-radik/k=32"). */
        fprintf(out, "| %s | %s | %u | %s | %s | %.3f | %s%s%s | %s |", r->key.label, nb, r->key.item_bytes, bm, nm, r->ratio,
                r->verdict == PB_CMP_SAME ? "" : "**", pb_cmp_verdict_name(r->verdict),
                r->verdict == PB_CMP_SAME ? "" : "**", p);
        if (share) fprintf(out, " %s |", sh);
        fputc('\n', out);
    }
}

/* The UNSTABLE rows and why. */
static void print_unstable(const pb_compare *c, bool md, FILE *out)
{
    if (!c->unstable) return;
    fprintf(out, md ? "\n**Unstable (no verdict):**\n\n" : "\nUnstable (no verdict):\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const pb_cmp_row *r = &c->rows[i];
        if (r->verdict != PB_CMP_UNSTABLE) continue;
        char nb[48];
        pb_size_format(r->key.n, nb, sizeof nb);
        fprintf(out, md ? "- `%s` n = %s, %u B: %s\n" : "  %s  n = %s, %u B: %s\n", r->key.label, nb,
                r->key.item_bytes, r->unstable);
    }
}

/* Rows whose seeds' medians spread wider than max_noise: shown, not
 * judged (docs/measurement.md: the spread is the inputs', a property of
 * the point, not a fault of the measurement). */
static void print_seed_spread(const pb_compare *c, bool md, FILE *out)
{
    if (!c->seed_spread_wide) return;
    fprintf(out, md ? "\n**Seed spread above max_noise (shown, not judged):**\n\n"
                    : "\nSeed spread above max_noise (shown, not judged):\n");
    for (size_t i = 0; i < c->nrows; i++) {
        const pb_cmp_row *r = &c->rows[i];
        if (!r->seed_spread_wide) continue;
        char nb[48], bs[48] = "one seed", ns[48] = "one seed";
        pb_size_format(r->key.n, nb, sizeof nb);
        if (r->base_seeds > 1) snprintf(bs, sizeof bs, "%.1f%% over %d seeds", r->base_seed_spread_pct, r->base_seeds);
        if (r->new_seeds > 1) snprintf(ns, sizeof ns, "%.1f%% over %d seeds", r->new_seed_spread_pct, r->new_seeds);
        fprintf(out, md ? "- `%s` n = %s, %u B: BASE %s, NEW %s\n" : "  %s  n = %s, %u B: BASE %s, NEW %s\n",
                r->key.label, nb, r->key.item_bytes, bs, ns);
    }
}

/* The machine state lines, after the provenance's. */
static void print_machine(const pb_compare *c, bool md, int w, FILE *out)
{
    /* The key column as wide as the longest path, so the values align. */
    int kw = 14;
    for (size_t i = 0; i < c->nmachine; i++)
        if ((int)strlen(c->machine[i].what) > kw) kw = (int)strlen(c->machine[i].what);
    for (size_t i = 0; i < c->nmachine; i++) {
        const pb_cmp_machine_line *l = &c->machine[i];
        bool differs = strcmp(l->base, l->new_) != 0;
        if (md) fprintf(out, "| %s | %s | %s | %s |\n", l->what, l->base, l->new_, differs ? "differs" : "");
        else fprintf(out, "%-*s %-*s  %s%s\n", kw, l->what, w, l->base, l->new_, differs ? "   (differs)" : "");
    }
}

void pb_compare_print(const pb_compare *c, bool markdown, FILE *out)
{
    if (markdown) print_markdown(c, out);
    else print_text(c, out);
    print_unstable(c, markdown, out);
    print_seed_spread(c, markdown, out);
    print_skips(c, markdown, out);
    print_summary(c, markdown, out);
}

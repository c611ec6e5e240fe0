/* The comparison's files: compare.json (schema_version 1) with everything
 * the report shows and both runs' provenance, compare.csv with a line per
 * compared row, and the figure drawn from the CSV by plots/compare.gp. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/atomic_file.h"
#include "compare/compare.h"
#include "output/plot.h"
#include "config/embedded.h"
#include "config/sizes.h"
#include "core/build_info.h"

#define PB_COMPARE_SCHEMA 1

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *key_json(const pb_cmp_key *k)
{
    return json_pack("{s:s, s:s, s:s, s:I, s:i, s:s}", "label", k->label, "module", k->module, "device",
                     k->device, "n", (json_int_t)k->n, "item_bytes", (int)k->item_bytes, "axis_value",
                     k->axis_value);
}

static json_t *row_json(const pb_cmp_row *r)
{
    json_t *j = key_json(&r->key);
    json_object_set_new(j, "base", json_pack("{s:I, s:o, s:o}", "samples", (json_int_t)r->base_samples,
                                             "median_ms", num(r->base_ms), "pct_of_copy", num(r->base_share)));
    json_object_set_new(j, "new", json_pack("{s:I, s:o, s:o}", "samples", (json_int_t)r->new_samples,
                                            "median_ms", num(r->new_ms), "pct_of_copy", num(r->new_share)));
    json_object_set_new(j, "ratio", num(r->ratio));
    json_object_set_new(j, "u", num(r->u));
    json_object_set_new(j, "z", num(r->z));
    json_object_set_new(j, "p_value", num(r->p_value));
    json_object_set_new(j, "verdict", json_string(pb_cmp_verdict_name(r->verdict)));
    json_object_set_new(j, "other_device", json_boolean(r->other_device));
    json_object_set_new(j, "share_ratio", r->other_device ? num(r->share_ratio) : json_null());
    /* Each side's trust, and why the row is UNSTABLE (null: it is not). */
    const struct { const char *side; double ci; bool noisy, multimodal, busy; } sides[] = {
        {"base", r->base_ci_pct, r->base_noisy, r->base_multimodal, r->base_busy},
        {"new", r->new_ci_pct, r->new_noisy, r->new_multimodal, r->new_busy}};
    for (int s = 0; s < 2; s++) {
        json_t *o = json_object_get(j, sides[s].side);
        json_object_set_new(o, "median_ci_halfwidth_pct", num(sides[s].ci));
        json_object_set_new(o, "noisy", json_boolean(sides[s].noisy));
        json_object_set_new(o, "multimodal", json_boolean(sides[s].multimodal));
        json_object_set_new(o, "busy", json_boolean(sides[s].busy));
        /* Several seeds: their number and the spread of their medians
         * (shown, not judged); a side of one seed has neither. */
        int seeds = s ? r->new_seeds : r->base_seeds;
        if (seeds > 1) {
            json_object_set_new(o, "seeds", json_integer(seeds));
            json_object_set_new(o, "seed_spread_pct", num(s ? r->new_seed_spread_pct : r->base_seed_spread_pct));
        }
    }
    json_object_set_new(j, "unstable", r->unstable[0] ? json_string(r->unstable) : json_null());
    return j;
}

static json_t *side_json(const pb_cmp_side *s)
{
    json_t *prov = json_deep_copy(json_object_get(s->root, "provenance"));
    return json_pack("{s:s, s:I, s:o}", "path", s->path, "schema_version", (json_int_t)s->prov.schema_version,
                     "provenance", prov ? prov : json_null());
}

static json_t *compare_json(const pb_compare *c, int argc, char **argv)
{
    const pb_compare_opts *o = &c->opts;
    json_t *test = json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:o}", "name", "Mann-Whitney U", "alternative",
                             "two-sided", "method",
                             "normal approximation, tie-corrected variance, continuity correction 1/2", "samples",
                             "samples_ms", "alpha", o->alpha, "threshold_pct", o->threshold_pct,
                             "fail_on_slower_pct", num(o->fail_pct));
    pb_cmp_prov_line l[PB_CMP_PROV_LINES];
    size_t nl = pb_compare_prov_lines(c, l);
    json_t *diffs = json_array(), *rows = json_array(), *skips = json_array(), *cmd = json_array();
    for (size_t i = 0; i < nl; i++)
        if (strcmp(l[i].base, l[i].new_) != 0)
            json_array_append_new(diffs, json_pack("{s:s, s:s, s:s}", "field", l[i].what, "base", l[i].base,
                                                   "new", l[i].new_));
    for (size_t i = 0; i < c->nmachine; i++)
        if (strcmp(c->machine[i].base, c->machine[i].new_) != 0)
            json_array_append_new(diffs, json_pack("{s:s, s:s, s:s}", "field", c->machine[i].what, "base",
                                                   c->machine[i].base, "new", c->machine[i].new_));
    for (size_t i = 0; i < c->nrows; i++) json_array_append_new(rows, row_json(&c->rows[i]));
    for (size_t i = 0; i < c->nskips; i++) {
        const pb_cmp_skip *s = &c->skips[i];
        json_t *j = key_json(&s->key);
        json_object_set_new(j, "why", json_string(!s->new_status ? "only in BASE" : !s->base_status ? "only in NEW"
                                                                                                   : "status not ok"));
        json_object_set_new(j, "base_status", s->base_status ? json_string(s->base_status) : json_null());
        json_object_set_new(j, "new_status", s->new_status ? json_string(s->new_status) : json_null());
        json_array_append_new(skips, j);
    }
    for (int i = 0; i < argc; i++) json_array_append_new(cmd, json_string(argv[i]));
    char date[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    json_object_set_new(test, "strict", json_boolean(o->strict));
    return json_pack("{s:i, s:s, s:{s:s, s:s, s:s}, s:o, s:o, s:o, s:o, s:{s:b, s:b}, s:o, s:o, "
                     "s:{s:I, s:I, s:I, s:I, s:I, s:o}, s:o}",
                     "schema_version", PB_COMPARE_SCHEMA, "date", date, "permbench", "version",
                     pb_build.version, "commit", pb_build.commit, "dirty", pb_build.dirty, "test", test,
                     "base", side_json(&c->base), "new", side_json(&c->new_), "provenance_differences", diffs,
                     "devices_differ", "gpu", c->gpu_differs, "cpu", c->cpu_differs, "rows", rows,
                     "not_compared", skips, "summary", "compared", (json_int_t)c->nrows, "same",
                     (json_int_t)c->same, "faster", (json_int_t)c->faster, "slower", (json_int_t)c->slower,
                     "unstable", (json_int_t)c->unstable, "slower_beyond_fail",
                     isnan(o->fail_pct) ? json_null() : json_integer((json_int_t)c->slower_beyond_fail),
                     "command_line", cmd);
}

/* Whether the rows come in more than one item width (then the figure's
 * row names say which). */
static bool mixed_items(const pb_compare *c)
{
    for (size_t i = 1; i < c->nrows; i++)
        if (c->rows[i].key.item_bytes != c->rows[0].key.item_bytes) return true;
    return false;
}

static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double x)
{
    if (isfinite(x)) fprintf(f, ",%.9g", x);
    else fputs(",NaN", f);
}

static int write_csv(const pb_compare *c, const char *path, pb_err *err)
{
    pb_afile a;
    if (pb_afile_open(&a, path, err)) return -1;
    FILE *f = a.f;
    bool mixed = mixed_items(c);
    fputs("row,name,label,module,device,n,item_bytes,axis_value,base_samples,new_samples,base_median_ms,"
          "new_median_ms,ratio,u,z,p_value,verdict,base_pct_of_copy,new_pct_of_copy,share_ratio,"
          "base_ci_halfwidth_pct,new_ci_halfwidth_pct,unstable\n",
          f);
    for (size_t i = 0; i < c->nrows; i++) {
        const pb_cmp_row *r = &c->rows[i];
        char nb[48], name[512];
        pb_size_format(r->key.n, nb, sizeof nb);
        if (mixed) snprintf(name, sizeof name, "%s %s (%u B)", r->key.label, nb, r->key.item_bytes);
        else snprintf(name, sizeof name, "%s %s", r->key.label, nb);
        fprintf(f, "%zu,", i);
        csv_text(f, name);
        fputc(',', f);
        csv_text(f, r->key.label);
        fputc(',', f);
        csv_text(f, r->key.module);
        fprintf(f, ",%s,%llu,%u,", r->key.device, (unsigned long long)r->key.n, r->key.item_bytes);
        csv_text(f, r->key.axis_value);
        fprintf(f, ",%zu,%zu", r->base_samples, r->new_samples);
        csv_num(f, r->base_ms);
        csv_num(f, r->new_ms);
        csv_num(f, r->ratio);
        csv_num(f, r->u);
        csv_num(f, r->z);
        csv_num(f, r->p_value);
        fprintf(f, ",%s", pb_cmp_verdict_name(r->verdict));
        csv_num(f, r->base_share);
        csv_num(f, r->new_share);
        csv_num(f, r->other_device ? r->share_ratio : NAN);
        csv_num(f, r->base_ci_pct);
        csv_num(f, r->new_ci_pct);
        fputc(',', f);
        csv_text(f, r->unstable);
        fputc('\n', f);
    }
    return pb_afile_commit(&a, err);
}

int pb_compare_write(const pb_compare *c, const char *dir, int argc, char **argv, pb_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/compare.json", dir);
    if (pb_write_json(path, compare_json(c, argc, argv), JSON_INDENT(1) | JSON_REAL_PRECISION(9), err)) return -1;
    snprintf(path, sizeof path, "%s/compare.csv", dir);
    if (write_csv(c, path, err)) return -1;
    pb_afile a;
    snprintf(path, sizeof path, "%s/compare.md", dir);
    if (pb_afile_open(&a, path, err)) return -1;
    pb_compare_print(c, true, a.f);
    return pb_afile_commit(&a, err);
}

/* "<GPU name>, <commit>": a run as the figure names it; quotes
 * dropped (the text goes into a single-quoted gnuplot string). */
static void run_name(const pb_cmp_prov *p, bool gpu, char *buf, size_t len)
{
    snprintf(buf, len, "%s, %.12s%s", gpu ? p->gpu : p->cpu, *p->commit ? p->commit : "unknown",
             strcmp(p->dirty, "yes") == 0 ? " (dirty)" : "");
    pb_gnuplot_unquote(buf);
}

int pb_compare_plot_vars(const pb_compare *c, const char *dir, char *vars, size_t len, pb_err *err)
{
    if (strchr(dir, '\'') || strchr(dir, '\n'))
        return pb_err_set(err, "cannot plot: a quote character in the directory name");
    bool gpu = false, share = false;
    for (size_t i = 0; i < c->nrows; i++) {
        gpu |= strcmp(c->rows[i].key.device, "gpu") == 0;
        share |= c->rows[i].other_device && !isnan(c->rows[i].share_ratio);
    }
    char b[256], n[256], fam[128];
    run_name(&c->base.prov, gpu, b, sizeof b);
    run_name(&c->new_.prov, gpu, n, sizeof n);
    /* The family comes from the file too: it goes into the title's quotes. */
    snprintf(fam, sizeof fam, "%s", *c->base.prov.family ? c->base.prov.family : "results");
    pb_gnuplot_unquote(fam);
    int w = snprintf(vars, len,
                     "datafile = '%s/compare.csv'\ntitle = 'NEW / BASE, median time per row (%s)'\n"
                     "subtitle = 'BASE: %s  |  NEW: %s  |  Mann-Whitney U, alpha %g, threshold %g%%'\n"
                     "threshold = %.17g\nshare = %d\nrows = %zu\nsame = %zu\nfaster = %zu\nslower = %zu\n"
                     "unstable = %zu\n",
                     dir, fam, b, n, c->opts.alpha, c->opts.threshold_pct, c->opts.threshold_pct, share,
                     c->nrows, c->same, c->faster, c->slower, c->unstable);
    if (w < 0 || (size_t)w >= len) return pb_err_set(err, "cannot plot: the directory name is too long");
    return 0;
}

int pb_compare_plot(const pb_compare *c, const char *dir, const char *gnuplot, pb_err *err)
{
    const pb_embedded_file *script = pb_embedded_find("plots/compare.gp");
    if (!script) return pb_err_set(err, "no plot script plots/compare.gp in this build");
    char vars[2400];
    if (pb_compare_plot_vars(c, dir, vars, sizeof vars, err)) return -1;
    return pb_gnuplot_draw(gnuplot, vars, script->data, script->len, dir, "compare", err);
}

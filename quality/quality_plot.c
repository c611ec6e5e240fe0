#include "quality/quality_plot.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "output/plot.h"
#include "config/embedded.h"

/* Whether the space-separated list holds `word`. An empty word is in every
 * list (it is never added; searching for it never moved on: a hang). */
static bool has_word(const char *list, const char *word)
{
    size_t l = strlen(word);
    if (l == 0) return true;
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += l)
        if ((p == list || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0')) return true;
    return false;
}

typedef struct figure {
    const pb_qtest *qt;
    const pb_qtest_spec *spec;
    const char *test; /* the rows whose statistic is drawn: its last reported result */
    uint32_t n;
} figure;

/* 1000000 -> "10^6", 250000 -> "2.5x10^5", 1234 -> "1234". */
static const char *samples_text(uint64_t v, char *buf, size_t len)
{
    int e = 0;
    uint64_t m = v;
    while (m >= 10 && m % 10 == 0) m /= 10, e++;
    if (e < 3) snprintf(buf, len, "%llu", (unsigned long long)v);
    else if (m == 1) snprintf(buf, len, "10^%d", e);
    else if (m < 10) snprintf(buf, len, "%llux10^%d", (unsigned long long)m, e);
    else if (m < 100) snprintf(buf, len, "%.1fx10^%d", (double)m / 10, e + 1);
    else snprintf(buf, len, "%llu", (unsigned long long)v);
    return buf;
}

/* Each instance's first row at the figure's n and test (NULL: none), in one
 * pass over the rows: a search of all rows for every instance made a
 * hostile quality.json cost instances x rows for every figure. A row's
 * instance is one of cfg's (a run's rows point into it; replot's too). */
static void first_rows(const pb_quality_config *cfg, const pb_qrun *run, const figure *fig,
                       const pb_qrow **first)
{
    memset(first, 0, (cfg->inst.n ? cfg->inst.n : 1) * sizeof *first);
    uintptr_t lo = (uintptr_t)cfg->inst.v, hi = (uintptr_t)(cfg->inst.v + cfg->inst.n);
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_qrow *r = &run->rows[i];
        if ((uintptr_t)r->in < lo || (uintptr_t)r->in >= hi) continue;
        size_t k = (size_t)(r->in - cfg->inst.v);
        if (!first[k] && r->n == fig->n && strcmp(r->test, fig->test) == 0) first[k] = r;
    }
}

/* Builds one figure and hands it to fn; returns 1 if handed, 0 if there
 * was nothing to draw. */
static int draw(const char *dir, const pb_quality_config *cfg, const pb_qrun *run,
                const figure *fig, const pb_qrow **first, pb_qfigure_fn fn, void *user, pb_err *err)
{
    const pb_embedded_file *script = pb_embedded_find("plots/quality-sweep.gp");
    if (!script) return pb_err_set(err, "no plot script plots/quality-sweep.gp");
    /* Swept series become lines against the parameter; the others,
     * horizontal lines at their statistic. */
    char series[2048] = "", xlabel[64] = "";
    size_t off = 0;
    char hlines[4096] = "";
    size_t hoff = 0;
    int nh = 0;
    bool plain = true; /* every label in hlines may stand in quotes */
    /* The swept values' span: gnuplot ticks a span of a few at halves
     * (1.5 rounds), so the script ticks whole values up to a span of 10. */
    double xlo = INFINITY, xhi = -INFINITY;
    for (size_t i = 0; i < cfg->inst.n; i++) {
        const pb_instance *in = &cfg->inst.v[i];
        if (in->axis[0]) {
            char *end;
            double x = strtod(in->axis_value, &end);
            if (end != in->axis_value && !*end) xlo = fmin(xlo, x), xhi = fmax(xhi, x);
            if (!xlabel[0]) snprintf(xlabel, sizeof xlabel, "%s", in->axis);
            if (!has_word(series, in->series) && off < sizeof series)
                off += (size_t)snprintf(series + off, sizeof series - off, "%s%s", off ? " " : "",
                                        in->series);
            continue;
        }
        const pb_qrow *r = first[i];
        if (!r || !isfinite(r->r.statistic) || !(r->r.statistic > 0) || hoff >= sizeof hlines) continue;
        nh++;
        plain &= pb_gnuplot_quotable(in->label);
        hoff += (size_t)snprintf(hlines + hoff, sizeof hlines - hoff,
                                 "h%d = %.10g\nh%d_title = '%s (%s)'\n", nh, r->r.statistic, nh,
                                 in->label, pb_verdict_name(r->r.verdict));
    }
    if (!series[0]) return 0;
    /* Thresholds: the same for every row of a result at this n and sample
     * count; one line for each result the test reported. */
    char thr[1024] = "";
    size_t toff = 0;
    int nt = 0;
    for (size_t w = 0; w < fig->qt->nresults; w++) {
        if (!(fig->spec->select & (1u << w))) continue;
        for (size_t i = 0; i < run->nrows; i++) {
            const pb_qrow *r = &run->rows[i];
            if (r->n != fig->n || strcmp(r->test, fig->qt->results[w]) != 0 || !isfinite(r->r.threshold))
                continue;
            nt++;
            toff += (size_t)snprintf(thr + toff, sizeof thr - toff,
                                     "t%d = %.10g\nt%d_title = '%s, alpha = %g'\n", nt,
                                     r->r.threshold, nt, fig->qt->threshold_titles[w], cfg->settings.alpha);
            break;
        }
    }
    char title[320], sb[32], stem[64];
    snprintf(title, sizeof title, "%s (n = %u, %s samples each)", cfg->title, fig->n,
             samples_text(fig->spec->samples, sb, sizeof sb));
    /* Labels and the swept parameter come from a config or, on --replot,
     * from quality.json: any of them could end a gnuplot string early. */
    if (!pb_gnuplot_quotable(dir) || !pb_gnuplot_quotable(title) || !pb_gnuplot_quotable(series) ||
        !pb_gnuplot_quotable(xlabel) || !plain)
        return pb_err_set(err, "cannot plot: a quote character in the directory, title or labels");
    char vars[8192];
    snprintf(vars, sizeof vars,
             "datafile = '%s/quality.csv'\ntitle = '%s'\nn = %u\ntest = '%s'\nxlabel = '%s'\n"
             "ylabel = '%s'\nseries = '%s'\nnh = %d\n%snt = %d\n%sxspan = %g\n",
             dir, title, fig->n, fig->test, xlabel, fig->qt->ylabel, series, nh, hlines, nt, thr,
             xhi >= xlo ? xhi - xlo : -1);
    snprintf(stem, sizeof stem, "%s-n%u", fig->qt->figure, fig->n);
    if (fn(user, stem, vars, script, err)) return -1;
    return 1;
}

int pb_quality_figures(const char *dir, const pb_quality_config *cfg, const pb_qrun *run,
                       pb_qfigure_fn fn, void *user, pb_err *err)
{
    const pb_qrow **first = malloc((cfg->inst.n ? cfg->inst.n : 1) * sizeof *first);
    if (!first) return pb_err_set(err, "out of memory");
    int rc = 0;
    for (size_t k = 0; k < pb_qtest_count() && !rc; k++) {
        const pb_qtest *qt = pb_qtest_at(k);
        const pb_qtest_spec *t = &cfg->test[k];
        if (!qt->figure || !t->select) continue;
        size_t last = 0;
        for (size_t w = 0; w < qt->nresults; w++)
            if (t->select & (1u << w)) last = w;
        for (size_t i = 0; i < t->nn && !rc; i++) {
            figure fig = {qt, t, qt->results[last], (uint32_t)t->ns[i]};
            first_rows(cfg, run, &fig, first);
            if (draw(dir, cfg, run, &fig, first, fn, user, err) < 0) rc = -1;
        }
    }
    free(first);
    return rc;
}

typedef struct gnuplot_sink {
    const char *gnuplot, *dir;
    bool quiet;
} gnuplot_sink;

static int run_gnuplot(void *user, const char *stem, const char *vars,
                       const pb_embedded_file *script, pb_err *err)
{
    const gnuplot_sink *g = user;
    if (pb_gnuplot_draw(g->gnuplot, vars, script->data, script->len, g->dir, stem, err)) return -1;
    if (!g->quiet) printf("figure: %s/%s.png, %s/%s.svg\n", g->dir, stem, g->dir, stem);
    return 0;
}

int pb_quality_plot(const char *gnuplot, const char *dir, const pb_quality_config *cfg,
                    const pb_qrun *run, bool quiet, pb_err *err)
{
    gnuplot_sink g = {gnuplot, dir, quiet};
    return pb_quality_figures(dir, cfg, run, run_gnuplot, &g, err);
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp((*(const pb_instance *const *)a)->label, (*(const pb_instance *const *)b)->label);
}

static const char *jstr(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double jnum(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int pb_quality_replot_read(json_t *root, const char *path, pb_quality_config *cfg, pb_qrun *run,
                           bool *plot, pb_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    memset(run, 0, sizeof *run);
    *plot = false;
    json_t *q = json_object_get(root, "quality"), *inst = json_object_get(root, "instances"),
           *rows = json_object_get(root, "rows");
    if (!json_is_object(q) || !json_is_array(inst) || !json_is_array(rows))
        return pb_err_set(err, "%s: not a permbench quality results file", path);
    if (!json_is_true(json_object_get(q, "plot"))) return 0; /* the run drew no figures */
    *plot = true;
    snprintf(cfg->title, sizeof cfg->title, "%s", jstr(q, "title"));
    if (!pb_gnuplot_quotable(cfg->title))
        return pb_err_set(err, "%s: a quote or control character in quality.title", path);
    cfg->settings.alpha = jnum(q, "alpha");
    size_t i;
    json_t *v;
    json_t *tests = json_object_get(q, "tests");
    for (size_t k = 0; k < pb_qtest_count(); k++) {
        const pb_qtest *qt = pb_qtest_at(k);
        json_t *t = json_object_get(tests, qt->name);
        if (!t) continue;
        cfg->test[k].samples = (uint64_t)json_integer_value(json_object_get(t, "samples"));
        json_array_foreach(json_object_get(t, "n"), i, v) if (cfg->test[k].nn < PB_Q_MAX_N)
            cfg->test[k].ns[cfg->test[k].nn++] = (uint64_t)json_integer_value(v);
        json_t *sel = qt->select_key ? json_object_get(q, qt->select_key) : NULL;
        cfg->test[k].select = sel ? 0 : (1u << qt->nresults) - 1;
        json_array_foreach(sel, i, v)
        {
            for (size_t w = 0; w < qt->nresults; w++)
                if (json_string_value(v) && strcmp(json_string_value(v), qt->select_words[w]) == 0)
                    cfg->test[k].select |= 1u << w;
        }
    }
    cfg->inst.n = cfg->inst.cap = json_array_size(inst);
    cfg->inst.v = calloc(cfg->inst.n ? cfg->inst.n : 1, sizeof *cfg->inst.v);
    run->nrows = run->cap = json_array_size(rows);
    run->rows = calloc(run->nrows ? run->nrows : 1, sizeof *run->rows);
    if (!cfg->inst.v || !run->rows) return pb_err_set(err, "out of memory");
    json_array_foreach(inst, i, v)
    {
        pb_instance *in = &cfg->inst.v[i];
        snprintf(in->label, sizeof in->label, "%s", jstr(v, "label"));
        snprintf(in->series, sizeof in->series, "%s", jstr(v, "group"));
        snprintf(in->axis, sizeof in->axis, "%s", jstr(v, "swept_param"));
        if (in->axis[0])
            snprintf(in->axis_value, sizeof in->axis_value, "%lld",
                     (long long)json_integer_value(json_object_get(v, "value")));
        /* Each is written into gnuplot strings: a quote would end one. */
        if (!pb_gnuplot_quotable(in->label) || !pb_gnuplot_quotable(in->series) ||
            !pb_gnuplot_quotable(in->axis))
            return pb_err_set(err,
                              "%s: instances[%zu]: a quote or control character in its label, "
                              "group or swept_param",
                              path, i);
    }
    /* Rows name their instance by label, found in a sorted index (a scan
     * of the instances for every row made a hostile file cost their
     * product); labels are unique in every run, so a repeated one is refused. */
    const pb_instance **by_label = malloc((cfg->inst.n ? cfg->inst.n : 1) * sizeof *by_label);
    if (!by_label) return pb_err_set(err, "out of memory");
    for (size_t k = 0; k < cfg->inst.n; k++) by_label[k] = &cfg->inst.v[k];
    qsort(by_label, cfg->inst.n, sizeof *by_label, cmp_label);
    for (size_t k = 1; k < cfg->inst.n; k++)
        if (strcmp(by_label[k - 1]->label, by_label[k]->label) == 0) {
            pb_err_set(err, "%s: the label '%s' names two instances", path, by_label[k]->label);
            free(by_label);
            return -1;
        }
    json_array_foreach(rows, i, v)
    {
        pb_qrow *r = &run->rows[i];
        pb_instance key;
        const pb_instance *kp = &key, **hit = NULL;
        if (snprintf(key.label, sizeof key.label, "%s", jstr(v, "label")) < (int)sizeof key.label &&
            cfg->inst.n)
            hit = bsearch(&kp, by_label, cfg->inst.n, sizeof *by_label, cmp_label);
        r->in = hit ? *hit : NULL;
        size_t which = 0;
        r->qt = pb_qtest_of_result(jstr(v, "test"), &which);
        r->test = r->qt ? r->qt->results[which] : NULL;
        if (!r->in || !r->test) {
            free(by_label);
            return pb_err_set(err, "%s: row %zu names an unknown instance or test", path, i);
        }
        r->n = (uint32_t)json_integer_value(json_object_get(v, "n"));
        r->r.samples = (uint64_t)json_integer_value(json_object_get(v, "samples"));
        r->r.statistic = jnum(v, "statistic");
        r->r.threshold = jnum(v, "threshold");
        r->r.p_value = jnum(v, "p_value");
        const char *verdict = jstr(v, "verdict");
        r->r.verdict = strcmp(verdict, "PASS") == 0      ? PB_VERDICT_PASS
                       : strcmp(verdict, "SUSPECT") == 0 ? PB_VERDICT_SUSPECT
                                                         : PB_VERDICT_FAIL;
    }
    free(by_label);
    return 0;
}

void pb_quality_replot_free(pb_quality_config *cfg, pb_qrun *run)
{
    free(cfg->inst.v);
    free(run->rows);
    memset(cfg, 0, sizeof *cfg);
    memset(run, 0, sizeof *run);
}

int pb_quality_replot(const char *dir, bool quiet, pb_err *err)
{
    char path[1100], gnuplot[1024];
    snprintf(path, sizeof path, "%s/quality.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) return pb_err_set(err, "%s: %s", path, je.text);
    pb_quality_config cfg;
    pb_qrun run;
    bool plot;
    int rc = pb_quality_replot_read(root, path, &cfg, &run, &plot, err);
    if (!rc && !plot)
        rc = pb_err_set(err, "%s: that run drew no figures (plot = none in its config); nothing to replot", dir);
    else if (!rc) {
        if (!pb_gnuplot_find(gnuplot, sizeof gnuplot))
            rc = pb_err_set(
                err, "gnuplot not found on PATH (install gnuplot-nox, or set PERMBENCH_GNUPLOT)");
        else
            rc = pb_quality_plot(gnuplot, dir, &cfg, &run, quiet, err);
    }
    pb_quality_replot_free(&cfg, &run);
    json_decref(root);
    return rc;
}

#include "harness/quality_plot.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "harness/embedded.h"
#include "harness/plot.h"

static bool quotable(const char *s) { return !strchr(s, '\'') && !strchr(s, '\n'); }

/* Whether the space-separated list holds `word`. */
static bool has_word(const char *list, const char *word)
{
    size_t l = strlen(word);
    for (const char *p = list; (p = strstr(p, word)) != NULL; p += l)
        if ((p == list || p[-1] == ' ') && (p[l] == ' ' || p[l] == '\0')) return true;
    return false;
}

typedef struct figure {
    const char *kind;  /* file name stem: chisq, mmd */
    const char *test;  /* the rows whose statistic is drawn */
    const char *ylabel;
    uint32_t n;
    uint64_t samples;
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

/* The first row of (group or label, n, test), or NULL. */
static const pb_qrow *find(const pb_qrun *run, const char *label, uint32_t n, const char *test)
{
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_qrow *r = &run->rows[i];
        if (r->n == n && strcmp(r->test, test) == 0 && strcmp(r->qi->in.label, label) == 0) return r;
    }
    return NULL;
}

static int draw(const char *gnuplot, const char *dir, const pb_quality_config *cfg,
                const pb_qrun *run, const figure *fig, pb_err *err)
{
    const pb_embedded_file *script = pb_embedded_find("plots/quality-sweep.gp");
    if (!script) return pb_err_set(err, "no plot script plots/quality-sweep.gp");
    /* Swept groups become lines against the parameter; the others,
     * horizontal lines at their statistic. */
    char series[2048] = "", xlabel[64] = "";
    size_t off = 0;
    char hlines[4096] = "";
    size_t hoff = 0;
    int nh = 0;
    for (size_t i = 0; i < cfg->ninst; i++) {
        const pb_qinstance *qi = &cfg->inst[i];
        if (qi->param[0]) {
            if (!xlabel[0]) snprintf(xlabel, sizeof xlabel, "%s", qi->param);
            if (!has_word(series, qi->group) && off < sizeof series)
                off += (size_t)snprintf(series + off, sizeof series - off, "%s%s", off ? " " : "",
                                        qi->group);
            continue;
        }
        const pb_qrow *r = find(run, qi->in.label, fig->n, fig->test);
        if (!r || !isfinite(r->r.statistic) || !(r->r.statistic > 0) || hoff >= sizeof hlines) continue;
        nh++;
        hoff += (size_t)snprintf(hlines + hoff, sizeof hlines - hoff,
                                 "h%d = %.10g\nh%d_title = '%s (%s)'\n", nh, r->r.statistic, nh,
                                 qi->in.label, pb_verdict_name(r->r.verdict));
    }
    if (!series[0]) return 0;
    /* Thresholds: the same for every row of a test at this n and sample count. */
    char thr[1024] = "";
    size_t toff = 0;
    int nt = 0;
    const char *tests[2] = {fig->test, NULL};
    const char *names[2] = {NULL, NULL};
    if (strcmp(fig->kind, "mmd") == 0) {
        tests[0] = cfg->hoeffding ? "mmd-hoeffding" : NULL;
        tests[1] = cfg->clt ? "mmd-clt" : NULL;
        names[0] = "Hoeffding bound (eq. 4)";
        names[1] = "CLT bound (eq. 5)";
    } else {
        names[0] = "chi-square threshold";
    }
    for (int t = 0; t < 2; t++) {
        if (!tests[t]) continue;
        for (size_t i = 0; i < run->nrows; i++) {
            const pb_qrow *r = &run->rows[i];
            if (r->n != fig->n || strcmp(r->test, tests[t]) != 0 || !isfinite(r->r.threshold)) continue;
            nt++;
            toff += (size_t)snprintf(thr + toff, sizeof thr - toff,
                                     "t%d = %.10g\nt%d_title = '%s, alpha = %g'\n", nt,
                                     r->r.threshold, nt, names[t], cfg->alpha);
            break;
        }
    }
    char title[320];
    char sb[32];
    snprintf(title, sizeof title, "%s (n = %u, %s samples each)", cfg->title, fig->n,
             samples_text(fig->samples, sb, sizeof sb));
    if (!quotable(dir) || !quotable(title))
        return pb_err_set(err, "cannot plot: a quote character in the directory or title");

    static const char *const terms[][2] = {
        {"pngcairo size 1100,650 font 'sans,10'", "png"},
        {"svg size 1100,650 dynamic font 'sans,10'", "svg"},
    };
    for (size_t t = 0; t < 2; t++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "'%s'", gnuplot);
        FILE *g = popen(cmd, "w");
        if (!g) return pb_err_set(err, "cannot start %s", gnuplot);
        fprintf(g,
                "datafile = '%s/quality.csv'\ntitle = '%s'\nn = %u\ntest = '%s'\nxlabel = '%s'\n"
                "ylabel = '%s'\nseries = '%s'\nnh = %d\n%snt = %d\n%s",
                dir, title, fig->n, fig->test, xlabel, fig->ylabel, series, nh, hlines, nt, thr);
        fprintf(g, "set terminal %s\nset output '%s/%s-n%u.%s'\n", terms[t][0], dir, fig->kind,
                fig->n, terms[t][1]);
        fwrite(script->data, 1, script->len, g);
        fputs("\nset output\n", g);
        int st = pclose(g);
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            return pb_err_set(err, "gnuplot failed drawing %s/%s-n%u.%s", dir, fig->kind, fig->n,
                              terms[t][1]);
    }
    return 1;
}

int pb_quality_plot(const char *gnuplot, const char *dir, const pb_quality_config *cfg,
                    const pb_qrun *run, bool quiet, pb_err *err)
{
    for (int k = 0; k < PB_QT_KINDS; k++) {
        if (k == PB_QT_DUPLICATES) continue; /* repeats are 0 or a failure: nothing to draw */
        const pb_qtest_spec *t = &cfg->test[k];
        for (size_t i = 0; i < t->nn; i++) {
            figure fig = {k == PB_QT_CHISQ ? "chisq" : "mmd",
                          k == PB_QT_CHISQ ? "chisq" : (cfg->clt ? "mmd-clt" : "mmd-hoeffding"),
                          k == PB_QT_CHISQ ? "chi-square statistic" : "|MMD^2| (Mallows kernel)",
                          (uint32_t)t->ns[i], t->samples};
            int rc = draw(gnuplot, dir, cfg, run, &fig, err);
            if (rc < 0) return -1;
            if (rc > 0 && !quiet)
                printf("figure: %s/%s-n%u.png, %s/%s-n%u.svg\n", dir, fig.kind, fig.n, dir,
                       fig.kind, fig.n);
        }
    }
    return 0;
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

/* The test names of rows, as the runner spells them (rows point at these). */
static const char *test_name(const char *s)
{
    static const char *const names[] = {"chisq", "mmd-hoeffding", "mmd-clt", "duplicates"};
    for (size_t i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) return names[i];
    return NULL;
}

int pb_quality_replot(const char *dir, bool quiet, pb_err *err)
{
    char path[1100], gnuplot[1024];
    snprintf(path, sizeof path, "%s/quality.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root) return pb_err_set(err, "%s: %s", path, je.text);
    int rc = -1;
    pb_quality_config cfg;
    pb_qrun run;
    memset(&cfg, 0, sizeof cfg);
    memset(&run, 0, sizeof run);
    json_t *q = json_object_get(root, "quality"), *inst = json_object_get(root, "instances"),
           *rows = json_object_get(root, "rows");
    if (!json_is_object(q) || !json_is_array(inst) || !json_is_array(rows)) {
        pb_err_set(err, "%s: not a permbench quality results file", path);
        goto out;
    }
    if (!json_is_true(json_object_get(q, "plot"))) {
        rc = 0; /* the run drew no figures */
        goto out;
    }
    snprintf(cfg.title, sizeof cfg.title, "%s", jstr(q, "title"));
    cfg.alpha = jnum(q, "alpha");
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(q, "mmd_bounds"), i, v)
    {
        if (strcmp(json_string_value(v) ? json_string_value(v) : "", "hoeffding") == 0) cfg.hoeffding = true;
        if (strcmp(json_string_value(v) ? json_string_value(v) : "", "clt") == 0) cfg.clt = true;
    }
    json_t *tests = json_object_get(q, "tests");
    for (int k = 0; k < PB_QT_KINDS; k++) {
        json_t *t = json_object_get(tests, pb_qtest_key[k]);
        if (!t) continue;
        cfg.test[k].samples = (uint64_t)json_integer_value(json_object_get(t, "samples"));
        json_array_foreach(json_object_get(t, "n"), i, v) if (cfg.test[k].nn < PB_Q_MAX_N)
            cfg.test[k].ns[cfg.test[k].nn++] = (uint64_t)json_integer_value(v);
    }
    cfg.ninst = json_array_size(inst);
    cfg.inst = calloc(cfg.ninst ? cfg.ninst : 1, sizeof *cfg.inst);
    run.nrows = run.cap = json_array_size(rows);
    run.rows = calloc(run.nrows ? run.nrows : 1, sizeof *run.rows);
    if (!cfg.inst || !run.rows) {
        pb_err_set(err, "out of memory");
        goto out;
    }
    json_array_foreach(inst, i, v)
    {
        pb_qinstance *qi = &cfg.inst[i];
        snprintf(qi->in.label, sizeof qi->in.label, "%s", jstr(v, "label"));
        snprintf(qi->group, sizeof qi->group, "%s", jstr(v, "group"));
        snprintf(qi->param, sizeof qi->param, "%s", jstr(v, "swept_param"));
        qi->value = (long long)json_integer_value(json_object_get(v, "value"));
    }
    json_array_foreach(rows, i, v)
    {
        pb_qrow *r = &run.rows[i];
        for (size_t k = 0; k < cfg.ninst; k++)
            if (strcmp(cfg.inst[k].in.label, jstr(v, "label")) == 0) r->qi = &cfg.inst[k];
        r->test = test_name(jstr(v, "test"));
        if (!r->qi || !r->test) {
            pb_err_set(err, "%s: row %zu names an unknown instance or test", path, i);
            goto out;
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
    if (!pb_gnuplot_find(gnuplot, sizeof gnuplot)) {
        pb_err_set(err, "gnuplot not found on PATH (install gnuplot-nox, or set PERMBENCH_GNUPLOT)");
        goto out;
    }
    rc = pb_quality_plot(gnuplot, dir, &cfg, &run, quiet, err);
out:
    free(cfg.inst);
    free(run.rows);
    json_decref(root);
    return rc;
}

#include "harness/quality_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "harness/embedded.h"

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

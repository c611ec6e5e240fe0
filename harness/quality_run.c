#include "harness/quality_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness/registry.h"
#include "harness/runner.h"
#include "stats/chisq.h"
#include "stats/duplicates.h"
#include "stats/inversions.h"
#include "stats/mmd.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t pb_quality_batch(const pb_quality_config *cfg, uint64_t n)
{
    uint64_t most = PB_Q_MAX_BATCH_BYTES / (n * sizeof(uint32_t));
    if (most < 1) most = 1;
    return cfg->batch < most ? cfg->batch : most;
}

static pb_qrow *new_row(pb_qrun *run, pb_err *err)
{
    if (run->nrows == run->cap) {
        size_t cap = run->cap ? run->cap * 2 : 64;
        pb_qrow *r = realloc(run->rows, cap * sizeof *r);
        if (!r) return pb_err_set(err, "out of memory"), NULL;
        run->rows = r;
        run->cap = cap;
    }
    pb_qrow *row = &run->rows[run->nrows++];
    memset(row, 0, sizeof *row);
    return row;
}

/* The tests one (instance, n) runs, with how many samples each takes. */
typedef struct group {
    bool chisq, mmd, dups;
    uint64_t n_chisq, n_mmd, n_dups, total;
    uint64_t bad_chisq, bad_mmd, bad_dups; /* samples that were not permutations */
    pb_chisq c;
    pb_mmd m;
    pb_dups d;
} group;

static bool has_n(const pb_qtest_spec *t, uint64_t n)
{
    for (size_t i = 0; i < t->nn; i++)
        if (t->ns[i] == n) return true;
    return false;
}

static void plan_group(const pb_quality_config *cfg, uint64_t n, group *g)
{
    memset(g, 0, sizeof *g);
    g->chisq = has_n(&cfg->test[PB_QT_CHISQ], n);
    g->mmd = has_n(&cfg->test[PB_QT_MMD], n);
    g->dups = has_n(&cfg->test[PB_QT_DUPLICATES], n);
    if (g->chisq) g->n_chisq = cfg->test[PB_QT_CHISQ].samples;
    if (g->mmd) g->n_mmd = cfg->test[PB_QT_MMD].samples;
    if (g->dups) g->n_dups = cfg->test[PB_QT_DUPLICATES].samples;
    g->total = g->n_chisq > g->n_mmd ? g->n_chisq : g->n_mmd;
    if (g->n_dups > g->total) g->total = g->n_dups;
}

/* Work of drawing and testing N permutations of n, for the time estimate. */
static double work(uint64_t n, uint64_t samples) { return (double)samples * (double)(n + 8); }

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Checks each of `count` permutations; bad[t] = how many of the first
 * upto[t] were not permutations of [0, n). */
static void count_invalid(const uint32_t *perms, uint32_t n, uint64_t count, unsigned char *ok,
                          const uint64_t upto[3], uint64_t bad[3])
{
#pragma omp parallel
    {
        unsigned char *seen = malloc(n);
#pragma omp for schedule(static)
        for (uint64_t j = 0; j < count; j++)
            ok[j] = seen ? (unsigned char)pb_is_permutation(perms + j * n, n, seen) : 1;
        free(seen);
    }
    for (int t = 0; t < 3; t++) {
        bad[t] = 0;
        for (uint64_t j = 0; j < count && j < upto[t]; j++) bad[t] += !ok[j];
    }
}

/* Resolved parameters: `threads` (0 = all cores) becomes the count. */
static void resolve_params(const pb_qinstance *qi, pb_params *p)
{
    *p = qi->in.params;
    int ti = pb_module_param_index(qi->in.mod, "threads");
    if (ti >= 0) p->v[ti] = pb_instance_threads(&qi->in);
}

static int emit(const pb_quality_config *cfg, const pb_qinstance *qi, uint64_t n, const char *test,
                const pb_test_result *r, double secs, const char *error, const pb_qhooks *hooks,
                pb_qrun *run, pb_err *err)
{
    pb_qrow *row = new_row(run, err);
    if (!row) return -1;
    row->qi = qi;
    row->n = (uint32_t)n;
    row->test = test;
    row->alpha = cfg->alpha;
    row->seconds = secs;
    if (r) row->r = *r;
    if (error) {
        row->error = true;
        row->r.verdict = PB_VERDICT_FAIL;
        row->r.statistic = row->r.threshold = row->r.p_value = NAN;
        snprintf(row->message, sizeof row->message, "%s", error);
    } else if (row->r.invalid) {
        snprintf(row->message, sizeof row->message,
                 "%llu of %llu samples were not permutations of [0, n)",
                 (unsigned long long)row->r.invalid, (unsigned long long)row->r.samples);
    }
    if (hooks && hooks->on_row) hooks->on_row(run, row, hooks->user);
    return 0;
}

/* Samples that were not permutations make a test FAIL whatever it saw. */
static void mark_invalid(pb_test_result *r, uint64_t bad)
{
    if (bad > r->invalid) r->invalid = bad;
    if (r->invalid) {
        r->reject = true;
        r->verdict = PB_VERDICT_FAIL;
    }
}

static int emit_group(const pb_quality_config *cfg, const pb_qinstance *qi, uint64_t n, group *g,
                      double secs, const char *error, const pb_qhooks *hooks, pb_qrun *run,
                      pb_err *err)
{
    pb_test_result r;
    if (g->chisq) {
        if (!error) pb_chisq_result(&g->c, cfg->alpha, &r), mark_invalid(&r, g->bad_chisq);
        if (emit(cfg, qi, n, "chisq", error ? NULL : &r, secs, error, hooks, run, err)) return -1;
    }
    if (g->mmd && cfg->hoeffding) {
        if (!error) pb_mmd_result_hoeffding(&g->m, cfg->alpha, &r), mark_invalid(&r, g->bad_mmd);
        if (emit(cfg, qi, n, "mmd-hoeffding", error ? NULL : &r, secs, error, hooks, run, err))
            return -1;
    }
    if (g->mmd && cfg->clt) {
        if (!error) pb_mmd_result_clt(&g->m, cfg->alpha, &r), mark_invalid(&r, g->bad_mmd);
        if (emit(cfg, qi, n, "mmd-clt", error ? NULL : &r, secs, error, hooks, run, err)) return -1;
    }
    if (g->dups) {
        if (!error) pb_dups_result(&g->d, cfg->alpha, &r), mark_invalid(&r, g->bad_dups);
        if (emit(cfg, qi, n, "duplicates", error ? NULL : &r, secs, error, hooks, run, err))
            return -1;
    }
    return 0;
}

int pb_quality_run(const pb_quality_config *cfg, const pb_qhooks *hooks, pb_qrun *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    uint64_t ns[PB_QT_KINDS * PB_Q_MAX_N];
    size_t nn = pb_quality_config_sizes(cfg, ns, sizeof ns / sizeof ns[0]);
    double total_work = 0, done_work = 0, t0 = now();
    for (size_t k = 0; k < nn; k++) {
        group g;
        plan_group(cfg, ns[k], &g);
        total_work += (double)cfg->ninst * work(ns[k], g.total);
    }
    int rc = 0;
    for (size_t i = 0; i < cfg->ninst && !rc; i++) {
        const pb_qinstance *qi = &cfg->inst[i];
        pb_params params;
        resolve_params(qi, &params);
        for (size_t k = 0; k < nn && !rc; k++) {
            uint64_t n = ns[k];
            group g;
            plan_group(cfg, n, &g);
            uint64_t batch = pb_quality_batch(cfg, n);
            double g0 = now();
            char error[600] = "";
            uint32_t *buf = malloc((size_t)(batch * n * sizeof *buf));
            unsigned char *ok = malloc((size_t)batch);
            if (!buf || !ok) {
                free(buf);
                free(ok);
                rc = pb_err_set(err, "out of memory for %llu permutations of %llu",
                                (unsigned long long)batch, (unsigned long long)n);
                break;
            }
            pb_err e;
            if ((g.chisq && pb_chisq_init(&g.c, (unsigned)n, &e)) ||
                (g.mmd && pb_mmd_init(&g.m, (uint32_t)n, cfg->lambda, &e)) ||
                (g.dups && pb_dups_init(&g.d, (uint32_t)n, g.n_dups, &e))) {
                snprintf(error, sizeof error, "%s", e.msg);
            }
            for (uint64_t first = 0; first < g.total && !error[0]; first += batch) {
                uint64_t cnt = min_u64(batch, g.total - first);
                if (qi->in.mod->sample_perms(&params, (uint32_t)n, cfg->seed, first, cnt, buf, &e)) {
                    snprintf(error, sizeof error, "sample_perms failed: %s", e.msg);
                    break;
                }
                /* Every sample must be a permutation of [0, n), whatever the
                 * tests look at (the duplicate test only hashes). */
                uint64_t bad[3], upto[3] = {g.n_chisq - min_u64(first, g.n_chisq),
                                            g.n_mmd - min_u64(first, g.n_mmd),
                                            g.n_dups - min_u64(first, g.n_dups)};
                count_invalid(buf, (uint32_t)n, cnt, ok, upto, bad);
                g.bad_chisq += bad[0];
                g.bad_mmd += bad[1];
                g.bad_dups += bad[2];
                if (first < g.n_chisq) pb_chisq_add(&g.c, buf, min_u64(cnt, g.n_chisq - first));
                if (first < g.n_mmd &&
                    pb_mmd_add(&g.m, buf, min_u64(cnt, g.n_mmd - first), &e)) {
                    snprintf(error, sizeof error, "%s", e.msg);
                    break;
                }
                if (first < g.n_dups) pb_dups_add(&g.d, buf, min_u64(cnt, g.n_dups - first));
                run->permutations += cnt;
                done_work += work(n, cnt);
                double el = now() - t0;
                double eta = done_work > 0 && el > 1 ? el * (total_work - done_work) / done_work : -1;
                if (hooks && hooks->on_progress)
                    hooks->on_progress(qi, (uint32_t)n, first + cnt, g.total, done_work / total_work,
                                       eta, hooks->user);
            }
            free(buf);
            free(ok);
            if (emit_group(cfg, qi, n, &g, now() - g0, error[0] ? error : NULL, hooks, run, err))
                rc = -1;
            if (g.chisq) pb_chisq_free(&g.c);
            if (g.dups) pb_dups_free(&g.d);
        }
    }
    run->wall_s = now() - t0;
    return rc;
}

bool pb_qrun_passed(const pb_qrun *run)
{
    for (size_t i = 0; i < run->nrows; i++)
        if (run->rows[i].r.verdict == PB_VERDICT_FAIL) return false;
    return true;
}

void pb_qrun_free(pb_qrun *run)
{
    free(run->rows);
    memset(run, 0, sizeof *run);
}

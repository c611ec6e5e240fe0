#include "quality/battery.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "families/shuffle/shuffle_hooks.h"
#include "output/interrupt.h"
#include "quality/perm_reader.h"
#include "stats/inversions.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

uint64_t pb_quality_batch_of(uint64_t batch, uint64_t n)
{
    uint64_t most = PB_Q_MAX_BATCH_BYTES / (n * sizeof(uint32_t));
    if (most < 1) most = 1;
    return batch < most ? batch : most;
}

uint64_t pb_quality_batch(const pb_quality_config *cfg, uint64_t n) { return pb_quality_batch_of(cfg->batch, n); }

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* One test running at one (instance, n): the first `samples` draws feed it. */
typedef struct active {
    const pb_qtest *qt;
    const pb_qtest_spec *spec;
    void *state;
    uint64_t bad; /* of its samples, not permutations of [0, n) */
} active;

/* The tests that run at n, and the draws they need (the most any takes). */
static size_t plan(const pb_quality_config *cfg, uint64_t n, active *a, uint64_t *total)
{
    size_t na = 0;
    *total = 0;
    for (size_t k = 0; k < pb_qtest_count(); k++)
        if (pb_qtest_spec_has(&cfg->test[k], n)) {
            a[na++] = (active){pb_qtest_at(k), &cfg->test[k], NULL, 0};
            if (cfg->test[k].samples > *total) *total = cfg->test[k].samples;
        }
    return na;
}

/* Work of drawing and testing N permutations of n, for the time estimate. */
static double work(uint64_t n, uint64_t samples) { return (double)samples * (double)(n + 8); }

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

/* Marks which of `count` permutations are valid (ok[j]). */
static void check_perms(const uint32_t *perms, uint32_t n, uint64_t count, unsigned char *ok)
{
#pragma omp parallel
    {
        unsigned char *seen = malloc(n);
#pragma omp for schedule(static)
        for (uint64_t j = 0; j < count; j++)
            ok[j] = seen ? (unsigned char)pb_is_permutation(perms + j * n, n, seen) : 1;
        free(seen);
    }
}

/* One row per selected result of each active test. Samples that were not
 * permutations make a result FAIL whatever the test saw; an error (the
 * module could not draw, a test could not start) fails them all. */
static int emit(const pb_quality_config *cfg, const pb_instance *in, uint64_t n, active *a,
                size_t na, double secs, const char *error, const pb_qhooks *hooks, pb_qrun *run,
                pb_err *err)
{
    for (size_t t = 0; t < na; t++)
        for (size_t w = 0; w < a[t].qt->nresults; w++) {
            if (!(a[t].spec->select & (1u << w))) continue;
            pb_qrow *row = new_row(run, err);
            if (!row) return -1;
            row->in = in;
            row->n = (uint32_t)n;
            row->qt = a[t].qt;
            row->test = a[t].qt->results[w];
            row->alpha = cfg->settings.alpha;
            row->seconds = secs;
            if (error) {
                row->error = true;
                row->r.verdict = PB_VERDICT_FAIL;
                row->r.statistic = row->r.threshold = row->r.p_value = NAN;
                snprintf(row->message, sizeof row->message, "%s", error);
            } else {
                a[t].qt->finish(a[t].state, w, &cfg->settings, &row->r);
                if (a[t].bad > row->r.invalid) row->r.invalid = a[t].bad;
                if (row->r.invalid) {
                    row->r.reject = true;
                    row->r.verdict = PB_VERDICT_FAIL;
                    snprintf(row->message, sizeof row->message,
                             "%llu of %llu samples were not permutations of [0, n)",
                             (unsigned long long)row->r.invalid, (unsigned long long)row->r.samples);
                }
            }
            if (hooks && hooks->on_row) hooks->on_row(run, row, hooks->user);
        }
    return 0;
}

/* Where an instance's draws come from, a batch at a time: its module's
 * sample hook (draw j is sample j of the seed), or an external input read
 * in order (draw j is its row j + 1), opened for the one n it has. */
typedef struct source {
    const pb_instance *in;
    pb_params params;
    const pb_qinput *input; /* NULL: the module's */
    pb_perm_reader reader;
    bool open;
    char where[1200]; /* "config:line: [label] " before an input's messages */
} source;

static int source_open(source *s, const pb_quality_config *cfg, const pb_instance *in, pb_err *err)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->input = pb_quality_config_input(cfg, in);
    if (!s->input) {
        pb_instance_resolved_params(in, &s->params);
        return 0;
    }
    if (s->input->line)
        snprintf(s->where, sizeof s->where, "%s:%d: [%s] ", cfg->path, s->input->line, s->input->label);
    pb_err e;
    if (pb_perm_reader_open(&s->reader, s->input->open_path, s->input->path, s->input->n, s->input->format, &e))
        return pb_err_set(err, "%s%s", s->where, e.msg), PB_QRUN_BAD_INPUT;
    s->open = true;
    return 0;
}

/* Draws first .. first + count - 1 into out. A module that fails is -1
 * (its rows are marked error); an input that is malformed or ends before
 * `total` rows is PB_QRUN_BAD_INPUT. */
static int source_fill(source *s, const pb_quality_config *cfg, uint32_t n, uint64_t first, uint64_t count,
                       uint64_t total, uint32_t *out, pb_err *err)
{
    if (!s->input) return pb_module_sample_perms(s->in->mod)(&s->params, n, cfg->seed, first, count, out, err);
    uint64_t got;
    pb_err e;
    if (pb_perm_reader_read(&s->reader, out, count, &got, &e))
        return pb_err_set(err, "%s%s", s->where, e.msg), PB_QRUN_BAD_INPUT;
    if (got == count) return 0;
    char who[256];
    return pb_err_set(err, "%s%s ends after %llu rows; at n = %u %s %llu", s->where, s->reader.name,
                      (unsigned long long)(first + got), n, pb_quality_config_needers(cfg, n, total, who, sizeof who),
                      (unsigned long long)total),
           PB_QRUN_BAD_INPUT;
}

/* An input is read to its end for the digest of the whole of it, which is
 * recorded with the rows tested. */
static int source_close(source *s, bool finish, pb_qrun *run, pb_err *err)
{
    if (!s->open) return 0;
    int rc = 0;
    pb_qinput_seen seen;
    memset(&seen, 0, sizeof seen);
    snprintf(seen.label, sizeof seen.label, "%s", s->input->label);
    seen.rows = s->reader.rows;
    pb_err e;
    if (finish) {
        pb_qinput_seen *grown = realloc(run->inputs, (run->ninputs + 1) * sizeof *grown);
        if (!grown) rc = pb_err_set(err, "out of memory");
        else if (pb_perm_reader_finish(&s->reader, seen.sha256, &seen.bytes, &e))
            rc = (pb_err_set(err, "%s%s", s->where, e.msg), PB_QRUN_BAD_INPUT);
        if (grown) run->inputs = grown;
        if (!rc) run->inputs[run->ninputs++] = seen;
    }
    pb_perm_reader_close(&s->reader);
    s->open = false;
    return rc;
}

const pb_qinput_seen *pb_qrun_input(const pb_qrun *run, const char *label)
{
    for (size_t i = 0; i < run->ninputs; i++)
        if (strcmp(run->inputs[i].label, label) == 0) return &run->inputs[i];
    return NULL;
}

/* Whether run->rows[0..had) already holds (in, n) (a resumed run). */
static bool finished(const pb_qrun *run, size_t had, const pb_instance *in, uint64_t n)
{
    for (size_t r = 0; r < had; r++)
        if (run->rows[r].in == in && run->rows[r].n == n) return true;
    return false;
}

static int battery(const pb_quality_config *cfg, const pb_qhooks *hooks, pb_qrun *run, pb_err *err)
{
    size_t had = run->nrows;
    run->interrupted = false;
    uint64_t ns[PB_Q_MAX_TESTS * PB_Q_MAX_N];
    size_t nn = pb_quality_config_sizes(cfg, ns, sizeof ns / sizeof ns[0]);
    active a[PB_Q_MAX_TESTS];
    double total_work = 0, done_work = 0, t0 = now();
    for (size_t i = 0; i < cfg->inst.n; i++) {
        const pb_qinput *input = pb_quality_config_input(cfg, &cfg->inst.v[i]);
        for (size_t k = 0; k < nn; k++) {
            uint64_t total;
            plan(cfg, ns[k], a, &total);
            if ((!input || input->n == ns[k]) && !finished(run, had, &cfg->inst.v[i], ns[k]))
                total_work += work(ns[k], total);
        }
    }
    int rc = 0;
    for (size_t i = 0; i < cfg->inst.n && !rc; i++) {
        const pb_instance *in = &cfg->inst.v[i];
        const pb_qinput *input = pb_quality_config_input(cfg, in);
        for (size_t k = 0; k < nn && !rc; k++) {
            uint64_t n = ns[k], total, batch = pb_quality_batch(cfg, n);
            if (input && input->n != n) continue; /* an input has one n */
            if (finished(run, had, in, n)) continue;
            if (pb_interrupted()) {
                run->interrupted = true;
                break;
            }
            size_t na = plan(cfg, n, a, &total);
            double g0 = now();
            char error[600] = "";
            source src;
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
            rc = source_open(&src, cfg, in, err);
            for (size_t t = 0; t < na && !error[0] && !rc; t++)
                if (a[t].qt->init(&a[t].state, (uint32_t)n, a[t].spec->samples, &cfg->settings, &e))
                    snprintf(error, sizeof error, "%s", e.msg);
            bool cut = false;
            uint64_t drawn = 0;
            for (uint64_t first = 0; first < total && !error[0] && !rc; first += batch) {
                if (pb_interrupted()) {
                    cut = run->interrupted = true;
                    break;
                }
                uint64_t cnt = min_u64(batch, total - first);
                int fill = source_fill(&src, cfg, (uint32_t)n, first, cnt, total, buf, &e);
                if (fill == PB_QRUN_BAD_INPUT) {
                    *err = e;
                    rc = fill;
                    break;
                }
                if (fill) {
                    snprintf(error, sizeof error, "sample_perms failed: %s", e.msg);
                    break;
                }
                /* Every sample must be a permutation of [0, n), whatever
                 * the tests look at (the duplicate test only hashes). */
                check_perms(buf, (uint32_t)n, cnt, ok);
                for (size_t t = 0; t < na && !error[0]; t++) {
                    uint64_t want = a[t].spec->samples;
                    if (first >= want) continue;
                    uint64_t take = min_u64(cnt, want - first);
                    for (uint64_t j = 0; j < take; j++) a[t].bad += !ok[j];
                    if (a[t].qt->add(a[t].state, buf, take, &e)) snprintf(error, sizeof error, "%s", e.msg);
                }
                run->permutations += cnt;
                drawn += cnt;
                done_work += work(n, cnt);
                double el = now() - t0;
                double eta = done_work > 0 && el > 1 ? el * (total_work - done_work) / done_work : -1;
                if (hooks && hooks->on_progress)
                    hooks->on_progress(in, (uint32_t)n, first + cnt, total, done_work / total_work, eta,
                                       hooks->user);
            }
            free(buf);
            free(ok);
            if (cut) run->permutations -= drawn; /* drawn again on resume */
            int closed = source_close(&src, !rc && !error[0] && !cut, run, &e);
            if (closed && !rc) {
                *err = e;
                rc = closed;
            }
            /* A bad input gives no verdict: its rows are never made. */
            if (!rc && !cut && emit(cfg, in, n, a, na, now() - g0, error[0] ? error : NULL, hooks, run, err)) rc = -1;
            for (size_t t = 0; t < na; t++)
                if (a[t].state) a[t].qt->release(a[t].state);
        }
    }
    run->wall_s += now() - t0;
    return rc;
}

int pb_quality_run(const pb_quality_config *cfg, const pb_qhooks *hooks, pb_qrun *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    return battery(cfg, hooks, run, err);
}

int pb_quality_resume(const pb_quality_config *cfg, const pb_qhooks *hooks, pb_qrun *run, pb_err *err)
{
    return battery(cfg, hooks, run, err);
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
    free(run->inputs);
    memset(run, 0, sizeof *run);
}

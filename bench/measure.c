#include "bench/measure.h"

#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/interrupt.h"
#include "bench/stopping.h"
#include "config/params.h"
#include "core/cache_flush.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_hooks.h"
#include "registry/registry.h"

#define MAX_STREAMS 64

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pb_row_work(const pb_instance *in, uint64_t n, unsigned item_bytes, double *items,
                 double *bytes)
{
    /* The module's own family, not the sweep's: a ceiling counts the bytes
     * it moves itself (a copy reads and writes each item once), so the
     * algorithms' share of it is their bound's share of the bandwidth. */
    *items = (double)n;
    *bytes = in->mod->family->bound_bytes(n, item_bytes);
    if (in->mod->work) {
        pb_point pt = {n, item_bytes, 0, &in->params, pb_instance_threads(in)};
        in->mod->work(&pt, items, bytes);
    }
}

void pb_row_rates(const pb_instance *in, pb_row *row)
{
    double s = row->ms.median * 1e-3, items, bytes;
    /* GB/s of payload over the links at the median time. */
    if (!isnan(row->link_bytes) && row->ms.median > 0) row->link_gbps = row->link_bytes / (row->ms.median * 1e6);
    pb_row_work(in, row->n, row->item_bytes, &items, &bytes);
    row->items_per_s = s > 0 ? items / s : 0;
    row->gbps = s > 0 ? bytes / s / 1e9 : 0;
    row->verified = row->status == PB_ROW_OK;
}

static void fail_row(pb_row *row, pb_row_status status, const char *fmt, ...) PB_PRINTF(3, 4);

static void fail_row(pb_row *row, pb_row_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->message, sizeof row->message, fmt, ap);
    va_end(ap);
    row->status = status;
}

/* The contract check: the module's verify, or its family's. */
static int check_contract(const pb_module *m, void *state, const pb_point *pt, pb_err *err)
{
    if (m->verify) return m->verify(state, err);
    if (m->family->check) return m->family->check(m, state, pt, err);
    return pb_err_set(err, "module %s has no verify, and the %s family no contract check", m->name,
                      m->family->name);
}

/* The reference that can stand for `m` here, or NULL with the reason. */
static const pb_module *usable_reference(const pb_module *m, char *why, size_t len)
{
    why[0] = '\0';
    if (!m->reference) return NULL;
    if (m->flags & PB_MOD_NONDETERMINISTIC) {
        snprintf(why, len, "nondeterministic");
        return NULL;
    }
    const pb_module *r = pb_module_find(m->reference);
    char avail[256];
    if (!r || !m->fingerprint || !r->fingerprint) {
        snprintf(why, len, "reference %s not in this build", m->reference);
        return NULL;
    }
    if (!pb_module_available(r, avail, sizeof avail)) {
        snprintf(why, len, "reference %s cannot run here: %s", r->name, avail);
        return NULL;
    }
    return r;
}

/* The reference's parameters: its defaults, then every one the instance
 * gives by the same name (bijection, rounds); `threads` all cores. */
static void reference_params(const pb_module *r, const pb_instance *in, pb_params *p)
{
    pb_params_defaults(r, p);
    for (size_t i = 0; i < r->nparams; i++) {
        int j = pb_module_param_index(in->mod, r->params[i].name);
        if (strcmp(r->params[i].name, "threads") == 0) p->v[i] = omp_get_num_procs();
        else if (j >= 0) p->v[i] = in->params.v[j];
    }
}

static void expect_key(char *key, size_t len, const pb_module *r, const pb_params *p,
                       const pb_point *pt, uint64_t stream)
{
    size_t off = (size_t)snprintf(key, len, "%s|%llu|%u|%llu|%llu|", r->name,
                                  (unsigned long long)pt->n, pt->item_bytes,
                                  (unsigned long long)pt->seed, (unsigned long long)stream);
    for (size_t i = 0; i < r->nparams && off < len; i++)
        if (strcmp(r->params[i].name, "threads") != 0)
            off += (size_t)snprintf(key + off, len - off, "%lld,", p->v[i]);
}

static bool expect_find(const pb_run *run, const char *key, uint64_t *fp)
{
    for (size_t i = 0; i < run->nexpect; i++)
        if (strcmp(run->expect[i].key, key) == 0) return *fp = run->expect[i].fp, true;
    return false;
}

static int expect_add(pb_run *run, const char *key, uint64_t fp, pb_err *err)
{
    if (run->nexpect == run->capexpect) {
        size_t cap = run->capexpect ? 2 * run->capexpect : 64;
        pb_expectation *e = realloc(run->expect, cap * sizeof *e);
        if (!e) return pb_err_set(err, "out of memory");
        run->expect = e;
        run->capexpect = cap;
    }
    snprintf(run->expect[run->nexpect].key, sizeof run->expect[0].key, "%s", key);
    run->expect[run->nexpect++].fp = fp;
    return 0;
}

/* The reference's fingerprint for each of `streams` streams, computing the
 * ones the run does not have yet: the reference is prepared once, then per
 * stream refreshed, run, checked against its contract, fingerprinted. */
static int expectations(pb_run *run, const pb_module *r, const pb_instance *in,
                        const pb_point *pt, int streams, uint64_t *fps, pb_err *err)
{
    pb_params rp;
    reference_params(r, in, &rp);
    pb_point rpt = *pt;
    rpt.params = &rp;
    rpt.threads = r->device == PB_DEVICE_CPU ? omp_get_num_procs() : 0;
    void *state = NULL;
    int rc = 0;
    for (int s = 0; s < streams && !rc; s++) {
        char key[sizeof run->expect[0].key];
        expect_key(key, sizeof key, r, &rp, pt, (uint64_t)s);
        if (expect_find(run, key, &fps[s])) continue;
        if (!state && r->prepare(&rpt, &state, err)) {
            rc = -1;
            break;
        }
        if (r->refresh(state, err) || r->run(state, (uint64_t)s, err) ||
            (r->device == PB_DEVICE_GPU && pb_gpu_sync(err)) || check_contract(r, state, &rpt, err) ||
            r->fingerprint(state, &fps[s], err) || expect_add(run, key, fps[s], err))
            rc = -1;
    }
    if (state) r->release(state);
    return rc;
}

static int grow(double **a, size_t n, size_t *cap)
{
    if (n < *cap) return 0;
    size_t c = *cap ? 2 * *cap : 64;
    double *p = realloc(*a, c * sizeof *p);
    if (!p) return -1;
    *a = p;
    *cap = c;
    return 0;
}

/* One timed sample: events (GPU) or the clock (CPU) around run(), and the
 * host wall time of the call. On the GPU the stream is held by a blocking
 * kernel while run() queues its work (NVBench's cold measurement), so the
 * events time the GPU alone and the launches never stretch them; the wall
 * time is then the launch time on the host plus the time from the release
 * to the end of the work: what a caller launching on an idle GPU waits. A
 * run() that waits for the GPU itself (a synchronising call) would wait
 * for the held stream: the hold gives up, the sample is taken again with
 * the stream not held (*held = false, return 1), and the row says so. */
static int time_one(const pb_config *cfg, const pb_module *m, void *state, uint64_t stream,
                    bool *held, double *ms, double *wall_ms, pb_err *err)
{
    if (m->device == PB_DEVICE_GPU) {
        if (cfg->flush_cache && pb_gpu_flush_cache(err)) return -1;
        if (pb_gpu_sync(err)) return -1;
        if (*held && pb_gpu_hold(err)) return -1;
        double w0 = now_s();
        int rc = pb_gpu_timer_start(err) || m->run(state, stream, err) || pb_gpu_timer_mark(err);
        double w1 = now_s();
        if (*held) pb_gpu_release(err);
        if (rc) return -1;
        double w2 = now_s();
        if (pb_gpu_timer_elapsed(ms, err)) return -1;
        double w3 = now_s();
        if (*held && pb_gpu_hold_gave_up()) {
            *held = false;
            return 1;
        }
        *wall_ms = (*held ? (w1 - w0) + (w3 - w2) : w3 - w0) * 1e3;
        return 0;
    }
    if (cfg->flush_cache) pb_cpu_flush_cache();
    double t0 = now_s();
    int rc = m->run(state, stream, err);
    *ms = *wall_ms = (now_s() - t0) * 1e3;
    return rc;
}

void pb_measure_point(const pb_config *cfg, pb_run *run, const pb_instance *in, pb_row *row)
{
    const pb_module *m = in->mod;
    pb_params params;
    pb_instance_resolved_params(in, &params);
    pb_point pt = {row->n, row->item_bytes, cfg->seed, &params, row->threads};
    pb_err err = {{0}};
    void *state = NULL;
    row->status = PB_ROW_ERROR;
    row->pct_copy = NAN;
    row->speedup_vs_ref = NAN;
    row->link_bytes = row->link_gbps = NAN;
    row->topology[0] = '\0';
    row->path[0] = '\0';
    row->failed_sample = -1;
    row->held = m->device == PB_DEVICE_GPU && cfg->hold;

    /* What each sample is checked against. A module with a reference cycles
     * through cfg->streams streams (one for an unseeded module), so the
     * reference runs once a stream; every other module draws a fresh stream
     * each sample, as there is nothing to compute ahead. */
    char why[300];
    const pb_module *ref = usable_reference(m, why, sizeof why);
    uint64_t streams = !ref ? UINT64_MAX : m->flags & PB_MOD_SEEDED ? (uint64_t)cfg->streams : 1;
    if (ref && streams > MAX_STREAMS) streams = MAX_STREAMS;
    /* No more streams than calls the stopping rule allows. */
    if (ref && streams > (uint64_t)cfg->warmup + (uint64_t)cfg->max_samples)
        streams = (uint64_t)cfg->warmup + (uint64_t)cfg->max_samples;
    uint64_t fps[MAX_STREAMS];
    /* Seeded modules without a reference: no two consecutive samples may
     * give the same output where n! makes that all but impossible (one
     * that hands back an earlier sample's output is caught). */
    bool stale_check = !ref && (m->flags & PB_MOD_SEEDED) && m->fingerprint && row->n >= 16;
    uint64_t last_fp = 0;
    double t0 = now_s();
    if (ref) {
        if (expectations(run, ref, in, &pt, (int)streams, fps, &err)) {
            fail_row(row, PB_ROW_ERROR, "reference %s: %s", ref->name, err.msg);
            return;
        }
        snprintf(row->check, sizeof row->check, "fingerprint of %s's output", ref->name);
    } else {
        snprintf(row->check, sizeof row->check, "%s%s%s%s%s",
                 m->verify ? "the module's verify" : "the family check",
                 stale_check ? ", and unlike the last sample" : "", why[0] ? " (" : "", why,
                 why[0] ? ")" : "");
    }
    row->check_s += now_s() - t0;

    if (m->prepare(&pt, &state, &err)) {
        fail_row(row, PB_ROW_ERROR, "prepare: %s", err.msg);
        if (state) m->release(state);
        return;
    }
    const char *path = m->path ? m->path(state) : NULL;
    if (path) snprintf(row->path, sizeof row->path, "%s", path);
    /* Warm-ups take the first sample numbers, refreshed like samples. */
    uint64_t sample = 0;
    bool have_last = false;
    for (int w = 0; w < cfg->warmup; w++, sample++)
        if (m->refresh(state, &err) || m->run(state, sample % streams, &err) ||
            (m->device == PB_DEVICE_GPU && pb_gpu_sync(&err)) ||
            (stale_check && (have_last = true) && m->fingerprint(state, &last_fp, &err))) {
            fail_row(row, PB_ROW_ERROR, "warm-up: %s", err.msg);
            m->release(state);
            return;
        }

    pb_stopping stop = {cfg->min_samples, cfg->max_samples, cfg->min_time, cfg->timeout,
                        cfg->max_noise};
    pb_noise noise = {0};
    size_t cap = 0, wcap = 0;
    /* Each sample's bytes between devices (pb_module.links), for the median. */
    double *link_bytes = NULL;
    size_t nlinks = 0, lcap = 0;
    double start = now_s();
    pb_stop why_stop = PB_GO_ON;
    for (size_t k = 0; why_stop == PB_GO_ON; k++, sample++) {
        uint64_t stream = sample % streams;
        double c0 = now_s();
        if (m->refresh(state, &err)) {
            fail_row(row, PB_ROW_ERROR, "refresh: %s", err.msg);
            break;
        }
        row->check_s += now_s() - c0;
        double ms, wall;
        int t = time_one(cfg, m, state, stream, &row->held, &ms, &wall, &err);
        if (t > 0) /* the hold gave up: again, the stream not held */
            t = m->refresh(state, &err) ? -1 : time_one(cfg, m, state, stream, &row->held, &ms, &wall, &err);
        if (t) {
            fail_row(row, PB_ROW_ERROR, "run, sample %zu: %s", k, err.msg);
            break;
        }
        if (grow(&row->samples_ms, row->nsamples, &cap) || grow(&row->wall_ms, row->nsamples, &wcap) ||
            pb_noise_add(&noise, ms)) {
            fail_row(row, PB_ROW_ERROR, "out of memory for samples");
            break;
        }
        row->samples_ms[row->nsamples] = ms;
        row->wall_ms[row->nsamples++] = wall;
        c0 = now_s();
        int bad;
        if (ref) {
            uint64_t fp = 0;
            bad = m->fingerprint(state, &fp, &err);
            if (!bad && fp != fps[stream]) {
                /* Say what is wrong, if the contract check can; else that
                 * the output is not the reference's. */
                if (!check_contract(m, state, &pt, &err))
                    pb_err_set(&err, "the output is not %s's for this stream (fingerprint "
                                     "0x%016llx, expected 0x%016llx)",
                               ref->name, (unsigned long long)fp, (unsigned long long)fps[stream]);
                bad = -1;
            }
        } else {
            bad = check_contract(m, state, &pt, &err);
            uint64_t fp;
            if (!bad && stale_check && !(bad = m->fingerprint(state, &fp, &err))) {
                if (have_last && fp == last_fp)
                    bad = pb_err_set(&err, "the same output as the sample before (a stream apart)");
                last_fp = fp;
                have_last = true;
            }
        }
        /* What the sample sent between devices, asked after the check like
         * the check itself: outside the timed region. */
        int link_rc = 0;
        if (!bad && pb_module_links(m)) {
            pb_link_report rep = {0};
            link_rc = pb_module_links(m)(state, &rep, &err);
            rep.topology[sizeof rep.topology - 1] = '\0';
            if (!link_rc && !(isfinite(rep.bytes) && rep.bytes >= 0))
                link_rc = pb_err_set(&err, "%g bytes between devices is not a byte count",
                                     rep.bytes);
            if (!link_rc && grow(&link_bytes, nlinks, &lcap))
                link_rc = pb_err_set(&err, "out of memory for samples");
            if (!link_rc) {
                link_bytes[nlinks++] = rep.bytes;
                snprintf(row->topology, sizeof row->topology, "%s", rep.topology);
            }
        }
        row->check_s += now_s() - c0;
        if (bad) {
            row->failed_sample = (long)k;
            fail_row(row, PB_ROW_FAILED, "verification, sample %zu (stream %llu): %s", k,
                     (unsigned long long)stream, err.msg);
            break;
        }
        if (link_rc) {
            fail_row(row, PB_ROW_ERROR, "links, sample %zu: %s", k, err.msg);
            break;
        }
        why_stop = pb_stopping_check(&stop, &noise, now_s() - start);
        if (why_stop == PB_GO_ON && pb_interrupted()) {
            fail_row(row, PB_ROW_ERROR, "interrupted"); /* the runner drops the row */
            break;
        }
    }
    row->sampling_s = now_s() - start;
    if (why_stop != PB_GO_ON) row->status = PB_ROW_OK;
    row->timed_out = why_stop == PB_STOP_TIMEOUT;
    row->noise = pb_noise_value(&noise);
    pb_noise_free(&noise);
    /* noisy: the median's interval, the figure the stopping rule used. */
    if (pb_row_judge(row, cfg->max_noise)) fail_row(row, PB_ROW_ERROR, "out of memory for samples");
    m->release(state);
    if (row->nsamples == 0) {
        free(link_bytes);
        return;
    }

    row->ms = pb_summarise(row->samples_ms, row->nsamples);
    row->wall = pb_summarise(row->wall_ms, row->nsamples);
    if (nlinks) row->link_bytes = pb_summarise(link_bytes, nlinks).median;
    free(link_bytes);
    pb_row_rates(in, row);
}

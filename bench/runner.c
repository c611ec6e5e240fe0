#include "bench/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "output/interrupt.h"
#include "bench/estimate.h"
#include "bench/measure.h"
#include "bench/suspect.h"
#include "config/sizes.h"
#include "core/cache_flush.h"
#include "core/gpu.h"
#include "core/sysinfo.h"
#include "registry/registry.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *human_bytes(double b, char *buf, size_t len)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (b >= 1024 && u < 5) b /= 1024, u++;
    snprintf(buf, len, "%.1f %s", b, unit[u]);
    return buf;
}

/* One point of the sweep: an instance at an item width and size. */
typedef struct point {
    const pb_instance *in;
    unsigned item_bytes;
    uint64_t n;
} point;

static int add_point(point **pts, size_t *npts, size_t *cap, const pb_instance *in,
                     unsigned item_bytes, uint64_t n)
{
    for (size_t k = 0; k < *npts; k++)
        if ((*pts)[k].in == in && (*pts)[k].item_bytes == item_bytes && (*pts)[k].n == n) return 0;
    if (*npts == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        point *p = realloc(*pts, c * sizeof *p);
        if (!p) return -1;
        *pts = p;
        *cap = c;
    }
    (*pts)[(*npts)++] = (point){in, item_bytes, n};
    return 0;
}

/* Every point, in order: each instance at each item width and size; and
 * the copy ceiling of a device also at the total work of every other
 * instance of it whose point is not n items (a batch of top-k rows), so
 * the row's share of the copy compares like with like. */
static int plan(const pb_config *cfg, point **pts, size_t *npts)
{
    size_t cap = 0;
    *pts = NULL;
    *npts = 0;
    for (size_t i = 0; i < cfg->inst.n; i++) {
        const pb_instance *in = &cfg->inst.v[i];
        for (size_t it = 0; it < cfg->nitems; it++) {
            for (size_t s = 0; s < cfg->nsizes; s++)
                if (add_point(pts, npts, &cap, in, cfg->items[it], cfg->sizes[s])) return -1;
            if (in->mod->bound != PB_BOUND_COPY) continue;
            for (size_t j = 0; j < cfg->inst.n; j++) {
                const pb_instance *o = &cfg->inst.v[j];
                if (o->mod->device != in->mod->device || o->mod->bound == PB_BOUND_COPY) continue;
                for (size_t s = 0; s < cfg->nsizes; s++) {
                    double items, bytes;
                    pb_row_work(o, cfg->sizes[s], cfg->items[it], &items, &bytes);
                    uint64_t total = (uint64_t)items;
                    if (total != cfg->sizes[s] && total > 0 &&
                        add_point(pts, npts, &cap, in, cfg->items[it], total))
                        return -1;
                }
            }
        }
    }
    return 0;
}

long pb_run_points(const pb_config *cfg, void (*each)(const pb_instance *in, uint64_t n, unsigned item_bytes, void *user),
                   void *user)
{
    point *pts;
    size_t npts;
    if (plan(cfg, &pts, &npts)) return -1;
    for (size_t k = 0; k < npts && each; k++) each(pts[k].in, pts[k].n, pts[k].item_bytes, user);
    free(pts);
    return (long)npts;
}

int pb_run_check_plan(const pb_config *cfg, pb_err *err)
{
    uint64_t host_avail = pb_host_mem_available();
    uint64_t gpu_free = 0;
    bool have_gpu_free = false;
    point *pts;
    size_t npts;
    if (plan(cfg, &pts, &npts)) return pb_err_set(err, "out of memory");
    int rc = 0;
    for (size_t k = 0; k < npts && !rc; k++) {
        const pb_instance *in = pts[k].in;
        const pb_module *m = in->mod;
        if (m->device == PB_DEVICE_GPU && !have_gpu_free) {
            pb_err e;
            if (pb_gpu_mem_free(&gpu_free, &e)) {
                rc = pb_err_set(err, "%s", e.msg);
                break;
            }
            have_gpu_free = true;
        }
        uint64_t n = pts[k].n;
        unsigned bytes = pts[k].item_bytes;
        char nb[48], need[32], have[32];
        pb_size_format(n, nb, sizeof nb);
        if (!pb_module_takes(m, bytes)) {
            /* Asked of the module, not switched on its name: a module says
             * which item classes it takes (pb_module.items). */
            const pb_item_kind *k = pb_family_item_of_width(m->family, bytes);
            char takes[128];
            rc = pb_err_set(err, "%s: [%s] module '%s' does not take %s items; it takes %s", cfg->path, in->label,
                            m->name, k ? k->name : "these", pb_module_items_text(m, takes, sizeof takes));
        } else if (m->max_n && n > m->max_n)
            rc = pb_err_set(err, "%s: [%s] module '%s' supports n up to %llu; size %s is beyond it",
                            cfg->path, in->label, m->name, (unsigned long long)m->max_n, nb);
        else if (bytes == 4 && n > (UINT64_C(1) << 32))
            rc = pb_err_set(err, "%s: size %s has more items than u32 can number distinctly; use item = u64",
                            cfg->path, nb);
        if (rc) break;
        pb_point pt = {n, bytes, cfg->seed, &in->params, pb_instance_threads(in)};
        /* What only the family knows (a data file long enough for the
         * point), now rather than when the point comes up. */
        pb_err e;
        if (m->family->check_point && m->family->check_point(m, &pt, &e)) {
            rc = pb_err_set(err, "%s: [%s] at n = %s: %s", cfg->path, in->label, nb, e.msg);
            break;
        }
        double fp = (double)m->footprint(&pt);
        /* The host also holds a copy of a GPU module's output for
         * verification, and the verifier's bitmap. */
        double host_need = m->device == PB_DEVICE_CPU ? fp : (double)n * bytes;
        host_need += (double)n / 8;
        if (host_need > 0.9 * (double)host_avail)
            rc = pb_err_set(err, "%s: [%s] at n = %s needs %s of host memory; %s available", cfg->path,
                            in->label, nb, human_bytes(host_need, need, sizeof need),
                            human_bytes((double)host_avail, have, sizeof have));
        else if (m->device == PB_DEVICE_GPU && fp > 0.95 * (double)gpu_free)
            rc = pb_err_set(err, "%s: [%s] at n = %s needs %s of GPU memory; %s free", cfg->path,
                            in->label, nb, human_bytes(fp, need, sizeof need),
                            human_bytes((double)gpu_free, have, sizeof have));
    }
    free(pts);
    return rc;
}

static void fill_pct_copy(const pb_run *run, pb_row *row)
{
    row->pct_copy = NAN;
    const pb_module *copy = pb_bound_module(row->inst->mod->device, PB_BOUND_COPY);
    /* The copy of as many items as the row works on: n, or a batch's total. */
    double items, bytes;
    pb_row_work(row->inst, row->n, row->item_bytes, &items, &bytes);
    uint64_t total = row->inst->mod->bound == PB_BOUND_COPY ? row->n : (uint64_t)items;
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *c = &run->rows[i];
        if (c->status == PB_ROW_OK && c->inst->mod == copy && copy && c->n == total &&
            c->item_bytes == row->item_bytes && c->gbps > 0) {
            row->pct_copy = 100.0 * row->gbps / c->gbps;
            return;
        }
    }
}

/* The reference row for `row`: same n and width, and the same axis value
 * when the reference varies the same axis. */
static void fill_speedup(const pb_config *cfg, const pb_run *run, pb_row *row)
{
    row->speedup_vs_ref = NAN;
    if (!cfg->reference[0] || row->status == PB_ROW_ERROR) return;
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *r = &run->rows[i];
        const pb_instance *ri = r->inst;
        if (r->status != PB_ROW_OK || r->n != row->n || r->item_bytes != row->item_bytes) continue;
        if (strcmp(ri->label, cfg->reference) != 0 && strcmp(ri->series, cfg->reference) != 0)
            continue;
        if (ri->axis[0] && (strcmp(ri->axis, row->inst->axis) != 0 ||
                            strcmp(ri->axis_value, row->inst->axis_value) != 0))
            continue;
        if (row->ms.median > 0) row->speedup_vs_ref = r->ms.median / row->ms.median;
        return;
    }
}

/* Seconds a point not yet measured should take, from those already done.
 * From the instance's latest point: its sample time scaled by size, its
 * per-sample overhead (cache flush, launch) as it was, and the sample count
 * the sweep's rules give at that time (min_samples, min_time, max_samples,
 * timeout; max_samples if that point stopped noisy). Without one: the mean of other instances at this point, else of
 * all points. Negative: no basis yet. */
static double predict(const pb_config *cfg, const pb_run *run, const double *wall,
                      const pb_instance *in, uint64_t n, unsigned bytes)
{
    const pb_row *last = NULL;
    double same = 0, all = 0;
    size_t nsame = 0;
    for (size_t r = 0; r < run->nrows; r++) {
        const pb_row *row = &run->rows[r];
        if (row->inst == in && row->nsamples) last = row;
        if (row->n == n && row->item_bytes == bytes) same += wall[r], nsame++;
        all += wall[r];
    }
    if (last) {
        double measured = 0;
        for (size_t i = 0; i < last->nsamples; i++) measured += last->samples_ms[i] * 1e-3;
        double runs = (double)(last->nsamples + (size_t)cfg->warmup);
        double overhead = (wall[last - run->rows] - measured) / runs;
        double t = last->ms.median * 1e-3 * ((double)n * bytes) / ((double)last->n * last->item_bytes);
        double samples = t > 0 ? ceil(cfg->min_time / t) : cfg->max_samples;
        /* Noise stopping: a row that did not settle below max_noise ran on
         * to max_samples (or the timeout, below); expect the same of the
         * instance's next point, as machines stay noisy. */
        if (last->noisy) samples = cfg->max_samples;
        samples = fmin(fmax(samples, cfg->min_samples), cfg->max_samples);
        double total = (samples + cfg->warmup) * (t + fmax(overhead, 0));
        /* Each seed is a whole measurement of the point. */
        return pb_config_seeds(cfg, in) *
               fmin(total, cfg->timeout + (1 + cfg->warmup) * (t + fmax(overhead, 0)));
    }
    if (nsame) return same / (double)nsame;
    return run->nrows ? all / (double)run->nrows : -1;
}

/* Whether run->rows[0..had) already holds the point (a resumed run). */
static bool finished(const pb_run *run, size_t had, const point *p)
{
    for (size_t r = 0; r < had; r++)
        if (run->rows[r].inst == p->in && run->rows[r].n == p->n && run->rows[r].item_bytes == p->item_bytes)
            return true;
    return false;
}

static double row_seconds(const pb_row *row)
{
    double s = row->check_s;
    for (size_t i = 0; i < row->nsamples; i++) s += row->wall_ms[i] * 1e-3;
    return s;
}

/* The points of the plan not yet in run->rows, in plan order. A signal
 * (output/interrupt.h) ends the sweep after the current point; a point it
 * cut short is dropped, to be measured again on resume. */
static int sweep(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err)
{
    point *pts;
    size_t total;
    int rc = 0;
    if (plan(cfg, &pts, &total)) return pb_err_set(err, "out of memory");
    size_t had = run->nrows, cap = total + had + 1;
    pb_row *rows = realloc(run->rows, cap * sizeof *rows);
    double *wall = calloc(cap, sizeof *wall);
    if (!rows || !wall) {
        if (rows) run->rows = rows;
        free(wall);
        free(pts);
        return pb_err_set(err, "out of memory");
    }
    run->rows = rows;
    memset(rows + had, 0, (cap - had) * sizeof *rows);
    for (size_t r = 0; r < had; r++) wall[r] = row_seconds(&rows[r]);
    run->planned = total;
    run->interrupted = false;
    bool gpu_points = false;
    for (size_t k = 0; k < total; k++) gpu_points |= pts[k].in->mod->device == PB_DEVICE_GPU;
    run->seeds = false;
    for (size_t k = 0; k < total; k++) run->seeds |= pb_config_seeds(cfg, pts[k].in) > 1;
    pb_machine_watch_start(&run->machine, gpu_points);
    double t0 = now_s();
    for (size_t k = 0; k < total; k++) {
        if (finished(run, had, &pts[k])) continue;
        if (pb_interrupted()) {
            run->interrupted = true;
            break;
        }
        const pb_instance *in = pts[k].in;
        pb_row *row = &run->rows[run->nrows];
        row->inst = in;
        row->n = pts[k].n;
        row->item_bytes = pts[k].item_bytes;
        row->threads = pb_instance_threads(in);
        if (hooks && hooks->progress) {
            double eta = run->nrows ? 0 : -1;
            for (size_t j = k; j < total && eta >= 0; j++)
                if (!finished(run, had, &pts[j]))
                    eta += predict(cfg, run, wall, pts[j].in, pts[j].n, pts[j].item_bytes);
            hooks->progress(run->nrows, total, eta, in, row->n, hooks->user);
        }
        double p0 = now_s();
        pb_machine_watch_point_begin(&run->machine);
        pb_measure_seeds(cfg, run, in, pb_config_seeds(cfg, in), row);
        row->busy = pb_machine_watch_point_end(&run->machine);
        if (pb_interrupted() && row->status == PB_ROW_ERROR && strcmp(row->message, "interrupted") == 0) {
            free(row->samples_ms);
            free(row->wall_ms);
            memset(row, 0, sizeof *row);
            run->interrupted = true;
            break;
        }
        wall[run->nrows] = now_s() - p0;
        run->nrows++;
        if (row->status != PB_ROW_ERROR) fill_pct_copy(run, row);
        pb_row_flag_suspect(row);
        fill_speedup(cfg, run, row);
        if (hooks && hooks->row_done && hooks->row_done(run, row, hooks->user, err)) {
            rc = -1; /* the row could not be kept (a full disk): stop here */
            break;
        }
    }
    free(pts);
    /* A copy row listed after others: fill the ratios it now allows. */
    for (size_t r = 0; r < run->nrows; r++)
        if (run->rows[r].status != PB_ROW_ERROR && isnan(run->rows[r].pct_copy))
            fill_pct_copy(run, &run->rows[r]);
    for (size_t r = 0; r < run->nrows; r++)
        if (isnan(run->rows[r].speedup_vs_ref)) fill_speedup(cfg, run, &run->rows[r]);
    pb_run_flag_suspect(run);
    pb_machine_watch_finish(&run->machine);
    run->wall_s += now_s() - t0;
    free(wall);
    return rc;
}

/* The cost of one calibration point beyond which the calibration goes no
 * further up an instance's sizes (they are extrapolated from there). */
#define CAL_POINT_S 1.5
#define CAL_SAMPLES 3
/* Up to this many items every module's work is a few milliseconds at most,
 * so such a point is calibrated whatever the point below it took: a stall
 * or a thread start there, scaled through the origin, would say otherwise,
 * and the second point gives the slope that extrapolates. */
#define CAL_CHEAP_ITEMS 65536.0

static int by_width_and_n(const void *a, const void *b)
{
    const point *x = a, *y = b;
    if (x->in != y->in) return x->in < y->in ? -1 : 1;
    if (x->item_bytes != y->item_bytes) return x->item_bytes < y->item_bytes ? -1 : 1;
    return x->n < y->n ? -1 : x->n > y->n;
}

int pb_run_dry(const pb_config *cfg, pb_run_plan_cb each, void *user, pb_run_estimate *est, pb_err *err)
{
    point *pts, *sorted;
    size_t total;
    if (plan(cfg, &pts, &total)) return pb_err_set(err, "out of memory");
    memset(est, 0, sizeof *est);
    est->points = total;
    /* Calibration (bench/estimate.h): each instance and item width from its
     * smallest size up, one warm-up and three samples a point, while a
     * point's calibration stays below CAL_POINT_S. */
    pb_config cal = *cfg;
    cal.warmup = 1;
    cal.min_samples = cal.max_samples = CAL_SAMPLES;
    cal.min_time = 0;
    cal.timeout = fmin(cfg->timeout, CAL_POINT_S);
    pb_run run = {0};
    run.rows = calloc(total + 1, sizeof *run.rows);
    pb_calibration *cals = calloc(total + 1, sizeof *cals);
    sorted = malloc((total + 1) * sizeof *sorted);
    if (!run.rows || !cals || !sorted) {
        free(run.rows), free(cals), free(sorted), free(pts);
        return pb_err_set(err, "out of memory");
    }
    memcpy(sorted, pts, total * sizeof *pts);
    qsort(sorted, total, sizeof *sorted, by_width_and_n);
    /* The first cache flush allocates and first touches its buffer: not a
     * cost of the points. */
    bool cpu = false, gpu = false;
    for (size_t k = 0; k < total; k++)
        cpu |= pts[k].in->mod->device == PB_DEVICE_CPU, gpu |= pts[k].in->mod->device == PB_DEVICE_GPU;
    if (cfg->flush_cache && cpu) pb_cpu_flush_cache();
    pb_err ignored;
    if (cfg->flush_cache && gpu) pb_gpu_flush_cache(&ignored);
    double t0 = now_s();
    size_t first = 0; /* the first calibration of the current instance and width */
    bool stopped = false;
    for (size_t k = 0; k < total; k++) {
        const point *p = &sorted[k];
        if (k == 0 || p->in != sorted[k - 1].in || p->item_bytes != sorted[k - 1].item_bytes)
            first = run.nrows, stopped = false;
        size_t ncal = run.nrows - first;
        double items, bytes;
        pb_row_work(p->in, p->n, p->item_bytes, &items, &bytes);
        if (stopped || (ncal && items > CAL_CHEAP_ITEMS &&
                        (1 + CAL_SAMPLES) * pb_estimate_run_s(&cals[first], ncal, p->n) > CAL_POINT_S)) {
            stopped = true;
            continue;
        }
        pb_row *row = &run.rows[run.nrows];
        row->inst = p->in;
        row->n = p->n;
        row->item_bytes = p->item_bytes;
        row->threads = pb_instance_threads(p->in);
        double p0 = now_s();
        pb_measure_point(&cal, &run, p->in, row);
        double wall = now_s() - p0;
        if (!row->nsamples) { /* it could not run: the sizes above it are not tried */
            free(row->samples_ms), free(row->wall_ms);
            memset(row, 0, sizeof *row);
            stopped = true;
            continue;
        }
        double timed = 0;
        for (size_t i = 0; i < row->nsamples; i++) timed += row->samples_ms[i] * 1e-3;
        cals[run.nrows] = (pb_calibration){row->n, fmax(wall - row->sampling_s, 0),
                                           fmax(row->sampling_s - timed, 0) / (double)row->nsamples,
                                           row->samples_ms, row->nsamples, row->ms.min, row->ms.median,
                                           cal.warmup};
        run.nrows++;
    }
    est->calibration_s = now_s() - t0;
    for (size_t k = 0; k < total; k++) {
        size_t lo = 0, n = 0;
        for (size_t r = 0; r < run.nrows; r++)
            if (run.rows[r].inst == pts[k].in && run.rows[r].item_bytes == pts[k].item_bytes) {
                if (!n) lo = r;
                n++;
            }
        /* Calibrated on one seed; each seed measures the point again. */
        double t = pb_config_seeds(cfg, pts[k].in) * pb_estimate_point(cfg, &cals[lo], n, pts[k].n);
        est->likely_s += t;
        /* At most: every point to its timeout (or longer, where even the
         * warm-ups and the minimum samples are predicted to take more). */
        est->most_s += fmax(t, pb_config_seeds(cfg, pts[k].in) * cfg->timeout);
        if (each) each(pts[k].in, pts[k].n, pts[k].item_bytes, t, user);
    }
    pb_run_free(&run);
    free(cals);
    free(sorted);
    free(pts);
    return 0;
}

int pb_run_sweep(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    return sweep(cfg, hooks, run, err);
}

int pb_run_resume(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err)
{
    return sweep(cfg, hooks, run, err);
}

void pb_run_free(pb_run *run)
{
    for (size_t i = 0; i < run->nrows; i++) {
        free(run->rows[i].samples_ms);
        free(run->rows[i].wall_ms);
    }
    free(run->rows);
    free(run->expect);
    memset(run, 0, sizeof *run);
}

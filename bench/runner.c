#include "bench/runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/measure.h"
#include "config/sizes.h"
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

int pb_run_check_plan(const pb_config *cfg, pb_err *err)
{
    uint64_t host_avail = pb_host_mem_available();
    uint64_t gpu_free = 0;
    bool have_gpu_free = false;
    for (size_t i = 0; i < cfg->inst.n; i++) {
        const pb_instance *in = &cfg->inst.v[i];
        const pb_module *m = in->mod;
        if (m->device == PB_DEVICE_GPU && !have_gpu_free) {
            pb_err e;
            if (pb_gpu_mem_free(&gpu_free, &e)) return pb_err_set(err, "%s", e.msg);
            have_gpu_free = true;
        }
        for (size_t it = 0; it < cfg->nitems; it++)
            for (size_t s = 0; s < cfg->nsizes; s++) {
                uint64_t n = cfg->sizes[s];
                unsigned bytes = cfg->items[it];
                char nb[48], need[32], have[32];
                pb_size_format(n, nb, sizeof nb);
                if (m->max_n && n > m->max_n)
                    return pb_err_set(err, "%s: [%s] module '%s' supports n up to %llu; size %s is beyond it",
                                      cfg->path, in->label, m->name,
                                      (unsigned long long)m->max_n, nb);
                if (bytes == 4 && n > (UINT64_C(1) << 32))
                    return pb_err_set(err, "%s: size %s has more items than u32 can number distinctly; use item = u64",
                                      cfg->path, nb);
                pb_point pt = {n, bytes, cfg->seed, &in->params, pb_instance_threads(in)};
                double fp = (double)m->footprint(&pt);
                /* The host also holds a copy of a GPU module's output for
                 * verification, and the verifier's bitmap. */
                double host_need = m->device == PB_DEVICE_CPU ? fp : (double)n * bytes;
                host_need += (double)n / 8;
                if (host_need > 0.9 * (double)host_avail)
                    return pb_err_set(err, "%s: [%s] at n = %s needs %s of host memory; %s available",
                                      cfg->path, in->label, nb,
                                      human_bytes(host_need, need, sizeof need),
                                      human_bytes((double)host_avail, have, sizeof have));
                if (m->device == PB_DEVICE_GPU && fp > 0.95 * (double)gpu_free)
                    return pb_err_set(err, "%s: [%s] at n = %s needs %s of GPU memory; %s free",
                                      cfg->path, in->label, nb, human_bytes(fp, need, sizeof need),
                                      human_bytes((double)gpu_free, have, sizeof have));
            }
    }
    return 0;
}

static void fill_pct_copy(const pb_run *run, pb_row *row)
{
    row->pct_copy = NAN;
    const pb_module *copy = pb_bound_module(row->inst->mod->device, PB_BOUND_COPY);
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *c = &run->rows[i];
        if (c->status == PB_ROW_OK && c->inst->mod == copy && copy && c->n == row->n &&
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
 * timeout). Without one: the mean of other instances at this point, else of
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
        samples = fmin(fmax(samples, cfg->min_samples), cfg->max_samples);
        double total = (samples + cfg->warmup) * (t + fmax(overhead, 0));
        return fmin(total, cfg->timeout + (1 + cfg->warmup) * (t + fmax(overhead, 0)));
    }
    if (nsame) return same / (double)nsame;
    return run->nrows ? all / (double)run->nrows : -1;
}

int pb_run_sweep(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    size_t total = cfg->inst.n * cfg->nitems * cfg->nsizes;
    run->rows = calloc(total ? total : 1, sizeof *run->rows);
    double *wall = calloc(total ? total : 1, sizeof *wall);
    if (!run->rows || !wall) {
        free(wall);
        return pb_err_set(err, "out of memory");
    }
    double t0 = now_s();
    for (size_t i = 0; i < cfg->inst.n; i++) {
        const pb_instance *in = &cfg->inst.v[i];
        for (size_t it = 0; it < cfg->nitems; it++)
            for (size_t s = 0; s < cfg->nsizes; s++) {
                pb_row *row = &run->rows[run->nrows];
                row->inst = in;
                row->n = cfg->sizes[s];
                row->item_bytes = cfg->items[it];
                row->threads = pb_instance_threads(in);
                if (hooks && hooks->progress) {
                    double eta = run->nrows ? 0 : -1;
                    for (size_t j = i; j < cfg->inst.n && eta >= 0; j++)
                        for (size_t jt = j == i ? it : 0; jt < cfg->nitems && eta >= 0; jt++)
                            for (size_t js = j == i && jt == it ? s : 0; js < cfg->nsizes; js++)
                                eta += predict(cfg, run, wall, &cfg->inst.v[j], cfg->sizes[js], cfg->items[jt]);
                    hooks->progress(run->nrows, total, eta, in, row->n, hooks->user);
                }
                double p0 = now_s();
                pb_measure_point(cfg, run, in, row);
                wall[run->nrows] = now_s() - p0;
                run->nrows++;
                if (row->status != PB_ROW_ERROR) fill_pct_copy(run, row);
                fill_speedup(cfg, run, row);
                if (hooks && hooks->row_done) hooks->row_done(run, row, hooks->user);
            }
    }
    /* A copy row listed after others: fill the ratios it now allows. */
    for (size_t r = 0; r < run->nrows; r++)
        if (run->rows[r].status != PB_ROW_ERROR && isnan(run->rows[r].pct_copy))
            fill_pct_copy(run, &run->rows[r]);
    for (size_t r = 0; r < run->nrows; r++)
        if (isnan(run->rows[r].speedup_vs_ref)) fill_speedup(cfg, run, &run->rows[r]);
    run->wall_s = now_s() - t0;
    free(wall);
    return 0;
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

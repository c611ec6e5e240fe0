#include "bench/estimate.h"

#include <math.h>
#include <stdbool.h>

#include "bench/stopping.h"

double pb_estimate_sampling(const pb_config *cfg, const double *samples_ms, size_t k, double shift_ms,
                            double overhead_s, size_t *nsamples)
{
    pb_stopping stop = {cfg->min_samples, cfg->max_samples, cfg->min_time, cfg->timeout, cfg->max_noise};
    pb_noise noise = {0};
    double elapsed = 0;
    uint64_t x = 0x9e3779b97f4a7c15u;
    size_t n = 0;
    for (pb_stop why = PB_GO_ON; why == PB_GO_ON;) {
        /* The calibrated samples in a pseudo-random order (a fixed one: the
         * estimate is the same each time for the same calibration). */
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double ms = fmax(samples_ms[x % k] + shift_ms, 0);
        if (pb_noise_add(&noise, ms)) break;
        n++;
        elapsed += ms * 1e-3 + overhead_s;
        why = pb_stopping_check(&stop, &noise, elapsed);
    }
    pb_noise_free(&noise);
    if (nsamples) *nsamples = n;
    return elapsed;
}

/* The slope of y over n through the two largest calibrations, at least 0;
 * through the origin with one. `linear`: at most the largest's own y per
 * item (the fixed part and the per-sample overhead grow at most as their
 * items do: allocation, generation, refresh and check are linear, the cache
 * flush constant), so a stall at one small point, which the difference of
 * two small values mostly is, cannot make them grow faster. */
static double slope(const pb_calibration *cal, size_t ncal, double (*y)(const pb_calibration *), bool linear)
{
    const pb_calibration *b = &cal[ncal - 1];
    double through_origin = b->n ? fmax(y(b), 0) / (double)b->n : 0;
    if (ncal == 1 || cal[ncal - 2].n >= b->n) return through_origin;
    const pb_calibration *a = &cal[ncal - 2];
    double s = fmax((y(b) - y(a)) / ((double)b->n - (double)a->n), 0);
    return linear ? fmin(s, through_origin) : s;
}

static double min_ms(const pb_calibration *c) { return c->min_ms; }
static double fixed_s(const pb_calibration *c) { return c->fixed_s; }
static double overhead_s(const pb_calibration *c) { return c->overhead_s; }

double pb_estimate_run_s(const pb_calibration *cal, size_t ncal, uint64_t n)
{
    const pb_calibration *b = &cal[ncal - 1];
    double extra = n > b->n ? (double)(n - b->n) : 0;
    return (b->min_ms + extra * slope(cal, ncal, min_ms, false)) * 1e-3;
}

double pb_estimate_point(const pb_config *cfg, const pb_calibration *cal, size_t ncal, uint64_t n)
{
    if (!ncal) return 0;
    /* The calibration at n, else the largest below it (the calibrations
     * start at the instance's smallest n). */
    size_t at = 0;
    for (size_t i = 0; i < ncal; i++)
        if (cal[i].n <= n) at = i;
    const pb_calibration *c = &cal[at];
    double extra = n > c->n ? (double)(n - c->n) : 0;
    double shift_ms = extra * slope(cal, at + 1, min_ms, false);
    double fixed = c->fixed_s + extra * slope(cal, at + 1, fixed_s, true);
    double overhead = c->overhead_s + extra * slope(cal, at + 1, overhead_s, true);
    /* The sweep's warm-ups, where the calibration made its own. */
    fixed += (cfg->warmup - c->warmup) * ((c->median_ms + shift_ms) * 1e-3 + overhead);
    double sampling = pb_estimate_sampling(cfg, c->samples_ms, c->nsamples, shift_ms, overhead, NULL);
    return fmax(fixed, 0) + sampling;
}

/* What a point of a sweep should take, for `run --dry-run`: from a few
 * points of each instance measured with a handful of samples (the
 * calibration), the sweep's own stopping rule played over those samples.
 *
 * A point's time is its fixed part (prepare, warm-ups, release) plus, per
 * sample, the timed run and what surrounds it (refresh, cache flush,
 * check). The calibration measures each of them at the instance's
 * smallest sizes, as far up as a calibration point stays cheap; beyond, a
 * sample is the largest calibrated one's plus the work the extra items add
 * (the slope of the fastest samples, which stalls and contention leave
 * alone, not the median, which they may make flat or inflate), and the
 * fixed part and per-sample overhead grow linearly as they did. How many
 * samples a point takes is the stopping rule's (bench/stopping.h) answer
 * on the calibrated samples drawn over and over: a quiet point stops at
 * min_samples or min_time, a noisy one where its noise settles, any at
 * max_samples or its timeout. */
#ifndef PB_ESTIMATE_H
#define PB_ESTIMATE_H

#include <stddef.h>
#include <stdint.h>

#include "bench/sweep_config.h"

/* One calibrated point of an instance at one item width. */
typedef struct pb_calibration {
    uint64_t n;
    double fixed_s;         /* the point's time outside its sampling loop */
    double overhead_s;      /* per sample, outside the timer */
    const double *samples_ms;
    size_t nsamples;        /* at least one */
    double min_ms, median_ms;
    int warmup;             /* warm-ups the calibration made (in fixed_s) */
} pb_calibration;

/* Seconds the point at `n` should take under cfg's rules, from `ncal`
 * calibrations of the same instance and width, ascending in n. */
double pb_estimate_point(const pb_config *cfg, const pb_calibration *cal, size_t ncal, uint64_t n);

/* The sampling loop alone: samples (ms) drawn from `samples_ms` in a
 * fixed order, each shifted by `shift_ms` and followed by `overhead_s`,
 * until cfg's stopping rule stops; seconds, and the sample count. */
double pb_estimate_sampling(const pb_config *cfg, const double *samples_ms, size_t k, double shift_ms,
                            double overhead_s, size_t *nsamples);

/* The seconds one run at `n` should take, from the fastest calibrated
 * samples: the calibration goes up an instance's sizes while that is
 * cheap. */
double pb_estimate_run_s(const pb_calibration *cal, size_t ncal, uint64_t n);

#endif

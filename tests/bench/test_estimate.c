/* The dry run's per-point estimate (bench/estimate.h) on synthetic
 * calibrations, where the answer is known: the sample count the stopping
 * rule gives (min_samples and min_time when quiet, where the noise settles
 * when noisy, the timeout in any case), and extrapolation beyond the
 * calibrated sizes from the work's slope, not from a stalled median
 * scaled through the origin. */
#include <math.h>

#include "bench/estimate.h"
#include "bench/stopping.h"
#include "tests/test.h"

static pb_config rules(void)
{
    pb_config c = {0};
    c.warmup = 1;
    c.min_samples = 5;
    c.max_samples = 200;
    c.min_time = 0.2;
    c.timeout = 10;
    c.max_noise = 0.02;
    return c;
}

TEST_IMPL(run_estimate_point)
{
    pb_config cfg = rules();
    size_t n;
    /* Quiet, 1 ms a sample: min_time (0.2 s) takes 200 samples... capped
     * at max_samples, here 200; with max_samples 50, 50. */
    const double quiet[] = {1.0, 1.001, 0.999};
    double s = pb_estimate_sampling(&cfg, quiet, 3, 0, 0, &n);
    ASSERT(n == 200 && fabs(s - 0.2) < 0.01);
    /* Quiet and 100 ms a sample: min_samples (5) covers min_time, but a
     * quiet stop needs the median's 95% interval, which takes
     * PB_STOPPING_CI_MIN samples (bench/stopping.h). */
    const double slow[] = {100, 100.1, 99.9};
    s = pb_estimate_sampling(&cfg, slow, 3, 0, 0.01, &n);
    ASSERT(n == PB_STOPPING_CI_MIN && fabs(s - PB_STOPPING_CI_MIN * 0.11) < 0.01);
    /* Two clusters (a stall every other sample): noisy, so sampling goes on
     * until the noise settles: at least twice the settling window (20
     * samples), far from max_samples (the old estimate assumed all 200). */
    const double stalls[] = {0.01, 8.0, 0.01, 7.5};
    s = pb_estimate_sampling(&cfg, stalls, 4, 0, 0.001, &n);
    fprintf(stderr, "stalls: %zu samples, %.3f s\n", n, s);
    ASSERT(n >= 20 && n <= 60);
    /* 3 s a sample against a 10 s timeout: the sample that passes it is the
     * last; a point never runs on past its timeout but by one sample. */
    const double huge[] = {3000, 3000, 3000};
    s = pb_estimate_sampling(&cfg, huge, 3, 0, 0, &n);
    ASSERT(n == 4 && s <= cfg.timeout + 3.0);

    /* Extrapolation: a copy stalled at 8 ms whatever its size at n = 1000
     * and 16000, whose fastest samples (0.01 and 0.16 ms) are its work.
     * At 16 Mi items the work adds 167 ms to the stall; the old
     * estimate scaled the 8 ms median by n: 134 s a sample. */
    const double a[] = {0.01, 8, 8.2}, b[] = {0.16, 8.1, 8.3};
    pb_calibration cal[2] = {{1000, 0.01, 0.001, a, 3, 0.01, 8, 1}, {16000, 0.02, 0.002, b, 3, 0.16, 8.1, 1}};
    cfg.timeout = 1;
    double t = pb_estimate_point(&cfg, cal, 2, UINT64_C(1) << 24);
    fprintf(stderr, "extrapolated to 2^24: %.3f s\n", t);
    /* fixed grows by 0.01 s per 15000 items (11 s at 2^24), the samples to
     * about 0.175 s each, stopped by the 1 s timeout. */
    double fixed = 0.02 + (16777216.0 - 16000) * (0.01 / 15000);
    ASSERT(t > fixed + 1.0 && t < fixed + 1.0 + 0.6);
    /* At a calibrated size: its own samples, fixed part and overhead. */
    cfg.timeout = 10;
    t = pb_estimate_point(&cfg, cal, 2, 1000);
    ASSERT(t > 0.01 && t < 0.01 + 200 * (0.0082 + 0.001) + 0.01);
    /* The sweep's warm-ups beyond the calibration's one are added. */
    pb_config three = cfg;
    three.warmup = 3;
    double t3 = pb_estimate_point(&three, cal, 2, 16000);
    ASSERT(fabs(t3 - pb_estimate_point(&cfg, cal, 2, 16000) - 2 * (0.0081 + 0.002)) < 1e-9);
    /* One calibration only: its per-item times, through the origin. */
    ASSERT(fabs(pb_estimate_run_s(cal, 1, 2000) - 2 * 0.01e-3) < 1e-12);
    ASSERT(fabs(pb_estimate_run_s(cal, 2, 31000) - 0.31e-3) < 1e-9);
    /* A stall in the fixed part of the larger calibration (0.2 s where the
     * smaller took 0.01 s): the fixed part grows at most as its items do,
     * 0.2 s per 16000 items, not as the difference of the two says (0.19 s
     * per 15000 items). */
    pb_calibration stalled[2] = {cal[0], cal[1]};
    stalled[1].fixed_s = 0.2;
    stalled[0].overhead_s = stalled[1].overhead_s = 0;
    const double flat[] = {1, 1, 1};
    stalled[0].samples_ms = stalled[1].samples_ms = flat;
    stalled[0].min_ms = stalled[1].min_ms = stalled[0].median_ms = stalled[1].median_ms = 1;
    cfg.max_samples = cfg.min_samples = 5;
    double at_32000 = pb_estimate_point(&cfg, stalled, 2, 32000);
    ASSERT(fabs(at_32000 - (0.4 + 5 * 1e-3)) < 1e-9);
    return 0;
}

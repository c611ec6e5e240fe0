/* When to stop sampling a point: NVBench's noise criterion, on the
 * median's confidence interval. The figure is the relative half-width of
 * the median's distribution-free 95% confidence interval
 * (stats/median_ci.h): (hi - lo) / (2 median), the precision of the number
 * the row reports. Once there are min_samples samples and min_time of
 * measured time, sampling stops when the figure is at most max_noise (and
 * there are at least PB_STOPPING_CI_MIN samples, the fewest whose interval
 * reaches 95%), or, if it is not, when more samples would not bring it
 * there (the row is then flagged noisy):
 *
 *   - the figure did not fall by 5% over the last `window` samples (two
 *     clusters of samples with the median between them, a spread that is
 *     not shrinking), or
 *   - its spread has settled (figure x sqrt(n), the interval's width at
 *     one sample, moved by less than 5% over the window) and reaching
 *     max_noise would take n (figure / max_noise)^2 samples: more than
 *     max_samples, or more time than is left before the timeout.
 *
 * max_samples and the timeout stop it in any case. The relative standard
 * deviation (pb_noise_value) is still kept, and reported, but no longer
 * decides: one stall in a hundred samples makes it large while the median
 * stays put. */
#ifndef PB_STOPPING_H
#define PB_STOPPING_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pb_stopping {
    int min_samples, max_samples;
    double min_time, timeout; /* seconds */
    double max_noise;         /* the median interval's relative half-width, 0.005 = 0.5% */
} pb_stopping;

/* The fewest samples whose median interval reaches 95% (stats/median_ci.h). */
#define PB_STOPPING_CI_MIN 6

typedef enum pb_stop {
    PB_GO_ON,
    PB_STOP_QUIET,    /* the interval's half-width is at most max_noise */
    PB_STOP_SETTLED,  /* it stays above max_noise and more samples would not help */
    PB_STOP_MAX,      /* max_samples reached */
    PB_STOP_TIMEOUT,  /* the timeout passed */
} pb_stop;

/* The running figures of a series of samples. */
typedef struct pb_noise {
    size_t n;
    double mean, m2;  /* Welford's running mean and sum of squared deviations */
    double measured;  /* seconds */
    double *history;  /* the interval's relative half-width after each sample */
    double *sorted;   /* the samples so far, ascending */
    size_t cap;
} pb_noise;

/* Adds a sample (ms); returns -1 when out of memory. */
int pb_noise_add(pb_noise *z, double ms);
/* stddev / mean of the samples so far (0 with fewer than two). */
double pb_noise_value(const pb_noise *z);
/* The median interval's relative half-width of the samples so far (0 with
 * none). */
double pb_noise_halfwidth(const pb_noise *z);
void pb_noise_free(pb_noise *z);

/* Whether to stop after the samples so far, `elapsed` seconds after the
 * first. */
pb_stop pb_stopping_check(const pb_stopping *s, const pb_noise *z, double elapsed);

/* Samples the settling tests look back over. */
size_t pb_stopping_window(const pb_stopping *s);

#endif

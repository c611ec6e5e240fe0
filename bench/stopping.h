/* When to stop sampling a point: NVBench's noise criterion. Once there are
 * min_samples samples and min_time of measured time, sampling stops when
 * the relative standard deviation of the samples (their noise) is at most
 * max_noise, or, if it is not, when the noise has settled (it moved by less
 * than 5% over the last `window` samples, so more samples would not bring
 * it down): the row is then flagged noisy. max_samples and the timeout stop
 * it in any case. */
#ifndef PB_STOPPING_H
#define PB_STOPPING_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pb_stopping {
    int min_samples, max_samples;
    double min_time, timeout; /* seconds */
    double max_noise;         /* relative standard deviation, 0.005 = 0.5% */
} pb_stopping;

typedef enum pb_stop {
    PB_GO_ON,
    PB_STOP_QUIET,    /* the noise is at most max_noise */
    PB_STOP_SETTLED,  /* the noise settled above max_noise */
    PB_STOP_MAX,      /* max_samples reached */
    PB_STOP_TIMEOUT,  /* the timeout passed */
} pb_stop;

/* The running noise of a series of samples. */
typedef struct pb_noise {
    size_t n;
    double mean, m2;  /* Welford's running mean and sum of squared deviations */
    double measured;  /* seconds */
    double *history;  /* noise after each sample */
    size_t cap;
} pb_noise;

/* Adds a sample (ms); returns -1 when out of memory. */
int pb_noise_add(pb_noise *z, double ms);
/* stddev / mean of the samples so far (0 with fewer than two). */
double pb_noise_value(const pb_noise *z);
void pb_noise_free(pb_noise *z);

/* Whether to stop after the samples so far, `elapsed` seconds after the
 * first. */
pb_stop pb_stopping_check(const pb_stopping *s, const pb_noise *z, double elapsed);

/* Samples the settling test looks back over. */
size_t pb_stopping_window(const pb_stopping *s);

#endif

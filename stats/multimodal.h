/* Whether timing samples fall into two separate clusters: a split test on
 * the logarithms of the sorted samples.
 *
 * Timings are positive and spread by factors (a run that sometimes waits
 * for the scheduler takes 0.01 ms or 4-8 ms), so the test looks at
 * log-times. Every split of the sorted samples into a lower and an upper
 * cluster, each holding at least PB_MODES_MIN_SHARE of them and at least
 * PB_MODES_MIN_COUNT, is scored by how far apart the clusters' centres are
 * against their own spread:
 *
 *   separation = (mean_upper - mean_lower) / max(sd_lower, sd_upper, tick)
 *
 * where mean and sd are of a cluster's log-times and tick is the smallest
 * non-zero step between sorted log-times: the timer's resolution, so that
 * samples falling on two or three neighbouring ticks are one cluster, not
 * several. A step above PB_MODES_MAX_TICK (a factor of 1.25) is taken for a
 * gap, not a tick: CUDA events tick at 0.5 us and the shortest kernel timed
 * takes a few, the CPU clock ticks in nanoseconds, so samples on only two
 * values 8x apart are two clusters. The samples are multimodal when the best split's separation is
 * at least PB_MODES_SEPARATION.
 *
 * Why this score and this bound: however one unimodal sample is split, its
 * halves' centres stay within a few of their spreads (about 2.7 for a
 * normal split at its median, 3.5 for a uniform one), while two clusters
 * whose centres are several spreads apart are a mixture that another run
 * may weigh otherwise, moving the median from one to the other. A gap
 * between neighbouring samples (the other obvious score) fills in as the
 * clusters' tails grow with the sample count and stops seeing clusters it
 * saw at fifty samples; the centres do not move. The bound is calibrated by
 * tests/stats/test_multimodal.c: at most 1.5% false alarms on normal,
 * lognormal, gamma, exponential and uniform samples at 6 and 10 samples,
 * none from 20 to 1000; two clusters 20% or 50% apart, or the scheduler's
 * stalls, found at least 95% of the time at 50 samples and 99% from 100.
 * With fewer than 20 samples a 30% cluster often has too few members to be
 * seen.
 *
 * Samples with a value <= 0 (no logarithm), or fewer than
 * 2 PB_MODES_MIN_COUNT of them, are not tested: never multimodal. */
#ifndef PB_STATS_MULTIMODAL_H
#define PB_STATS_MULTIMODAL_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MODES_MIN_SHARE 0.1
#define PB_MODES_MIN_COUNT 3
#define PB_MODES_SEPARATION 7.0
#define PB_MODES_MAX_TICK 1.25

typedef struct pb_modes {
    bool multimodal;
    size_t split;      /* samples in the lower cluster of the best split; 0 when untested */
    double separation; /* that split's score; 0 when untested */
} pb_modes;

/* The test on sorted[0..n) (ascending). Returns -1 when out of memory. */
int pb_modes_of_sorted(const double *sorted, size_t n, pb_modes *out);

#ifdef __cplusplus
}
#endif

#endif

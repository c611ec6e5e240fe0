/* A sweep's results: one row per instance x item width x size, and what
 * the run keeps across rows. */
#ifndef PB_ROW_H
#define PB_ROW_H

#include <stdbool.h>

#include "stats/summary.h"
#include "output/machine_state.h"
#include "registry/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_row_status {
    PB_ROW_OK,     /* measured and verified */
    PB_ROW_FAILED, /* measured, but the output broke the family contract */
    PB_ROW_ERROR,  /* could not be measured (allocation, CUDA error, ...) */
} pb_row_status;

typedef struct pb_row {
    const pb_instance *inst;
    uint64_t n;
    unsigned item_bytes;
    int threads; /* CPU threads used; 0 for GPU modules */
    pb_row_status status;
    char message[512];
    double *samples_ms; /* every timed sample, in order: CUDA events (GPU), the clock (CPU) */
    double *wall_ms;    /* the same samples' host wall time, launch to completion */
    size_t nsamples;
    bool timed_out;     /* stopped by the timeout before min_samples / min_time */
    pb_summary ms;
    pb_summary wall;
    double noise;       /* relative standard deviation of samples_ms (0.01 = 1%); reported, not judged */
    bool noisy;         /* the median's 95% interval is wider than the sweep's max_noise (pb_row_judge) */
    /* The precision of the median (pb_row_judge): its distribution-free 95%
     * confidence interval (stats/median_ci.h) in ms, the probability its
     * ranks hold the median (below 0.95 only under 6 samples), its
     * half-width relative to the median ((hi - lo) / (2 median)); and
     * whether the samples fall into two clusters (stats/multimodal.h). */
    double ci_lo_ms, ci_hi_ms, ci_confidence, ci_halfwidth;
    bool multimodal;
    long failed_sample; /* the sample whose check failed (0-based), -1 if none */
    char check[96];     /* what every sample was checked against */
    double check_s;     /* seconds spent outside the timed region checking and refreshing */
    bool held;          /* GPU: timed with the stream held by a blocking kernel (else run() synchronises) */
    double items_per_s;
    double gbps;        /* effective: the bytes the algorithm must move at least */
    double pct_copy;    /* of the copy ceiling on the same device, n and item; NaN if none */
    double speedup_vs_ref; /* the sweep's reference median / this median; NaN if none */
    /* Modules spread over several devices (pb_module.links): the median
     * over samples of the payload bytes sent between devices, that over the
     * median time in GB/s, and the devices and links as the last report
     * named them. NaN, NaN and "" for every other module. */
    double link_bytes;
    double link_gbps;
    char topology[256];
    bool verified;
    /* Numbers that cannot be trusted (docs/measurement.md): measured while
     * the machine was busy (output/machine_state.h), and why the row's
     * numbers are impossible ("" when they are not). */
    bool busy;
    char suspect[256];
    /* Seconds of the sampling loop, first refresh to last check: what the
     * timeout bounds (the dry run's calibration, bench/estimate.h). */
    double sampling_s;
    /* The code path the module took for this point, where it has several
     * (pb_module.path); "" otherwise. */
    char path[32];
    /* Seeds (bench/row_seeds.h): a point measured over nseeds > 1 seeds
     * holds in samples_ms (and wall_ms) the seeds' samples one seed after
     * another, seed_nsamples[i] of them the i-th's, drawn with
     * seed_values[i]; ms.median and wall.median are the medians of the
     * per-seed medians, seed_median_ms[i] the i-th's, and seed_min_ms,
     * seed_max_ms and seed_spread ((max - min) / median, 0.01 = 1%) their
     * range. nseeds 0 or 1: one seed, the arrays unused. */
    int nseeds;
    uint64_t seed_values[PB_MAX_SEEDS];
    size_t seed_nsamples[PB_MAX_SEEDS];
    double seed_median_ms[PB_MAX_SEEDS];
    double seed_min_ms, seed_max_ms, seed_spread;
} pb_row;

/* Expected output fingerprints, one per (reference, point, stream), shared
 * by every row of a run that has the same reference. */
typedef struct pb_expectation {
    char key[384];
    uint64_t fp;
} pb_expectation;

typedef struct pb_run {
    pb_row *rows;
    size_t nrows;
    double wall_s;
    size_t planned;   /* points in the sweep's plan */
    bool interrupted; /* a signal ended the sweep before the plan did */
    pb_expectation *expect;
    size_t nexpect, capexpect;
    pb_machine_watch machine; /* the machine's state before, during and after */
    /* Some point of the plan is measured over several seeds: results.csv
     * then carries the seed columns (none otherwise, as before seeds). */
    bool seeds;
} pb_run;

/* Items a row processes and bytes it must move: the module's `work` hook,
 * else n and its family's count. */
void pb_row_work(const pb_instance *in, uint64_t n, unsigned item_bytes, double *items,
                 double *bytes);

/* The rates at the row's median time (row->ms): items/s, GB/s, link GB/s
 * (where link_bytes is known), and verified from its status. */
void pb_row_rates(const pb_instance *in, pb_row *row);

/* From the row's samples_ms: its median interval and half-width, noisy
 * (half-width above max_noise, with at least two samples) and multimodal.
 * A row of several seeds is judged seed by seed: noisy or multimodal if
 * any seed is, its interval from the lower middle seed's lower bound to
 * the upper middle seed's upper bound (the median seed's own interval when
 * nseeds is odd), the half-width that interval's over the row's median.
 * Returns -1 when out of memory. (bench/row_precision.c) */
int pb_row_judge(pb_row *row, double max_noise);

#ifdef __cplusplus
}
#endif

#endif

/* A sweep's results: one row per instance x item width x size, and what
 * the run keeps across rows. */
#ifndef PB_ROW_H
#define PB_ROW_H

#include <stdbool.h>

#include "stats/summary.h"
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
    double noise;       /* relative standard deviation of samples_ms (0.01 = 1%) */
    bool noisy;         /* stopped with noise above the sweep's max_noise */
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
    /* The code path the module took for this point, where it has several
     * (pb_module.path); "" otherwise. */
    char path[32];
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
} pb_run;

/* Items a row processes and bytes it must move: the module's `work` hook,
 * else n and its family's count. */
void pb_row_work(const pb_instance *in, uint64_t n, unsigned item_bytes, double *items,
                 double *bytes);

#ifdef __cplusplus
}
#endif

#endif

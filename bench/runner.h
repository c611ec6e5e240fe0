/* The measurement loop: every module instance at every problem point of a
 * sweep, timed the same way, verified, and summarised as a row. */
#ifndef PB_RUNNER_H
#define PB_RUNNER_H

#include <stdbool.h>

#include "bench/summary.h"
#include "bench/sweep_config.h"
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
    double *samples_ms; /* every timed sample, in order */
    size_t nsamples;
    bool timed_out;     /* stopped by the timeout before min_samples / min_time */
    pb_summary ms;
    double items_per_s;
    double gbps;        /* effective: the bytes the algorithm must move at least */
    double pct_copy;    /* of the copy ceiling on the same device, n and item; NaN if none */
    double speedup_vs_ref; /* the sweep's reference median / this median; NaN if none */
    bool verified;
} pb_row;

typedef struct pb_run {
    pb_row *rows;
    size_t nrows;
    double wall_s;
} pb_run;

typedef struct pb_run_hooks {
    /* A row is finished (its pct_copy filled when the copy row came first). */
    void (*row_done)(const pb_run *run, const pb_row *row, void *user);
    /* About to measure point `done` of `total`; eta_s < 0 when unknown. */
    void (*progress)(size_t done, size_t total, double eta_s, const pb_instance *in, uint64_t n,
                     void *user);
    void *user;
} pb_run_hooks;

/* Checks, before anything runs or is written, that every point fits in
 * memory and within its module's limits. */
int pb_run_check_plan(const pb_config *cfg, pb_err *err);

/* Runs the sweep. Failing rows do not stop it; the return value is 0 unless
 * the sweep itself could not run. */
int pb_run_sweep(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err);

/* Items a row processes and bytes it must move: the module's `work` hook,
 * else n and its family's count. */
void pb_row_work(const pb_instance *in, uint64_t n, unsigned item_bytes, double *items,
                 double *bytes);

void pb_run_free(pb_run *run);

#ifdef __cplusplus
}
#endif

#endif

/* The measurement loop: every module instance at every problem point of a
 * sweep, timed the same way, verified, and summarised as a row. */
#ifndef PB_RUNNER_H
#define PB_RUNNER_H

#include <stdbool.h>

#include "bench/row.h"
#include "bench/sweep_config.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_run_hooks {
    /* A row is finished (its pct_copy filled when the copy row came first).
     * Nonzero (err set): the row could not be kept, and the sweep stops
     * with that error. */
    int (*row_done)(const pb_run *run, const pb_row *row, void *user, pb_err *err);
    /* About to measure point `done` of `total`; eta_s < 0 when unknown. */
    void (*progress)(size_t done, size_t total, double eta_s, const pb_instance *in, uint64_t n,
                     void *user);
    void *user;
} pb_run_hooks;

/* The points of the sweep's plan, in order (each instance at each item
 * width and size, and the copy ceiling at every batch's total items):
 * their count, and the callback, which may be NULL, for each. Nothing is
 * measured or checked. -1 when out of memory. */
long pb_run_points(const pb_config *cfg, void (*each)(const pb_instance *in, uint64_t n, unsigned item_bytes, void *user),
                   void *user);

/* Checks, before anything runs or is written, that every point fits in
 * memory and within its module's limits. */
int pb_run_check_plan(const pb_config *cfg, pb_err *err);

/* Runs the sweep. Failing rows do not stop it; the return value is 0 unless
 * the sweep itself could not run. SIGINT or SIGTERM (output/interrupt.h, once
 * installed) end it early with run->interrupted set. */
int pb_run_sweep(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err);

/* Goes on with a sweep whose finished rows `run` already holds (read back
 * from an interrupted run's results.json): the points not among them. */
int pb_run_resume(const pb_config *cfg, const pb_run_hooks *hooks, pb_run *run, pb_err *err);

/* A dry run: every point of the plan, in order, with the seconds it should
 * take (bench/estimate.h: a calibration of each instance at its sizes up
 * to where a point gets costly, the stopping rule played over it), and the
 * sweep's total. */
typedef struct pb_run_estimate {
    size_t points;
    double likely_s;      /* the calibrated estimate */
    double most_s;        /* every point to its timeout */
    double calibration_s; /* what the calibration itself took */
} pb_run_estimate;
typedef void (*pb_run_plan_cb)(const pb_instance *in, uint64_t n, unsigned item_bytes, double est_s,
                               void *user);
int pb_run_dry(const pb_config *cfg, pb_run_plan_cb each, void *user, pb_run_estimate *est, pb_err *err);

void pb_run_free(pb_run *run);

#ifdef __cplusplus
}
#endif

#endif

/* The quality battery: for every instance of a quality config and every n
 * its tests need, draws sample permutations in batches through the module's
 * own sample_perms (or, for an external input, reads its next rows: draw j
 * is row j + 1), streams them through the configured tests
 * (quality/qtests/qtest.h) and yields one row per (instance, n, test result). */
#ifndef PB_BATTERY_H
#define PB_BATTERY_H

#include <stdbool.h>

#include "quality/quality_config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Buffer for one batch of permutations, at most (batches shrink at large n). */
#define PB_Q_MAX_BATCH_BYTES (UINT64_C(1) << 28)

typedef struct pb_qrow {
    const pb_instance *in;
    uint32_t n;
    const pb_qtest *qt;  /* the test */
    const char *test;    /* its result's name: "chisq", "mmd-clt", ... */
    pb_test_result r;
    double alpha;
    double seconds;  /* drawing and testing all samples of (instance, n) */
    bool error;      /* could not be run: message says why; counts as FAIL */
    char message[600];
} pb_qrow;

typedef struct pb_qrun {
    pb_qrow *rows;
    size_t nrows, cap;
    double wall_s;
    uint64_t permutations; /* drawn in all */
    pb_qinput_seen *inputs; /* what was read of each external input */
    size_t ninputs;
    bool interrupted;       /* SIGINT/SIGTERM (output/interrupt.h) stopped it */
} pb_qrun;

typedef struct pb_qhooks {
    void (*on_row)(const pb_qrun *run, const pb_qrow *row, void *user);
    /* After every batch: the instance and n being drawn, samples drawn of
     * them, the fraction of all work done and the estimated seconds left
     * (negative while unknown). */
    void (*on_progress)(const pb_instance *in, uint32_t n, uint64_t drawn, uint64_t total,
                        double frac, double eta_s, void *user);
    void *user;
} pb_qhooks;

/* pb_quality_run's status when an external input is malformed or ends
 * early: bad input, so no verdict at all (the CLI's exit 2). */
#define PB_QRUN_BAD_INPUT (-2)

/* Runs the battery; returns -1 only when it cannot go on (out of memory),
 * stops between batches with run->interrupted set once a signal asked it
 * to (output/interrupt.h, when installed: the (instance, n) being drawn is
 * dropped, to be drawn again on resume),
 * PB_QRUN_BAD_INPUT for an external input that is not what it should be
 * (the first bad row named), with err set. Module failures become rows
 * marked error. */
int pb_quality_run(const pb_quality_config *cfg, const pb_qhooks *hooks, pb_qrun *run,
                   pb_err *err);
/* Goes on with a run whose finished rows `run` already holds (read back
 * from an interrupted run's quality.json): the (instance, n) it has no rows
 * of, drawn exactly as an uninterrupted run draws them. */
int pb_quality_resume(const pb_quality_config *cfg, const pb_qhooks *hooks, pb_qrun *run, pb_err *err);
void pb_qrun_free(pb_qrun *run);

/* Whether the run passes the gate: no row FAILed. */
bool pb_qrun_passed(const pb_qrun *run);

/* Batch size for n: cfg->batch, shrunk so a batch fits PB_Q_MAX_BATCH_BYTES. */
uint64_t pb_quality_batch(const pb_quality_config *cfg, uint64_t n);
/* The same for a wanted batch size. */
uint64_t pb_quality_batch_of(uint64_t batch, uint64_t n);

/* What was read of the input labelled `label`, or NULL. */
const pb_qinput_seen *pb_qrun_input(const pb_qrun *run, const char *label);

#ifdef __cplusplus
}
#endif

#endif

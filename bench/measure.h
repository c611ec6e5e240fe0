/* One point of one instance: prepare, warm up, then samples until the
 * stopping rule (bench/stopping.h) says enough, every one of them checked;
 * a module spread over several devices is asked after each what it sent
 * between them (pb_module.links), untimed, and the row keeps the median.
 *
 * A sample is: refresh (untimed: the input put back where the module works
 * in place, every output poisoned), the cache flush (untimed), the timed
 * run (CUDA events on the GPU, the monotonic clock on the CPU, and the host
 * wall time from launch to completion beside either), and the check
 * (untimed): a module with a reference (core/module.h) must produce the
 * reference's output for the sample's stream, compared by fingerprint; any
 * other module's output must pass its verify (or its family's check). A
 * sample that fails its check ends the row: FAILED, naming the sample.
 *
 * Samples cycle through cfg->streams random streams, so a reference runs
 * once a stream (its expectations are kept in the run and shared by every
 * row with the same reference, parameters and point), however many samples
 * are taken. */
#ifndef PB_MEASURE_H
#define PB_MEASURE_H

#include "bench/row.h"
#include "bench/sweep_config.h"

void pb_measure_point(const pb_config *cfg, pb_run *run, const pb_instance *in, pb_row *row);

/* The point over `seeds` seeds (bench/row_seeds.h): pb_measure_point once
 * a seed, each with its own prepare, warm-ups and stopping rule, the
 * seeds' samples then one row. A seed that fails or errs ends the row with
 * its status, the message naming the seed; "interrupted" stays the whole
 * message, so the runner drops the row. One seed is pb_measure_point. */
void pb_measure_seeds(const pb_config *cfg, pb_run *run, const pb_instance *in, int seeds, pb_row *row);

#endif

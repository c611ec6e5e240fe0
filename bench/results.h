/* results.csv and results.json: one row per module instance x problem point.
 * Column and field names are stable; tests/bench/test_results.c holds them to it. */
#ifndef PB_RESULTS_H
#define PB_RESULTS_H

#include <jansson.h>

#include "bench/runner.h"
#include "bench/sweep_config.h"

/* The CSV header, in order. */
extern const char *const pb_csv_columns[];
extern const size_t pb_csv_ncolumns;
/* Appended to those when the run measures some point over several seeds
 * (pb_run.seeds), and only then. */
extern const char *const pb_csv_seed_columns[];
extern const size_t pb_csv_nseed_columns;

/* Both write to a temporary file and rename it, so a reader never sees half
 * a file. */
int pb_results_write_csv(const char *path, const pb_run *run, pb_err *err);
/* Takes ownership of `provenance`. */
int pb_results_write_json(const char *path, const pb_config *cfg, const pb_run *run,
                          json_t *provenance, pb_err *err);

const char *pb_row_status_name(int status);

/* One row as results.json's "results" hold it (raw samples included): the
 * one serializer of a row, which the run's journal (bench/journal.h) uses
 * too. A new reference. */
json_t *pb_results_row_json(const pb_row *row, const pb_config *cfg);

#endif

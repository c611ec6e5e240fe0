/* The run's journal, DIR/journal.jsonl: what a run has finished, kept on
 * disk row by row so that any stop (SIGKILL, the OOM killer, a full disk)
 * leaves a run that `permbench run --resume DIR` can finish.
 *
 * Line 1, the header: {"permbench_journal": 1, "kind": "run", "provenance":
 * {...}} with the provenance results.json would carry (the config's path,
 * name, hash and text; `only`; `defines`, the -D overrides; `data_files`).
 * Then one line per finished row: the row exactly as results.json holds it
 * (pb_results_row_json, raw samples included) plus `run_wall_s`, the run's
 * wall time when the row finished. Every line is appended with one write
 * and fsync'd (output/journal_file.h); a torn last line is ignored. The
 * journal goes when results.json and results.csv are both in place. */
#ifndef PB_JOURNAL_H
#define PB_JOURNAL_H

#include <jansson.h>

#include "output/journal_file.h"
#include "bench/runner.h"

#define PB_RUN_JOURNAL "journal.jsonl"

/* A new run's journal in dir with its header; takes `provenance`. */
int pb_run_journal_start(pb_journal *j, const char *dir, json_t *provenance, pb_err *err);
/* A resumed run's journal in dir, a torn last line cut off. */
int pb_run_journal_continue(pb_journal *j, const char *dir, pb_err *err);
/* Appends a finished row. */
int pb_run_journal_row(pb_journal *j, const pb_config *cfg, const pb_row *row, double run_wall_s, pb_err *err);

#endif

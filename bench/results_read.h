/* Reading an interrupted run's results.json back, to finish it
 * (`permbench run --resume DIR`). */
#ifndef PB_RESULTS_READ_H
#define PB_RESULTS_READ_H

#include <stdbool.h>

#include "bench/runner.h"
#include "bench/sweep_config.h"

typedef struct pb_resume_info {
    char *config_text;  /* the config as the run read it (provenance.config.text) */
    char path[1024];    /* where it was read from, and its name */
    char name[256];
    char only[1024];    /* the run's --only, "" if none */
    char *defines[32];  /* the run's -D SECTION.KEY=VALUE overrides */
    size_t ndefines;
    bool interrupted;   /* summary.interrupted */
} pb_resume_info;

/* The run's config and options, from DIR/results.json. Bad or foreign
 * files are refused in one line. */
int pb_results_read_resume(const char *json_path, pb_resume_info *info, pb_err *err);
void pb_resume_info_free(pb_resume_info *info);

/* The finished rows of results.json into `run` (empty on entry), matched to
 * cfg's instances by label; a row naming no instance of cfg is refused, and
 * so is a data file the plan checked that the run did not record with the
 * same hash (call it after pb_run_check_plan). */
int pb_results_read_rows(const char *json_path, const pb_config *cfg, pb_run *run, pb_err *err);

/* The same two from a run's journal (DIR/journal.jsonl, bench/journal.h):
 * its header's provenance and its whole rows, a torn last line left out.
 * The rows are exactly the doubles the run measured (17 significant
 * digits), so a resumed run keeps them bit for bit. */
int pb_results_read_journal_resume(const char *path, pb_resume_info *info, pb_err *err);
int pb_results_read_journal_rows(const char *path, const pb_config *cfg, pb_run *run, pb_err *err);

#endif

#include "bench/journal.h"

#include <stdio.h>

#include "bench/results.h"

int pb_run_journal_start(pb_journal *j, const char *dir, json_t *provenance, pb_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, PB_RUN_JOURNAL);
    json_t *head = json_pack("{s:i, s:s, s:o}", "permbench_journal", 1, "kind", "run", "provenance",
                             provenance ? provenance : json_null());
    return pb_journal_create(j, path, head, err);
}

int pb_run_journal_continue(pb_journal *j, const char *dir, pb_err *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, PB_RUN_JOURNAL);
    return pb_journal_reopen(j, path, err);
}

int pb_run_journal_row(pb_journal *j, const pb_config *cfg, const pb_row *row, double run_wall_s, pb_err *err)
{
    json_t *line = pb_results_row_json(row, cfg);
    if (line) json_object_set_new(line, "run_wall_s", json_real(run_wall_s));
    return pb_journal_append(j, line, err);
}

/* quality.csv and quality.json: one row per (instance, n, test), and in the
 * JSON the same rows with provenance, the settings and the instances. */
#ifndef PB_QUALITY_RESULTS_H
#define PB_QUALITY_RESULTS_H

#include <jansson.h>

#include "quality/battery.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const char *const pb_qcsv_columns[];
extern const size_t pb_qcsv_ncolumns;

int pb_quality_write_csv(const char *path, const pb_qrun *run, pb_err *err);
/* `provenance` is consumed (its reference is stolen); `skipped` too (may be NULL). */
int pb_quality_write_json(const char *path, const pb_quality_config *cfg, const pb_qrun *run,
                          json_t *provenance, json_t *skipped, pb_err *err);

/* The rows of an interrupted run's quality.json (root) into `run` (empty
 * on entry), matched to cfg's instances by label, with its permutation
 * count and wall time: what `quality --resume` goes on from. A row naming
 * no instance or test of cfg is refused. */
int pb_quality_read_rows(json_t *root, const char *path, const pb_quality_config *cfg, pb_qrun *run,
                         pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

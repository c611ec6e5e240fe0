/* Rows whose numbers are impossible, flagged with the reason
 * (pb_row.suspect): the machine (a stall, contention) rather than the
 * algorithm made them. docs/measurement.md gives the rules and thresholds. */
#ifndef PB_SUSPECT_H
#define PB_SUSPECT_H

#include "bench/row.h"

/* A share of the copy ceiling above this is not a bandwidth: quiet runs
 * reach 2.2x at cache-resident n (a sequential module against a copy whose
 * thread start dominates), a stalled copy ceiling gives thousands. */
#define PB_SUSPECT_PCT_OF_COPY 500.0
/* Above this median a ceiling's time is its work, not a launch or a
 * thread start, so 16 times the items must take at least twice as long. */
#define PB_SUSPECT_CEILING_MS 0.1

/* The rule one row allows alone (its pct_copy filled). */
void pb_row_flag_suspect(pb_row *row);
/* Every rule, over the rows of a finished sweep (a ceiling's across n). */
void pb_run_flag_suspect(pb_run *run);

#endif

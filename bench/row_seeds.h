/* A point measured over several seeds (`seeds = N`, docs/measurement.md):
 * which seeds, and how their samples make one row.
 *
 * Seed i of a point is pb_seed_of(sweep seed, i): the sweep's seed itself
 * for i = 0, so a run of one seed is the run it always was, and for i >= 1
 * a 64-bit word of Philox4x32-10 keyed by the sweep's seed at counter
 * (i, 0, "seed"): unrelated to seed + i, so the seeds of one sweep never
 * are the seeds of another sweep whose seed is a neighbour. The seed is
 * the point's (pb_point.seed): the family draws its input from it and the
 * module its randomness, so both change from seed to seed. */
#ifndef PB_ROW_SEEDS_H
#define PB_ROW_SEEDS_H

#include <stdint.h>

#include "bench/row.h"

uint64_t pb_seed_of(uint64_t seed, int i);

/* The row's ms and wall summaries from its samples: of all of them, the
 * medians aside, which for a row of several seeds are the medians of the
 * per-seed medians (seed_median_ms, seed_min_ms, seed_max_ms and
 * seed_spread filled from its seed_nsamples). Returns -1 when the seed
 * counts do not add up to the samples. */
int pb_row_summarise(pb_row *row);

#endif

/* Drives one module through prepare / run / result / verify / release as the
 * harness does, for the module tests. */
#ifndef PB_TEST_MODULE_DRIVER_H
#define PB_TEST_MODULE_DRIVER_H

#include "core/module.h"

/* Runs `m` on n items for samples 0..runs-1 (runs >= 1) with default
 * parameters (threads overridden when > 0), checks the output with the
 * module's verify and (shuffles) the family check, and returns a malloc'd
 * copy of the final output (n * item_bytes bytes of result()) in *out (if
 * out is not NULL). Modules of other families must have a verify. */
int pb_drive_module(const pb_module *m, uint64_t n, unsigned item_bytes, uint64_t seed, int runs,
                    int threads, void **out, pb_err *err);

/* Every shuffle-family module of `dev` at every awkward size (and the
 * `extra` sizes, a 0-terminated list, if given), both item widths, two runs
 * each; prints the first failure. Returns 0, 1 on failure, or PB_TEST_SKIP if no module. */
int pb_drive_all_valid(pb_device dev, const uint64_t *extra);

/* For every shuffle-family module of `dev`: the same seed gives the same
 * output (unless the module is nondeterministic), another seed or sample
 * another output (seeded modules), unseeded ones reproduce their input. */
int pb_check_seeds(pb_device dev);

/* The awkward sizes every module is tried at, ending with 0. */
extern const uint64_t pb_awkward_sizes[];

#endif

/* Positional TVD: for each item, how far the distribution of its final
 * position over the samples is from uniform, averaged over the items (our
 * reading of the POV-shuffle README's "positional TVD"):
 *
 *   T = 1/N sum_i 1/2 sum_p |C_ip / S - 1/N|
 *
 * with C_ip the samples in which item i lands at position p. These are the
 * K = N^2 cells of stats/tvd_null.h with q = 1/N, M = S N. Under a uniform
 * shuffle two cells of one row or column never hold together (rho =
 * -1/(N-1), 2(N-1) of them) and two cells in different rows and columns do
 * a little more often than independence (rho = 1/(N-1)^2, (N-1)^2 of
 * them); the mean and noise of T follow exactly (tvd_null.h). A rotation
 * by a uniform offset has exactly uniform positions: this metric cannot
 * see it (the n-gram and predictor metrics do). */
#ifndef PB_STATS_POSITIONAL_H
#define PB_STATS_POSITIONAL_H

#include <stdint.h>

#include "core/err.h"
#include "stats/tvd_null.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* N^2 counts of 4 bytes: 64 MiB at the largest N. */
#define PB_POSITIONAL_MIN_N 3
#define PB_POSITIONAL_MAX_N 4096

typedef struct pb_positional {
    uint32_t n;
    uint32_t *counts;    /* [item * n + position] */
    unsigned char *seen; /* scratch of the permutation check */
    uint64_t samples, invalid;
} pb_positional;

int pb_positional_init(pb_positional *t, uint32_t n, pb_err *err);
/* `count` permutations, perm[p] = the item (original index) at position p.
 * Samples that are not permutations of [0, n) are counted as invalid. */
void pb_positional_add(pb_positional *t, const uint32_t *perms, uint64_t count);
double pb_positional_tvd(const pb_positional *t);
/* The null mean and sd of T at n with S samples. */
pb_tvd_null pb_positional_null(uint32_t n, uint64_t samples);
void pb_positional_result(const pb_positional *t, double alpha, pb_test_result *r);
void pb_positional_free(pb_positional *t);

#ifdef __cplusplus
}
#endif

#endif

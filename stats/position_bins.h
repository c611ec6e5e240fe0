/* Binned positions: where items land, at any n. The positional TVD
 * (stats/positional.h) keeps an n x n table and so stops at n = 4096; a
 * data loader's shuffle is judged at 10^4 .. 10^6 items, where the bias
 * that matters is coarse (a buffer of B items moves nothing more than
 * B - 1 places earlier). So cut the input positions and the output
 * positions each into b near-equal bins (b = min(n, 32)) and count, over
 * the samples, the items of input bin I that land in output bin J.
 *
 * One uniform permutation makes that b x b table an r x c contingency
 * table with fixed margins (|I| items, |J| places): multivariate
 * hypergeometric, E[M_IJ] = |I||J|/n, and Pearson's statistic has mean
 * (b-1)^2 n/(n-1). S independent tables summed keep that covariance
 * structure scaled by S, so X^2 (n-1)/n over the summed table is
 * asymptotically chi-square with (b-1)^2 degrees of freedom; the test
 * asks for at least 5 expected per cell. */
#ifndef PB_STATS_POSITION_BINS_H
#define PB_STATS_POSITION_BINS_H

#include <stdint.h>

#include "core/err.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_POSITION_BINS_MAX 32
#define PB_POSITION_BINS_MIN_N 2
#define PB_POSITION_BINS_MIN_EXPECTED 5

typedef struct pb_position_bins {
    uint32_t n, bins;
    uint64_t *counts;      /* [input bin * bins + output bin] */
    unsigned char *seen;   /* scratch of the permutation check */
    unsigned char *bin_of; /* each item's input bin (bins <= 32): no division per item */
    uint64_t samples, invalid;
} pb_position_bins;

/* The bins used at n: min(n, PB_POSITION_BINS_MAX). */
uint32_t pb_position_bins_at(uint32_t n);
/* The smallest expected count of a cell with `samples` permutations of n. */
double pb_position_bins_min_expected(uint32_t n, uint64_t samples);
/* Bin of position or item i: floor(i b / n), bins of near-equal size. */
static inline uint32_t pb_position_bin(uint64_t i, uint32_t bins, uint32_t n)
{
    return (uint32_t)(i * bins / n);
}

int pb_position_bins_init(pb_position_bins *t, uint32_t n, pb_err *err);
/* `count` permutations, perm[p] = the item at position p; samples that are
 * not permutations of [0, n) are counted as invalid. */
void pb_position_bins_add(pb_position_bins *t, const uint32_t *perms, uint64_t count);
/* Pearson's X^2 over the table, scaled by (n-1)/n (chi-square, (b-1)^2
 * degrees of freedom, under uniform). */
double pb_position_bins_statistic(const pb_position_bins *t);
void pb_position_bins_result(const pb_position_bins *t, double alpha, pb_test_result *r);
void pb_position_bins_free(pb_position_bins *t);

#ifdef __cplusplus
}
#endif

#endif

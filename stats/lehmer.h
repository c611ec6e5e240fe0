/* Ranking small permutations by their Lehmer code, for the chi-square test
 * over all n! cells.
 *
 * The Lehmer code of p is c_i = #{j > i : p[j] < p[i]}; its rank is
 * sum_i c_i (n-1-i)!, a bijection from the permutations of [0, n) onto
 * [0, n!), with the identity at 0 and the reversal at n! - 1. */
#ifndef PB_STATS_LEHMER_H
#define PB_STATS_LEHMER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_LEHMER_MAX_N 20 /* 20! < 2^64 < 21! */
#define PB_LEHMER_INVALID UINT64_MAX

/* n! for n <= 20. */
uint64_t pb_factorial(unsigned n);

/* The rank of perm[0..n), or PB_LEHMER_INVALID if it is not a permutation
 * of [0, n) (a value out of range or repeated) or n > 20. */
uint64_t pb_lehmer_rank(const uint32_t *perm, unsigned n);

/* The permutation of rank `rank` < n! into out[0..n). */
void pb_lehmer_unrank(uint64_t rank, unsigned n, uint32_t *out);

#ifdef __cplusplus
}
#endif

#endif

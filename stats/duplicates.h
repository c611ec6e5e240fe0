/* The duplicate (birthday) test: how many of N sample permutations repeat
 * an earlier one, against what uniformity over the n! permutations gives.
 * A generator whose permutations come from a small seed space (a 32-bit
 * seed, an LCG's few multipliers) repeats far more often than n! allows.
 *
 * Each permutation is kept as a 128-bit hash (two independent 64-bit
 * chains), so N samples take 16 N bytes whatever n is; a false repeat needs
 * a 128-bit collision (about N^2 / 2^129). The count of repeats
 * D = N - #distinct has expectation
 *
 *   E[D] = N - n! (1 - (1 - 1/n!)^N) = sum_{k>=2} (-1)^k C(N,k) / n!^{k-1}
 *
 * and, while N / n! is small, is close to Poisson with that mean (the
 * collision test of Knuth, TAOCP 3.3.2 I): p = P(Poisson(E[D]) >= D), one
 * sided, for too many repeats. The test is refused where N / n! > 1/64, the
 * dense regime in which the Poisson approximation no longer holds. */
#ifndef PB_STATS_DUPLICATES_H
#define PB_STATS_DUPLICATES_H

#include <stdint.h>

#include "core/err.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* n! >= PB_DUPS_MIN_CELLS_PER_SAMPLE * N is required. */
#define PB_DUPS_MIN_CELLS_PER_SAMPLE 64

typedef struct pb_hash128 {
    uint64_t a, b;
} pb_hash128;

typedef struct pb_dups {
    uint32_t n;
    uint64_t capacity, samples;
    pb_hash128 *h;
} pb_dups;

/* Whether the test holds for N samples at n (else err says why). */
int pb_dups_applicable(uint32_t n, uint64_t samples, pb_err *err);
/* E[D] under uniformity, for any n >= 1 (it underflows to 0 when n! is huge). */
double pb_dups_expected(uint32_t n, uint64_t samples);

pb_hash128 pb_perm_hash(const uint32_t *perm, uint32_t n);

int pb_dups_init(pb_dups *d, uint32_t n, uint64_t capacity, pb_err *err);
/* Hashes `count` more permutations (at most capacity in all), in parallel. */
void pb_dups_add(pb_dups *d, const uint32_t *perms, uint64_t count);
/* Sorts the hashes (in place) and counts the repeats. */
void pb_dups_result(pb_dups *d, double alpha, pb_test_result *r);
/* p-value and acceptance bound for `repeats` against mean `mu`. */
double pb_dups_p(uint64_t repeats, double mu);
double pb_dups_threshold(double mu, double alpha);
void pb_dups_free(pb_dups *d);

#ifdef __cplusplus
}
#endif

#endif

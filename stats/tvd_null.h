/* The null distribution of a total variation distance over equiprobable
 * cells, the common form of the positional and n-gram bias metrics.
 *
 * S sample permutations each put a 0/1 indicator X_t in each of K cells
 * (item i at position p; n-gram t among the windows), every cell with the
 * same probability q under a uniform shuffle, and M = S K q observations
 * in all (a fixed number per sample). The metric is the TVD between the
 * empirical distribution of the counts C_t and the uniform one:
 *
 *   T = 1/2 sum_t |C_t / M - 1/K| = sum_t (S q - C_t)_+ / M
 *
 * (the second form because sum_t (C_t - S q) = 0). Each C_t is exactly
 * Binomial(S, q), so E[T] = K E[(Sq - C)_+] / M exactly, from the pmf.
 * Two cells' counts are a bivariate binomial (S independent samples of a
 * pair of dependent indicators with correlation rho), whose Lancaster
 * expansion is in the orthonormal polynomials of Binomial(S, q) with
 * coefficients rho^k (Aitken and Gonin 1935; checked by exact enumeration
 * in tests/stats/test_bias.c), so for f(c) = (Sq - c)_+ and a_k = <f, P_k>:
 *
 *   Cov(f(C_t), f(C_u)) = sum_{k>=1} a_k^2 rho_tu^k
 *   Var(T) = K [Var f(C) + sum_{k>=1} a_k^2 R_k] / M^2,  R_k = sum_{u != t} rho_tu^k
 *
 * exact but for the series' truncation (|rho| <= 1/2 for the metrics that
 * use this, so PB_TVD_NULL_TERMS terms leave less than 1e-7 of Var f).
 * Every cell is alike under a uniform shuffle, so R_k comes from a short
 * list of pair types (how many other cells, and their rho) that each
 * metric derives. The verdict takes T as normal with that mean and
 * variance (a sum of K weakly dependent terms); a bias spreads or
 * concentrates counts, which raises T, so the test is one-sided:
 * p = P(Z >= (T - E) / sd). */
#ifndef PB_STATS_TVD_NULL_H
#define PB_STATS_TVD_NULL_H

#include <stddef.h>
#include <stdint.h>

#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_TVD_NULL_TERMS 24

/* `count` other cells correlated with a given one by rho (per sample). */
typedef struct pb_pair_type {
    long double count;
    long double rho;
} pb_pair_type;

typedef struct pb_tvd_null {
    double mean; /* E[T] */
    double sd;   /* sqrt Var(T) */
} pb_tvd_null;

/* The mean and standard deviation of T for S samples, K cells of
 * probability q each, M = S K q observations, and the pair types. */
pb_tvd_null pb_tvd_null_of(uint64_t samples, long double cells, long double q, const pb_pair_type *types,
                           size_t ntypes);

/* sum_{u != t} Cov(X_t, X_u) / Var(X_t) for the pair types: -1 whenever
 * every sample has the same number of observations (a check of a metric's
 * types). */
long double pb_pair_types_rho_sum(const pb_pair_type *types, size_t ntypes);

/* The one-sided normal verdict: statistic T against null, level alpha.
 * expected = E[T], aux = sd(T), threshold = E + z_{1-alpha} sd. */
void pb_tvd_verdict(double statistic, pb_tvd_null null, uint64_t samples, double alpha, pb_test_result *r);

#ifdef __cplusplus
}
#endif

#endif

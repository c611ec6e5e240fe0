/* The Mallows-kernel MMD one-sample test of Mitchell et al. (2024, sec. 5).
 *
 * K(I, sigma) = exp(-lambda * inv(sigma) / C(n,2)) compares a permutation
 * with the identity. Under uniformity its expectation has the closed form
 *
 *   E[K] = prod_{j=1..n} (1 - e^{-a j}) / (j (1 - e^{-a})),  a = lambda / C(n,2)
 *
 * (the inversion count is a sum of independent uniforms on {0..j-1}), and
 * E[K^2] is the same at 2 lambda. The statistic is |MMD^2| = |mean K - E[K]|
 * over the samples; it is accepted below
 *
 *   Hoeffding (eq. 4): sqrt(log(2 / alpha) / (2 N)),   p = min(1, 2 exp(-2 N t^2))
 *   CLT (eq. 5):       sqrt(2 Var[K] / N) erfinv(1 - alpha) = z_{1-alpha/2} sd,
 *                      p = 2 Q(t / sd),  sd = sqrt(Var[K] / N)
 *
 * The closed forms are evaluated in log space so that they hold for n up to
 * 10^6 and beyond: writing (1 - e^{-x}) = x e^{-x/2} sinh(x/2)/(x/2),
 *
 *   log E[K] = -lambda/2 + sum_{j=2..n} [s(a j/2) - s(a/2)],  s(y) = log(sinh(y)/y)
 *   log E[K^2] - 2 log E[K] = sum_{j=2..n} [h(a j/2) - h(a/2)], h(y) = log(y coth y)
 *   Var[K] = E[K]^2 expm1(log E[K^2] - 2 log E[K])
 *
 * with s and h from their Taylor series near 0: every sum is of positive
 * terms, nothing overflows, and the variance is never the difference of two
 * nearly equal numbers. */
#ifndef PB_STATS_MMD_H
#define PB_STATS_MMD_H

#include <stdint.h>

#include "core/err.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MMD_DEFAULT_LAMBDA 5.0

/* log(sinh(y) / y) and log(y coth y) for y >= 0, to a few ulp. */
double pb_log_sinhc(double y);
double pb_log_xcoth(double y);

/* log E[K] under uniformity, and E[K], Var[K] (n >= 1, lambda >= 0). */
double pb_mallows_log_mean(uint64_t n, double lambda);
void pb_mallows_moments(uint64_t n, double lambda, double *mean, double *var);

/* The kernel of one inversion count. */
double pb_mallows_kernel(uint64_t inversions, uint64_t n, double lambda);

typedef struct pb_mmd {
    uint32_t n;
    double lambda;
    double mean_k, var_k; /* closed forms under uniformity */
    /* Neumaier-compensated sums of K and K^2, in sample order (so the result
     * does not depend on the thread count). */
    double sum, comp, sum2, comp2;
    uint64_t samples, invalid;
} pb_mmd;

int pb_mmd_init(pb_mmd *m, uint32_t n, double lambda, pb_err *err);
/* Adds `count` permutations (count * n values), in parallel; 0 or -1 when
 * out of memory. */
int pb_mmd_add(pb_mmd *m, const uint32_t *perms, uint64_t count, pb_err *err);
/* |MMD^2| with the Hoeffding (eq. 4) or CLT (eq. 5) acceptance bound. */
void pb_mmd_result_hoeffding(const pb_mmd *m, double alpha, pb_test_result *r);
void pb_mmd_result_clt(const pb_mmd *m, double alpha, pb_test_result *r);

/* The bounds alone. */
double pb_mmd_hoeffding_threshold(uint64_t samples, double alpha);
double pb_mmd_hoeffding_p(uint64_t samples, double t);
double pb_mmd_clt_threshold(uint64_t samples, double var_k, double alpha);
double pb_mmd_clt_p(uint64_t samples, double var_k, double t);

#ifdef __cplusplus
}
#endif

#endif

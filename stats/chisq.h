/* Pearson's chi-square goodness of fit over all n! permutations of [0, n),
 * 2 <= n <= 8: every sample is ranked by its Lehmer code and counted in its
 * cell; under uniformity each of the n! cells expects samples / n!. Every
 * cell counts, empty ones included, so the statistic has n! - 1 degrees of
 * freedom and its p-value is gsl_cdf_chisq_Q(statistic, n! - 1). */
#ifndef PB_STATS_CHISQ_H
#define PB_STATS_CHISQ_H

#include <stdint.h>

#include "core/err.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_CHISQ_MIN_N 2
#define PB_CHISQ_MAX_N 8
/* The chi-square approximation wants at least this many expected per cell. */
#define PB_CHISQ_MIN_EXPECTED 5

typedef struct pb_chisq {
    unsigned n;
    uint64_t cells;   /* n! */
    uint64_t *counts; /* [cells] */
    uint64_t samples, invalid;
} pb_chisq;

int pb_chisq_init(pb_chisq *c, unsigned n, pb_err *err);
/* Counts `count` permutations laid out one after another (count * n values). */
void pb_chisq_add(pb_chisq *c, const uint32_t *perms, uint64_t count);
/* The statistic over the cells counted so far, its p-value and the
 * threshold gsl_cdf_chisq_Qinv(alpha, n! - 1). */
void pb_chisq_result(const pb_chisq *c, double alpha, pb_test_result *r);
/* The same from counts alone (cells = number of counts). */
void pb_chisq_from_counts(const uint64_t *counts, uint64_t cells, double alpha, pb_test_result *r);
void pb_chisq_free(pb_chisq *c);

#ifdef __cplusplus
}
#endif

#endif

/* A distribution-free confidence interval for the median, from order
 * statistics. Of n independent samples of any continuous distribution,
 * the number B below the true median is Binomial(n, 1/2), so the sorted
 * samples x(k) <= x(n-k+1) enclose the median with probability
 * P(k <= B <= n-k) = 1 - 2 P(B <= k-1), whatever the distribution: skewed,
 * heavy-tailed or with several modes (Conover, Practical Nonparametric
 * Statistics, 3rd ed., section 3.2). The interval takes the largest k whose
 * probability is at least the level asked for, so it is conservative: the
 * binomial is discrete, and at n = 10 the 95% interval [x(2), x(9)] holds
 * the median 97.9% of the time (the next one in, [x(3), x(8)], 89.1%).
 *
 * The rank: exact (the binomial's tail, GSL) up to PB_MEDIAN_CI_EXACT_MAX
 * samples; above, the normal approximation with continuity correction,
 * k = floor(n/2 + 1/2 - z sqrt(n)/2). Why the switch: the stopping rule
 * asks for the interval after every sample, up to max_samples of them,
 * and the exact rank costs a search over the incomplete beta function;
 * above a thousand samples the approximated rank is the exact one or next
 * to it (tests/stats/test_median_ci.c checks every n to 20000), which
 * moves the interval by one order statistic in several hundred.
 *
 * Below 6 samples no pair of order statistics reaches 95%: the interval is
 * then [min, max] and `confidence` says what it reaches (1 - 2^(1-n)). */
#ifndef PB_STATS_MEDIAN_CI_H
#define PB_STATS_MEDIAN_CI_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MEDIAN_CI_EXACT_MAX 1000

typedef struct pb_median_ci {
    size_t lo_rank, hi_rank; /* 1-based ranks of the ends among the sorted samples */
    double lo, hi;           /* x(lo_rank), x(hi_rank) */
    double confidence;       /* probability the ranks enclose the median, any continuous distribution */
    bool exact;              /* ranks from the binomial itself (else its normal approximation) */
} pb_median_ci;

/* The ranks for n >= 1 samples at `level` (0.95), their confidence and
 * whether they are exact. */
void pb_median_ci_ranks(size_t n, double level, size_t *lo_rank, size_t *hi_rank, double *confidence,
                        bool *exact);

/* The interval of sorted[0..n) (ascending, n >= 1). */
pb_median_ci pb_median_ci_of_sorted(const double *sorted, size_t n, double level);

/* The interval's relative half-width: (hi - lo) / (2 median); 0 when the
 * median is not positive. */
double pb_median_ci_halfwidth(const pb_median_ci *ci, double median);

#ifdef __cplusplus
}
#endif

#endif

/* The Mann-Whitney U test (Wilcoxon rank-sum test) of two independent
 * samples: does one tend to take larger values than the other? It is what
 * `permbench compare` asks of two runs' timing samples, as Google
 * Benchmark's compare.py does: timings are skewed and carry outliers, so a
 * rank test is used rather than a t-test on means.
 *
 * Always the normal approximation, two-sided, with the variance corrected
 * for ties and a continuity correction of 1/2 (scipy's
 * mannwhitneyu(method="asymptotic", use_continuity=True), R's
 * wilcox.test(exact=FALSE, correct=TRUE)). Timers tick in coarse steps, so
 * ties are the rule, and the exact distribution holds only without ties.
 * Without ties the approximation is within 0.015 of the exact p-value from
 * eight samples a side; heavy ties want more (within 0.025 at thirty, up to
 * 0.07 off at eight): tests/stats/test_mann_whitney.c. permbench's runs take at
 * least ten samples a row, most many more. */
#ifndef PB_STATS_MANN_WHITNEY_H
#define PB_STATS_MANN_WHITNEY_H

#include <stddef.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_mann_whitney {
    size_t nx, ny;
    double u;       /* U of x: pairs (x_i, y_j) with x_i > y_j, a tie counting 1/2 */
    double z;       /* (U - nx ny / 2) standardised, continuity corrected; > 0 when x tends larger */
    double p_value; /* two-sided, from the standard normal; 1 when every value ties */
} pb_mann_whitney;

/* The test of x[0..nx) against y[0..ny). Fails on an empty sample, a NaN,
 * or no memory for the ranks. */
int pb_mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny, pb_mann_whitney *r,
                      pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

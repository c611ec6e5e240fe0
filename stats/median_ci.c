#include "stats/median_ci.h"

#include <gsl/gsl_cdf.h>
#include <math.h>

/* P(B <= k - 1), B ~ Binomial(n, 1/2): the chance the median lies below
 * x(k). */
static double below(size_t k, size_t n)
{
    return k == 0 ? 0 : gsl_cdf_binomial_P((unsigned)(k - 1), 0.5, (unsigned)n);
}

void pb_median_ci_ranks(size_t n, double level, size_t *lo_rank, size_t *hi_rank, double *confidence,
                        bool *exact)
{
    double tail = (1 - level) / 2;
    size_t k = 1;
    *exact = n <= PB_MEDIAN_CI_EXACT_MAX;
    if (*exact) {
        /* The largest k >= 1 with P(B <= k - 1) <= tail: below() grows
         * with k, so a binary search over [1, (n + 1) / 2]. */
        size_t lo = 1, hi = (n + 1) / 2;
        while (lo < hi) {
            size_t mid = lo + (hi - lo + 1) / 2;
            if (below(mid, n) <= tail) lo = mid;
            else hi = mid - 1;
        }
        k = lo;
        *confidence = 1 - 2 * below(k, n);
    } else {
        double z = gsl_cdf_ugaussian_Qinv(tail), half = sqrt((double)n) / 2;
        double kf = floor((double)n / 2 + 0.5 - z * half);
        k = kf < 1 ? 1 : (size_t)kf;
        /* The same approximation's confidence: 1 - 2 P(B <= k - 1). */
        *confidence = 1 - 2 * gsl_cdf_ugaussian_P(((double)k - 0.5 - (double)n / 2) / half);
    }
    *lo_rank = k;
    *hi_rank = n + 1 - k;
}

pb_median_ci pb_median_ci_of_sorted(const double *sorted, size_t n, double level)
{
    pb_median_ci ci = {0};
    if (n == 0) return ci;
    pb_median_ci_ranks(n, level, &ci.lo_rank, &ci.hi_rank, &ci.confidence, &ci.exact);
    ci.lo = sorted[ci.lo_rank - 1];
    ci.hi = sorted[ci.hi_rank - 1];
    return ci;
}

double pb_median_ci_halfwidth(const pb_median_ci *ci, double median)
{
    return median > 0 ? (ci->hi - ci->lo) / (2 * median) : 0;
}

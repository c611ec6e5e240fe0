#include "tests/support/binomial.h"

#include <gsl/gsl_cdf.h>

void pb_binomial_interval(unsigned trials, double p, double confidence, unsigned *lo, unsigned *hi)
{
    double tail = (1 - confidence) / 2;
    /* lo: the largest k with P(X <= k - 1) <= tail. */
    unsigned k = 0;
    while (k < trials && gsl_cdf_binomial_P(k, p, trials) <= tail) k++;
    *lo = k;
    /* hi: the smallest k with P(X > k) <= tail. */
    k = 0;
    while (k < trials && gsl_cdf_binomial_Q(k, p, trials) > tail) k++;
    *hi = k;
}

/* A chi-square test of counts against equal expectations, for the tests
 * that check a shuffle's permutations or decisions are uniform. */
#ifndef PB_TESTS_CHI_SQUARE_H
#define PB_TESTS_CHI_SQUARE_H

#include <gsl/gsl_cdf.h>
#include <stdio.h>

/* 0 if `draws` draws spread over `cells` cells as `count` says are
 * consistent with equal probabilities (p >= 1e-6), else 1 with the
 * statistic printed on stderr under `what`. */
static inline int pb_test_chi_square(const char *what, const unsigned *count, unsigned cells, double draws)
{
    double chi2 = 0, e = draws / cells;
    for (unsigned c = 0; c < cells; c++) chi2 += (count[c] - e) * (count[c] - e) / e;
    double p = gsl_cdf_chisq_Q(chi2, cells - 1);
    if (p < 1e-6) {
        fprintf(stderr, "%s: chi-square %.1f over %u cells, p = %.3g\n", what, chi2, cells, p);
        return 1;
    }
    return 0;
}

#endif

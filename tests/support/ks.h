/* The one-sample Kolmogorov-Smirnov test against the uniform distribution
 * on [0, 1], for checking that a test's p-values are uniform under its null
 * hypothesis (the calibration tests). */
#ifndef PB_STATS_KS_H
#define PB_STATS_KS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts x[0..n) and returns D = sup |F_n(x) - x|. */
double pb_ks_uniform_d(double *x, size_t n);
/* P(D_n >= d) from Kolmogorov's limit distribution with Stephens' finite-n
 * correction, lambda = (sqrt(n) + 0.12 + 0.11 / sqrt(n)) d (good for n >= 35). */
double pb_ks_p(double d, size_t n);

#ifdef __cplusplus
}
#endif

#endif

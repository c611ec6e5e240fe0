/* The equal-tailed acceptance interval of a binomial count, which the
 * calibration tests use: a test run over `trials` independent seeds at level
 * alpha rejects Binomial(trials, alpha) times when it is calibrated; the
 * 99.9% interval is [lo, hi] with P(X < lo) <= 0.0005 and P(X > hi) <= 0.0005,
 * from GSL's binomial distribution functions. */
#ifndef PB_STATS_BINOMIAL_H
#define PB_STATS_BINOMIAL_H

#ifdef __cplusplus
extern "C" {
#endif

/* confidence in (0, 1), e.g. 0.999. */
void pb_binomial_interval(unsigned trials, double p, double confidence, unsigned *lo, unsigned *hi);

#ifdef __cplusplus
}
#endif

#endif

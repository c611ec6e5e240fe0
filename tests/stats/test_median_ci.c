/* Known answers for the median's confidence interval (stats/median_ci.h):
 * its ranks and their confidence from the binomial by hand, the normal
 * approximation against the exact ranks, and by simulation that the
 * interval holds the true median 93-97% of the time on skewed and bimodal
 * samples (fixed seeds). */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>

#include "stats/median_ci.h"
#include "tests/test.h"

/* n = 10: P(B <= 1) = (1 + 10)/1024, so [x(2), x(9)] holds the median with
 * 1 - 22/1024 = 0.978515625; [x(3), x(8)] would have 1 - 2 (1 + 10 + 45)/1024
 * = 0.890625 < 0.95. n = 20: P(B <= 5) = (1 + 20 + 190 + 1140 + 4845 +
 * 15504)/2^20 = 21700/2^20 <= 0.025 < P(B <= 6) = 60460/2^20, so [x(6), x(15)],
 * 1 - 43400/2^20. n = 5: nothing reaches 95%, [min, max] has 1 - 2/32. */
TEST_IMPL(stats_median_ci_ranks)
{
    size_t lo, hi;
    double conf;
    bool exact;
    pb_median_ci_ranks(10, 0.95, &lo, &hi, &conf, &exact);
    ASSERT(lo == 2 && hi == 9 && exact);
    ASSERT_NEAR(conf, 1 - 22.0 / 1024, 1e-12);
    pb_median_ci_ranks(20, 0.95, &lo, &hi, &conf, &exact);
    ASSERT(lo == 6 && hi == 15);
    ASSERT_NEAR(conf, 1 - 43400.0 / 1048576, 1e-12);
    pb_median_ci_ranks(6, 0.95, &lo, &hi, &conf, &exact);
    ASSERT(lo == 1 && hi == 6);
    ASSERT_NEAR(conf, 1 - 2.0 / 64, 1e-12);
    pb_median_ci_ranks(5, 0.95, &lo, &hi, &conf, &exact);
    ASSERT(lo == 1 && hi == 5);
    ASSERT_NEAR(conf, 1 - 2.0 / 32, 1e-12);
    pb_median_ci_ranks(1, 0.95, &lo, &hi, &conf, &exact);
    ASSERT(lo == 1 && hi == 1 && conf == 0);

    /* The interval of 1..10 and its half-width about the median 5.5. */
    const double x[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    pb_median_ci ci = pb_median_ci_of_sorted(x, 10, 0.95);
    ASSERT(ci.lo == 2 && ci.hi == 9);
    ASSERT_NEAR(pb_median_ci_halfwidth(&ci, 5.5), 7.0 / 11, 1e-15);
    return 0;
}

/* Above PB_MEDIAN_CI_EXACT_MAX the normal approximation's rank is the
 * exact one or next to it, and never below 95% by the exact binomial. */
TEST_IMPL(stats_median_ci_approximation)
{
    for (size_t n = PB_MEDIAN_CI_EXACT_MAX + 1; n <= 20000; n++) {
        size_t lo, hi, k = 1, top = (n + 1) / 2;
        double conf;
        bool exact;
        pb_median_ci_ranks(n, 0.95, &lo, &hi, &conf, &exact);
        ASSERT(!exact && hi == n + 1 - lo);
        while (k < top) { /* the exact rank: largest k with P(B <= k-1) <= 0.025 */
            size_t mid = k + (top - k + 1) / 2;
            if (gsl_cdf_binomial_P((unsigned)(mid - 1), 0.5, (unsigned)n) <= 0.025) k = mid;
            else top = mid - 1;
        }
        if (!(lo + 1 >= k && lo <= k + 1)) {
            fprintf(stderr, "n = %zu: rank %zu, exact %zu\n", n, lo, k);
            return 1;
        }
        ASSERT(1 - 2 * gsl_cdf_binomial_P((unsigned)(lo - 1), 0.5, (unsigned)n) >= 0.95 - 1e-9);
    }
    return 0;
}

typedef double (*draw_fn)(gsl_rng *r);
static double lognormal(gsl_rng *r) { return gsl_ran_lognormal(r, 0, 1); }
/* Two clusters 8x apart, 70/30: the median is inside the larger one. */
static double bimodal(gsl_rng *r)
{
    return gsl_ran_lognormal(r, gsl_rng_uniform(r) < 0.3 ? log(8.0) : 0, 0.1);
}
/* The scheduler's stalls: 0.01 ms, or 40% of the time 4, 8 or 12 ms. */
static double stalls(gsl_rng *r)
{
    if (gsl_rng_uniform(r) < 0.6) return 0.01 * gsl_ran_lognormal(r, 0, 0.1);
    return 4.0 * (1 + floor(3 * gsl_rng_uniform(r))) * gsl_ran_lognormal(r, 0, 0.05);
}

/* The share of `trials` intervals of n samples that hold `median`. */
static double coverage(draw_fn draw, double median, size_t n, int trials, unsigned long seed,
                       double *confidence)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    double *x = malloc(n * sizeof *x);
    int held = 0;
    for (int t = 0; t < trials; t++) {
        for (size_t i = 0; i < n; i++) x[i] = draw(r);
        gsl_sort(x, 1, n);
        pb_median_ci ci = pb_median_ci_of_sorted(x, n, 0.95);
        held += ci.lo <= median && median <= ci.hi;
        *confidence = ci.confidence;
    }
    free(x);
    gsl_rng_free(r);
    return (double)held / trials;
}

TEST_IMPL(stats_median_ci_coverage)
{
    /* True medians: lognormal 1; the 70/30 mixture's F(m) = 0.7 Phi(log m
     * / 0.1) = 1/2; the stalls' 0.6 Phi(log(m / 0.01) / 0.1) = 1/2. */
    struct {
        const char *name;
        draw_fn draw;
        double median;
    } dists[] = {
        {"lognormal", lognormal, 1.0},
        {"bimodal 70/30", bimodal, exp(0.1 * gsl_cdf_ugaussian_Pinv(5.0 / 7))},
        {"stalls", stalls, 0.01 * exp(0.1 * gsl_cdf_ugaussian_Pinv(5.0 / 6))},
    };
    /* 20, 30 and 300 exact, 1500 the normal approximation: counts whose
     * interval's confidence is 95.3-95.9%. 3000 trials: the share's standard
     * error is 0.38 points. */
    const size_t ns[] = {20, 30, 300, 1500};
    const int trials = 3000;
    for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            double conf, cov = coverage(dists[d].draw, dists[d].median, ns[k], trials, 1000 + 17 * d + k, &conf);
            printf("%-14s n = %4zu: covered %.2f%% (the ranks' confidence %.2f%%)\n", dists[d].name,
                   ns[k], 100 * cov, 100 * conf);
            ASSERT(cov >= 0.93 && cov <= 0.97);
            double se = sqrt(conf * (1 - conf) / trials);
            ASSERT(fabs(cov - conf) <= 4 * se);
        }
    /* At 10 samples the binomial's steps leave no interval nearer 95% than
     * [x(2), x(9)]: it covers 97.85%, as its confidence says. */
    double conf, cov = coverage(bimodal, exp(0.1 * gsl_cdf_ugaussian_Pinv(5.0 / 7)), 10, trials, 77, &conf);
    printf("bimodal 70/30  n =   10: covered %.2f%% (the ranks' confidence %.2f%%)\n", 100 * cov, 100 * conf);
    ASSERT(fabs(cov - conf) <= 4 * sqrt(conf * (1 - conf) / trials));
    return 0;
}

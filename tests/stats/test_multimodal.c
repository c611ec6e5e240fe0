/* The two-cluster test of stats/multimodal.h: known answers by hand, and
 * its calibration by simulation (fixed seeds): false alarms on unimodal
 * samples, clusters found in two-cluster mixtures and the scheduler's
 * stalls. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <math.h>
#include <stdlib.h>

#include "stats/multimodal.h"
#include "tests/test.h"

TEST_IMPL(stats_multimodal_by_hand)
{
    pb_modes m;
    /* Six samples near 1 ms and four near 8: split after the sixth. */
    const double two[] = {1.0, 1.01, 1.02, 1.03, 1.05, 1.1, 8.0, 8.1, 8.2, 8.5};
    ASSERT(pb_modes_of_sorted(two, 10, &m) == 0);
    ASSERT(m.multimodal && m.split == 6 && m.separation > 50);
    /* The same spread evenly over the range: one cluster. */
    double even[10];
    for (int i = 0; i < 10; i++) even[i] = 1.0 + 0.7 * i;
    ASSERT(pb_modes_of_sorted(even, 10, &m) == 0);
    ASSERT(!m.multimodal && m.separation < 7);
    /* A timer's neighbouring ticks (0.5 us at 10.5 and 11 us): one cluster. */
    const double ticks[] = {0.0105, 0.0105, 0.0105, 0.0105, 0.0105, 0.011, 0.011, 0.011, 0.011, 0.011};
    ASSERT(pb_modes_of_sorted(ticks, 10, &m) == 0);
    ASSERT(!m.multimodal);
    /* Two exact values 8x apart are not ticks: two clusters. */
    const double apart[] = {1, 1, 1, 1, 1, 8, 8, 8, 8, 8};
    ASSERT(pb_modes_of_sorted(apart, 10, &m) == 0);
    ASSERT(m.multimodal && m.split == 5);
    /* Equal samples; a cluster of 2 of 10 (below the 3 it needs); five
     * samples; a zero: not tested. */
    const double same[] = {2, 2, 2, 2, 2, 2, 2, 2};
    ASSERT(pb_modes_of_sorted(same, 8, &m) == 0 && !m.multimodal);
    const double lone[] = {1, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 9, 9.1};
    ASSERT(pb_modes_of_sorted(lone, 10, &m) == 0 && !m.multimodal);
    ASSERT(pb_modes_of_sorted(two + 3, 5, &m) == 0 && !m.multimodal && m.split == 0);
    const double zero[] = {0, 1, 1, 1, 8, 8, 8};
    ASSERT(pb_modes_of_sorted(zero, 7, &m) == 0 && !m.multimodal && m.split == 0);
    return 0;
}

enum { NORMAL, LOGNORMAL, LOGNORMAL_WIDE, GAMMA, EXPONENTIAL, UNIFORM, TICKS, APART_50, APART_20, STALLS, NDIST };
static const char *const names[NDIST] = {"normal", "lognormal 0.5", "lognormal 1.5", "gamma 2", "exponential",
                                         "uniform", "timer ticks", "70/30 50% apart", "50/50 20% apart", "stalls"};

static double draw(gsl_rng *r, int d)
{
    switch (d) {
    case NORMAL: return 10 + gsl_ran_gaussian(r, 1);
    case LOGNORMAL: return gsl_ran_lognormal(r, 0, 0.5);
    case LOGNORMAL_WIDE: return gsl_ran_lognormal(r, 0, 1.5);
    case GAMMA: return gsl_ran_gamma(r, 2, 1);
    case EXPONENTIAL: return gsl_ran_exponential(r, 1);
    case UNIFORM: return 1 + gsl_rng_uniform(r);
    case TICKS: return 0.0105 + 0.0005 * floor(3 * gsl_rng_uniform(r)); /* three neighbouring ticks */
    case APART_50: return (gsl_rng_uniform(r) < 0.3 ? 1.5 : 1.0) * gsl_ran_lognormal(r, 0, 0.02);
    case APART_20: return (gsl_rng_uniform(r) < 0.5 ? 1.2 : 1.0) * gsl_ran_lognormal(r, 0, 0.02);
    default:
        if (gsl_rng_uniform(r) < 0.6) return 0.01 * gsl_ran_lognormal(r, 0, 0.1);
        return 4.0 * (1 + floor(3 * gsl_rng_uniform(r))) * gsl_ran_lognormal(r, 0, 0.05);
    }
}

TEST_IMPL(stats_multimodal_calibration)
{
    const size_t ns[] = {6, 10, 20, 50, 100, 300, 1000};
    const size_t nn = sizeof ns / sizeof ns[0];
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double *x = malloc(1000 * sizeof *x);
    int rc = 0;
    for (int d = 0; d < NDIST && !rc; d++) {
        printf("%-16s", names[d]);
        for (size_t k = 0; k < nn && !rc; k++) {
            size_t n = ns[k];
            int trials = n >= 1000 ? 200 : n >= 300 ? 500 : 2000, hits = 0;
            gsl_rng_set(r, 500 + 31 * (unsigned long)d + k);
            for (int t = 0; t < trials; t++) {
                for (size_t i = 0; i < n; i++) x[i] = draw(r, d);
                gsl_sort(x, 1, n);
                pb_modes m;
                if (pb_modes_of_sorted(x, n, &m)) rc = 1;
                hits += m.multimodal;
            }
            double rate = (double)hits / trials;
            printf(" %6.3f", rate);
            bool mixture = d >= APART_50;
            /* Unimodal: at most 1.5% false alarms at 6 and 10 samples, none
             * from 20 on. Mixtures: found at least 95% of the time from 50
             * samples, 99% from 100. */
            if (!mixture && rate > (n <= 10 ? 0.015 : 0)) rc = 1;
            if (mixture && n >= 50 && rate < (n >= 100 ? 0.99 : 0.95)) rc = 1;
            if (rc) printf("  <- out of bounds");
        }
        printf("\n");
    }
    free(x);
    gsl_rng_free(r);
    return rc;
}

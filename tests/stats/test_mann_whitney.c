/* Known answers for the Mann-Whitney U test of stats/mann_whitney.h: a
 * small example with a tie worked by hand, the textbook example of
 * Hollander & Wolfe (1973, p. 69; R's ?wilcox.test), the symmetry of
 * swapping the samples, and the normal approximation against the exact
 * permutation p-value (every split of the pooled values enumerated) and,
 * with heavy ties, a Monte Carlo one. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdbool.h>

#include "stats/mann_whitney.h"
#include "tests/test.h"

/* x = 1.1 2.3 3.0 4.5 5.2, y = 3.0 6.1 7.4 8.8 9.0 10.2. Pooled and ranked:
 * 1.1 (x) 1, 2.3 (x) 2, 3.0 (x, y) 3.5 each, 4.5 (x) 5, 5.2 (x) 6, then y at
 * 7..11. R_x = 1 + 2 + 3.5 + 5 + 6 = 17.5, U_x = 17.5 - 5*6/2 = 2.5; mean
 * 5*6/2 = 15. One tie of two: sum(t^3 - t) = 6, so
 * var = 30/12 * (12 - 6/(11*10)) = 29.863636..., sd = 5.4647631571...;
 * z = -(12.5 - 0.5)/sd = -2.1958865654..., p = 2 Q(2.19588...) = 0.0281000636. */
TEST_IMPL(stats_mann_whitney_by_hand)
{
    const double x[] = {1.1, 2.3, 3.0, 4.5, 5.2}, y[] = {3.0, 6.1, 7.4, 8.8, 9.0, 10.2};
    pb_mann_whitney r;
    pb_err err;
    ASSERT(pb_mann_whitney_u(x, 5, y, 6, &r, &err) == 0);
    ASSERT_NEAR(r.u, 2.5, 0);
    ASSERT_NEAR(r.z, -2.1958865654261785, 1e-12);
    ASSERT_NEAR(r.p_value, 0.028100063557317638, 1e-12);
    /* Swapped: U is the complement, z changes sign, p stays. */
    pb_mann_whitney s;
    ASSERT(pb_mann_whitney_u(y, 6, x, 5, &s, &err) == 0);
    ASSERT_NEAR(s.u, 30 - 2.5, 0);
    ASSERT_NEAR(s.z, -r.z, 1e-12);
    ASSERT_NEAR(s.p_value, r.p_value, 1e-15);
    return 0;
}

/* Exact two-sided p-value by enumerating every way to draw nx of the pooled
 * values as "x": P(|U - mean| >= |u - mean|). Small samples only. */
static double exact_p(const double *x, size_t nx, const double *y, size_t ny, double u)
{
    double pool[24];
    size_t n = nx + ny;
    for (size_t i = 0; i < n; i++) pool[i] = i < nx ? x[i] : y[i - nx];
    double mean = (double)nx * (double)ny / 2, dev = fabs(u - mean) - 1e-9;
    unsigned long total = 0, extreme = 0;
    for (unsigned long m = 0; m < (1ul << n); m++) {
        if ((size_t)__builtin_popcountl(m) != nx) continue;
        double uu = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++)
                if ((m >> i & 1) && !(m >> j & 1))
                    uu += pool[i] > pool[j] ? 1 : pool[i] == pool[j] ? 0.5 : 0;
        total++;
        extreme += fabs(uu - mean) >= dev;
    }
    return (double)extreme / (double)total;
}

/* Hollander & Wolfe's permeability constants, term (x) against 12-26 weeks
 * (y): W = U = 35, exact one-sided p = 0.1272 (as R prints), so exact
 * two-sided 0.2544; the continuity-corrected normal approximation gives
 * z = (35 - 25 - 0.5) / sqrt(50/12 * 16) = 1.16350762782, p = 0.2446236051. */
TEST_IMPL(stats_mann_whitney_textbook)
{
    const double x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
    const double y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
    pb_mann_whitney r;
    pb_err err;
    ASSERT(pb_mann_whitney_u(x, 10, y, 5, &r, &err) == 0);
    ASSERT_NEAR(r.u, 35, 0);
    ASSERT_NEAR(r.z, 1.1635076278220096, 1e-12);
    ASSERT_NEAR(r.p_value, 0.24462360512698333, 1e-12);
    ASSERT_NEAR(exact_p(x, 10, y, 5, r.u), 0.2544122544122544, 1e-12);
    return 0;
}

/* Without ties, from eight values a side, the approximation is within
 * 0.015 of the exact p-value, for samples that differ a little or a lot. */
TEST_IMPL(stats_mann_whitney_vs_exact)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 16);
    double worst = 0;
    for (int trial = 0; trial < 40; trial++) {
        double x[8], y[8], shift = (trial % 4) * 0.3;
        for (int i = 0; i < 8; i++) x[i] = gsl_rng_uniform(rng) + shift, y[i] = gsl_rng_uniform(rng);
        pb_mann_whitney r;
        pb_err err;
        if (pb_mann_whitney_u(x, 8, y, 8, &r, &err)) break;
        double d = fabs(r.p_value - exact_p(x, 8, y, 8, r.u));
        if (d > worst) worst = d;
    }
    gsl_rng_free(rng);
    ASSERT_NEAR(worst, 0, 0.015);
    return 0;
}

/* With heavy ties (values on a grid of 0.25, as a coarse timer's), at
 * thirty a side, the tie-corrected approximation is within 0.025 of the
 * permutation p-value estimated from 20000 random splits (standard error
 * at most 0.0036). With as few as eight a side and such ties it can be
 * 0.07 off: the exact null distribution is too lumpy for a normal curve. */
TEST_IMPL(stats_mann_whitney_ties_vs_permutation)
{
    enum { N = 30, SPLITS = 20000 };
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1616);
    double worst = 0, pool[2 * N];
    int failed = 0;
    for (int trial = 0; trial < 8 && !failed; trial++) {
        double x[N], y[N], shift = (trial % 4) * 0.1;
        for (int i = 0; i < N; i++) {
            x[i] = round((gsl_rng_uniform(rng) + shift) / 0.25) * 0.25;
            y[i] = round(gsl_rng_uniform(rng) / 0.25) * 0.25;
            pool[i] = x[i], pool[N + i] = y[i];
        }
        pb_mann_whitney r, s;
        pb_err err;
        failed |= pb_mann_whitney_u(x, N, y, N, &r, &err);
        double mean = N * N / 2.0, dev = fabs(r.u - mean) - 1e-9;
        unsigned extreme = 0;
        for (int k = 0; k < SPLITS && !failed; k++) {
            gsl_ran_shuffle(rng, pool, 2 * N, sizeof pool[0]);
            failed |= pb_mann_whitney_u(pool, N, pool + N, N, &s, &err);
            extreme += fabs(s.u - mean) >= dev;
        }
        double d = fabs(r.p_value - (double)extreme / SPLITS);
        if (d > worst) worst = d;
    }
    gsl_rng_free(rng);
    ASSERT(!failed);
    ASSERT_NEAR(worst, 0, 0.025);
    return 0;
}

/* Every value equal: no evidence, p = 1; complete separation of ten a side
 * rejects strongly; an empty sample or a NaN is refused. */
TEST_IMPL(stats_mann_whitney_edges)
{
    const double same[] = {2, 2, 2, 2}, lo[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    const double hi[] = {11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
    pb_mann_whitney r;
    pb_err err;
    ASSERT(pb_mann_whitney_u(same, 4, same, 4, &r, &err) == 0);
    ASSERT_NEAR(r.p_value, 1, 0);
    ASSERT_NEAR(r.u, 8, 0);
    ASSERT(pb_mann_whitney_u(hi, 10, lo, 10, &r, &err) == 0);
    ASSERT_NEAR(r.u, 100, 0);
    ASSERT(r.z > 3.7 && r.p_value < 2e-4);
    ASSERT(pb_mann_whitney_u(lo, 0, hi, 10, &r, &err) != 0);
    ASSERT_CONTAINS(err.msg, "empty sample");
    const double bad[] = {1, NAN};
    ASSERT(pb_mann_whitney_u(bad, 2, hi, 10, &r, &err) != 0);
    ASSERT_CONTAINS(err.msg, "NaN");
    return 0;
}

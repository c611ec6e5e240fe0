/* Known answers for the statistics of stats/: Lehmer ranks, inversion
 * counts, the Mallows kernel's closed-form moments (against exhaustive
 * enumeration, a cumulant expansion and Monte Carlo), chi-square, MMD
 * bounds, duplicate counting and its expectation, verdicts. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "stats/chisq.h"
#include "stats/duplicates.h"
#include "stats/inversions.h"
#include "stats/lehmer.h"
#include "stats/mmd.h"
#include "tests/support/binomial.h"
#include "tests/support/ks.h"
#include "tests/test.h"

static int close_rel(double got, double want, double tol)
{
    double d = fabs(got - want), s = fabs(want) > 1e-300 ? fabs(want) : 1;
    return d <= tol * s;
}

#define ASSERT_CLOSE(got, want, tol)                                                               \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        if (!close_rel(g_, w_, tol)) {                                                             \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (rel. error %.3g > %g)\n",          \
                    __FILE__, __LINE__, #got, g_, w_, fabs(g_ - w_) / fabs(w_), (double)(tol));    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Every rank of every n <= 8 unranks to a permutation that ranks back to it;
 * the identity is 0 and the reversal n! - 1; the sum of the Lehmer digits is
 * the inversion count. */
TEST_IMPL(stats_lehmer_roundtrip)
{
    uint32_t p[PB_LEHMER_MAX_N];
    unsigned char seen[PB_LEHMER_MAX_N];
    for (unsigned n = 1; n <= 8; n++) {
        uint64_t f = pb_factorial(n);
        for (uint64_t r = 0; r < f; r++) {
            pb_lehmer_unrank(r, n, p);
            ASSERT(pb_is_permutation(p, n, seen));
            ASSERT_EQ_U64(pb_lehmer_rank(p, n), r);
        }
        for (unsigned i = 0; i < n; i++) p[i] = i;
        ASSERT_EQ_U64(pb_lehmer_rank(p, n), 0);
        for (unsigned i = 0; i < n; i++) p[i] = n - 1 - i;
        ASSERT_EQ_U64(pb_lehmer_rank(p, n), f - 1);
    }
    ASSERT_EQ_U64(pb_factorial(20), UINT64_C(2432902008176640000));
    /* 20 items, rank round trip at a few ranks. */
    uint64_t ranks[] = {0, 1, 123456789012345ULL, UINT64_C(2432902008176639999)};
    for (int i = 0; i < 4; i++) {
        pb_lehmer_unrank(ranks[i], 20, p);
        ASSERT_EQ_U64(pb_lehmer_rank(p, 20), ranks[i]);
    }
    /* Not permutations. */
    uint32_t dup[3] = {0, 0, 1}, big[3] = {0, 3, 1};
    ASSERT_EQ_U64(pb_lehmer_rank(dup, 3), PB_LEHMER_INVALID);
    ASSERT_EQ_U64(pb_lehmer_rank(big, 3), PB_LEHMER_INVALID);
    return 0;
}

/* The O(n log n) count equals the O(n^2) definition on random permutations
 * of many lengths, and refuses what is not a permutation. */
TEST_IMPL(stats_inversions)
{
    static const uint32_t sizes[] = {0, 1, 2, 3, 5, 31, 32, 33, 100, 1000, 4097};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 7);
    uint32_t *p = malloc(4097 * sizeof *p);
    void *scratch = malloc((size_t)pb_inversions_scratch_bytes(4097));
    ASSERT(r && p && scratch);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        uint32_t n = sizes[s];
        for (int rep = 0; rep < 20; rep++) {
            for (uint32_t i = 0; i < n; i++) p[i] = i;
            if (n > 1) gsl_ran_shuffle(r, p, n, sizeof *p);
            ASSERT_EQ_U64(pb_inversions(p, n, scratch), pb_inversions_naive(p, n));
        }
        for (uint32_t i = 0; i < n; i++) p[i] = n - 1 - i; /* the most: C(n,2) */
        ASSERT_EQ_U64(pb_inversions(p, n, scratch), (uint64_t)n * (n ? n - 1 : 0) / 2);
        if (n >= 2) {
            p[n / 2] = p[0]; /* a repeat */
            ASSERT_EQ_U64(pb_inversions(p, n, scratch), PB_INVERSIONS_INVALID);
            for (uint32_t i = 0; i < n; i++) p[i] = i;
            p[n - 1] = n; /* out of range */
            ASSERT_EQ_U64(pb_inversions(p, n, scratch), PB_INVERSIONS_INVALID);
        }
    }
    free(p), free(scratch);
    gsl_rng_free(r);
    return 0;
}

/* Over all n! permutations (n <= 8) the inversion counts follow the
 * Mahonian numbers: the coefficients of prod_j (1 + x + ... + x^{j-1}),
 * computed here independently of the counting code. */
TEST_IMPL(stats_inversions_mahonian)
{
    uint32_t p[8];
    for (unsigned n = 1; n <= 8; n++) {
        uint64_t maxinv = n * (n - 1) / 2, mahonian[29] = {1}, hist[29] = {0};
        for (unsigned j = 2; j <= n; j++) {
            uint64_t next[29] = {0};
            for (unsigned k = 0; k <= maxinv; k++)
                for (unsigned d = 0; d < j && k + d <= maxinv; d++) next[k + d] += mahonian[k];
            memcpy(mahonian, next, sizeof next);
        }
        for (uint64_t r = 0; r < pb_factorial(n); r++) {
            pb_lehmer_unrank(r, n, p);
            hist[pb_inversions(p, n, NULL)]++;
        }
        for (unsigned k = 0; k <= maxinv; k++) ASSERT_EQ_U64(hist[k], mahonian[k]);
    }
    return 0;
}

/* The closed forms of E[K] and Var[K] against the mean and variance of K
 * over all n! permutations, n = 2..8, several lambdas: 1e-12 relative. */
TEST_IMPL(stats_mallows_enumeration)
{
    static const double lambdas[] = {0.01, 0.5, 1, 5, 20, 100};
    uint32_t p[8];
    for (unsigned n = 2; n <= 8; n++)
        for (size_t l = 0; l < sizeof lambdas / sizeof lambdas[0]; l++) {
            double lambda = lambdas[l];
            /* K depends on the inversion count only: tally the counts, then
             * take the mean and (two-pass) variance in long double. */
            uint64_t hist[29] = {0}, f = pb_factorial(n);
            for (uint64_t r = 0; r < f; r++) {
                pb_lehmer_unrank(r, n, p);
                hist[pb_inversions_naive(p, n)]++;
            }
            long double s = 0, s2 = 0, pairs = (long double)n * (n - 1) / 2;
            for (unsigned i = 0; i <= n * (n - 1) / 2; i++) s += hist[i] * expl(-lambda * i / pairs);
            long double m_e = s / f;
            for (unsigned i = 0; i <= n * (n - 1) / 2; i++) {
                long double d = expl(-lambda * i / pairs) - m_e;
                s2 += hist[i] * d * d;
            }
            double mean_e = (double)m_e, var_e = (double)(s2 / f);
            double mean, var;
            pb_mallows_moments(n, lambda, &mean, &var);
            if (!close_rel(mean, mean_e, 1e-12) || !close_rel(var, var_e, 1e-12)) {
                fprintf(stderr,
                        "n=%u lambda=%g: E[K] %.17g vs %.17g, Var[K] %.17g vs %.17g (enumerated)\n",
                        n, lambda, mean, mean_e, var, var_e);
                return 1;
            }
            ASSERT_CLOSE(exp(pb_mallows_log_mean(n, lambda)), mean_e, 1e-12);
            /* The paper's product form, directly (fine at small n). */
            double a = lambda / (n * (n - 1) / 2.0), prod = 1;
            for (unsigned j = 1; j <= n; j++) prod *= (1 - exp(-a * j)) / (j * (1 - exp(-a)));
            ASSERT_CLOSE(mean, prod, 1e-12);
        }
    return 0;
}

/* Large n: the inversion count is a sum of independent uniforms on
 * {0..j-1}, whose cumulants are kappa_2 = sum (j^2-1)/12 and
 * kappa_4 = -sum (j^4-1)/120 (odd ones vanish), so
 * log E[K] = -lambda/2 + a^2 kappa_2 / 2 + a^4 kappa_4 / 24 + O(a^6 n^7):
 * an independent route to the closed form, exact to double precision for
 * n >= 1000. Var[K] likewise from log E[K^2] - 2 log E[K]. Nothing
 * overflows or cancels up to n = 10^7. */
TEST_IMPL(stats_mallows_large_n)
{
    static const uint64_t ns[] = {1000, 10000, 100000, 1000000, 10000000};
    const double lambda = 5;
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        long double n = (long double)ns[i], a = lambda / (n * (n - 1) / 2);
        /* sum_{j=1..n} j^2 and j^4 */
        long double s2 = n * (n + 1) * (2 * n + 1) / 6;
        long double s4 = n * (n + 1) * (2 * n + 1) * (3 * n * n + 3 * n - 1) / 30;
        long double k2 = (s2 - n) / 12, k4 = -(s4 - n) / 120;
        long double lm = -lambda / 2.0L + a * a * k2 / 2 + a * a * a * a * k4 / 24;
        /* log E[K^2] - 2 log E[K]: the cumulant terms at 2a minus twice at a */
        long double g = (4 - 2) * a * a * k2 / 2 + (16 - 2) * a * a * a * a * k4 / 24;
        double mean, var;
        pb_mallows_moments(ns[i], lambda, &mean, &var);
        ASSERT(isfinite(mean) && isfinite(var) && var > 0);
        ASSERT_CLOSE(pb_mallows_log_mean(ns[i], lambda), (double)lm, 1e-13);
        ASSERT_CLOSE(mean, (double)expl(lm), 1e-12);
        ASSERT_CLOSE(var, (double)(expl(2 * lm) * expm1l(g)), 1e-9);
    }
    /* lambda = 0: K = 1 always. */
    double mean, var;
    pb_mallows_moments(1000, 0, &mean, &var);
    ASSERT(mean == 1 && var == 0);
    return 0;
}

/* Monte Carlo at n = 1000: the mean and variance of K over 20000 uniform
 * permutations (GSL's shuffle, MT19937) agree with the closed forms within
 * 5 standard errors. */
TEST_IMPL(stats_mallows_montecarlo)
{
    enum { N = 1000, SAMPLES = 20000 };
    const double lambda = 5;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 12345);
    uint32_t *p = malloc(N * sizeof *p);
    void *scratch = malloc((size_t)pb_inversions_scratch_bytes(N));
    double *k = malloc(SAMPLES * sizeof *k);
    ASSERT(r && p && scratch && k);
    long double s = 0;
    for (int t = 0; t < SAMPLES; t++) {
        for (uint32_t i = 0; i < N; i++) p[i] = i;
        gsl_ran_shuffle(r, p, N, sizeof *p);
        k[t] = pb_mallows_kernel(pb_inversions(p, N, scratch), N, lambda);
        s += k[t];
    }
    double m = (double)(s / SAMPLES);
    long double c2 = 0, c4 = 0;
    for (int t = 0; t < SAMPLES; t++) {
        long double d = k[t] - m;
        c2 += d * d;
        c4 += d * d * d * d;
    }
    double v = (double)(c2 / (SAMPLES - 1)), m4 = (double)(c4 / SAMPLES);
    double mean, var;
    pb_mallows_moments(N, lambda, &mean, &var);
    double se_mean = sqrt(var / SAMPLES), se_var = sqrt((m4 - v * v) / SAMPLES);
    printf("n=%d: mean K %.9g (closed form %.9g, %.2f se), var K %.6g (closed form %.6g, %.2f se)\n",
           N, m, mean, (m - mean) / se_mean, v, var, (v - var) / se_var);
    ASSERT(fabs(m - mean) < 5 * se_mean);
    ASSERT(fabs(v - var) < 5 * se_var);
    free(p), free(scratch), free(k);
    gsl_rng_free(r);
    return 0;
}

/* The series and direct branches of s(y) and h(y) meet, and the identity
 * h(y) = s(2y) - 2 s(y) holds. */
TEST_IMPL(stats_log_sinhc)
{
    ASSERT(pb_log_sinhc(0) == 0 && pb_log_xcoth(0) == 0);
    ASSERT_CLOSE(pb_log_sinhc(1e-8), 1e-16 / 6, 1e-15);
    ASSERT_CLOSE(pb_log_xcoth(1e-8), 1e-16 / 3, 1e-15);
    ASSERT_CLOSE(pb_log_sinhc(0.5), log(sinh(0.5) / 0.5), 1e-14);
    ASSERT_CLOSE(pb_log_sinhc(0.5000001), log(sinh(0.5000001) / 0.5000001), 1e-14);
    ASSERT_CLOSE(pb_log_xcoth(0.25), log(0.25 / tanh(0.25)), 1e-13);
    ASSERT_CLOSE(pb_log_sinhc(30), log(sinh(30.0) / 30), 1e-15);
    ASSERT(isfinite(pb_log_sinhc(1000)));
    for (double y = 0.01; y < 40; y *= 1.7)
        ASSERT_CLOSE(pb_log_xcoth(y), pb_log_sinhc(2 * y) - 2 * pb_log_sinhc(y), 1e-12);
    return 0;
}

/* Chi-square from known counts: perfectly even counts give 0 and p = 1; a
 * generator stuck on one permutation gives N (n! - 1); the threshold is the
 * chi-square quantile. */
TEST_IMPL(stats_chisq_known)
{
    pb_chisq c;
    pb_err err;
    pb_test_result r;
    uint32_t p[6];
    ASSERT(pb_chisq_init(&c, 3, &err) == 0);
    for (int rep = 0; rep < 10; rep++)
        for (uint64_t k = 0; k < 6; k++) {
            pb_lehmer_unrank(k, 3, p);
            pb_chisq_add(&c, p, 1);
        }
    pb_chisq_result(&c, 0.01, &r);
    ASSERT(r.samples == 60 && r.statistic == 0 && r.p_value == 1 && r.verdict == PB_VERDICT_PASS);
    ASSERT(r.aux == 5 && r.expected == 10);
    ASSERT_CLOSE(r.threshold, 15.086272469388987, 1e-12); /* chi2(5) upper 1% point */
    pb_chisq_free(&c);

    ASSERT(pb_chisq_init(&c, 5, &err) == 0);
    for (int i = 0; i < 5; i++) p[i] = (uint32_t)i;
    for (int rep = 0; rep < 1200; rep++) pb_chisq_add(&c, p, 1);
    pb_chisq_result(&c, 0.01, &r);
    ASSERT_CLOSE(r.statistic, 1200.0 * 119, 1e-12);
    ASSERT(r.p_value < 1e-300 && r.verdict == PB_VERDICT_FAIL);
    /* A non-permutation makes it fail whatever the counts. */
    uint32_t bad[5] = {0, 1, 2, 3, 3};
    pb_chisq_add(&c, bad, 1);
    pb_chisq_result(&c, 0.01, &r);
    ASSERT(r.invalid == 1 && r.verdict == PB_VERDICT_FAIL);
    pb_chisq_free(&c);

    /* A statistic at the threshold has p = alpha. */
    for (double alpha = 1e-6; alpha < 0.5; alpha *= 10)
        ASSERT_CLOSE(gsl_cdf_chisq_Q(gsl_cdf_chisq_Qinv(alpha, 119), 119), alpha, 1e-9);
    ASSERT(pb_chisq_init(&c, 9, &err) != 0);
    ASSERT_CONTAINS(err.msg, "2 <= n <= 8");
    return 0;
}

/* The MMD bounds: eq. 4 and eq. 5 with their p-values consistent (p at the
 * threshold is alpha), and the statistic of a known sample. */
TEST_IMPL(stats_mmd_bounds)
{
    for (double alpha = 1e-6; alpha < 0.5; alpha *= 10) {
        uint64_t n = 1000000;
        double th = pb_mmd_hoeffding_threshold(n, alpha);
        ASSERT_CLOSE(th, sqrt(log(2 / alpha) / 2e6), 1e-15);
        ASSERT_CLOSE(pb_mmd_hoeffding_p(n, th), alpha, 1e-12);
        double tc = pb_mmd_clt_threshold(n, 1e-3, alpha);
        /* sqrt(2 Var / N) erfinv(1 - alpha) = sd * z_{1 - alpha/2} */
        ASSERT_CLOSE(tc, sqrt(1e-3 / 1e6) * gsl_cdf_ugaussian_Pinv(1 - alpha / 2), 1e-9);
        ASSERT_CLOSE(pb_mmd_clt_p(n, 1e-3, tc), alpha, 1e-9);
        ASSERT(tc < th); /* the CLT bound is the tighter one at large N */
    }
    /* All samples the identity: mean K = 1, statistic 1 - E[K]. */
    pb_mmd m;
    pb_err err;
    pb_test_result r;
    ASSERT(pb_mmd_init(&m, 100, 5, &err) == 0);
    uint32_t *p = malloc(100 * 50 * sizeof *p);
    for (int j = 0; j < 50; j++)
        for (int i = 0; i < 100; i++) p[j * 100 + i] = (uint32_t)i;
    ASSERT(pb_mmd_add(&m, p, 50, &err) == 0);
    pb_mmd_result_clt(&m, 0.01, &r);
    ASSERT_CLOSE(r.statistic, 1 - m.mean_k, 1e-12);
    ASSERT(r.verdict == PB_VERDICT_FAIL && r.samples == 50);
    pb_mmd_result_hoeffding(&m, 0.01, &r);
    ASSERT(r.reject && r.verdict == PB_VERDICT_FAIL);
    free(p);
    ASSERT(pb_mmd_init(&m, 1, 5, &err) != 0);
    return 0;
}

/* E[D] against its exact form at small sizes (both branches), the Poisson
 * p-value and threshold, and the repeat count of a known list. */
TEST_IMPL(stats_duplicates_known)
{
    /* n = 3: 6 cells; N = 4: E[D] = 4 - 6 (1 - (5/6)^4) */
    ASSERT_CLOSE(pb_dups_expected(3, 4), 4 - 6 * (1 - pow(5.0 / 6, 4)), 1e-12);
    /* n = 10: 3628800 cells, N = 20000 (series) and N = 100000 (direct) */
    for (uint64_t nn = 20000; nn <= 100000; nn += 80000) {
        long double m = 3628800, e = nn - m * (1 - powl(1 - 1 / m, (long double)nn));
        ASSERT_CLOSE(pb_dups_expected(10, nn), (double)e, 1e-9);
    }
    /* n = 100: about N^2 / (2 * 100!), far below anything observable */
    double mu = pb_dups_expected(100, 1000000);
    ASSERT(mu > 0 && mu < 1e-140);
    ASSERT(pb_dups_expected(1000, 1000000) == 0);
    ASSERT(pb_dups_p(0, mu) == 1 && pb_dups_p(1, mu) < 1e-140);
    ASSERT(pb_dups_threshold(mu, 0.01) == 1);
    /* threshold: P(X >= d) <= alpha < P(X >= d - 1) */
    double d = pb_dups_threshold(50, 0.01);
    ASSERT(pb_dups_p((uint64_t)d, 50) <= 0.01 && pb_dups_p((uint64_t)d - 1, 50) > 0.01);
    ASSERT_CLOSE(pb_dups_p(60, 50), gsl_cdf_poisson_Q(59, 50), 1e-12);

    pb_err err;
    ASSERT(pb_dups_applicable(100, 1000000, &err) == 0);
    ASSERT(pb_dups_applicable(9, 10000, &err) != 0);
    ASSERT_CONTAINS(err.msg, "n! >= 64 x samples");

    /* 5 permutations of 12 items: two pairs of repeats (one repeated thrice). */
    uint32_t p[5][12];
    for (int j = 0; j < 5; j++)
        for (int i = 0; i < 12; i++) p[j][i] = (uint32_t)((i + (j % 3 == 0 ? 0 : j == 1 ? 1 : 2)) % 12);
    /* j = 0, 3: shift 0; j = 1: shift 1; j = 2, 4: shift 2 */
    pb_dups dd;
    pb_test_result r;
    ASSERT(pb_dups_init(&dd, 12, 5, &err) == 0);
    pb_dups_add(&dd, &p[0][0], 5);
    pb_dups_result(&dd, 0.01, &r);
    ASSERT(r.statistic == 2 && r.verdict == PB_VERDICT_FAIL);
    pb_dups_free(&dd);
    return 0;
}

TEST_IMPL(stats_verdict)
{
    ASSERT(pb_verdict_of(0.5, false) == PB_VERDICT_PASS);
    ASSERT(pb_verdict_of(0.0005, false) == PB_VERDICT_SUSPECT);
    ASSERT(pb_verdict_of(0.5e-6, false) == PB_VERDICT_FAIL);
    ASSERT(pb_verdict_of(0.5, true) == PB_VERDICT_FAIL);
    ASSERT(pb_verdict_of(NAN, false) == PB_VERDICT_FAIL);
    ASSERT(strcmp(pb_verdict_name(PB_VERDICT_SUSPECT), "SUSPECT") == 0);
    /* Binomial(200, 0.01): P(X > 8) = 0.00021 <= 0.0005 < P(X > 7) = 0.00101 */
    unsigned lo, hi;
    pb_binomial_interval(200, 0.01, 0.999, &lo, &hi);
    ASSERT(lo == 0 && hi == 8);
    /* Kolmogorov-Smirnov against U(0, 1): an even grid fits, a point mass does not. */
    double x[1000];
    for (int i = 0; i < 1000; i++) x[999 - i] = (i + 0.5) / 1000;
    ASSERT_CLOSE(pb_ks_uniform_d(x, 1000), 0.0005, 1e-12);
    ASSERT(pb_ks_p(0.0005, 1000) == 1 && x[0] < x[1]);
    for (int i = 0; i < 1000; i++) x[i] = 0.25;
    ASSERT(pb_ks_uniform_d(x, 1000) == 0.75 && pb_ks_p(0.75, 1000) < 1e-300);
    /* Kolmogorov's distribution: P(sqrt(n) D >= 1.3581) = 0.05 in the limit */
    ASSERT_CLOSE(pb_ks_p(1.3580986 / (sqrt(1e8) + 0.12), 100000000), 0.05, 1e-4);
    pb_binomial_interval(1000, 0.01, 0.999, &lo, &hi);
    ASSERT(gsl_cdf_binomial_P(lo - 1, 0.01, 1000) <= 0.0005 && gsl_cdf_binomial_P(lo, 0.01, 1000) > 0.0005);
    ASSERT(gsl_cdf_binomial_Q(hi, 0.01, 1000) <= 0.0005 && gsl_cdf_binomial_Q(hi - 1, 0.01, 1000) > 0.0005);
    return 0;
}

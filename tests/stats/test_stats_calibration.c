/* The tests are themselves tested: calibration and power.
 *
 * Calibration: with a truly uniform generator (gsl-shuffle: GSL's
 * gsl_ran_shuffle driven by MT19937, sharing no code with ours), a test at
 * level alpha = 0.01 run over S independent seeds rejects Binomial(S, 0.01)
 * times. The observed count must lie in the equal-tailed 99.9% interval of
 * that binomial (stats/binomial.c, from gsl_cdf_binomial_P/Q), so a
 * calibrated test fails this check once in a thousand seeded runs; being
 * seeded, the check itself is deterministic. Beyond the one level, the
 * p-values over all seeds must look uniform on [0, 1] (Kolmogorov-Smirnov,
 * rejected only below 0.001). The Hoeffding bound is
 * conservative: it must not reject more often than alpha allows (the upper
 * end of the interval), and in practice never does.
 *
 * Power: known-bad generators are rejected with p < 1e-6 (verdict FAIL at
 * any alpha): the LCG bijective shuffle and VariablePhilox with 2 rounds
 * (through bijective-twin, the GPU kernels' C twin) at n = 5 and n = 100,
 * and a generator with only 1000 distinct seeds by the duplicate test. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "config/params.h"
#include "registry/registry.h"
#include "stats/chisq.h"
#include "stats/duplicates.h"
#include "stats/mmd.h"
#include "tests/support/binomial.h"
#include "tests/support/ks.h"
#include "tests/support/perm_files.h"
#include "tests/test.h"

#define ALPHA 0.01
#define CONFIDENCE 0.999

static uint32_t *draw(const char *module, const char *set, uint32_t n, uint64_t seed, uint64_t count)
{
    return pb_test_draw(module, set, false, n, seed, count);
}

static int within(const char *what, unsigned rejected, unsigned trials)
{
    unsigned lo, hi;
    pb_binomial_interval(trials, ALPHA, CONFIDENCE, &lo, &hi);
    printf("%s: %u of %u seeds rejected at alpha = %g (rate %.4f; calibrated: %u .. %u, the "
           "99.9%% binomial interval)\n",
           what, rejected, trials, ALPHA, (double)rejected / trials, lo, hi);
    return rejected >= lo && rejected <= hi;
}

/* The p-values of a calibrated test are uniform: KS against U(0, 1). */
static int uniform(const char *what, double *p, unsigned trials)
{
    double d = pb_ks_uniform_d(p, trials), q = pb_ks_p(d, trials);
    printf("%s: p-values over %u seeds, Kolmogorov-Smirnov D = %.4f, p = %.3g\n", what, trials, d, q);
    return q >= 0.001;
}

static int at_most(const char *what, unsigned rejected, unsigned trials)
{
    unsigned lo, hi;
    pb_binomial_interval(trials, ALPHA, CONFIDENCE, &lo, &hi);
    printf("%s: %u of %u seeds rejected at alpha = %g (rate %.4f; at most %u allowed)\n", what,
           rejected, trials, ALPHA, (double)rejected / trials, hi);
    return rejected <= hi;
}

/* chi-square and MMD at n = 5: 4000 seeds x 2400 permutations (20 expected
 * per cell). */
TEST_IMPL(stats_calibration_n5)
{
    enum { SEEDS = 4000, N = 2400 };
    unsigned rej_chisq = 0, rej_clt = 0, rej_hoeff = 0, broken = 0;
    double *p_chisq = malloc(SEEDS * sizeof(double)), *p_clt = malloc(SEEDS * sizeof(double));
    ASSERT(p_chisq && p_clt);
    /* Seeds in parallel, each seed's work on one thread: a few parallel
     * regions rather than thousands, which oversubscribed CI hosts punish. */
#pragma omp parallel for schedule(dynamic) reduction(+ : rej_chisq, rej_clt, rej_hoeff, broken)
    for (unsigned s = 1; s <= SEEDS; s++) {
        uint32_t *p = draw("cpu-gsl-shuffle", NULL, 5, s, N);
        pb_chisq c;
        pb_mmd m;
        pb_err err;
        pb_test_result r;
        if (!p || pb_chisq_init(&c, 5, &err) || pb_mmd_init(&m, 5, 5, &err)) {
            broken++;
            free(p);
            continue;
        }
        pb_chisq_add(&c, p, N);
        broken += pb_mmd_add(&m, p, N, &err) != 0;
        pb_chisq_result(&c, ALPHA, &r);
        rej_chisq += r.reject;
        p_chisq[s - 1] = r.p_value;
        pb_mmd_result_clt(&m, ALPHA, &r);
        rej_clt += r.reject;
        p_clt[s - 1] = r.p_value;
        pb_mmd_result_hoeffding(&m, ALPHA, &r);
        rej_hoeff += r.reject;
        pb_chisq_free(&c);
        free(p);
    }
    ASSERT(broken == 0);
    int ok = within("chi-square, n = 5, 2400 samples", rej_chisq, SEEDS);
    ok &= uniform("chi-square, n = 5, 2400 samples", p_chisq, SEEDS);
    ok &= within("MMD-CLT, n = 5, 2400 samples", rej_clt, SEEDS);
    ok &= uniform("MMD-CLT, n = 5, 2400 samples", p_clt, SEEDS);
    ok &= at_most("MMD-Hoeffding, n = 5, 2400 samples", rej_hoeff, SEEDS);
    free(p_chisq), free(p_clt);
    return ok ? 0 : 1;
}

/* MMD at n = 100: 2000 seeds x 1000 permutations. */
TEST_IMPL(stats_calibration_mmd_n100)
{
    enum { SEEDS = 2000, N = 1000 };
    unsigned rej_clt = 0, rej_hoeff = 0, broken = 0;
    double *p_clt = malloc(SEEDS * sizeof(double));
    ASSERT(p_clt);
#pragma omp parallel for schedule(dynamic) reduction(+ : rej_clt, rej_hoeff, broken)
    for (unsigned s = 1; s <= SEEDS; s++) {
        uint32_t *p = draw("cpu-gsl-shuffle", NULL, 100, s, N);
        pb_mmd m;
        pb_err err;
        pb_test_result r;
        if (!p || pb_mmd_init(&m, 100, 5, &err) || pb_mmd_add(&m, p, N, &err)) {
            broken++;
            free(p);
            continue;
        }
        pb_mmd_result_clt(&m, ALPHA, &r);
        rej_clt += r.reject;
        p_clt[s - 1] = r.p_value;
        pb_mmd_result_hoeffding(&m, ALPHA, &r);
        rej_hoeff += r.reject;
        free(p);
    }
    ASSERT(broken == 0);
    int ok = within("MMD-CLT, n = 100, 1000 samples", rej_clt, SEEDS);
    ok &= uniform("MMD-CLT, n = 100, 1000 samples", p_clt, SEEDS);
    ok &= at_most("MMD-Hoeffding, n = 100, 1000 samples", rej_hoeff, SEEDS);
    free(p_clt);
    return ok ? 0 : 1;
}

/* The duplicate test where repeats are common: n = 9 (362880 cells), 5000
 * samples, about 34 repeats expected. The Poisson p-value of a count is
 * discrete, so the test may reject less often than alpha, never more. */
TEST_IMPL(stats_calibration_duplicates)
{
    enum { SEEDS = 1000, N = 5000 };
    unsigned rej = 0, broken = 0;
    double total = 0;
    pb_err err;
    ASSERT(pb_dups_applicable(9, N, &err) == 0);
#pragma omp parallel for schedule(dynamic) reduction(+ : rej, broken, total)
    for (unsigned s = 1; s <= SEEDS; s++) {
        uint32_t *p = draw("cpu-gsl-shuffle", NULL, 9, s, N);
        pb_dups d;
        pb_err e;
        pb_test_result r;
        if (!p || pb_dups_init(&d, 9, N, &e)) {
            broken++;
            free(p);
            continue;
        }
        pb_dups_add(&d, p, N);
        pb_dups_result(&d, ALPHA, &r);
        rej += r.reject;
        total += r.statistic;
        pb_dups_free(&d);
        free(p);
    }
    ASSERT(broken == 0);
    double mu = pb_dups_expected(9, N);
    printf("duplicates, n = 9, 5000 samples: mean %.2f repeats (expected %.2f)\n", total / SEEDS, mu);
    /* The mean of near-Poisson counts: standard error sqrt(mu / SEEDS). */
    ASSERT(fabs(total / SEEDS - mu) < 5 * sqrt(mu / SEEDS));
    return at_most("duplicates, n = 9, 5000 samples", rej, SEEDS) ? 0 : 1;
}

static int expect_fail(const char *what, const pb_test_result *r)
{
    printf("%s: statistic %.6g, threshold %.6g, p = %.3g: %s\n", what, r->statistic, r->threshold,
           r->p_value, pb_verdict_name(r->verdict));
    return r->verdict == PB_VERDICT_FAIL && r->p_value < PB_FAIL_P;
}

/* A known-bad generator through bijective-twin (`set` its parameter):
 * chi-square at n = 5 and MMD (CLT) at n = 5 and n = 100 all reject it. */
static int power(const char *set)
{
    enum { N = 20000 };
    int ok = 1;
    char what[128];
    for (uint32_t n = 5; n <= 100; n += 95) {
        uint32_t *p = draw("cpu-bijective-twin", set, n, 42, N);
        if (!p) return 0;
        pb_mmd m;
        pb_err err;
        pb_test_result r;
        if (n == 5) {
            pb_chisq c;
            pb_chisq_init(&c, 5, &err);
            pb_chisq_add(&c, p, N);
            pb_chisq_result(&c, ALPHA, &r);
            snprintf(what, sizeof what, "cpu-bijective-twin %s, chi-square, n = 5", set);
            ok &= expect_fail(what, &r);
            pb_chisq_free(&c);
        }
        pb_mmd_init(&m, n, 5, &err);
        pb_mmd_add(&m, p, N, &err);
        pb_mmd_result_clt(&m, ALPHA, &r);
        snprintf(what, sizeof what, "cpu-bijective-twin %s, MMD-CLT, n = %u", set, n);
        ok &= expect_fail(what, &r);
        free(p);
    }
    return ok;
}

TEST_IMPL(stats_power_lcg) { return power("bijection=lcg") ? 0 : 1; }

TEST_IMPL(stats_power_varphilox_2_rounds) { return power("rounds=2") ? 0 : 1; }

/* The same tests pass VariablePhilox at its default 24 rounds (a control:
 * the power tests above are not failing everything). */
TEST_IMPL(stats_power_control)
{
    enum { N = 20000 };
    uint32_t *p = draw("cpu-bijective-twin", NULL, 5, 42, N);
    ASSERT(p);
    pb_chisq c;
    pb_mmd m;
    pb_err err;
    pb_test_result r;
    pb_chisq_init(&c, 5, &err);
    pb_chisq_add(&c, p, N);
    pb_chisq_result(&c, ALPHA, &r);
    printf("cpu-bijective-twin (24 rounds), chi-square, n = 5: p = %.3g\n", r.p_value);
    ASSERT(r.verdict != PB_VERDICT_FAIL);
    pb_mmd_init(&m, 5, 5, &err);
    pb_mmd_add(&m, p, N, &err);
    pb_mmd_result_clt(&m, ALPHA, &r);
    printf("cpu-bijective-twin (24 rounds), MMD-CLT, n = 5: p = %.3g\n", r.p_value);
    ASSERT(r.verdict != PB_VERDICT_FAIL);
    pb_chisq_free(&c);
    free(p);
    return 0;
}

/* A generator whose permutations come from only 1000 distinct seeds
 * (Fisher-Yates under MT19937 seeded with 1 + j mod 1000) repeats itself:
 * the duplicate test at n = 100 fails it, while gsl-shuffle passes. The
 * chi-square and MMD tests cannot see this at n = 100. */
TEST_IMPL(stats_power_few_seeds)
{
    enum { N = 10000, SEEDS = 1000, LEN = 100 };
    uint32_t *p = malloc((size_t)N * LEN * sizeof *p);
    gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
    ASSERT(p && g);
    for (uint32_t j = 0; j < N; j++) {
        uint32_t *q = p + (size_t)j * LEN;
        for (uint32_t i = 0; i < LEN; i++) q[i] = i;
        gsl_rng_set(g, 1 + (j * 7919u) % SEEDS);
        gsl_ran_shuffle(g, q, LEN, sizeof *q);
    }
    pb_dups d;
    pb_err err;
    pb_test_result r;
    ASSERT(pb_dups_init(&d, LEN, N, &err) == 0);
    pb_dups_add(&d, p, N);
    pb_dups_result(&d, ALPHA, &r);
    ASSERT(r.statistic == N - SEEDS);
    int ok = expect_fail("1000-seed generator, duplicates, n = 100", &r);
    pb_dups_free(&d);
    /* MMD does not notice: each seed's permutation is a fine one. */
    pb_mmd m;
    pb_mmd_init(&m, LEN, 5, &err);
    pb_mmd_add(&m, p, N, &err);
    pb_mmd_result_clt(&m, ALPHA, &r);
    printf("1000-seed generator, MMD-CLT, n = 100: p = %.3g (not expected to notice)\n", r.p_value);
    free(p);
    gsl_rng_free(g);

    uint32_t *u = draw("cpu-gsl-shuffle", NULL, LEN, 42, N);
    ASSERT(u);
    ASSERT(pb_dups_init(&d, LEN, N, &err) == 0);
    pb_dups_add(&d, u, N);
    pb_dups_result(&d, ALPHA, &r);
    printf("cpu-gsl-shuffle, duplicates, n = 100: %g repeats, %s\n", r.statistic, pb_verdict_name(r.verdict));
    ASSERT(r.statistic == 0 && r.verdict == PB_VERDICT_PASS);
    pb_dups_free(&d);
    free(u);
    return ok ? 0 : 1;
}

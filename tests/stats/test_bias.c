/* The bias metrics of stats/ (positional TVD, n-gram TVD, the next-item
 * predictor): known answers, their null distributions against exhaustive
 * enumeration, calibration with fisher-yates and power against known-biased
 * shuffles.
 *
 * Known answers are hand-computed (in the comments). The null mean and
 * noise of each TVD are exact but for a truncated series, so they must
 * equal the mean and variance over every one of the (N!)^S ways S samples
 * of N can fall, for small N and S, to 1e-6. Calibration: over many seeds
 * of fisher-yates, each metric at alpha = 0.01 must reject a count inside
 * the 99.9% binomial interval and its p-values must pass a KS test of
 * uniformity, as for the other tests (tests/stats/test_stats_calibration.c). */
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "config/params.h"
#include "core/rng.h"
#include "registry/registry.h"
#include "stats/ngram.h"
#include "stats/positional.h"
#include "stats/predictor.h"
#include "stats/tvd_null.h"
#include "tests/support/binomial.h"
#include "tests/support/ks.h"
#include "tests/support/perm_files.h"
#include "tests/test.h"

#define ALPHA 0.01
#define CONFIDENCE 0.999

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fabs(b) + 1e-15; }

/* ---- known answers ------------------------------------------------------- */

/* N = 3, the identity twice. Positional: item i always at i, so each item's
 * TVD is 1/2 (|1 - 1/3| + 2/3) = 2/3. Bigrams: (0,1) and (1,2) each half
 * the observations against 1/6 each of 6 tuples: 1/2 (2 (1/2 - 1/6) +
 * 4/6) = 2/3. Trigrams at N = 4 (identity): (0,1,2) and (1,2,3) of 24
 * tuples: 1/2 (2 (1/2 - 1/24) + 22/24) = 11/12. */
TEST_IMPL(bias_known_answers)
{
    uint32_t id3[6] = {0, 1, 2, 0, 1, 2}, id4[8] = {0, 1, 2, 3, 0, 1, 2, 3};
    pb_err err;
    pb_positional p;
    ASSERT(pb_positional_init(&p, 3, &err) == 0);
    pb_positional_add(&p, id3, 2);
    ASSERT(close_rel(pb_positional_tvd(&p), 2.0 / 3, 1e-12));
    pb_positional_free(&p);
    pb_ngram g;
    ASSERT(pb_ngram_init(&g, 3, 2, 2, &err) == 0);
    ASSERT(pb_ngram_add(&g, id3, 2, &err) == 0);
    ASSERT(close_rel(pb_ngram_tvd(&g), 2.0 / 3, 1e-12));
    pb_ngram_free(&g);
    ASSERT(pb_ngram_init(&g, 4, 3, 2, &err) == 0);
    ASSERT(pb_ngram_add(&g, id4, 2, &err) == 0);
    ASSERT(close_rel(pb_ngram_tvd(&g), 11.0 / 12, 1e-12));
    pb_ngram_free(&g);
    /* Every position once per item (a Latin square of 3): TVD 0. */
    uint32_t latin[9] = {0, 1, 2, 1, 2, 0, 2, 0, 1};
    ASSERT(pb_positional_init(&p, 3, &err) == 0);
    pb_positional_add(&p, latin, 3);
    ASSERT(pb_positional_tvd(&p) == 0);
    /* A sample that is not a permutation is counted invalid, not counted. */
    uint32_t bad[3] = {0, 0, 2};
    pb_positional_add(&p, bad, 1);
    ASSERT(p.invalid == 1 && pb_positional_tvd(&p) == 0);
    pb_positional_free(&p);
    return 0;
}

/* Predictor, N = 3: trained on the identity, g = 0->1, 1->2, 2->0 (row 2
 * is empty: the smallest b != 2). Held out: the identity is predicted
 * perfectly (2 of 2), (2,1,0) never (g(2) = 0, g(1) = 2), (2,0,1) always. */
TEST_IMPL(bias_predictor_known_answers)
{
    enum { S = 200 };
    uint32_t *p = malloc(S * 3 * sizeof *p);
    ASSERT(p);
    for (int j = 0; j < S; j++) p[3 * j] = 0, p[3 * j + 1] = 1, p[3 * j + 2] = 2;
    for (int j = S / 2; j < S; j++) /* half the held out reversed */
        if (j % 2) p[3 * j] = 2, p[3 * j + 1] = 1, p[3 * j + 2] = 0;
    pb_predictor t;
    pb_err err;
    pb_test_result r;
    ASSERT(pb_predictor_init(&t, 3, S, &err) == 0);
    ASSERT(pb_predictor_add(&t, p, S, &err) == 0);
    ASSERT(t.g[0] == 1 && t.g[1] == 2 && t.g[2] == 0);
    ASSERT_EQ_U64(t.held, S / 2);
    ASSERT_EQ_U64(t.hits, S / 2); /* 50 identities x 2, 50 reversals x 0 */
    pb_predictor_result(&t, ALPHA, &r);
    ASSERT(close_rel(r.statistic, 0.5, 1e-12) && close_rel(r.expected, 0.5, 1e-12));
    pb_predictor_free(&t);
    /* A 3-cycle g: no conflicting edge pair, so Var H = 3 v + 6 / (9 * 2)
     * = 3 (2/9) + 1/3 = 1. */
    uint32_t cyc[3] = {1, 2, 0};
    ASSERT(close_rel(pb_predictor_episode_var(cyc, 3), 1.0, 1e-12));
    free(p);
    return 0;
}

/* The Lancaster expansion behind tvd_null.h, against exact enumeration of a
 * bivariate binomial (S samples of two indicators with P(both) = p11):
 * Cov(f(C1), f(C2)) for f(c) = (Sq - c)_+. With one cell and one pair type
 * of count 1, Var(T) S^2 q^2 = Var f + Cov. */
TEST_IMPL(bias_lancaster)
{
    const int S = 7;
    const double q = 0.3;
    const double p11s[] = {0.0, 0.05, 0.15, 0.25};
    double fact[8] = {1};
    for (int i = 1; i <= S; i++) fact[i] = fact[i - 1] * i;
    for (size_t t = 0; t < sizeof p11s / sizeof p11s[0]; t++) {
        double p11 = p11s[t], p10 = q - p11, p00 = 1 - 2 * p10 - p11, sq = S * q;
        double ef = 0, ef2 = 0, efg = 0;
        for (int a = 0; a <= S; a++)
            for (int b = 0; a + b <= S; b++)
                for (int d = 0; a + b + d <= S; d++) {
                    int rest = S - a - b - d;
                    double pr = fact[S] / (fact[a] * fact[b] * fact[d] * fact[rest]) * pow(p11, a) * pow(p10, b) *
                                pow(p10, d) * pow(p00, rest);
                    double f1 = fmax(sq - (a + b), 0), f2 = fmax(sq - (a + d), 0);
                    ef += pr * f1, ef2 += pr * f1 * f1, efg += pr * f1 * f2;
                }
        double cov = efg - ef * ef, varf = ef2 - ef * ef;
        pb_pair_type type = {1, (p11 - q * q) / (q * (1 - q))};
        pb_tvd_null z = pb_tvd_null_of(S, 1, q, &type, 1);
        double got = z.sd * z.sd * sq * sq - varf;
        printf("p11 = %.2f: Cov = %.12f exact, %.12f from the expansion\n", p11, cov, got);
        ASSERT(fabs(got - cov) < 1e-9);
        ASSERT(close_rel(z.mean, ef / sq, 1e-12));
    }
    return 0;
}

/* Each metric's pair types: correlations summing to -1 (a fixed number of
 * observations per sample). */
TEST_IMPL(bias_pair_types)
{
    const uint32_t ns[] = {4, 5, 10, 100, 1000};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (unsigned order = 2; order <= 4; order++) {
            if (ns[i] < order + 1) continue;
            pb_pair_type types[16];
            size_t nt = pb_ngram_pair_types(ns[i], order, types);
            long double count = 1;
            for (size_t t = 0; t < nt; t++) count += types[t].count;
            ASSERT(fabsl(count / pb_ngram_cells(ns[i], order) - 1) < 1e-15L);
            ASSERT(fabsl(pb_pair_types_rho_sum(types, nt) + 1) < 1e-12L);
        }
    return 0;
}

/* ---- the null distributions against exhaustive enumeration ------------- */

static void all_perms(uint32_t n, uint32_t *out, uint32_t *count)
{
    /* Heap's algorithm would do; lexicographic next-permutation is plainer. */
    uint32_t a[8];
    for (uint32_t i = 0; i < n; i++) a[i] = i;
    *count = 0;
    for (;;) {
        memcpy(out + (*count)++ * n, a, n * sizeof *a);
        int i = (int)n - 2;
        while (i >= 0 && a[i] > a[i + 1]) i--;
        if (i < 0) return;
        int j = (int)n - 1;
        while (a[j] < a[i]) j--;
        uint32_t t = a[i];
        a[i] = a[j], a[j] = t;
        for (int l = i + 1, r = (int)n - 1; l < r; l++, r--) t = a[l], a[l] = a[r], a[r] = t;
    }
}

/* kind 0: positional; 2..4: n-grams of that order. Mean and variance of T
 * over all (N!)^S sample sets. */
static void exhaustive(int kind, uint32_t n, unsigned s, double *mean, double *var)
{
    uint32_t perms[120 * 5], np;
    all_perms(n, perms, &np);
    uint64_t total = 1;
    for (unsigned i = 0; i < s; i++) total *= np;
    uint32_t *set = malloc(s * n * sizeof *set);
    long double m = 0, m2 = 0;
    for (uint64_t code = 0; code < total; code++) {
        uint64_t c = code;
        for (unsigned i = 0; i < s; i++, c /= np) memcpy(set + i * n, perms + (c % np) * n, n * sizeof *set);
        double t;
        pb_err err;
        if (kind == 0) {
            pb_positional p;
            pb_positional_init(&p, n, &err);
            pb_positional_add(&p, set, s);
            t = pb_positional_tvd(&p);
            pb_positional_free(&p);
        } else {
            pb_ngram g;
            pb_ngram_init(&g, n, (unsigned)kind, s, &err);
            pb_ngram_add(&g, set, s, &err);
            t = pb_ngram_tvd(&g);
            pb_ngram_free(&g);
        }
        m += t, m2 += (long double)t * t;
    }
    free(set);
    *mean = (double)(m / total);
    *var = (double)(m2 / total - (m / total) * (m / total));
}

TEST_IMPL(bias_null_exhaustive)
{
    static const struct {
        int kind;
        uint32_t n;
        unsigned s;
    } cases[] = {{0, 3, 3}, {0, 4, 3}, {0, 5, 2}, {2, 3, 3}, {2, 4, 3}, {2, 5, 2}, {3, 4, 3}, {3, 5, 2}, {4, 5, 2}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double mean, var;
        exhaustive(cases[i].kind, cases[i].n, cases[i].s, &mean, &var);
        pb_tvd_null z = cases[i].kind == 0 ? pb_positional_null(cases[i].n, cases[i].s)
                                           : pb_ngram_null(cases[i].n, (unsigned)cases[i].kind, cases[i].s);
        printf("%s %d, n = %u, S = %u: mean %.10f (formula %.10f), sd %.10f (formula %.10f)\n",
               cases[i].kind ? "n-gram order" : "positional", cases[i].kind, cases[i].n, cases[i].s, mean, z.mean,
               sqrt(var), z.sd);
        ASSERT(close_rel(z.mean, mean, 1e-9));
        ASSERT(close_rel(z.sd, sqrt(var), 1e-6));
    }
    return 0;
}

/* The predictor's episode variance for a fixed g, over all N! episodes. */
TEST_IMPL(bias_predictor_null_exhaustive)
{
    uint32_t perms[120 * 5], np;
    all_perms(5, perms, &np);
    pb_rng r;
    pb_rng_init(&r, 3, 0);
    for (int trial = 0; trial < 50; trial++) {
        uint32_t g[5];
        for (uint32_t a = 0; a < 5; a++) {
            g[a] = pb_rng_below32(&r, 4);
            if (g[a] >= a) g[a]++;
        }
        double m = 0, m2 = 0;
        for (uint32_t k = 0; k < np; k++) {
            const uint32_t *p = perms + k * 5;
            int h = 0;
            for (int i = 1; i < 5; i++) h += p[i] == g[p[i - 1]];
            m += h, m2 += h * h;
        }
        m /= np, m2 /= np;
        ASSERT(close_rel(m, 1, 1e-12));
        ASSERT(close_rel(pb_predictor_episode_var(g, 5), m2 - m * m, 1e-12));
    }
    return 0;
}

/* ---- calibration with fisher-yates -------------------------------------- */

static uint32_t *draw(const char *module, const char *set, uint32_t n, uint64_t seed, uint64_t count)
{
    return pb_test_draw(module, set, true, n, seed, count);
}

/* One metric on `s` permutations: 0 positional, 2..3 n-gram, 1 predictor. */
static int metric(int kind, const uint32_t *p, uint32_t n, uint64_t s, double alpha, pb_test_result *r)
{
    pb_err err;
    if (kind == 0) {
        pb_positional t;
        if (pb_positional_init(&t, n, &err)) return -1;
        pb_positional_add(&t, p, s);
        pb_positional_result(&t, alpha, r);
        pb_positional_free(&t);
    } else if (kind == 1) {
        pb_predictor t;
        if (pb_predictor_init(&t, n, s, &err) || pb_predictor_add(&t, p, s, &err)) return -1;
        pb_predictor_result(&t, alpha, r);
        pb_predictor_free(&t);
    } else {
        pb_ngram g;
        if (pb_ngram_init(&g, n, (unsigned)kind, s, &err) || pb_ngram_add(&g, p, s, &err)) return -1;
        pb_ngram_result(&g, alpha, r);
        pb_ngram_free(&g);
    }
    return 0;
}

static const char *kind_name(int kind)
{
    return kind == 0 ? "positional TVD" : kind == 1 ? "predictor" : kind == 2 ? "bigram TVD" : "trigram TVD";
}

static int calibrate(int kind, uint32_t n, uint64_t s, unsigned seeds)
{
    unsigned rej = 0, broken = 0;
    double *pv = malloc(seeds * sizeof *pv), mean = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : rej, broken, mean)
    for (unsigned k = 1; k <= seeds; k++) {
        uint32_t *p = draw("cpu-fisher-yates", NULL, n, 1000 + k, s);
        pb_test_result r;
        if (!p || metric(kind, p, n, s, ALPHA, &r)) {
            broken++;
            free(p);
            continue;
        }
        rej += r.reject;
        pv[k - 1] = r.p_value;
        mean += (r.statistic - r.expected) / r.aux;
        free(p);
    }
    if (broken) return free(pv), 0;
    unsigned lo, hi;
    pb_binomial_interval(seeds, ALPHA, CONFIDENCE, &lo, &hi);
    double d = pb_ks_uniform_d(pv, seeds), ks = pb_ks_p(d, seeds);
    printf("%s, n = %u, %llu samples: %u of %u seeds rejected at alpha = %g (calibrated: %u .. %u); mean z "
           "%.3f; KS D = %.4f, p = %.3g\n",
           kind_name(kind), n, (unsigned long long)s, rej, seeds, ALPHA, lo, hi, mean / seeds, d, ks);
    free(pv);
    return rej >= lo && rej <= hi && ks >= 0.001;
}

/* Dense cells (positional n = 10: 50 a cell), the README's regime (about 3
 * a cell), sparse (trigrams: 0.2 a cell). */
TEST_IMPL(bias_calibration_positional)
{
    return calibrate(0, 10, 500, 1000) && calibrate(0, 100, 300, 1000) ? 0 : 1;
}

TEST_IMPL(bias_calibration_ngram)
{
    return calibrate(2, 10, 500, 1000) && calibrate(2, 100, 300, 1000) && calibrate(3, 30, 200, 1000) ? 0 : 1;
}

TEST_IMPL(bias_calibration_predictor)
{
    return calibrate(1, 10, 400, 1000) && calibrate(1, 100, 1000, 1000) ? 0 : 1;
}

/* ---- power ------------------------------------------------------------- */

typedef enum biased { ROTATION, FEW_SWAPS, BLOCK_LOCAL } biased;

/* Known-biased shuffles of [0, n): a uniformly random rotation (every
 * position uniform: only neighbours give it away), n/10 random
 * transpositions of the identity, and Fisher-Yates within fixed blocks of
 * 8 (a POV-shuffle with one iteration, no offset and one block per
 * virtual block). */
static void biased_perms(biased kind, uint32_t n, uint64_t s, uint32_t *out)
{
    for (uint64_t j = 0; j < s; j++) {
        uint32_t *p = out + j * n;
        pb_rng r;
        pb_rng_init(&r, 77, j);
        for (uint32_t i = 0; i < n; i++) p[i] = i;
        if (kind == ROTATION) {
            uint32_t off = pb_rng_below32(&r, n);
            for (uint32_t i = 0; i < n; i++) p[i] = (i + off) % n;
        } else if (kind == FEW_SWAPS) {
            for (uint32_t k = 0; k < n / 10; k++) {
                uint32_t a = pb_rng_below32(&r, n), b = pb_rng_below32(&r, n), t = p[a];
                p[a] = p[b], p[b] = t;
            }
        } else {
            for (uint32_t b = 0; b < n; b += 8) {
                uint32_t len = n - b < 8 ? n - b : 8;
                for (uint32_t i = len; i > 1; i--) {
                    uint32_t k = pb_rng_below32(&r, i), t = p[b + i - 1];
                    p[b + i - 1] = p[b + k], p[b + k] = t;
                }
            }
        }
    }
}

TEST_IMPL(bias_power)
{
    enum { N = 100, S = 300 };
    uint32_t *p = malloc(N * S * sizeof *p);
    ASSERT(p);
    /* What each metric must see (1) or cannot (0): positions of a rotation
     * are exactly uniform. */
    static const int sees[3][4] = {{0, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}};
    static const char *names[3] = {"rotation", "few swaps", "block-local Fisher-Yates"};
    const int kinds[4] = {0, 1, 2, 3};
    for (int b = 0; b < 3; b++) {
        biased_perms((biased)b, N, S, p);
        for (int k = 0; k < 4; k++) {
            pb_test_result r;
            ASSERT(metric(kinds[k], p, N, S, ALPHA, &r) == 0);
            printf("%s: %s %.6g (expected %.6g, sd %.3g), p = %.3g, %s\n", names[b], kind_name(kinds[k]),
                   r.statistic, r.expected, r.aux, r.p_value, pb_verdict_name(r.verdict));
            if (sees[b][k]) ASSERT(r.verdict == PB_VERDICT_FAIL && r.p_value < 1e-6);
        }
    }
    /* Fisher-Yates at the same sizes passes them all. */
    uint32_t *f = draw("cpu-fisher-yates", NULL, N, 5, S);
    ASSERT(f);
    for (int k = 0; k < 4; k++) {
        pb_test_result r;
        ASSERT(metric(kinds[k], f, N, S, ALPHA, &r) == 0);
        printf("cpu-fisher-yates: %s %.6g (expected %.6g), p = %.3g\n", kind_name(kinds[k]), r.statistic, r.expected,
               r.p_value);
        ASSERT(r.p_value > 1e-3);
    }
    free(f);
    free(p);
    return 0;
}

#include "stats/predictor.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/inversions.h"

int pb_predictor_applicable(uint32_t n, uint64_t samples, pb_err *err)
{
    if (n < PB_PREDICTOR_MIN_N || n > PB_PREDICTOR_MAX_N)
        return pb_err_set(err, "the predictor needs %d <= n <= %d (an N^2 transition table), not %u",
                          PB_PREDICTOR_MIN_N, PB_PREDICTOR_MAX_N, n);
    if (samples < 100)
        return pb_err_set(err, "the predictor needs at least 100 samples (half train, half are held out), not %llu",
                          (unsigned long long)samples);
    if (samples >= UINT32_MAX) return pb_err_set(err, "the predictor counts at most 2^32 - 2 samples");
    return 0;
}

int pb_predictor_init(pb_predictor *t, uint32_t n, uint64_t samples, pb_err *err)
{
    memset(t, 0, sizeof *t);
    if (pb_predictor_applicable(n, samples, err)) return -1;
    t->n = n;
    t->train = samples / 2;
    t->table = calloc((size_t)n * n, sizeof *t->table);
    t->seen = malloc(n);
    if (!t->table || !t->seen) {
        pb_predictor_free(t);
        return pb_err_set(err, "out of memory for the %u x %u transition table", n, n);
    }
    return 0;
}

double pb_predictor_episode_var(const uint32_t *g, uint32_t n)
{
    /* Ordered pairs of distinct edges that cannot hold together: two
     * items predicting the same successor, and 2-cycles. */
    uint32_t *indeg = calloc(n, sizeof *indeg);
    long double conflicts = 0;
    if (!indeg) return NAN;
    for (uint32_t a = 0; a < n; a++) indeg[g[a]]++;
    for (uint32_t b = 0; b < n; b++) conflicts += (long double)indeg[b] * ((long double)indeg[b] - 1);
    for (uint32_t a = 0; a < n; a++) conflicts += g[g[a]] == a;
    free(indeg);
    long double N = n, v = (1 / N) * (1 - 1 / N), pairs = N * (N - 1);
    long double var = N * v - conflicts / (N * N) + (pairs - conflicts) / (N * N * (N - 1));
    return (double)var;
}

/* The most frequent successor of each item in training, the smallest on a
 * tie, never the item itself. */
static int train_done(pb_predictor *t, pb_err *err)
{
    uint32_t n = t->n;
    t->g = malloc(n * sizeof *t->g);
    if (!t->g) return pb_err_set(err, "out of memory");
    for (uint32_t a = 0; a < n; a++) {
        const uint32_t *row = t->table + (size_t)a * n;
        uint32_t best = a == 0 ? 1 : 0;
        for (uint32_t b = 0; b < n; b++)
            if (b != a && row[b] > row[best]) best = b;
        t->g[a] = best;
    }
    t->var_episode = pb_predictor_episode_var(t->g, n);
    return 0;
}

int pb_predictor_add(pb_predictor *t, const uint32_t *perms, uint64_t count, pb_err *err)
{
    uint32_t n = t->n;
    for (uint64_t j = 0; j < count; j++) {
        const uint32_t *p = perms + j * n;
        bool train = t->seen_all++ < t->train;
        if (!pb_is_permutation(p, n, t->seen)) {
            t->invalid++;
            continue;
        }
        if (train) {
            for (uint32_t i = 1; i < n; i++) t->table[(size_t)p[i - 1] * n + p[i]]++;
            continue;
        }
        if (!t->g && train_done(t, err)) return -1;
        uint64_t h = 0;
        for (uint32_t i = 1; i < n; i++) h += p[i] == t->g[p[i - 1]];
        t->hits += h;
        t->held++;
    }
    return 0;
}

void pb_predictor_result(const pb_predictor *t, double alpha, pb_test_result *r)
{
    double pairs = (double)t->held * (t->n - 1);
    r->samples = t->seen_all;
    r->invalid = t->invalid;
    r->expected = 1.0 / (t->n - 1);
    r->statistic = pairs > 0 ? (double)t->hits / pairs : 0;
    r->aux = pairs > 0 ? sqrt((double)t->held * t->var_episode) / pairs : NAN;
    if (pairs > 0 && r->aux > 0) {
        r->threshold = r->expected + gsl_cdf_ugaussian_Qinv(alpha) * r->aux;
        r->p_value = gsl_cdf_ugaussian_Q((r->statistic - r->expected) / r->aux);
    } else {
        r->threshold = r->expected;
        r->p_value = NAN; /* nothing held out: no verdict but a failure */
    }
    r->reject = !(r->statistic < r->threshold) || t->invalid;
    r->verdict = pb_verdict_of(r->p_value, r->reject);
}

void pb_predictor_free(pb_predictor *t)
{
    free(t->table), free(t->g), free(t->seen);
    t->table = NULL;
    t->g = NULL;
    t->seen = NULL;
}

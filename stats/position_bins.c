#include "stats/position_bins.h"

#include <gsl/gsl_cdf.h>
#include <stdlib.h>
#include <string.h>

#include "stats/inversions.h"

uint32_t pb_position_bins_at(uint32_t n) { return n < PB_POSITION_BINS_MAX ? n : PB_POSITION_BINS_MAX; }

double pb_position_bins_min_expected(uint32_t n, uint64_t samples)
{
    uint32_t b = pb_position_bins_at(n);
    if (!b) return 0;
    double smallest = (double)(n / b); /* floor(i b / n) bins hold floor(n/b) or one more */
    return (double)samples * smallest * smallest / n;
}

int pb_position_bins_init(pb_position_bins *t, uint32_t n, pb_err *err)
{
    memset(t, 0, sizeof *t);
    if (n < PB_POSITION_BINS_MIN_N)
        return pb_err_set(err, "binned positions need n >= %d, not %u", PB_POSITION_BINS_MIN_N, n);
    t->n = n;
    t->bins = pb_position_bins_at(n);
    t->counts = calloc((size_t)t->bins * t->bins, sizeof *t->counts);
    t->seen = malloc(n);
    t->bin_of = malloc(n);
    if (!t->counts || !t->seen || !t->bin_of) {
        pb_position_bins_free(t);
        return pb_err_set(err, "out of memory for binned positions at n = %u", n);
    }
    for (uint32_t i = 0; i < n; i++) t->bin_of[i] = (unsigned char)pb_position_bin(i, t->bins, n);
    return 0;
}

void pb_position_bins_add(pb_position_bins *t, const uint32_t *perms, uint64_t count)
{
    uint32_t n = t->n, b = t->bins;
    for (uint64_t j = 0; j < count; j++) {
        const uint32_t *p = perms + j * n;
        t->samples++;
        if (!pb_is_permutation(p, n, t->seen)) {
            t->invalid++;
            continue;
        }
        /* Output bins are runs of positions: walk them instead of dividing. */
        for (uint32_t out = 0; out < b; out++) {
            uint64_t lo = ((uint64_t)out * n + b - 1) / b, hi = ((uint64_t)(out + 1) * n + b - 1) / b;
            uint64_t *row = t->counts + out;
            for (uint64_t pos = lo; pos < hi; pos++) row[(size_t)t->bin_of[p[pos]] * b]++;
        }
    }
}

/* Bin I holds the i with floor(i b / n) = I: ceil(I n / b) .. ceil((I+1) n / b) - 1. */
static uint64_t bin_size(uint32_t bin, uint32_t b, uint32_t n)
{
    return ((uint64_t)(bin + 1) * n + b - 1) / b - ((uint64_t)bin * n + b - 1) / b;
}

double pb_position_bins_statistic(const pb_position_bins *t)
{
    uint64_t s = t->samples - t->invalid;
    if (!s) return 0;
    uint32_t b = t->bins, n = t->n;
    long double x2 = 0;
    for (uint32_t i = 0; i < b; i++)
        for (uint32_t o = 0; o < b; o++) {
            long double e = (long double)s * bin_size(i, b, n) * bin_size(o, b, n) / n;
            long double d = (long double)t->counts[(size_t)i * b + o] - e;
            x2 += d * d / e;
        }
    return (double)(x2 * (n - 1) / n);
}

void pb_position_bins_result(const pb_position_bins *t, double alpha, pb_test_result *r)
{
    double df = (double)(t->bins - 1) * (t->bins - 1);
    memset(r, 0, sizeof *r);
    r->samples = t->samples;
    r->statistic = pb_position_bins_statistic(t);
    r->expected = df; /* the statistic's mean under uniform: statistic / expected is the bias */
    r->aux = pb_position_bins_min_expected(t->n, t->samples - t->invalid);
    r->threshold = gsl_cdf_chisq_Qinv(alpha, df);
    r->p_value = t->samples > t->invalid ? gsl_cdf_chisq_Q(r->statistic, df) : 1;
    r->reject = !(r->statistic < r->threshold);
    r->verdict = pb_verdict_of(r->p_value, r->reject);
    pb_verdict_invalid(r, t->invalid);
}

void pb_position_bins_free(pb_position_bins *t)
{
    free(t->counts);
    free(t->seen);
    free(t->bin_of);
    t->counts = NULL;
    t->seen = NULL;
    t->bin_of = NULL;
}

#include "stats/chisq.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "stats/lehmer.h"

int pb_chisq_init(pb_chisq *c, unsigned n, pb_err *err)
{
    c->n = n;
    c->samples = c->invalid = 0;
    c->counts = NULL;
    if (n < PB_CHISQ_MIN_N || n > PB_CHISQ_MAX_N)
        return pb_err_set(err, "chi-square over all n! permutations needs %d <= n <= %d, not %u",
                          PB_CHISQ_MIN_N, PB_CHISQ_MAX_N, n);
    c->cells = pb_factorial(n);
    c->counts = calloc(c->cells, sizeof *c->counts);
    if (!c->counts) return pb_err_set(err, "out of memory for %llu chi-square cells",
                                      (unsigned long long)c->cells);
    return 0;
}

void pb_chisq_add(pb_chisq *c, const uint32_t *perms, uint64_t count)
{
    /* Ranking is a few dozen operations: one thread keeps up with any generator. */
    for (uint64_t j = 0; j < count; j++) {
        uint64_t r = pb_lehmer_rank(perms + j * c->n, c->n);
        if (r == PB_LEHMER_INVALID) c->invalid++;
        else c->counts[r]++;
    }
    c->samples += count;
}

void pb_chisq_from_counts(const uint64_t *counts, uint64_t cells, double alpha, pb_test_result *r)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < cells; i++) total += counts[i];
    long double e = (long double)total / (long double)cells, s = 0;
    for (uint64_t i = 0; i < cells; i++) {
        long double d = (long double)counts[i] - e;
        s += d * d;
    }
    double df = (double)(cells - 1);
    r->samples = total;
    r->invalid = 0;
    r->statistic = total ? (double)(s / e) : 0;
    r->expected = (double)e;
    r->aux = df;
    r->threshold = gsl_cdf_chisq_Qinv(alpha, df);
    r->p_value = total ? gsl_cdf_chisq_Q(r->statistic, df) : 1;
    r->reject = !(r->statistic < r->threshold);
    r->verdict = pb_verdict_of(r->p_value, r->reject);
}

void pb_chisq_result(const pb_chisq *c, double alpha, pb_test_result *r)
{
    pb_chisq_from_counts(c->counts, c->cells, alpha, r);
    r->samples = c->samples;
    pb_verdict_invalid(r, c->invalid);
}

void pb_chisq_free(pb_chisq *c)
{
    free(c->counts);
    c->counts = NULL;
}

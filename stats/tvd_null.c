#include "stats/tvd_null.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

/* Relative weights of Binomial(S, q) below this (against the mode) are left
 * out: they change no digit of a double. */
#define TAIL 1e-22L

/* The pmf of Binomial(S, q) over [lo, lo + npts): ratios from the mode, so
 * no factorial of S is ever formed, then normalised. NULL when out of
 * memory. */
static long double *binomial_pmf(uint64_t s, long double q, uint64_t *lo_out, size_t *npts)
{
    long double ratio_up = q / (1 - q);
    uint64_t mode = (uint64_t)floorl((long double)(s + 1) * q);
    if (mode > s) mode = s;
    uint64_t lo = mode, hi = mode;
    long double w = 1;
    while (lo > 0) { /* down: w(c - 1) = w(c) c / ((S - c + 1) ratio_up) */
        w *= (long double)lo / ((long double)(s - lo + 1) * ratio_up);
        if (w < TAIL) break;
        lo--;
    }
    w = 1;
    while (hi < s) {
        w *= (long double)(s - hi) / (long double)(hi + 1) * ratio_up;
        if (w < TAIL) break;
        hi++;
    }
    size_t n = (size_t)(hi - lo + 1);
    long double *p = malloc(n * sizeof *p);
    if (!p) return NULL;
    p[mode - lo] = 1;
    for (uint64_t c = mode; c > lo; c--)
        p[c - 1 - lo] = p[c - lo] * (long double)c / ((long double)(s - c + 1) * ratio_up);
    for (uint64_t c = mode; c < hi; c++)
        p[c + 1 - lo] = p[c - lo] * (long double)(s - c) / (long double)(c + 1) * ratio_up;
    long double sum = 0;
    for (size_t i = 0; i < n; i++) sum += p[i];
    for (size_t i = 0; i < n; i++) p[i] /= sum;
    *lo_out = lo;
    *npts = n;
    return p;
}

long double pb_pair_types_rho_sum(const pb_pair_type *types, size_t ntypes)
{
    long double s = 0;
    for (size_t i = 0; i < ntypes; i++) s += types[i].count * types[i].rho;
    return s;
}

pb_tvd_null pb_tvd_null_of(uint64_t samples, long double cells, long double q, const pb_pair_type *types,
                           size_t ntypes)
{
    pb_tvd_null z = {NAN, NAN};
    if (samples == 0 || !(q > 0 && q < 1) || !(cells >= 1)) return z;
    uint64_t lo = 0;
    size_t np = 0;
    long double *w = binomial_pmf(samples, q, &lo, &np);
    long double *x = malloc(np * sizeof *x), *f = malloc(np * sizeof *f);
    long double *poly = malloc((PB_TVD_NULL_TERMS + 1) * np * sizeof *poly);
    if (!w || !x || !f || !poly) goto out;
    long double sq = (long double)samples * q, sigma = sqrtl(sq * (1 - q));
    long double ef = 0, ef2 = 0;
    for (size_t i = 0; i < np; i++) {
        long double c = (long double)(lo + i);
        x[i] = (c - sq) / sigma; /* standardised: the recurrence stays well scaled */
        f[i] = c < sq ? sq - c : 0;
        ef += w[i] * f[i];
        ef2 += w[i] * f[i] * f[i];
    }
    long double varf = ef2 - ef * ef;
    if (varf < 0) varf = 0;
    /* Orthonormal polynomials of the pmf (Stieltjes, with a second
     * Gram-Schmidt pass against every earlier one so that orthogonality
     * does not drift), and f's coefficient on each. */
    long double cross = 0;
    for (size_t i = 0; i < np; i++) poly[i] = 1;
    for (int k = 1; k <= PB_TVD_NULL_TERMS && (size_t)k < np; k++) {
        long double *prev = poly + (size_t)(k - 1) * np, *cur = poly + (size_t)k * np;
        for (size_t i = 0; i < np; i++) cur[i] = x[i] * prev[i];
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < k; j++) {
                long double *pj = poly + (size_t)j * np, d = 0;
                for (size_t i = 0; i < np; i++) d += w[i] * cur[i] * pj[i];
                for (size_t i = 0; i < np; i++) cur[i] -= d * pj[i];
            }
        long double norm = 0, a = 0;
        for (size_t i = 0; i < np; i++) norm += w[i] * cur[i] * cur[i];
        if (norm < 1e-24L) break; /* the support is exhausted */
        norm = sqrtl(norm);
        for (size_t i = 0; i < np; i++) {
            cur[i] /= norm;
            a += w[i] * f[i] * cur[i];
        }
        long double rk = 0;
        for (size_t t = 0; t < ntypes; t++) rk += types[t].count * powl(types[t].rho, k);
        cross += a * a * rk;
    }
    long double var = (varf + cross) / (cells * sq * sq);
    z.mean = (double)(ef / sq);
    z.sd = var > 0 ? (double)sqrtl(var) : 0;
out:
    free(w), free(x), free(f), free(poly);
    return z;
}

void pb_tvd_verdict(double statistic, pb_tvd_null null, uint64_t samples, double alpha, pb_test_result *r)
{
    r->samples = samples;
    r->invalid = 0;
    r->statistic = statistic;
    r->expected = null.mean;
    r->aux = null.sd;
    if (!(null.sd > 0)) {
        /* No noise to speak of: anything above the mean is a rejection. */
        r->threshold = null.mean;
        r->p_value = statistic > null.mean * (1 + 1e-12) ? 0 : 1;
    } else {
        r->threshold = null.mean + gsl_cdf_ugaussian_Qinv(alpha) * null.sd;
        r->p_value = gsl_cdf_ugaussian_Q((statistic - null.mean) / null.sd);
    }
    r->reject = !(statistic < r->threshold);
    r->verdict = pb_verdict_of(r->p_value, r->reject);
}

#include "stats/mmd.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

#include "stats/inversions.h"

/* Taylor coefficients of log(sinh(y)/y) = sum_k c_k y^{2k},
 * c_k = 2^{2k} B_{2k} / (2k (2k)!), k = 1..11, and of
 * log(y coth y) = s(2y) - 2 s(y) = sum_k c_k (4^k - 2) y^{2k}. */
#define PB_SINHC_COEFS(X)                                                                          \
    X(1.0 / 6, 4.0) X(-1.0 / 180, 16.0) X(1.0 / 2835, 64.0) X(-1.0 / 37800, 256.0)                 \
    X(1.0 / 467775, 1024.0) X(-691.0 / 3831077250.0, 4096.0) X(2.0 / 127702575.0, 16384.0)         \
    X(-3617.0 / 2605132530000.0, 65536.0) X(43867.0 / 350813659321125.0, 262144.0)                \
    X(-174611.0 / 15313294652906250.0, 1048576.0)                                                  \
    X(155366.0 / 147926426347074375.0, 4194304.0)
#define PB_SINHC(c, p4) c,
#define PB_XCOTH(c, p4) (c) * ((p4) - 2),
static const double sinhc_coef[] = {PB_SINHC_COEFS(PB_SINHC)};
static const double xcoth_coef[] = {PB_SINHC_COEFS(PB_XCOTH)};
enum { NCOEF = sizeof sinhc_coef / sizeof sinhc_coef[0] };

/* Sum of coef_k x^k by Horner, x = y^2. */
static double series(const double *coef, double x)
{
    double s = 0;
    for (int k = NCOEF - 1; k >= 0; k--) s = s * x + coef[k];
    return s * x;
}

double pb_log_sinhc(double y)
{
    y = fabs(y);
    /* The series' terms shrink by (y/pi)^2 < 0.026 each below 0.5: eleven
     * reach 1e-17 of the first. */
    if (y <= 0.5) return series(sinhc_coef, y * y);
    if (y <= 20) return log(sinh(y) / y);
    return y - log(2 * y) + log1p(-exp(-2 * y));
}

double pb_log_xcoth(double y)
{
    /* The series' terms shrink by (2y/pi)^2 < 0.026 each below 0.25. */
    y = fabs(y);
    if (y <= 0.25) return series(xcoth_coef, y * y);
    return log(y / tanh(y));
}

double pb_mallows_kernel(uint64_t inversions, uint64_t n, double lambda)
{
    if (n < 2) return 1;
    double pairs = (double)n * (double)(n - 1) / 2;
    return exp(-lambda * ((double)inversions / pairs));
}

/* Sums of f(a j / 2) - f(a / 2) over j = 2..n, of positive terms; long
 * double keeps a million of them to full double precision. */
static double sum_terms(double (*f)(double), uint64_t n, double a)
{
    long double s = 0;
    double f1 = f(a / 2);
    for (uint64_t j = 2; j <= n; j++) s += (long double)(f(a * (double)j / 2) - f1);
    return (double)s;
}

double pb_mallows_log_mean(uint64_t n, double lambda)
{
    if (n < 2 || lambda == 0) return 0;
    double a = lambda / ((double)n * (double)(n - 1) / 2);
    return -lambda / 2 + sum_terms(pb_log_sinhc, n, a);
}

void pb_mallows_moments(uint64_t n, double lambda, double *mean, double *var)
{
    if (n < 2 || lambda == 0) {
        *mean = 1;
        *var = 0;
        return;
    }
    double a = lambda / ((double)n * (double)(n - 1) / 2);
    double lm = -lambda / 2 + sum_terms(pb_log_sinhc, n, a);
    double g = sum_terms(pb_log_xcoth, n, a);
    *mean = exp(lm);
    *var = exp(2 * lm) * expm1(g);
}

int pb_mmd_init(pb_mmd *m, uint32_t n, double lambda, pb_err *err)
{
    if (n < 2) return pb_err_set(err, "the MMD test needs n >= 2, not %u", n);
    if (!(lambda > 0) || !isfinite(lambda))
        return pb_err_set(err, "the Mallows kernel needs lambda > 0, not %g", lambda);
    m->n = n;
    m->lambda = lambda;
    pb_mallows_moments(n, lambda, &m->mean_k, &m->var_k);
    m->sum = m->comp = m->sum2 = m->comp2 = 0;
    m->samples = m->invalid = 0;
    return 0;
}

static void neumaier(double *sum, double *comp, double x)
{
    double t = *sum + x;
    if (fabs(*sum) >= fabs(x)) *comp += (*sum - t) + x;
    else *comp += (x - t) + *sum;
    *sum = t;
}

int pb_mmd_add(pb_mmd *m, const uint32_t *perms, uint64_t count, pb_err *err)
{
    double *k = malloc((size_t)count * sizeof *k);
    if (!k) return pb_err_set(err, "out of memory for %llu kernel values", (unsigned long long)count);
    uint32_t n = m->n;
    double scale = m->lambda / ((double)n * (double)(n - 1) / 2);
    size_t scratch_bytes = (size_t)pb_inversions_scratch_bytes(n);
    int failed = 0;
#pragma omp parallel
    {
        void *scratch = malloc(scratch_bytes);
        if (!scratch) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (uint64_t j = 0; j < count; j++) {
            if (!scratch) continue;
            uint64_t inv = pb_inversions(perms + j * n, n, scratch);
            k[j] = inv == PB_INVERSIONS_INVALID ? NAN : exp(-scale * (double)inv);
        }
        free(scratch);
    }
    if (failed) {
        free(k);
        return pb_err_set(err, "out of memory for inversion counting at n = %u", n);
    }
    for (uint64_t j = 0; j < count; j++) {
        if (isnan(k[j])) {
            m->invalid++;
            continue;
        }
        neumaier(&m->sum, &m->comp, k[j]);
        neumaier(&m->sum2, &m->comp2, k[j] * k[j]);
    }
    m->samples += count;
    free(k);
    return 0;
}

double pb_mmd_hoeffding_threshold(uint64_t samples, double alpha)
{
    return sqrt(log(2 / alpha) / (2 * (double)samples));
}

double pb_mmd_hoeffding_p(uint64_t samples, double t)
{
    double p = 2 * exp(-2 * (double)samples * t * t);
    return p < 1 ? p : 1;
}

double pb_mmd_clt_threshold(uint64_t samples, double var_k, double alpha)
{
    return sqrt(var_k / (double)samples) * gsl_cdf_ugaussian_Qinv(alpha / 2);
}

double pb_mmd_clt_p(uint64_t samples, double var_k, double t)
{
    double sd = sqrt(var_k / (double)samples);
    if (!(sd > 0)) return t > 0 ? 0 : 1;
    return 2 * gsl_cdf_ugaussian_Q(t / sd);
}

static void common(const pb_mmd *m, pb_test_result *r)
{
    uint64_t valid = m->samples - m->invalid;
    r->samples = m->samples;
    r->invalid = m->invalid;
    r->expected = m->mean_k;
    r->aux = m->var_k;
    r->statistic = valid ? fabs((m->sum + m->comp) / (double)valid - m->mean_k) : 0;
}

static void finish(pb_test_result *r)
{
    r->reject = !(r->statistic < r->threshold) || r->invalid;
    r->verdict = pb_verdict_of(r->p_value, r->reject);
}

void pb_mmd_result_hoeffding(const pb_mmd *m, double alpha, pb_test_result *r)
{
    common(m, r);
    uint64_t valid = m->samples - m->invalid;
    r->threshold = pb_mmd_hoeffding_threshold(valid, alpha);
    r->p_value = pb_mmd_hoeffding_p(valid, r->statistic);
    finish(r);
}

void pb_mmd_result_clt(const pb_mmd *m, double alpha, pb_test_result *r)
{
    common(m, r);
    uint64_t valid = m->samples - m->invalid;
    r->threshold = pb_mmd_clt_threshold(valid, m->var_k, alpha);
    r->p_value = pb_mmd_clt_p(valid, m->var_k, r->statistic);
    finish(r);
}

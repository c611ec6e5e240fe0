#include "stats/duplicates.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

int pb_dups_applicable(uint32_t n, uint64_t samples, pb_err *err)
{
    double log_cells = lgamma((double)n + 1);
    if (log_cells < log((double)PB_DUPS_MIN_CELLS_PER_SAMPLE * (double)samples))
        return pb_err_set(err,
                          "the duplicate test needs n! >= %d x samples (here n! = %.4g, samples = "
                          "%llu): use a larger n or fewer samples",
                          PB_DUPS_MIN_CELLS_PER_SAMPLE, exp(log_cells), (unsigned long long)samples);
    return 0;
}

double pb_dups_expected(uint32_t n, uint64_t samples)
{
    if (samples < 2) return 0;
    double N = (double)samples, log_m = lgamma((double)n + 1);
    if (log(N) - log_m > log(0.01)) {
        /* Dense enough that the direct form loses nothing. */
        double m = exp(log_m);
        return N + m * expm1(N * log1p(-1 / m));
    }
    /* The alternating series; each term is below N/n! <= 1% of the last. */
    double log_t = log(N) + log(N - 1) - log(2.0) - log_m, sum = 0, sign = 1;
    for (uint64_t k = 2; k < samples && k < 64; k++) {
        double t = exp(log_t);
        sum += sign * t;
        if (t <= 1e-18 * sum) break;
        sign = -sign;
        log_t += log(N - (double)k) - log((double)k + 1) - log_m;
    }
    return sum;
}

/* Two hash chains with unrelated bijective mixers (SplitMix64's and
 * MurmurHash3's finalisers), each step a bijection of the state for a fixed
 * word and of the word for a fixed state. */
static inline uint64_t mix_a(uint64_t x)
{
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static inline uint64_t mix_b(uint64_t x)
{
    x = (x ^ (x >> 33)) * UINT64_C(0xff51afd7ed558ccd);
    x = (x ^ (x >> 33)) * UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

pb_hash128 pb_perm_hash(const uint32_t *perm, uint32_t n)
{
    uint64_t a = UINT64_C(0x243f6a8885a308d3) ^ n, b = UINT64_C(0x13198a2e03707344) + n;
    uint32_t i = 0;
    for (; i + 1 < n; i += 2) {
        uint64_t w = (uint64_t)perm[i] << 32 | perm[i + 1];
        a = mix_a(a ^ w);
        b = mix_b(b + (w ^ UINT64_C(0xa4093822299f31d0)));
    }
    if (i < n) {
        a = mix_a(a ^ perm[i]);
        b = mix_b(b + (perm[i] ^ UINT64_C(0x082efa98ec4e6c89)));
    }
    pb_hash128 h = {a, b};
    return h;
}

int pb_dups_init(pb_dups *d, uint32_t n, uint64_t capacity, pb_err *err)
{
    d->n = n;
    d->capacity = capacity;
    d->samples = 0;
    d->h = malloc((size_t)(capacity ? capacity : 1) * sizeof *d->h);
    if (!d->h)
        return pb_err_set(err, "out of memory for %llu permutation hashes",
                          (unsigned long long)capacity);
    return 0;
}

void pb_dups_add(pb_dups *d, const uint32_t *perms, uint64_t count)
{
    if (count > d->capacity - d->samples) count = d->capacity - d->samples;
    pb_hash128 *h = d->h + d->samples;
    uint32_t n = d->n;
#pragma omp parallel for schedule(static)
    for (uint64_t j = 0; j < count; j++) h[j] = pb_perm_hash(perms + j * n, n);
    d->samples += count;
}

static int cmp128(const void *x, const void *y)
{
    const pb_hash128 *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    return 0;
}

double pb_dups_p(uint64_t repeats, double mu)
{
    if (repeats == 0) return 1;
    if (!(mu > 0)) return 0;
    return gsl_cdf_poisson_Q((unsigned)(repeats - 1 < UINT32_MAX ? repeats - 1 : UINT32_MAX), mu);
}

double pb_dups_threshold(double mu, double alpha)
{
    /* The smallest d with P(Poisson(mu) >= d) <= alpha: accepted below d. */
    uint64_t d = mu > 1 ? (uint64_t)mu : 1;
    while (d > 1 && pb_dups_p(d - 1, mu) <= alpha) d--;
    while (pb_dups_p(d, mu) > alpha) d++;
    return (double)d;
}

void pb_dups_result(pb_dups *d, double alpha, pb_test_result *r)
{
    qsort(d->h, (size_t)d->samples, sizeof *d->h, cmp128);
    uint64_t repeats = 0;
    for (uint64_t i = 1; i < d->samples; i++) repeats += cmp128(&d->h[i - 1], &d->h[i]) == 0;
    double mu = pb_dups_expected(d->n, d->samples);
    r->samples = d->samples;
    r->invalid = 0;
    r->statistic = (double)repeats;
    r->expected = mu;
    r->aux = exp(lgamma((double)d->n + 1));
    r->p_value = pb_dups_p(repeats, mu);
    r->threshold = pb_dups_threshold(mu, alpha);
    r->reject = !(r->statistic < r->threshold);
    r->verdict = pb_verdict_of(r->p_value, r->reject);
}

void pb_dups_free(pb_dups *d)
{
    free(d->h);
    d->h = NULL;
}

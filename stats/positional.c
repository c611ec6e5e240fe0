#include "stats/positional.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/inversions.h"

int pb_positional_init(pb_positional *t, uint32_t n, pb_err *err)
{
    memset(t, 0, sizeof *t);
    if (n < PB_POSITIONAL_MIN_N || n > PB_POSITIONAL_MAX_N)
        return pb_err_set(err, "positional TVD needs %d <= n <= %d (N^2 counts), not %u", PB_POSITIONAL_MIN_N,
                          PB_POSITIONAL_MAX_N, n);
    t->n = n;
    t->counts = calloc((size_t)n * n, sizeof *t->counts);
    t->seen = malloc(n);
    if (!t->counts || !t->seen) return pb_err_set(err, "out of memory for %u x %u position counts", n, n);
    return 0;
}

void pb_positional_add(pb_positional *t, const uint32_t *perms, uint64_t count)
{
    uint32_t n = t->n;
    for (uint64_t j = 0; j < count; j++) {
        const uint32_t *p = perms + j * n;
        t->samples++;
        if (!pb_is_permutation(p, n, t->seen)) {
            t->invalid++;
            continue;
        }
        for (uint32_t pos = 0; pos < n; pos++) t->counts[(size_t)p[pos] * n + pos]++;
    }
}

double pb_positional_tvd(const pb_positional *t)
{
    uint64_t s = t->samples - t->invalid;
    if (!s) return 0;
    long double e = (long double)s / t->n, sum = 0;
    for (size_t c = 0; c < (size_t)t->n * t->n; c++)
        if (t->counts[c] < e) sum += e - t->counts[c];
    return (double)(sum / ((long double)s * t->n));
}

pb_tvd_null pb_positional_null(uint32_t n, uint64_t samples)
{
    long double m = n - 1;
    pb_pair_type types[2] = {{2 * m, -1 / m}, {m * m, 1 / (m * m)}};
    return pb_tvd_null_of(samples, (long double)n * n, 1.0L / n, types, 2);
}

void pb_positional_result(const pb_positional *t, double alpha, pb_test_result *r)
{
    pb_tvd_verdict(pb_positional_tvd(t), pb_positional_null(t->n, t->samples - t->invalid), t->samples, alpha, r);
    pb_verdict_invalid(r, t->invalid);
}

void pb_positional_free(pb_positional *t)
{
    free(t->counts);
    free(t->seen);
    t->counts = NULL;
    t->seen = NULL;
}

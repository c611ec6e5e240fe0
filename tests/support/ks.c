#include "tests/support/ks.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double pb_ks_uniform_d(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double u = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i];
        double lo = u - (double)i / (double)n, hi = (double)(i + 1) / (double)n - u;
        if (lo > d) d = lo;
        if (hi > d) d = hi;
    }
    return d;
}

double pb_ks_p(double d, size_t n)
{
    double sn = sqrt((double)n), lambda = (sn + 0.12 + 0.11 / sn) * d;
    if (lambda < 0.2) return 1;
    /* Q(lambda) = 2 sum_{k>=1} (-1)^{k-1} exp(-2 k^2 lambda^2) */
    double q = 0, sign = 1;
    for (int k = 1; k <= 100; k++) {
        double t = exp(-2.0 * k * k * lambda * lambda);
        q += sign * t;
        if (t < 1e-17) break;
        sign = -sign;
    }
    q *= 2;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

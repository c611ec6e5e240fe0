#include "stats/mann_whitney.h"

#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>

typedef struct tagged {
    double v;
    int from_x;
} tagged;

static int by_value(const void *a, const void *b)
{
    double x = ((const tagged *)a)->v, y = ((const tagged *)b)->v;
    return (x > y) - (x < y);
}

int pb_mann_whitney_u(const double *x, size_t nx, const double *y, size_t ny, pb_mann_whitney *r,
                      pb_err *err)
{
    if (nx == 0 || ny == 0) return pb_err_set(err, "Mann-Whitney U: an empty sample (%zu and %zu values)", nx, ny);
    size_t n = nx + ny;
    tagged *all = malloc(n * sizeof *all);
    if (!all) return pb_err_set(err, "Mann-Whitney U: out of memory for %zu values", n);
    for (size_t i = 0; i < n; i++) {
        all[i].from_x = i < nx;
        all[i].v = i < nx ? x[i] : y[i - nx];
        if (isnan(all[i].v)) {
            free(all);
            return pb_err_set(err, "Mann-Whitney U: a NaN among the samples");
        }
    }
    qsort(all, n, sizeof *all, by_value);
    /* Ranks 1..n; a run of t equal values shares the mean of its ranks and
     * adds t^3 - t to the tie term that shrinks the variance. */
    double rank_sum_x = 0, ties = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && all[j].v == all[i].v) j++;
        double t = (double)(j - i), mid = ((double)i + 1 + (double)j) / 2;
        for (size_t k = i; k < j; k++)
            if (all[k].from_x) rank_sum_x += mid;
        ties += t * t * t - t;
        i = j;
    }
    free(all);
    double dx = (double)nx, dy = (double)ny, dn = (double)n;
    r->nx = nx;
    r->ny = ny;
    r->u = rank_sum_x - dx * (dx + 1) / 2;
    double mean = dx * dy / 2;
    double var = dx * dy / 12 * ((dn + 1) - ties / (dn * (dn - 1)));
    double d = r->u - mean;
    /* U moves in steps of 1/2 or 1: half a step towards the mean before
     * reading the normal tail. */
    double cd = fabs(d) > 0.5 ? fabs(d) - 0.5 : 0;
    if (!(var > 0)) {
        r->z = 0;
        r->p_value = 1; /* every value ties: no evidence either way */
        return 0;
    }
    r->z = (d < 0 ? -cd : cd) / sqrt(var);
    double p = 2 * gsl_cdf_ugaussian_Q(fabs(r->z));
    r->p_value = p < 1 ? p : 1;
    return 0;
}

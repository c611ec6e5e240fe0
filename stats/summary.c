#include "stats/summary.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <stdlib.h>
#include <string.h>

pb_summary pb_summarise(const double *x, size_t n)
{
    pb_summary s = {0};
    s.count = n;
    if (n == 0) return s;
    double *sorted = malloc(n * sizeof *sorted);
    if (!sorted) return s;
    memcpy(sorted, x, n * sizeof *x);
    gsl_sort(sorted, 1, n);
    s.median = gsl_stats_median_from_sorted_data(sorted, 1, n);
    s.min = sorted[0];
    s.max = sorted[n - 1];
    s.mean = gsl_stats_mean(sorted, 1, n);
    s.stddev = n > 1 ? gsl_stats_sd_m(sorted, 1, n, s.mean) : 0.0;
    free(sorted);
    return s;
}

/* How far a row's median can be trusted: its confidence interval and
 * whether its samples fall into two clusters, from the samples alone, so
 * that a row measured now and a row read back from results.json for
 * --resume are judged alike. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>

#include "bench/row.h"
#include "stats/median_ci.h"
#include "stats/multimodal.h"

int pb_row_judge(pb_row *row, double max_noise)
{
    row->ci_lo_ms = row->ci_hi_ms = row->ci_halfwidth = NAN;
    row->ci_confidence = 0;
    row->multimodal = row->noisy = false;
    size_t n = row->nsamples;
    if (n == 0) return 0;
    double *x = malloc(n * sizeof *x);
    if (!x) return -1;
    memcpy(x, row->samples_ms, n * sizeof *x);
    gsl_sort(x, 1, n);
    pb_median_ci ci = pb_median_ci_of_sorted(x, n, 0.95);
    row->ci_lo_ms = ci.lo;
    row->ci_hi_ms = ci.hi;
    row->ci_confidence = ci.confidence;
    row->ci_halfwidth = pb_median_ci_halfwidth(&ci, (x[(n - 1) / 2] + x[n / 2]) / 2);
    row->noisy = n > 1 && row->ci_halfwidth > max_noise;
    pb_modes modes;
    int rc = pb_modes_of_sorted(x, n, &modes);
    row->multimodal = modes.multimodal;
    free(x);
    return rc;
}

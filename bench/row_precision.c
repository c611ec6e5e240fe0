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

/* The judgement of one series of samples (a row, or one seed of it). */
typedef struct judged {
    double lo, hi, confidence, halfwidth, median;
    bool noisy, multimodal;
} judged;

static int judge(const double *samples, size_t n, double max_noise, double *x, judged *j)
{
    memcpy(x, samples, n * sizeof *x);
    gsl_sort(x, 1, n);
    pb_median_ci ci = pb_median_ci_of_sorted(x, n, 0.95);
    j->lo = ci.lo;
    j->hi = ci.hi;
    j->confidence = ci.confidence;
    j->median = (x[(n - 1) / 2] + x[n / 2]) / 2;
    j->halfwidth = pb_median_ci_halfwidth(&ci, j->median);
    j->noisy = n > 1 && j->halfwidth > max_noise;
    pb_modes modes;
    int rc = pb_modes_of_sorted(x, n, &modes);
    j->multimodal = modes.multimodal;
    return rc;
}

int pb_row_judge(pb_row *row, double max_noise)
{
    row->ci_lo_ms = row->ci_hi_ms = row->ci_halfwidth = NAN;
    row->ci_confidence = 0;
    row->multimodal = row->noisy = false;
    size_t n = row->nsamples;
    if (n == 0) return 0;
    double *x = malloc(n * sizeof *x);
    if (!x) return -1;
    int rc = 0;
    if (row->nseeds <= 1) {
        judged j;
        rc = judge(row->samples_ms, n, max_noise, x, &j);
        row->ci_lo_ms = j.lo;
        row->ci_hi_ms = j.hi;
        row->ci_confidence = j.confidence;
        row->ci_halfwidth = j.halfwidth;
        row->noisy = j.noisy;
        row->multimodal = j.multimodal;
        free(x);
        return rc;
    }
    /* Seed by seed: each seed's samples are one distribution (one input,
     * one stream of draws); pooled, seeds far apart would look like
     * clusters and a wide interval that say nothing of the precision. */
    judged js[PB_MAX_SEEDS];
    int order[PB_MAX_SEEDS], k = 0;
    size_t at = 0;
    for (int i = 0; i < row->nseeds && at < n; i++) {
        size_t m = row->seed_nsamples[i];
        if (m == 0 || at + m > n) break;
        rc |= judge(row->samples_ms + at, m, max_noise, x, &js[k]);
        row->noisy |= js[k].noisy;
        row->multimodal |= js[k].multimodal;
        order[k] = k;
        k++;
        at += m;
    }
    free(x);
    if (k == 0) return rc;
    /* The seeds in order of their medians (insertion sort: a few dozen). */
    for (int a = 1; a < k; a++)
        for (int b = a; b > 0 && js[order[b - 1]].median > js[order[b]].median; b--) {
            int t = order[b];
            order[b] = order[b - 1];
            order[b - 1] = t;
        }
    const judged *low = &js[order[(k - 1) / 2]], *high = &js[order[k / 2]];
    double median = (low->median + high->median) / 2;
    row->ci_lo_ms = low->lo;
    row->ci_hi_ms = high->hi;
    row->ci_confidence = fmin(low->confidence, high->confidence);
    row->ci_halfwidth = median > 0 ? (row->ci_hi_ms - row->ci_lo_ms) / (2 * median) : NAN;
    return rc;
}

#include "stats/multimodal.h"

#include <math.h>
#include <stdlib.h>

int pb_modes_of_sorted(const double *sorted, size_t n, pb_modes *out)
{
    *out = (pb_modes){0};
    size_t m = (size_t)ceil(PB_MODES_MIN_SHARE * (double)n);
    if (m < PB_MODES_MIN_COUNT) m = PB_MODES_MIN_COUNT;
    if (n < 2 * m || !(sorted[0] > 0)) return 0;
    /* y: the log-times; lo_mean[i], lo_sd[i]: of y[0..i). */
    double *y = malloc(3 * n * sizeof *y);
    if (!y) return -1;
    double *lo_mean = y + n, *lo_sd = y + 2 * n;
    double tick = INFINITY;
    for (size_t i = 0; i < n; i++) {
        y[i] = log(sorted[i]);
        if (i && y[i] > y[i - 1] && y[i] - y[i - 1] < tick) tick = y[i] - y[i - 1];
    }
    tick = fmin(tick, log(PB_MODES_MAX_TICK));
    /* Welford's running mean and squares, upwards for the lower clusters,
     * then downwards for the upper ones. */
    double mean = 0, m2 = 0;
    for (size_t i = 0; i < n; i++) {
        lo_mean[i] = mean;
        lo_sd[i] = i > 1 ? sqrt(m2 / (double)(i - 1)) : 0;
        double d = y[i] - mean;
        mean += d / (double)(i + 1);
        m2 += d * (y[i] - mean);
    }
    mean = m2 = 0;
    for (size_t i = n; i-- > 0;) {
        size_t c = n - i; /* the upper cluster y[i..n) */
        double d = y[i] - mean;
        mean += d / (double)c;
        m2 += d * (y[i] - mean);
        if (i < m || c < m) continue;
        double hi_sd = sqrt(m2 / (double)(c - 1));
        double sep = (mean - lo_mean[i]) / fmax(fmax(lo_sd[i], hi_sd), tick);
        if (sep > out->separation) {
            out->separation = sep;
            out->split = i;
        }
    }
    out->multimodal = out->separation >= PB_MODES_SEPARATION;
    free(y);
    return 0;
}

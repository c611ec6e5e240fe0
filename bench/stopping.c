#include "bench/stopping.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/median_ci.h"

/* The median of sorted[0..n). */
static double median_of(const double *sorted, size_t n)
{
    return (sorted[(n - 1) / 2] + sorted[n / 2]) / 2;
}

int pb_noise_add(pb_noise *z, double ms)
{
    if (z->n == z->cap) {
        size_t cap = z->cap ? 2 * z->cap : 64;
        double *h = realloc(z->history, cap * sizeof *h);
        if (!h) return -1;
        z->history = h;
        double *s = realloc(z->sorted, cap * sizeof *s);
        if (!s) return -1;
        z->sorted = s;
        z->cap = cap;
    }
    /* Insertion keeps the samples sorted: one move a sample, where sorting
     * afresh after each would cost n log n. */
    size_t at = z->n;
    while (at > 0 && z->sorted[at - 1] > ms) at--;
    memmove(z->sorted + at + 1, z->sorted + at, (z->n - at) * sizeof *z->sorted);
    z->sorted[at] = ms;
    z->n++;
    double d = ms - z->mean;
    z->mean += d / (double)z->n;
    z->m2 += d * (ms - z->mean);
    z->measured += ms * 1e-3;
    pb_median_ci ci = pb_median_ci_of_sorted(z->sorted, z->n, 0.95);
    z->history[z->n - 1] = pb_median_ci_halfwidth(&ci, median_of(z->sorted, z->n));
    return 0;
}

double pb_noise_value(const pb_noise *z)
{
    if (z->n < 2 || !(z->mean > 0)) return 0;
    return sqrt(z->m2 / (double)(z->n - 1)) / z->mean;
}

double pb_noise_halfwidth(const pb_noise *z) { return z->n ? z->history[z->n - 1] : 0; }

void pb_noise_free(pb_noise *z)
{
    free(z->history);
    free(z->sorted);
    z->history = z->sorted = NULL;
    z->n = z->cap = 0;
}

size_t pb_stopping_window(const pb_stopping *s)
{
    return s->min_samples > 10 ? (size_t)s->min_samples : 10;
}

/* Whether more samples would not bring the figure to max_noise (see
 * stopping.h). */
static bool settled(const pb_stopping *s, const pb_noise *z, double elapsed)
{
    size_t w = pb_stopping_window(s), n = z->n;
    if (n < 2 * w) return false;
    double h = z->history[n - 1], before = z->history[n - 1 - w];
    if (h >= 0.95 * before) return true;
    double scale = h * sqrt((double)n), scale_before = before * sqrt((double)(n - w));
    if (!(fabs(scale - scale_before) <= 0.05 * scale)) return false;
    double need = (double)n * (h / s->max_noise) * (h / s->max_noise);
    return need > (double)s->max_samples || elapsed / (double)n * (need - (double)n) > s->timeout - elapsed;
}

pb_stop pb_stopping_check(const pb_stopping *s, const pb_noise *z, double elapsed)
{
    bool enough = z->n >= (size_t)s->min_samples && z->measured >= s->min_time;
    if (enough) {
        if (z->n >= PB_STOPPING_CI_MIN && pb_noise_halfwidth(z) <= s->max_noise) return PB_STOP_QUIET;
        if (settled(s, z, elapsed)) return PB_STOP_SETTLED;
    }
    if (z->n >= (size_t)s->max_samples) return PB_STOP_MAX;
    if (elapsed >= s->timeout) return PB_STOP_TIMEOUT;
    return PB_GO_ON;
}

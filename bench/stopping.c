#include "bench/stopping.h"

#include <math.h>
#include <stdlib.h>

int pb_noise_add(pb_noise *z, double ms)
{
    if (z->n == z->cap) {
        size_t cap = z->cap ? 2 * z->cap : 64;
        double *h = realloc(z->history, cap * sizeof *h);
        if (!h) return -1;
        z->history = h;
        z->cap = cap;
    }
    z->n++;
    double d = ms - z->mean;
    z->mean += d / (double)z->n;
    z->m2 += d * (ms - z->mean);
    z->measured += ms * 1e-3;
    z->history[z->n - 1] = pb_noise_value(z);
    return 0;
}

double pb_noise_value(const pb_noise *z)
{
    if (z->n < 2 || !(z->mean > 0)) return 0;
    return sqrt(z->m2 / (double)(z->n - 1)) / z->mean;
}

void pb_noise_free(pb_noise *z)
{
    free(z->history);
    z->history = NULL;
    z->n = z->cap = 0;
}

size_t pb_stopping_window(const pb_stopping *s)
{
    return s->min_samples > 10 ? (size_t)s->min_samples : 10;
}

pb_stop pb_stopping_check(const pb_stopping *s, const pb_noise *z, double elapsed)
{
    bool enough = z->n >= (size_t)s->min_samples && z->measured >= s->min_time;
    if (enough) {
        double noise = pb_noise_value(z);
        if (noise <= s->max_noise) return PB_STOP_QUIET;
        size_t w = pb_stopping_window(s);
        if (z->n >= 2 * w && fabs(noise - z->history[z->n - 1 - w]) <= 0.05 * noise)
            return PB_STOP_SETTLED;
    }
    if (z->n >= (size_t)s->max_samples) return PB_STOP_MAX;
    if (elapsed >= s->timeout) return PB_STOP_TIMEOUT;
    return PB_GO_ON;
}

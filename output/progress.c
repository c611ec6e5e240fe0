#include "output/progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "config/sizes.h"

static bool shown;
static double last_log;

const char *pb_duration_format(double s, char *buf, size_t len)
{
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(buf, len, "%ldh%02ldm", t / 3600, t / 60 % 60);
    else if (t >= 60) snprintf(buf, len, "%ldm%02lds", t / 60, t % 60);
    else snprintf(buf, len, "%lds", t);
    return buf;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void pb_progress_update(size_t done, size_t total, double eta_s, const pb_instance *in, uint64_t n)
{
    char nb[48], d[32], left[48] = "time left: estimating";
    pb_size_format(n, nb, sizeof nb);
    if (eta_s >= 0) snprintf(left, sizeof left, "about %s left", pb_duration_format(eta_s, d, sizeof d));
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\r\033[K[%zu/%zu] %s n=%s ... %s", done, total, in->label, nb, left);
        fflush(stderr);
        shown = true;
        return;
    }
    double t = mono();
    if (done == 0 || t - last_log >= 10) {
        fprintf(stderr, "progress: %zu/%zu points done, %s\n", done, total, left);
        last_log = t;
    }
}

void pb_progress_clear(void)
{
    if (shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        shown = false;
    }
}

void pb_progress_done(size_t total, double wall_s)
{
    char d[32];
    pb_progress_clear();
    fprintf(stderr, "progress: %zu/%zu points done in %s\n", total, total,
            pb_duration_format(wall_s, d, sizeof d));
}

/* The time-left estimate (bench/runner.c's predict, shown on the progress
 * line): once an instance has a point, its later points are predicted from
 * that point's time per sample scaled by size and the sample count the
 * sweep's rules give, not an average of the points done, which can
 * underestimate the rest of a run many times over.
 * A module whose samples sleep in proportion to n makes the truth known
 * and steady on a loaded machine (sleeps only get longer). */
#include <math.h>
#include <time.h>

#include "bench/runner.h"
#include "core/rng.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_leaf.h"
#include "tests/test.h"

/* Fisher-Yates, then 10 n microseconds asleep: the sleep outweighs the
 * harness's per-point work (checks, first-touch), which a loaded machine
 * makes vary. */
static int run_sleeper(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    pb_rng r;
    pb_rng_init(&r, b->pt.seed, sample);
    pb_fisher_yates(b->out, b->pt.n, b->pt.item_bytes, &r);
    struct timespec ts = {0, (long)b->pt.n * 10000};
    while (nanosleep(&ts, &ts) != 0) {}
    return 0;
}

/* Resolved (pb_module_resolve) before the run: the harness reads every
 * hook straight from the module it is given. */
static const pb_module sleeper_desc = {
    .name = "sleeper",
    .hooks = &pb_shuffle_cpu_inplace_hooks,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "cpu-fisher-yates, then 10 n microseconds asleep",
    .run = run_sleeper,
    .reference = "cpu-fisher-yates",
};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#define POINTS 5
static double at[POINTS], eta[POINTS];

static void progress(size_t done, size_t total, double eta_s, const pb_instance *in, uint64_t n, void *user)
{
    (void)total, (void)in, (void)n, (void)user;
    if (done < POINTS) at[done] = now(), eta[done] = eta_s;
}

TEST_IMPL(run_time_left_estimate)
{
    static pb_config cfg;
    const char *text = "[sweep]\nsizes = 2^10 .. 2^14\nitem = u64\nceilings = none\nmin_samples = 4\n"
                       "max_samples = 4\nmin_time = 0\nflush_cache = no\n[cpu-fisher-yates]\n";
    pb_err err;
    ASSERT(pb_config_load_text("t.ini", "t", text, &cfg, &err) == 0);
    static pb_module sleeper;
    pb_module_resolve(&sleeper_desc, &sleeper);
    cfg.inst.v[0].mod = &sleeper;
    ASSERT(cfg.nsizes == POINTS);
    pb_run_hooks hooks = {.progress = progress};
    pb_run run;
    ASSERT(pb_run_sweep(&cfg, &hooks, &run, &err) == 0);
    double end = now();
    ASSERT(run.nrows == POINTS);
    ASSERT(eta[0] < 0); /* nothing measured yet: no estimate */
    /* From the first point on: sizes double, so the rest is about 30 times
     * the first point (averaging the points done said 4 times: 0.13x). */
    for (int k = 1; k < POINTS; k++) {
        double left = end - at[k];
        fprintf(stderr, "before point %d: estimate %.3f s, took %.3f s (%.2fx)\n", k, eta[k], left,
                eta[k] / left);
        ASSERT(eta[k] > 0.5 * left && eta[k] < 2 * left);
    }
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

/* seeds = N reaches the module: a point of 3 seeds prepares the module
 * three times, with the sweep's seed and two seeds derived from it (the
 * point's seed: the family draws its input from it and the module its
 * randomness); the row keeps each seed's samples, in order, and its
 * median is the median of the per-seed medians. A seed that fails ends
 * the row FAILED, naming the seed, its samples kept. */
#include <math.h>
#include <string.h>

#include "bench/row_seeds.h"
#include "bench/runner.h"
#include "registry/registry.h"
#include "stats/summary.h"
#include "tests/broken_modules.h"
#include "tests/test.h"

static uint64_t seen[16];
static size_t nseen;
static const pb_module *spied;

/* The real module's prepare, noting the point's seed. */
static int spy_prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (nseen < 16) seen[nseen++] = pt->seed;
    return spied->prepare(pt, state, err);
}

/* One point of `m` at n = 1000 over 3 seeds, `samples` samples a seed. */
static int sweep(const pb_module *m, int samples, pb_run *run, pb_config *cfg)
{
    char text[256];
    snprintf(text, sizeof text, "[sweep]\nsizes = 1000\nseed = 77\nseeds = 3\nceilings = none\nmin_samples = %d\n"
             "max_samples = %d\nmin_time = 0\nflush_cache = no\n[cpu-fisher-yates]\n", samples, samples);
    pb_err err;
    if (pb_config_load_text("t.ini", "t", text, cfg, &err)) return fprintf(stderr, "%s\n", err.msg), -1;
    cfg->inst.v[0].mod = m;
    if (pb_run_sweep(cfg, NULL, run, &err)) return fprintf(stderr, "%s\n", err.msg), -1;
    return 0;
}

TEST_IMPL(seeds_reach_the_module)
{
    static pb_module spy;
    spied = pb_module_find("cpu-fisher-yates");
    ASSERT(spied);
    spy = *spied;
    spy.prepare = spy_prepare;
    static pb_config cfg;
    pb_run run;
    nseen = 0;
    ASSERT(sweep(&spy, 6, &run, &cfg) == 0);
    ASSERT(run.nrows == 1 && run.seeds);
    const pb_row *r = &run.rows[0];
    ASSERT(r->status == PB_ROW_OK && r->nseeds == 3 && r->nsamples == 18);
    ASSERT(nseen == 3 && seen[0] == 77 && seen[1] != seen[0] && seen[2] != seen[1] && seen[2] != seen[0]);
    ASSERT(seen[1] != 78 && seen[2] != 79); /* derived, not counted up */
    double med[3];
    for (int i = 0; i < 3; i++) {
        ASSERT_EQ_U64(r->seed_values[i], seen[i]);
        ASSERT_EQ_U64(pb_seed_of(77, i), seen[i]);
        ASSERT(r->seed_nsamples[i] == 6);
        med[i] = pb_summarise(r->samples_ms + 6 * i, 6).median;
        ASSERT(r->seed_median_ms[i] == med[i]);
    }
    double m = pb_summarise(med, 3).median;
    ASSERT(r->ms.median == m);
    ASSERT(r->seed_min_ms == fmin(med[0], fmin(med[1], med[2])) && r->seed_max_ms == fmax(med[0], fmax(med[1], med[2])));
    ASSERT(fabs(r->seed_spread - (r->seed_max_ms - r->seed_min_ms) / m) <= 1e-12);
    pb_run_free(&run);
    pb_config_free(&cfg);

    /* Wrong at its 8th call: with 5 samples a seed, the first seed's
     * warm-up and samples are calls 1-6, the second's warm-up 7 and its
     * first sample 8: FAILED there, the seed named, the first seed's
     * samples kept. */
    pb_broken_once_reset();
    ASSERT(sweep(&pb_broken_once, 5, &run, &cfg) == 0);
    r = &run.rows[0];
    printf("%s\n", r->message);
    ASSERT(r->status == PB_ROW_FAILED && !r->verified);
    ASSERT_CONTAINS(r->message, "seed 2 of 3 (");
    ASSERT(r->nseeds == 2 && r->seed_nsamples[0] == 5 && r->seed_nsamples[1] == 1 && r->failed_sample == 5);
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

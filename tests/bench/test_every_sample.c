/* Every sample is checked: modules that do nothing, half the work, hand
 * back the previous sample's output or are wrong on one sample are each
 * reported FAILED by the harness, naming the sample; the real modules they
 * imitate pass; the GPU analogues fail on a GPU. Also the noise-aware
 * stopping rule and the wall time beside the timer. */
#include <math.h>

#include "bench/runner.h"
#include "bench/stopping.h"
#include "core/gpu.h"
#include "registry/registry.h"
#include "tests/broken_modules.h"
#include "tests/test.h"

/* A sweep of one instance of `m` (in place of the config's fisher-yates)
 * at `sizes`; the rows are left in *run. */
static int sweep(const pb_module *m, const char *sizes, pb_run *run, pb_config *cfg)
{
    char text[512];
    snprintf(text, sizeof text,
             "[sweep]\nsizes = %s\nitem = u32, u64\nceilings = none\nmin_samples = 10\n"
             "min_time = 0\nmax_samples = 10\nflush_cache = no\n[cpu-fisher-yates]\n",
             sizes);
    pb_err err;
    if (pb_config_load_text("t.ini", "t", text, cfg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    cfg->inst.v[0].mod = m;
    if (pb_run_sweep(cfg, NULL, run, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Every row of a broken module's sweep FAILED at `sample` (or any when
 * negative), with a message naming it. */
static int all_failed(const pb_run *run, long sample)
{
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *r = &run->rows[i];
        if (r->status != PB_ROW_FAILED || r->verified) {
            fprintf(stderr, "%s n=%llu item=%u: status %d, not FAILED\n", r->inst->mod->name,
                    (unsigned long long)r->n, r->item_bytes, r->status);
            return 0;
        }
        if ((sample >= 0 && r->failed_sample != sample) || !strstr(r->message, "sample")) {
            fprintf(stderr, "%s: failed at sample %ld (%s), expected %ld\n", r->inst->mod->name,
                    r->failed_sample, r->message, sample);
            return 0;
        }
    }
    return run->nrows > 0;
}

TEST_IMPL(every_sample_broken_cpu)
{
    static const struct {
        const pb_module *m;
        long sample; /* the failing sample, -1 for the first that can */
    } cases[] = {
        {&pb_broken_noop, 0},
        {&pb_broken_half, 0},
        /* The first call hands back its own output: the warm-up's. */
        {&pb_broken_stale, 0},
        /* Without a reference: caught as the same output twice in a row
         * (where n! makes that all but impossible: not at n = 2). */
        {&pb_broken_stale_noref, 0},
        {&pb_broken_once, PB_BROKEN_ONCE_CALL - 2},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        static pb_config cfg;
        pb_run run;
        pb_broken_once_reset();
        /* broken-once counts calls across rows: one size, one row first. */
        bool once = cases[c].m == &pb_broken_once, noref = cases[c].m == &pb_broken_stale_noref;
        ASSERT(sweep(cases[c].m, once ? "1000" : noref ? "33, 1000" : "2, 33, 1000", &run, &cfg) == 0);
        if (once) {
            ASSERT(run.nrows == 2);
            ASSERT(run.rows[0].status == PB_ROW_FAILED && run.rows[0].failed_sample == cases[c].sample);
            ASSERT_CONTAINS(run.rows[0].message, "sample 6 ");
            ASSERT(run.rows[1].status == PB_ROW_OK); /* right on every later call */
        } else {
            ASSERT(all_failed(&run, cases[c].sample));
            if (noref) ASSERT_CONTAINS(run.rows[0].message, "the same output as the sample before");
        }
        printf("%s: %s\n", cases[c].m->name, run.rows[0].message);
        pb_run_free(&run);
        pb_config_free(&cfg);
    }
    /* What they imitate passes the same checks, on the same points. */
    static pb_config cfg;
    pb_run run;
    ASSERT(sweep(pb_module_find("cpu-fisher-yates"), "1, 2, 33, 1000", &run, &cfg) == 0);
    for (size_t i = 0; i < run.nrows; i++) ASSERT(run.rows[i].status == PB_ROW_OK && run.rows[i].verified);
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

/* A module with a reference is checked against its fingerprint: the C
 * twin's reference (tbb-bijective) agrees on every sample. */
TEST_IMPL(every_sample_reference)
{
    static pb_config cfg;
    pb_run run;
    const pb_module *twin = pb_module_find("cpu-bijective-twin");
    ASSERT(twin && twin->reference);
    ASSERT(sweep(twin, "1, 31, 4097", &run, &cfg) == 0);
    for (size_t i = 0; i < run.nrows; i++) {
        ASSERT(run.rows[i].status == PB_ROW_OK);
        ASSERT_CONTAINS(run.rows[i].check, "fingerprint of cpu-tbb-bijective");
    }
    /* One expectation a (point, stream), shared: 3 sizes x 2 items x 11
     * streams (no more than the warm-up and at most 10 samples use). */
    ASSERT_EQ_U64(run.nexpect, 66);
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

TEST_IMPL(every_sample_broken_gpu)
{
#ifdef PB_HAVE_CUDA
    char why[256];
    if (pb_gpu_count(why, sizeof why) == 0) {
        printf("SKIP: %s\n", why);
        return PB_TEST_SKIP;
    }
    const pb_module *mods[] = {&pb_broken_gpu_noop, &pb_broken_gpu_half};
    for (size_t c = 0; c < 2; c++) {
        static pb_config cfg;
        pb_run run;
        ASSERT(sweep(mods[c], "2, 33, 2^20+1", &run, &cfg) == 0);
        ASSERT(all_failed(&run, 0));
        printf("%s: %s\n", mods[c]->name, run.rows[0].message);
        pb_run_free(&run);
        pb_config_free(&cfg);
    }
    return 0;
#else
    printf("SKIP: built without CUDA\n");
    return PB_TEST_SKIP;
#endif
}

/* The stopping rule: quiet samples stop at min_samples; noisy ones stop
 * once their noise settles, flagged; max_samples and the timeout bound it. */
TEST_IMPL(stopping_noise)
{
    pb_stopping s = {10, 1000, 0, 60, 0.005};
    pb_noise z = {0};
    pb_stop st = PB_GO_ON;
    for (int i = 0; st == PB_GO_ON; i++) {
        ASSERT(pb_noise_add(&z, 1.0 + 1e-4 * (i % 3)) == 0);
        st = pb_stopping_check(&s, &z, 0);
    }
    ASSERT(st == PB_STOP_QUIET && z.n == 10);
    pb_noise_free(&z);

    /* 10% noise, alternating: it settles, and the row is flagged. */
    st = PB_GO_ON;
    for (int i = 0; st == PB_GO_ON; i++) {
        ASSERT(pb_noise_add(&z, i % 2 ? 0.9 : 1.1) == 0);
        st = pb_stopping_check(&s, &z, 0);
    }
    ASSERT(st == PB_STOP_SETTLED);
    ASSERT(z.n >= 2 * pb_stopping_window(&s) && z.n < 100);
    ASSERT(pb_noise_value(&z) > 0.09 && pb_noise_value(&z) < 0.11);
    pb_noise_free(&z);

    /* Before the noise can be seen to settle, max_samples ends it. */
    s.max_samples = 15;
    st = PB_GO_ON;
    for (int i = 0; st == PB_GO_ON; i++) {
        ASSERT(pb_noise_add(&z, i % 2 ? 0.9 : 1.1) == 0);
        st = pb_stopping_check(&s, &z, 0);
    }
    ASSERT(st == PB_STOP_MAX && z.n == 15);
    pb_noise_free(&z);

    /* The timeout, even before min_samples. */
    ASSERT(pb_noise_add(&z, 1.0) == 0);
    ASSERT(pb_stopping_check(&s, &z, 61) == PB_STOP_TIMEOUT);
    pb_noise_free(&z);
    return 0;
}

/* Rows carry the wall time beside the timer's, and their noise. */
TEST_IMPL(every_sample_rows)
{
    static pb_config cfg;
    pb_run run;
    ASSERT(sweep(pb_module_find("cpu-fisher-yates"), "2^12", &run, &cfg) == 0);
    for (size_t i = 0; i < run.nrows; i++) {
        const pb_row *r = &run.rows[i];
        ASSERT(r->status == PB_ROW_OK && r->nsamples == 10);
        /* On the CPU the clock around run() is the wall time. */
        for (size_t k = 0; k < r->nsamples; k++) ASSERT(r->wall_ms[k] == r->samples_ms[k]);
        ASSERT(r->wall.median == r->ms.median);
        ASSERT(isfinite(r->noise) && r->noise >= 0);
        ASSERT(r->ci_lo_ms <= r->ms.median && r->ms.median <= r->ci_hi_ms);
        ASSERT(r->noisy == (r->ci_halfwidth > cfg.max_noise));
        ASSERT(r->check_s > 0);
    }
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

/* A batch's share of the copy is against a copy of the whole batch: the
 * copy ceiling is also measured at rows x n items. */
TEST_IMPL(pct_copy_of_batch)
{
    static pb_config cfg;
    pb_err err;
    ASSERT(pb_config_load_text("t.ini", "t",
                               "[sweep]\nsizes = 1000\nmin_samples = 3\nmin_time = 0\nmax_samples = 3\n"
                               "[b]\nmodule = cpu-topk\nrows = 4\nk = 8\n",
                               &cfg, &err) == 0);
    pb_config_add_ceilings(&cfg);
    pb_run run;
    ASSERT(pb_run_sweep(&cfg, NULL, &run, &err) == 0);
    const pb_row *copy4000 = NULL, *batch = NULL;
    for (size_t i = 0; i < run.nrows; i++) {
        const pb_row *r = &run.rows[i];
        if (strcmp(r->inst->mod->name, "cpu-copy") == 0 && r->n == 4000) copy4000 = r;
        if (strcmp(r->inst->label, "b") == 0) batch = r;
    }
    ASSERT(copy4000 && batch && batch->status == PB_ROW_OK && copy4000->status == PB_ROW_OK);
    ASSERT(fabs(batch->pct_copy - 100 * batch->gbps / copy4000->gbps) < 1e-9 * batch->pct_copy);
    ASSERT_EQ_U64(run.nrows, 3); /* cpu-copy at 1000 and 4000, the batch */
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

/* The stopping rule judges the median's interval, not the standard
 * deviation: one stall in ten samples leaves the median where it was, so
 * sampling stops quiet at min_samples whatever the stall does to the
 * relative standard deviation; samples in two clusters with the median
 * between them never narrow their interval, and settle as noisy. */
TEST_IMPL(stopping_median_interval)
{
    pb_stopping s = {10, 1000, 0, 60, 0.005};
    pb_noise z = {0};
    pb_stop st = PB_GO_ON;
    for (int i = 0; st == PB_GO_ON; i++) {
        ASSERT(pb_noise_add(&z, i % 10 == 9 ? 8.0 : 1.0 + 1e-4 * (i % 3)) == 0);
        st = pb_stopping_check(&s, &z, 0);
    }
    printf("one stall in ten: stop %d after %zu samples, relative sd %.1f%%, interval +-%.3f%%\n", (int)st,
           z.n, 100 * pb_noise_value(&z), 100 * pb_noise_halfwidth(&z));
    ASSERT(st == PB_STOP_QUIET && z.n == 10);
    ASSERT(pb_noise_value(&z) > 1 && pb_noise_halfwidth(&z) < 0.001);
    pb_noise_free(&z);

    /* Half the samples at 1 ms, half at 8: the interval spans both and
     * stays; it settles as soon as the window can tell. */
    st = PB_GO_ON;
    for (int i = 0; st == PB_GO_ON; i++) {
        ASSERT(pb_noise_add(&z, i % 2 ? 1.0 : 8.0) == 0);
        st = pb_stopping_check(&s, &z, 0);
    }
    ASSERT(st == PB_STOP_SETTLED && z.n == 2 * pb_stopping_window(&s));
    ASSERT(pb_noise_halfwidth(&z) > 0.5);

    /* Fewer than 6 samples cannot stop quiet: their interval is [min, max]
     * and below 95%. */
    pb_stopping few = {3, 1000, 0, 60, 0.005};
    pb_noise q = {0};
    st = PB_GO_ON;
    for (int i = 0; st == PB_GO_ON; i++) {
        ASSERT(pb_noise_add(&q, 1.0) == 0);
        st = pb_stopping_check(&few, &q, 0);
    }
    ASSERT(st == PB_STOP_QUIET && q.n == 6); /* PB_STOPPING_CI_MIN */
    pb_noise_free(&q);
    pb_noise_free(&z);
    return 0;
}

/* The tile family on the CPU: its point checks, its contract check (which
 * must reject wrong outputs), and the C twins (the simulator's models of the
 * GPU kernels) at every operation, method, m and pattern, refreshed and
 * fingerprinted as the harness does. No GPU needed. */
#include <stdlib.h>

#include "bench/runner.h"
#include "config/params.h"
#include "core/fingerprint.h"
#include "dmm/dmm_tile.h"
#include "families/tile/tile_problem.h"
#include "registry/registry.h"
#include "tests/test.h"

/* The C twin of each operation's GPU module. */
static const pb_module *twin_of(pb_tile_op op)
{
    static const char *const names[PB_TILE_NOPS] = {"cpu-tile-partition-twin", "cpu-tile-sort-twin",
                                                    "cpu-tile-permute-twin"};
    return pb_module_find(names[op]);
}

static void tile_params(const pb_module *mod, pb_params *p, unsigned m, int pattern, int method)
{
    pb_params_defaults(mod, p);
    p->v[PB_TILE_P_M] = m;
    p->v[PB_TILE_P_PATTERN] = pattern;
    p->v[PB_TILE_P_METHOD] = method;
}

TEST_IMPL(tile_point_checks)
{
    const pb_module *mod = twin_of(PB_TILE_PARTITION);
    ASSERT(mod != NULL);
    pb_params p;
    pb_err err;
    tile_params(mod, &p, 64, 0, PB_TILE_SCATTER);
    pb_point pt = {32 * 64 * 3, 4, 1, &p, 0};
    ASSERT(pb_tile_point_check(PB_TILE_PARTITION, PB_TILE_SCATTER, &pt, &err) == 0);
    pt.n = 32 * 64 * 3 + 32;
    ASSERT(pb_tile_point_check(PB_TILE_PARTITION, PB_TILE_SCATTER, &pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "multiple of 32 m = 2048");
    pt.n = 0;
    ASSERT(pb_tile_point_check(PB_TILE_PARTITION, PB_TILE_SCATTER, &pt, &err) != 0);
    pt.n = 2048;
    pt.item_bytes = 8;
    ASSERT(pb_tile_point_check(PB_TILE_PARTITION, PB_TILE_SCATTER, &pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "4 bytes");
    pt.item_bytes = 4;
    p.v[PB_TILE_P_M] = 48;
    ASSERT(pb_tile_point_check(PB_TILE_PARTITION, PB_TILE_SCATTER, &pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "m = 48");
    p.v[PB_TILE_P_M] = 64;
    ASSERT(pb_tile_point_check(PB_TILE_SORT, PB_TILE_PAD, &pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "sort has no method 'pad'");
    return 0;
}

/* The check passes the reference and fails a swap, an item out of its
 * tile, and (for the paper's partition) an item in another label's group;
 * it accepts the paper's partition with a label's items reordered. */
TEST_IMPL(tile_check_rejects)
{
    const pb_module *mod = twin_of(PB_TILE_PARTITION);
    pb_params p;
    pb_err err;
    for (int op = 0; op < PB_TILE_NOPS; op++) {
        tile_params(mod, &p, 32, PB_TILE_SKEWED, PB_TILE_SCATTER);
        pb_point pt = {32 * 32 * 4, 4, 5, &p, 0};
        pb_tile_problem prob;
        ASSERT(pb_tile_problem_init(&prob, (pb_tile_op)op, PB_TILE_SCATTER, &pt, &err) == 0);
        uint32_t *out = malloc(prob.n * sizeof *out);
        for (uint64_t t = 0; t < prob.tiles; t++)
            pb_tile_reference((pb_tile_op)op, 32, prob.in + t * 1024, out + t * 1024);
        ASSERT(pb_tile_check(&prob, out, &err) == 0);
        /* Two items of different labels / keys / destinations swapped. */
        uint32_t *a = out + 2 * 1024 + 3, *b = out + 2 * 1024 + 1000, t = *a;
        *a = *b;
        *b = t;
        ASSERT(pb_tile_check(&prob, out, &err) != 0);
        ASSERT_CONTAINS(err.msg, "tile 2 of 4");
        *b = *a;
        *a = t;
        ASSERT(pb_tile_check(&prob, out, &err) == 0);
        /* An item of tile 0 in tile 1. */
        out[1024 + 5] = out[5];
        ASSERT(pb_tile_check(&prob, out, &err) != 0);
        pb_tile_problem_free(&prob);
        free(out);
    }
    /* The paper's partition: order within a label free, groups not. */
    tile_params(mod, &p, 64, PB_TILE_UNIFORM, PB_TILE_PAPER);
    pb_point pt = {32 * 64, 4, 5, &p, 0};
    pb_tile_problem prob;
    ASSERT(pb_tile_problem_init(&prob, PB_TILE_PARTITION, PB_TILE_PAPER, &pt, &err) == 0);
    uint32_t out[32 * 64];
    pb_tile_reference(PB_TILE_PARTITION, 64, prob.in, out);
    unsigned i = 0;
    while (pb_tile_label(out[i]) != pb_tile_label(out[i + 1])) i++;
    uint32_t t = out[i];
    out[i] = out[i + 1];
    out[i + 1] = t;
    ASSERT(pb_tile_check(&prob, out, &err) == 0);
    prob.method = PB_TILE_SCATTER; /* the stable contract sees the swap */
    ASSERT(pb_tile_check(&prob, out, &err) != 0);
    prob.method = PB_TILE_PAPER;
    out[0] ^= 1u << 27; /* another label */
    ASSERT(pb_tile_check(&prob, out, &err) != 0);
    out[0] ^= 1u << 27;
    out[0] ^= 1u; /* the same label, another item */
    ASSERT(pb_tile_check(&prob, out, &err) != 0);
    ASSERT_CONTAINS(err.msg, "label group");
    pb_tile_problem_free(&prob);
    return 0;
}

/* The twins: every operation, method, m and pattern, verified. */
TEST_IMPL(tile_twin)
{
    static const unsigned ms[] = {32, 64, 128, 256};
    int runs = 0;
    for (int op = 0; op < PB_TILE_NOPS; op++)
        for (int me = 0; me < PB_TILE_NMETHODS; me++)
            for (size_t mi = 0; mi < 4; mi++)
                for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++) {
                    if (!pb_tile_method_applies((pb_tile_op)op, (pb_tile_method)me)) continue;
                    const pb_module *mod = twin_of((pb_tile_op)op);
                    pb_params p;
                    pb_err err;
                    tile_params(mod, &p, ms[mi], pat, me);
                    /* Two tiles, three for the small ones. */
                    pb_point pt = {32 * (uint64_t)ms[mi] * (ms[mi] > 64 ? 2 : 3), 4, 21, &p, 0};
                    void *st = NULL;
                    int rc = mod->prepare(&pt, &st, &err);
                    if (!rc) rc = mod->run(st, 0, &err);
                    if (!rc) rc = mod->verify(st, &err);
                    if (st) mod->release(st);
                    if (rc) {
                        fprintf(stderr, "%s/%s m=%u %s: %s\n", pb_tile_op_name((pb_tile_op)op),
                                pb_tile_method_name((pb_tile_method)me), ms[mi],
                                pb_tile_pattern_name((pb_tile_pattern)pat), err.msg);
                        return 1;
                    }
                    runs++;
                }
    printf("%d twin runs\n", runs);
    return 0;
}

/* What the harness does with a twin every sample: refresh poisons its
 * output (a run that does nothing fails its check and changes the
 * fingerprint), a run puts back the same output, and the fingerprint is
 * the output's. */
TEST_IMPL(tile_twin_refresh)
{
    for (int op = 0; op < PB_TILE_NOPS; op++) {
        const pb_module *mod = twin_of((pb_tile_op)op);
        ASSERT(mod && mod->refresh && mod->fingerprint && !mod->reference);
        pb_params p;
        pb_err err;
        tile_params(mod, &p, 64, PB_TILE_ONEBANK, PB_TILE_SPLIT);
        pb_point pt = {32 * 64 * 3, 4, 8, &p, 0};
        void *st = NULL;
        const void *out;
        uint64_t fp, again, poisoned;
        ASSERT(mod->prepare(&pt, &st, &err) == 0);
        ASSERT(mod->refresh(st, &err) == 0 && mod->run(st, 0, &err) == 0);
        ASSERT(mod->verify(st, &err) == 0 && mod->fingerprint(st, &fp, &err) == 0);
        ASSERT(mod->result(st, &out, &err) == 0);
        ASSERT(fp == pb_fingerprint(out, pt.n, 4));
        ASSERT(mod->refresh(st, &err) == 0 && mod->fingerprint(st, &poisoned, &err) == 0);
        ASSERT(poisoned != fp && mod->verify(st, &err) != 0);
        ASSERT(mod->run(st, 1, &err) == 0 && mod->fingerprint(st, &again, &err) == 0);
        ASSERT(again == fp);
        mod->release(st);
    }
    return 0;
}

/* A run() that does nothing: the refresh's poison is left as the output. */
static int run_nothing(void *state, uint64_t sample, pb_err *err)
{
    (void)state, (void)sample, (void)err;
    return 0;
}

/* The harness with a tile reference, on the CPU: a module that names a
 * twin as its reference (as the GPU modules do) gets the twin run with its
 * own m, pattern and method (here the paper's partition, whose order only
 * the model gives) and meets its fingerprint on every sample; one whose
 * run does nothing fails its first sample. */
TEST_IMPL(tile_reference_sweep)
{
    const pb_module *twin = twin_of(PB_TILE_PARTITION);
    pb_module good = *twin, idle = *twin;
    good.name = "tile-twin-copy";
    good.reference = twin->name;
    idle.name = "tile-twin-idle";
    idle.reference = twin->name;
    idle.run = run_nothing;
    const pb_module *mods[] = {&good, &idle};
    for (int c = 0; c < 2; c++) {
        static pb_config cfg;
        pb_err err;
        pb_run run;
        ASSERT(pb_config_load_text("t.ini", "t",
                                   "[sweep]\nfamily = tile\nsizes = 2^12, 2^14\nitem = u32\n"
                                   "ceilings = none\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\n"
                                   "flush_cache = no\nplot = none\n"
                                   "[cpu-tile-partition-twin]\nmethod = paper\npattern = onebank\nm = 64\n",
                                   &cfg, &err) == 0);
        cfg.inst.v[0].mod = mods[c];
        ASSERT(pb_run_sweep(&cfg, NULL, &run, &err) == 0);
        ASSERT_EQ_U64(run.nrows, 2);
        for (size_t i = 0; i < run.nrows; i++) {
            const pb_row *r = &run.rows[i];
            ASSERT_CONTAINS(r->check, "fingerprint of cpu-tile-partition-twin");
            if (c == 0) ASSERT(r->status == PB_ROW_OK && r->verified);
            else ASSERT(r->status == PB_ROW_FAILED && r->failed_sample == 0);
        }
        if (c == 1) printf("%s: %s\n", idle.name, run.rows[0].message);
        pb_run_free(&run);
        pb_config_free(&cfg);
    }
    return 0;
}

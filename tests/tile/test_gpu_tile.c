/* The GPU tile modules on a CUDA device, each checked by its own verify()
 * against the C reference (tile_problem.h): every operation, method, m in
 * {32, 64, 128, 256} and pattern, at one tile, a few tiles and many; the
 * paper's partition, whose order within a label is its own, equal bit for
 * bit to its C twin (the simulator's model, tile-partition-twin); and every
 * module's device fingerprint equal to its twin's (its reference) at every
 * operation, method, m and pattern. SKIP without a device.
 * `gpu_tile_small` is the quick subset compute-sanitizer runs
 * (PB_TILE_QUICK: one and two tiles, m = 32 and 64). */
#include <stdlib.h>

#include "config/params.h"
#include "core/gpu.h"
#include "families/tile/tile_problem.h"
#include "registry/registry.h"
#include "tests/test.h"

static int need_gpu(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

static const char *const modules[PB_TILE_NOPS] = {"gpu-tile-partition", "gpu-tile-sort", "gpu-tile-permute"};

/* One module at one point: prepare, two runs, verify; the output copied to
 * *out when out is not NULL. */
static int one(pb_tile_op op, pb_tile_method method, unsigned m, pb_tile_pattern pat,
               uint64_t tiles, uint32_t **out)
{
    const pb_module *mod = pb_module_find(modules[op]);
    if (!mod) return fprintf(stderr, "no module %s\n", modules[op]), 1;
    pb_params p;
    pb_err err = {{0}};
    pb_params_defaults(mod, &p);
    p.v[PB_TILE_P_M] = m;
    p.v[PB_TILE_P_PATTERN] = pat;
    p.v[PB_TILE_P_METHOD] = method;
    pb_point pt = {tiles * 32 * m, 4, 1234 + tiles, &p, 0};
    void *st = NULL;
    int rc = mod->prepare(&pt, &st, &err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = mod->run(st, s, &err);
    if (!rc) rc = mod->verify(st, &err);
    if (!rc && out) {
        const void *res;
        rc = mod->result(st, &res, &err);
        *out = rc ? NULL : malloc(pt.n * 4);
        if (*out) memcpy(*out, res, pt.n * 4);
    }
    if (st) mod->release(st);
    if (rc)
        fprintf(stderr, "%s %s m=%u %s tiles=%llu: %s\n", mod->name, pb_tile_method_name(method), m,
                pb_tile_pattern_name(pat), (unsigned long long)tiles, err.msg);
    return rc ? 1 : 0;
}

static int sweep(const unsigned *ms, size_t nms, const uint64_t *tiles, size_t ntiles)
{
    int failures = 0, runs = 0;
    for (int op = 0; op < PB_TILE_NOPS; op++)
        for (int me = 0; me < PB_TILE_NMETHODS; me++)
            for (size_t mi = 0; mi < nms; mi++)
                for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++)
                    for (size_t ti = 0; ti < ntiles; ti++) {
                        if (!pb_tile_method_applies((pb_tile_op)op, (pb_tile_method)me)) continue;
                        failures += one((pb_tile_op)op, (pb_tile_method)me, ms[mi],
                                        (pb_tile_pattern)pat, tiles[ti], NULL);
                        runs++;
                        if (failures > 20) return 1;
                    }
    printf("%d module runs, %d failures\n", runs, failures);
    return failures != 0;
}

TEST_IMPL(gpu_tile_contract)
{
    int rc = need_gpu();
    if (rc) return rc;
    static const unsigned ms[] = {32, 64, 128, 256};
    /* One tile, a few (not a multiple of the SM count), and enough to fill
     * the GPU several times over. */
    static const uint64_t tiles[] = {1, 37, 520};
    return sweep(ms, 4, tiles, 3);
}

TEST_IMPL(gpu_tile_small)
{
    int rc = need_gpu();
    if (rc) return rc;
    static const unsigned ms[] = {32, 64};
    static const uint64_t tiles[] = {1, 2, 33};
    return sweep(ms, 2, tiles, getenv("PB_TILE_QUICK") ? 2 : 3);
}

/* The paper's partition equals its C twin (the simulator's model run by
 * tile-partition-twin) bit for bit, order within labels included: the
 * kernel is the simulator's program. */
TEST_IMPL(gpu_tile_paper_twin)
{
    int rc = need_gpu();
    if (rc) return rc;
    const pb_module *twin = pb_module_find("cpu-tile-partition-twin");
    static const unsigned ms[] = {32, 64, 128, 256};
    int failures = 0;
    for (size_t mi = 0; mi < 4; mi++)
        for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++) {
            const uint64_t tiles = 5;
            uint32_t *gpu = NULL;
            if (one(PB_TILE_PARTITION, PB_TILE_PAPER, ms[mi], (pb_tile_pattern)pat, tiles, &gpu))
                return 1;
            pb_params p;
            pb_err err;
            pb_params_defaults(twin, &p);
            p.v[PB_TILE_P_M] = ms[mi];
            p.v[PB_TILE_P_PATTERN] = pat;
            p.v[PB_TILE_P_METHOD] = PB_TILE_PAPER;
            pb_point pt = {tiles * 32 * ms[mi], 4, 1234 + tiles, &p, 0};
            void *st = NULL;
            const void *cpu = NULL;
            rc = twin->prepare(&pt, &st, &err);
            if (!rc) rc = twin->run(st, 0, &err);
            if (!rc) rc = twin->result(st, &cpu, &err);
            if (rc) {
                fprintf(stderr, "cpu-tile-partition-twin: %s\n", err.msg);
                failures++;
            } else if (memcmp(gpu, cpu, pt.n * 4) != 0) {
                uint64_t i = 0;
                while (gpu[i] == ((const uint32_t *)cpu)[i]) i++;
                fprintf(stderr, "paper partition m=%u %s: the GPU differs from its twin at item %llu\n",
                        ms[mi], pb_tile_pattern_name((pb_tile_pattern)pat), (unsigned long long)i);
                failures++;
            }
            if (st) twin->release(st);
            free(gpu);
        }
    return failures != 0;
}

/* prepare, refresh, run, fingerprint (the harness's path) of `mod` at a
 * point; 0 or -1 with the reason. */
static int fingerprint_of(const pb_module *mod, const pb_point *pt, uint64_t *fp, pb_err *err)
{
    void *st = NULL;
    int rc = mod->prepare(pt, &st, err) || mod->refresh(st, err) || mod->run(st, 0, err) ||
             (mod->device == PB_DEVICE_GPU && pb_gpu_sync(err)) || mod->fingerprint(st, fp, err);
    if (st) mod->release(st);
    return rc ? -1 : 0;
}

/* What the harness relies on for every sample: each GPU module's output
 * has its reference's fingerprint (the twin's: the simulator's model, or
 * the C reference for cub) at every operation, method, m and pattern. */
TEST_IMPL(gpu_tile_twin_fingerprint)
{
    int rc = need_gpu();
    if (rc) return rc;
    static const unsigned ms[] = {32, 64, 128, 256};
    int failures = 0, runs = 0;
    for (int op = 0; op < PB_TILE_NOPS; op++) {
        const pb_module *mod = pb_module_find(modules[op]);
        const pb_module *twin = mod && mod->reference ? pb_module_find(mod->reference) : NULL;
        if (!twin) return fprintf(stderr, "%s: no reference module\n", modules[op]), 1;
        for (int me = 0; me < PB_TILE_NMETHODS; me++)
            for (size_t mi = 0; mi < 4; mi++)
                for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++) {
                    if (!pb_tile_method_applies((pb_tile_op)op, (pb_tile_method)me)) continue;
                    pb_params p;
                    pb_err err = {{0}};
                    pb_params_defaults(mod, &p);
                    p.v[PB_TILE_P_M] = ms[mi];
                    p.v[PB_TILE_P_PATTERN] = pat;
                    p.v[PB_TILE_P_METHOD] = me;
                    pb_point pt = {7 * 32 * (uint64_t)ms[mi], 4, 99, &p, 0};
                    uint64_t fg = 0, fc = 1;
                    if (fingerprint_of(mod, &pt, &fg, &err) || fingerprint_of(twin, &pt, &fc, &err)) {
                        fprintf(stderr, "%s %s m=%u %s: %s\n", mod->name,
                                pb_tile_method_name((pb_tile_method)me), ms[mi],
                                pb_tile_pattern_name((pb_tile_pattern)pat), err.msg);
                        failures++;
                    } else if (fg != fc) {
                        fprintf(stderr, "%s %s m=%u %s: fingerprint %016llx, %s's %016llx\n",
                                mod->name, pb_tile_method_name((pb_tile_method)me), ms[mi],
                                pb_tile_pattern_name((pb_tile_pattern)pat), (unsigned long long)fg,
                                twin->name, (unsigned long long)fc);
                        failures++;
                    }
                    runs++;
                }
    }
    printf("%d modules x points compared with their twins, %d differ\n", runs, failures);
    return failures != 0;
}

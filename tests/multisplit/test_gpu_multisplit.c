/* The GPU multisplit modules on a CUDA device, each checked by its own
 * verify(): the stable ones (dms, wms, bms in both scan modes, both prescan
 * counts and every stage setting, the multisplit dispatcher, onesweep-ms, rb-sort with
 * either label width, scan-split) equal the C twin bit for bit; cub-partition passes the multisplit contract; the sorts
 * (cub-radix-sort, ms-sort) are stable sorts; the histograms equal the
 * host's count. Every bucket kind, m in {2, 3, 7, 32, 33, 100, 256}, n in
 * {0, 1, 31, 32, 33, 2^k - 1, 2^k, 2^k + 1 (k = 10, 12, 16, 20)} and 2^25,
 * keys and pairs. SKIP without a device. `gpu_multisplit_small` is the quick
 * subset compute-sanitizer runs. */
#include <stdlib.h>

#include "config/params.h"
#include "core/gpu.h"
#include "families/multisplit/ms_problem.h"
#include "registry/registry.h"
#include "tests/test.h"

static int need_gpu(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

typedef struct ms_case {
    const char *module;
    const char *param; /* an extra parameter, or NULL */
    long long value;
} ms_case;

static const ms_case cases[] = {
    {"gpu-multisplit", NULL, 0},    {"gpu-dms", NULL, 0},          {"gpu-wms", NULL, 0},
    {"gpu-bms", NULL, 0},           {"gpu-bms", "count", 1},       {"gpu-dms", "count", 1},
    {"gpu-wms", "count", 1},
    {"gpu-bms", "scan", 1},         {"gpu-bms", "stage", 3},       {"gpu-wms", "stage", 1},
    {"gpu-rb-sort", NULL, 0},       {"gpu-rb-sort", "label", 1},   {"gpu-scan-split", NULL, 0},
    {"gpu-cub-partition", NULL, 0}, {"gpu-cub-radix-sort", NULL, 0}, {"gpu-onesweep-ms", NULL, 0},
    {"gpu-onesweep-ms", "tile", 1},
};

static bool applies(const char *mod, uint32_t m, int kind)
{
    if (kind == PB_BUCKET_RADIX && (m & (m - 1))) return false;
    if ((!strcmp(mod, "gpu-dms") || !strcmp(mod, "gpu-wms")) && m > 32) return false;
    if (!strcmp(mod, "gpu-scan-split") && m != 2) return false;
    if (!strcmp(mod, "gpu-cub-partition") && m != 2 && m != 3) return false;
    /* A full sort is a multisplit only for monotone buckets. */
    if (!strcmp(mod, "gpu-cub-radix-sort") && kind == PB_BUCKET_RADIX) return false;
    return true;
}

/* One module at one point: prepare, two runs, verify, release. */
static int one(const pb_module *mod, const ms_case *c, uint64_t n, unsigned bytes, uint32_t m,
               int kind)
{
    pb_params p;
    pb_err err = {{0}};
    pb_params_defaults(mod, &p);
    p.v[PB_MS_P_BUCKETS] = m;
    p.v[PB_MS_P_BUCKET] = kind;
    p.v[PB_MS_P_SHIFT] = kind == PB_BUCKET_RADIX ? 3 : 0;
    if (c->param) p.v[pb_module_param_index(mod, c->param)] = c->value;
    pb_point pt = {n, bytes, 77 + n, &p, 0};
    void *st = NULL;
    int rc = mod->prepare(&pt, &st, &err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = mod->run(st, s, &err);
    if (!rc) rc = mod->verify(st, &err);
    if (st) mod->release(st);
    if (rc)
        fprintf(stderr, "%s%s%s n=%llu %s m=%u kind=%d: %s\n", mod->name, c->param ? " " : "",
                c->param ? c->param : "", (unsigned long long)n, bytes == 8 ? "pairs" : "keys", m,
                kind, err.msg);
    return rc ? 1 : 0;
}

static int sweep(const uint64_t *sizes, size_t nsizes, bool big)
{
    static const uint32_t ms[] = {2, 3, 7, 32, 33, 100, 256};
    int failures = 0;
    long runs = 0;
    /* PB_MS_ONLY=NAME: only that module's cases (a new kernel checked in a
     * short device session; the full list takes minutes at 2^25). */
    const char *only = getenv("PB_MS_ONLY");
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const pb_module *mod = pb_module_find(cases[ci].module);
        if (!mod) return fprintf(stderr, "no module %s\n", cases[ci].module), 1;
        if (only && *only && strcmp(only, cases[ci].module)) continue;
        for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
            for (int kind = 0; kind < 4; kind++)
                for (unsigned bytes = 4; bytes <= 8; bytes += 4)
                    for (size_t si = 0; si < nsizes; si++) {
                        if (!applies(mod->name, ms[mi], kind)) continue;
                        /* 2^25: every module and m, delta and range buckets. */
                        if (big && kind != PB_BUCKET_DELTA && kind != PB_BUCKET_RANGE) continue;
                        failures += one(mod, &cases[ci], sizes[si], bytes, ms[mi], kind);
                        runs++;
                        if (failures > 20) return 1;
                    }
    }
    printf("%ld module runs, %d failures\n", runs, failures);
    return failures != 0;
}

TEST_IMPL(gpu_multisplit_twin)
{
    int rc = need_gpu();
    if (rc) return rc;
    uint64_t sizes[32];
    size_t ns = 0;
    static const uint64_t fixed[] = {0, 1, 31, 32, 33};
    for (size_t i = 0; i < 5; i++) sizes[ns++] = fixed[i];
    static const int ks[] = {10, 12, 16, 20};
    for (size_t i = 0; i < 4; i++) {
        uint64_t p = UINT64_C(1) << ks[i];
        sizes[ns++] = p - 1;
        sizes[ns++] = p;
        sizes[ns++] = p + 1;
    }
    if (sweep(sizes, ns, false)) return 1;
    uint64_t big[] = {UINT64_C(1) << 25};
    return sweep(big, 1, true);
}

TEST_IMPL(gpu_multisplit_small)
{
    int rc = need_gpu();
    if (rc) return rc;
    /* PB_MS_QUICK: one tile and several tiles (every kernel's look-back and
     * block-level paths), for compute-sanitizer's slow tools. */
    static const uint64_t sizes[] = {1, 4097, 33, 12289};
    return sweep(getenv("PB_MS_QUICK") ? sizes + 2 : sizes, getenv("PB_MS_QUICK") ? 2 : 4, false);
}

/* The building blocks: the multisplit radix sort at every digit width, and
 * both histograms with either binning, against the host. */
TEST_IMPL(gpu_multisplit_blocks)
{
    int rc = need_gpu();
    if (rc) return rc;
    int failures = 0;
    static const uint64_t sizes[] = {0, 1, 33, 4095, 4097, 100003, UINT64_C(1) << 22};
    const pb_module *sort = pb_module_find("gpu-ms-sort");
    for (long long r = 4; r <= 8; r++)
        for (unsigned bytes = 4; bytes <= 8; bytes += 4)
            for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
                ms_case c = {"gpu-ms-sort", "bits", r};
                failures += one(sort, &c, sizes[si], bytes, 32, PB_BUCKET_DELTA);
            }
    const char *hists[] = {"gpu-ms-histogram", "gpu-cub-histogram"};
    static const long long bins[] = {2, 3, 7, 32, 33, 100, 256};
    for (int h = 0; h < 2; h++) {
        const pb_module *mod = pb_module_find(hists[h]);
        for (size_t b = 0; b < sizeof bins / sizeof bins[0]; b++)
            for (long long binning = 0; binning < 2; binning++)
                for (size_t si = 1; si < sizeof sizes / sizeof sizes[0]; si++) {
                    pb_params p;
                    pb_err err = {{0}};
                    pb_params_defaults(mod, &p);
                    p.v[0] = bins[b];
                    p.v[1] = binning;
                    pb_point pt = {sizes[si], 4, 5, &p, 0};
                    void *st = NULL;
                    int r2 = mod->prepare(&pt, &st, &err);
                    if (!r2) r2 = mod->run(st, 0, &err);
                    if (!r2) r2 = mod->verify(st, &err);
                    if (st) mod->release(st);
                    if (r2) {
                        fprintf(stderr, "%s bins=%lld binning=%lld n=%llu: %s\n", mod->name,
                                bins[b], binning, (unsigned long long)sizes[si], err.msg);
                        failures++;
                    }
                }
    }
    return failures != 0;
}

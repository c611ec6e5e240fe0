/* gpu-rao-sandelius and gpu-l2-shuffle (the same shuffle in the L2
 * order, docs/l2-shuffle.md) on a CUDA device equal their C model
 * (pb_grs_twin_shuffle, the CPU modules cpu-rao-sandelius-twin and
 * cpu-l2-shuffle-twin) bit for bit: the timed run at awkward sizes (0, 1,
 * 2, 31-33, 2^k +- 1, sizes with buckets larger than `target`, large),
 * u32 and u64, several samples, under five shapes (the defaults; a 2-bit
 * first sort then halving splits down to single items; small buckets
 * with 8-part splits; the defaults with `cap` = 64, so that most buckets
 * take the global-memory path; 32-part splits), and records (a u32
 * permutation, then a gather); and their sample permutations, in batches,
 * equal the model's. gpu-l2-shuffle also under shapes whose `bucket_cap`
 * forces the overflow path (every bucket, or some, larger than a slot;
 * with the global-memory path too), and its rows' path ("groups" exactly
 * where the plan has a level, else "passes"). SKIP without a device. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"
#include "config/params.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/test.h"

static int need_gpu(const char *name, const pb_module **m)
{
    char why[256];
    *m = pb_module_find(name);
    if (!*m) {
        printf("skipped: %s is not in this build (no CUDA)\n", name);
        return PB_TEST_SKIP;
    }
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

/* key_bits (-1 auto), target, level_bits, small, cap, bucket_cap,
 * streams: the defaults (a level pass over the whole array from 2^21
 * items); a 2-bit first sort then halving splits down to single items
 * (passes of one bit); small segments with 8-part splits (up to four
 * passes); the defaults with `cap` = 64 (most segments take the
 * global-memory path); 32-part splits (a pass at 3000017, then warp
 * splits of ~366 items). gpu-l2-shuffle's own (bucket_cap set; the first
 * five take its default slot, half the L2): the defaults with slots of
 * 1000 items (at 3000017 every bucket, ~11700 items, an overflow), and
 * with `cap` = 16 too (overflows' parts, ~46 items, finished through the
 * global path); 8-part splits from small buckets in slots of 37 items
 * (groups of a few buckets, some overflows); halving splits in slots of
 * 50 (every segment of the last level an overflow from 2^12 items) and,
 * at 2^16 +- 1, of 8300 (a group a segment of ~8192, those above 8300
 * overflows); and on two streams (alternate groups overlapping, a slot
 * each): the defaults (two groups at 3000017 u64), the slots of 37
 * (thousands of groups) and the overflows through the global path. */
static const long long shapes[][7] = {
    {-1, 8192, 8, 64, 0, 0, 1},     {2, 4096, 1, 1, 0, 0, 1},        {-1, 8, 3, 4, 0, 0, 1},
    {-1, 8192, 8, 64, 64, 0, 1},    {-1, 4096, 5, 32, 0, 0, 1},      {-1, 8192, 8, 64, 0, 1000, 1},
    {-1, 8192, 8, 64, 16, 1000, 1}, {-1, 8, 3, 4, 0, 37, 1},         {2, 256, 1, 1, 0, 50, 1},
    {2, 4096, 1, 1, 0, 8300, 1},    {-1, 8192, 8, 64, 0, 0, 2},      {-1, 8, 3, 4, 0, 37, 2},
    {-1, 8192, 8, 64, 16, 1000, 2},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0], NGRS = 5 };

/* The shapes a module takes: gpu-rao-sandelius has no bucket_cap. */
static int nshapes_of(const pb_module *m) { return pb_module_param_index(m, "bucket_cap") < 0 ? NGRS : NSHAPES; }

static void set_shape(const pb_module *m, pb_params *p, int s)
{
    static const char *const names[] = {"key_bits", "target", "level_bits", "small", "cap", "bucket_cap", "streams"};
    pb_params_defaults(m, p);
    for (int k = 0; k < 7; k++) {
        int i = pb_module_param_index(m, names[k]);
        if (i >= 0) p->v[i] = shapes[s][k];
    }
}

static pb_grs_shape model_shape(int s, uint64_t n)
{
    pb_grs_shape sh;
    sh.key_bits = shapes[s][0] < 0 ? pb_grs_key_bits_for(n, (uint64_t)shapes[s][1]) : (unsigned)shapes[s][0];
    sh.level_bits = (unsigned)shapes[s][2];
    sh.small = (uint32_t)shapes[s][3];
    return sh;
}

static int twin_check(const char *name)
{
    const pb_module *m;
    int rc = need_gpu(name, &m);
    if (rc) return rc;
    static const uint64_t sizes[] = {0,    1,    2,     3,     31,         32,        33,      100,
                                     1000, 4095, 4096,  4097,  10007,      65535,     65537,   (1u << 20) + 1,
                                     3000017};
    for (int s = 0; s < nshapes_of(m); s++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
            for (int b = 0; b < 3; b++) {
                static const unsigned widths[] = {4, 8, 24};
                unsigned bytes = widths[b];
                uint64_t n = sizes[k];
                /* Records (24 bytes) under the defaults, the global path
                 * and the forced overflow, on one stream and on two. */
                if (bytes == 24 && s != 0 && s != 3 && s != 5 && s != 12) continue;
                /* The deep shapes (single items at the bottom) up to 2^16 + 1. */
                if ((s == 1 || s == 8 || s == 9) && n > 65537) continue;
                pb_params params;
                set_shape(m, &params, s);
                pb_point pt = {n, bytes, 41, &params, 0};
                void *state = NULL, *in = malloc(n * bytes + 8), *twin = malloc(n * bytes + 8);
                const void *out;
                pb_err err = {{0}};
                ASSERT(in && twin);
                pb_shuffle_fill(in, n, bytes);
                pb_grs_shape sh = model_shape(s, n);
                rc = m->prepare(&pt, &state, &err);
                /* gpu-l2-shuffle's path: groups exactly where the plan has a level */
                if (!rc && nshapes_of(m) > NGRS) {
                    const char *want = pb_grs_plan_levels(&sh, n, (uint64_t)shapes[s][1]) ? "groups" : "passes";
                    const char *got = m->path ? m->path(state) : NULL;
                    if (!got || strcmp(got, want) != 0)
                        rc = pb_err_set(&err, "path %s, the plan's is %s", got ? got : "(none)", want);
                }
                for (uint64_t sample = 0; sample < 2 && !rc; sample++) {
                    rc = m->refresh(state, &err);
                    if (!rc) rc = m->run(state, 3 + sample, &err);
                    if (!rc) rc = m->verify(state, &err);
                    if (!rc) rc = m->result(state, &out, &err);
                    if (rc) break;
                    if (pb_grs_twin_shuffle(in, twin, n, bytes, &sh, 41, 3 + sample, NULL, NULL, &err)) rc = 1;
                    else if (memcmp(out, twin, n * bytes) != 0)
                        rc = pb_err_set(&err, "sample %llu differs from the C model", (unsigned long long)(3 + sample));
                }
                if (rc)
                    fprintf(stderr, "%s n=%llu item=%u shape %d: %s\n", name, (unsigned long long)n, bytes, s,
                            err.msg);
                if (state) m->release(state);
                free(in), free(twin);
                if (rc) return 1;
            }
    return 0;
}

TEST_IMPL(gpu_grs_twin) { return twin_check("gpu-rao-sandelius"); }
TEST_IMPL(gpu_l2s_twin) { return twin_check("gpu-l2-shuffle"); }

static int sample_check(const char *name)
{
    const pb_module *m;
    int rc = need_gpu(name, &m);
    if (rc) return rc;
    static const uint32_t ns[] = {1, 2, 5, 8, 100, 1000, 4097};
    for (int s = 0; s < nshapes_of(m); s++)
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            uint32_t n = ns[t];
            uint64_t count = n > 1000 ? 9 : 501;
            pb_params params;
            pb_err err = {{0}};
            set_shape(m, &params, s);
            uint32_t *p = malloc(count * n * 4), *id = malloc(n * 4), *twin = malloc(n * 4);
            ASSERT(p && id && twin);
            for (uint32_t i = 0; i < n; i++) id[i] = i;
            if (pb_module_sample_perms(m)(&params, n, 12, 700, count, p, &err)) {
                fprintf(stderr, "%s n=%u shape %d: %s\n", name, n, s, err.msg);
                return 1;
            }
            pb_grs_shape sh = model_shape(s, n);
            for (uint64_t j = 0; j < count; j++) {
                ASSERT(pb_grs_twin_shuffle(id, twin, n, 4, &sh, 12, 700 + j, NULL, NULL, &err) == 0);
                if (memcmp(twin, p + j * n, n * 4) != 0) {
                    fprintf(stderr, "%s n=%u shape %d: sample permutation %llu differs from the model\n", name, n,
                            s, (unsigned long long)j);
                    return 1;
                }
            }
            free(p), free(id), free(twin);
        }
    return 0;
}

TEST_IMPL(gpu_grs_sample_perms) { return sample_check("gpu-rao-sandelius"); }
TEST_IMPL(gpu_l2s_sample_perms) { return sample_check("gpu-l2-shuffle"); }

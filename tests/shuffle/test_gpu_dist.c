/* The distributed shuffle on this host's GPUs: dist-shuffle's
 * timed run equals the C model (pb_dist_twin_shuffle) bit for bit for
 * every device count this host can give it (1, and 2 .. 4 where present)
 * at awkward sizes (0, 1, 2, sizes G does not divide, 2^k +- 1 around the
 * fused split's 2048-item tiles, large), for u32, u64 and records, both
 * splits (fused and CUB's sort), several samples; its sample permutations (the
 * quality battery's path: batches through the same steps) equal the
 * model's; the split alone (step 2, fused and CUB's) equals a stable
 * partition by destination for G = 2 .. 64 on one GPU, so a host with one
 * GPU tests it too (and times both at 2^27 and 2^29 u64, printed); dist-exchange moves every item (a permutation, each device's
 * blocks where the plan puts them). Device counts beyond the host's are
 * refused with a reason, with or without a GPU. SKIP without a device. */
#include <stdlib.h>

#include "algorithms/shuffle/distributed/dist_twin.h"
#ifdef PB_HAVE_CUDA
#include "algorithms/shuffle/distributed/gpu_dist_shuffle.h"
#endif
#include "config/params.h"
#include "core/gpu.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/test.h"

static const pb_module *find(const char *name)
{
    const pb_module *m = pb_module_find(name);
    if (!m) printf("skipped: %s is not in this build (no CUDA)\n", name);
    return m;
}

static int gpus(void)
{
    char why[256];
    int n = pb_gpu_count(why, sizeof why);
    if (n == 0) printf("skipped: %s\n", why);
    return n;
}

/* Device counts to try: 1 .. min(4, GPUs), those the build can drive. */
static int max_devices(const pb_module *m, int have)
{
    int g = 1;
    for (int t = 2; t <= have && t <= 4; t++) {
        pb_params p;
        pb_params_defaults(m, &p);
        p.v[pb_module_param_index(m, "devices")] = t;
        char why[256];
        if (!pb_module_available_with(m, &p, why, sizeof why)) {
            printf("devices = %d not tried: %s\n", t, why);
            break;
        }
        g = t;
    }
    if (g == 1) printf("only devices = 1 tried (this host has %d GPU%s)\n", have, have == 1 ? "" : "s");
    return g;
}

static int run_twin_split(const pb_module *m, uint32_t G, uint64_t n, unsigned bytes, int samples, int split,
                          int chunks)
{
    pb_params params;
    pb_params_defaults(m, &params);
    params.v[pb_module_param_index(m, "devices")] = G;
    params.v[pb_module_param_index(m, "split")] = split;
    params.v[pb_module_param_index(m, "chunks")] = chunks;
    pb_point pt = {n, bytes, 77, &params, 0};
    void *state = NULL, *in = malloc(n * bytes + 8), *twin = malloc(n * bytes + 8);
    const void *out;
    pb_err err = {{0}};
    ASSERT(in && twin);
    pb_shuffle_fill(in, n, bytes);
    int rc = m->prepare(&pt, &state, &err);
    for (uint64_t sample = 0; sample < (uint64_t)samples && !rc; sample++) {
        rc = m->refresh(state, &err);
        if (!rc) rc = m->run(state, 5 + sample, &err);
        if (!rc) rc = m->verify(state, &err);
        if (!rc) rc = m->result(state, &out, &err);
        if (rc) break;
        pb_dist_counts counts;
        if (pb_dist_twin_shuffle(in, twin, n, bytes, G, (pb_bij_kind)params.v[1], (int)params.v[2], 77, 5 + sample,
                                  &counts, &err))
            rc = 1;
        else if (memcmp(out, twin, n * bytes) != 0)
            rc = pb_err_set(&err, "sample %llu differs from the C model", (unsigned long long)(5 + sample));
    }
    if (rc)
        fprintf(stderr, "gpu-dist-shuffle devices=%u split=%s chunks=%d n=%llu item=%u: %s\n", G, split ? "cub" : "fused",
                chunks, (unsigned long long)n, bytes, err.msg);
    if (state) m->release(state);
    free(in), free(twin);
    return rc != 0;
}

/* The fused split (records: CUB's) at every size; CUB's in one piece for
 * scalars up to 2^20 + 1; and, on several devices, CUB's in pieces whose
 * exchanges overlap the ordering: 3 (uneven pieces) or 7 (empty pieces
 * below 7 items a slice), one sample. */
static int run_twin(const pb_module *m, uint32_t G, uint64_t n, unsigned bytes, int samples)
{
    if (run_twin_split(m, G, n, bytes, samples, 0, 0)) return 1;
    if (n <= (1u << 20) + 1 && !pb_shuffle_is_record(bytes) && run_twin_split(m, G, n, bytes, samples, 1, 1))
        return 1;
    return G > 1 && run_twin_split(m, G, n, bytes, 1, 1, n % 2 ? 3 : 7);
}

TEST_IMPL(gpu_dist_twin)
{
    const pb_module *m = find("gpu-dist-shuffle");
    if (!m) return PB_TEST_SKIP;
    int have = gpus();
    if (!have) return PB_TEST_SKIP;
    int maxg = max_devices(m, have);
    static const uint64_t sizes[] = {0,    1,    2,     3,     5,     63,       64,           65,     1000, 2047,
                                     2048, 2049, 4095,  4096,  4097,  10007,    65535,        65537, 1u << 20,
                                     (1u << 20) + 1, 3000017};
    for (int G = 1; G <= maxg; G++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            if (run_twin(m, (uint32_t)G, sizes[k], 4, 2) || run_twin(m, (uint32_t)G, sizes[k], 8, 2)) return 1;
            /* Records: 24 and 256 bytes, the small and middle sizes. */
            if (sizes[k] <= 65537 && (run_twin(m, (uint32_t)G, sizes[k], 24, 1) ||
                                      (sizes[k] <= 4097 && run_twin(m, (uint32_t)G, sizes[k], 256, 1))))
                return 1;
        }
    printf("gpu-dist-shuffle equals the C model for devices 1 .. %d\n", maxg);
    return 0;
}

TEST_IMPL(gpu_dist_sample_perms)
{
    const pb_module *m = find("gpu-dist-shuffle");
    if (!m) return PB_TEST_SKIP;
    int have = gpus();
    if (!have) return PB_TEST_SKIP;
    int maxg = max_devices(m, have);
    static const uint32_t ns[] = {1, 2, 3, 5, 8, 100, 1000, 4097};
    for (int G = 1; G <= maxg; G++)
        for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
            uint32_t n = ns[t];
            uint64_t count = n > 1000 ? 40 : 700;
            pb_params params;
            pb_err err = {{0}};
            pb_params_defaults(m, &params);
            params.v[pb_module_param_index(m, "devices")] = G;
            uint32_t *p = malloc(count * n * 4), *id = malloc(n * 4), *twin = malloc(n * 4);
            ASSERT(p && id && twin);
            for (uint32_t i = 0; i < n; i++) id[i] = i;
            if (pb_module_sample_perms(m)(&params, n, 9, 1000, count, p, &err)) {
                fprintf(stderr, "gpu-dist-shuffle devices=%d n=%u: %s\n", G, n, err.msg);
                return 1;
            }
            for (uint64_t j = 0; j < count; j++) {
                ASSERT(pb_dist_twin_shuffle(id, twin, n, 4, (uint32_t)G, (pb_bij_kind)params.v[1], (int)params.v[2],
                                             9, 1000 + j, NULL, &err) == 0);
                if (memcmp(twin, p + j * n, n * 4) != 0) {
                    fprintf(stderr, "gpu-dist-shuffle devices=%d n=%u: sample permutation %llu differs from the model\n",
                            G, n, (unsigned long long)j);
                    return 1;
                }
            }
            free(p), free(id), free(twin);
        }
    return 0;
}

TEST_IMPL(gpu_dist_exchange)
{
    const pb_module *m = find("gpu-dist-exchange");
    if (!m) return PB_TEST_SKIP;
    int have = gpus();
    if (!have) return PB_TEST_SKIP;
    int maxg = max_devices(m, have);
    static const uint64_t sizes[] = {0, 1, 2, 7, 1000, 65537, 3000017};
    for (int G = 1; G <= maxg; G++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint64_t n = sizes[k];
            pb_params params;
            pb_params_defaults(m, &params);
            params.v[0] = G;
            pb_point pt = {n, 8, 1, &params, 0};
            void *state = NULL;
            const void *out;
            pb_err err = {{0}};
            int rc = m->prepare(&pt, &state, &err);
            if (!rc) rc = m->run(state, 0, &err);
            if (!rc) rc = m->verify(state, &err);
            if (!rc) rc = m->result(state, &out, &err);
            /* Device d holds, source by source, the d-th of G equal cuts
             * of each source's slice. */
            uint64_t at = 0;
            for (uint32_t d = 0; d < (uint32_t)G && !rc; d++)
                for (uint32_t s = 0; s < (uint32_t)G && !rc; s++) {
                    uint64_t lo = pb_dist_slice(n, G, s), len = pb_dist_slice(n, G, s + 1) - lo;
                    for (uint64_t i = lo + pb_dist_slice(len, G, d); i < lo + pb_dist_slice(len, G, d + 1); i++, at++)
                        if (((const uint64_t *)out)[at] != pb_shuffle_item(i, 8))
                            rc = pb_err_set(&err, "position %llu does not hold item %llu", (unsigned long long)at,
                                            (unsigned long long)i);
                }
            if (rc) fprintf(stderr, "gpu-dist-exchange devices=%d n=%llu: %s\n", G, (unsigned long long)n, err.msg);
            if (state) m->release(state);
            if (rc) return 1;
        }
    return 0;
}

/* Runs without a GPU too: a device count beyond the host's is refused with
 * the count in the reason, before anything is allocated. */
TEST_IMPL(gpu_dist_refuses)
{
    const pb_module *m = find("gpu-dist-shuffle");
    if (!m) return PB_TEST_SKIP;
    char why[256];
    int have = pb_gpu_count(why, sizeof why);
    pb_params p;
    pb_params_defaults(m, &p);
    p.v[pb_module_param_index(m, "devices")] = have + 1;
    why[0] = 0;
    ASSERT(!pb_module_available_with(m, &p, why, sizeof why));
    /* Without a GPU the missing device is the reason given first. */
    ASSERT(strstr(why, have ? "devices = " : "no CUDA device") != NULL);
    pb_point pt = {1000, 8, 1, &p, 0};
    void *state = NULL;
    pb_err err = {{0}};
    ASSERT(m->prepare(&pt, &state, &err) != 0);
    ASSERT(strstr(err.msg, "devices = ") != NULL);
    if (state) m->release(state);
    return 0;
}

/* Step 2 on one GPU for any G: the fused split and CUB's equal a stable
 * partition of the slice by pb_dist_dest, counts included. */
TEST_IMPL(gpu_dist_split)
{
    if (!find("gpu-dist-shuffle") || !gpus()) return PB_TEST_SKIP;
#ifndef PB_HAVE_CUDA
    return 1; /* a GPU module without CUDA cannot happen */
#else
    /* PB_DIST_SPLIT_TIMES_ONLY=1: the timings alone (a profiler's run:
     * the 2^29 u64 fused split is then the 8th launch of split_scatter). */
    const char *only = getenv("PB_DIST_SPLIT_TIMES_ONLY");
    bool times_only = only && *only && strcmp(only, "0") != 0;
    static const uint32_t gs[] = {2, 3, 4, 5, 8, 64};
    static const uint64_t lens[] = {0, 1, 2, 31, 2047, 2048, 2049, 4097, 65537, 1000003};
    static const unsigned widths[] = {4, 8, 24};
    for (size_t gi = 0; gi < sizeof gs / sizeof gs[0] && !times_only; gi++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (size_t wi = 0; wi < 3; wi++)
                for (int use_cub = 0; use_cub < 2; use_cub++) {
                    uint32_t G = gs[gi];
                    uint64_t len = lens[li], lo = li % 2 ? 12345 : 0, counts[64], want[64] = {0};
                    unsigned ib = widths[wi];
                    if (ib == 24 && !use_cub) continue; /* records take CUB's */
                    char *in = malloc(len * ib + 8), *out = malloc(len * ib + 8), *ref = malloc(len * ib + 8);
                    uint32_t *dest = malloc((len + 1) * 4);
                    ASSERT(in && out && ref && dest);
                    pb_shuffle_fill(in, len, ib);
                    for (uint64_t t = 0; t < len; t++) want[dest[t] = pb_dist_dest(3, 11, lo + t, G)]++;
                    uint64_t at = 0;
                    for (uint32_t d = 0; d < G; d++)
                        for (uint64_t t = 0; t < len; t++)
                            if (dest[t] == d) memcpy(ref + at++ * ib, in + t * ib, ib);
                    double ms;
                    pb_err err = {{0}};
                    int rc = pb_dist_gpu_split(in, out, len, ib, lo, G, 3, 11, use_cub, counts, &ms, &err);
                    if (!rc && memcmp(out, ref, len * ib) != 0) rc = pb_err_set(&err, "not the stable partition");
                    for (uint32_t d = 0; d < G && !rc; d++)
                        if (counts[d] != want[d]) rc = pb_err_set(&err, "count %u: %llu, not %llu", d,
                                                                  (unsigned long long)counts[d],
                                                                  (unsigned long long)want[d]);
                    if (rc)
                        fprintf(stderr, "split %s G=%u len=%llu lo=%llu item=%u: %s\n", use_cub ? "cub" : "fused", G,
                                (unsigned long long)len, (unsigned long long)lo, ib, err.msg);
                    free(in), free(out), free(ref), free(dest);
                    if (rc) return 1;
                }
    /* Times (a second run each, CUDA events), for the notes, not asserted. */
    static const uint64_t big[] = {UINT64_C(1) << 27, UINT64_C(1) << 29};
    for (int k = 0; k < 2; k++)
        for (unsigned ib = 4; ib <= 8; ib += 4) {
            double f, c;
            uint64_t counts[64];
            pb_err err = {{0}};
            if (pb_dist_gpu_split(NULL, NULL, big[k], ib, 0, 2, 3, 11, 0, counts, &f, &err) ||
                pb_dist_gpu_split(NULL, NULL, big[k], ib, 0, 2, 3, 11, 1, counts, &c, &err)) {
                fprintf(stderr, "split timing: %s\n", err.msg);
                return 1;
            }
            printf("split of %llu u%u items for G = 2: fused %.3f ms, cub %.3f ms (%.2fx)\n",
                   (unsigned long long)big[k], ib * 8, f, c, c / f);
        }
    return 0;
#endif
}

/* DMS, WMS and BMS: prescan, scan, postscan (Ashkiani et al. 2017, Section
 * 4.6), kernels in gpu_ms_kernels.cuh. */
#include "algorithms/multisplit/gpu_ms_split.cuh"

#include <stdlib.h>

#include <cub/device/device_scan.cuh>

#include "algorithms/multisplit/gpu_ms_kernels.cuh"
#include "core/gpu.h"

namespace {

/* gpu_ms_tuning.cuh */
constexpr int WARP_ITEMS = PB_MS_POLICY(WARP_ITEMS);
constexpr int BMS_ITEMS_KEYS = PB_MS_POLICY(BMS_ITEMS_KEYS);
constexpr int BMS_ITEMS_PAIRS = PB_MS_POLICY(BMS_ITEMS_PAIRS);

enum { STAGE_ALL, STAGE_PRESCAN, STAGE_SCAN, STAGE_POSTSCAN };

struct split_mod {
    pb_ms_variant v;
    int stage;
    bool lookback;
    bool lanes; /* prescan counts with lane counters (count = lanes) */
    uint32_t tiles;       /* blocks of the pre- and postscan */
    uint32_t subproblems; /* columns of H */
    uint32_t *d_H, *d_G, *d_totals, *d_counter;
    unsigned long long *d_status;
    void *d_temp;
    size_t temp_bytes;
};

uint32_t tile_keys(pb_ms_variant v, bool pairs)
{
    if (v != PB_MS_BMS) return PB_MS_BLOCK * WARP_ITEMS;
    return PB_MS_BLOCK * (pairs ? BMS_ITEMS_PAIRS : BMS_ITEMS_KEYS);
}

/* Every kernel is compiled for each bucket-id width, so the ballot loops
 * unroll: PB_MS_NBITS_SWITCH(nbits, F) calls F(1) .. F(8). */
#define PB_MS_NBITS_SWITCH(nbits, F)                                                               \
    switch (nbits) {                                                                               \
    case 1: F(1); break;                                                                           \
    case 2: F(2); break;                                                                           \
    case 3: F(3); break;                                                                           \
    case 4: F(4); break;                                                                           \
    case 5: F(5); break;                                                                           \
    case 6: F(6); break;                                                                           \
    case 7: F(7); break;                                                                           \
    default: F(8); break;                                                                          \
    }
#define PB_MS_NBITS_SWITCH5(nbits, F)                                                              \
    switch (nbits) {                                                                               \
    case 1: F(1); break;                                                                           \
    case 2: F(2); break;                                                                           \
    case 3: F(3); break;                                                                           \
    case 4: F(4); break;                                                                           \
    default: F(5); break;                                                                          \
    }

template <int ITEMS, bool PER_WARP>
void prescan(int nbits, bool lanes, uint32_t tiles, const uint32_t *keys, uint32_t n,
             pb_bucket_fn fn, uint32_t *H, uint32_t sub, uint32_t *totals)
{
    /* Lane counters cover m <= 32; beyond, both settings count with ballots. */
#define F(NB)                                                                                      \
    if (lanes)                                                                                     \
        pb_ms_prescan<ITEMS, NB, PER_WARP, ((NB) <= 5)>                                            \
            <<<tiles, PB_MS_BLOCK>>>(keys, n, fn, H, sub, totals);                                 \
    else                                                                                           \
        pb_ms_prescan<ITEMS, NB, PER_WARP, false><<<tiles, PB_MS_BLOCK>>>(keys, n, fn, H, sub, totals)
    if (PER_WARP) {
        PB_MS_NBITS_SWITCH5(nbits, F)
    } else {
        PB_MS_NBITS_SWITCH(nbits, F)
    }
#undef F
}

template <int ITEMS, bool PAIRS>
void postscan_block_m(int nbits, bool lookback, uint32_t tiles, const uint32_t *keys,
                      const uint32_t *vals, uint32_t n, pb_bucket_fn fn, const uint32_t *G,
                      const uint32_t *totals, unsigned long long *status, uint32_t *counter,
                      uint32_t *okeys, uint32_t *ovals)
{
#define F(NB)                                                                                      \
    if (lookback)                                                                                  \
        pb_ms_postscan_block<ITEMS, NB, PAIRS, true><<<tiles, PB_MS_BLOCK>>>(                      \
            keys, vals, n, fn, G, tiles, totals, status, counter, okeys, ovals);                   \
    else                                                                                           \
        pb_ms_postscan_block<ITEMS, NB, PAIRS, false><<<tiles, PB_MS_BLOCK>>>(                     \
            keys, vals, n, fn, G, tiles, totals, status, counter, okeys, ovals)
    PB_MS_NBITS_SWITCH(nbits, F)
#undef F
}

template <bool PAIRS, bool REORDER>
void postscan_warp(int nbits, uint32_t tiles, const uint32_t *keys, const uint32_t *vals,
                   uint32_t n, pb_bucket_fn fn, const uint32_t *G, uint32_t sub, uint32_t *okeys,
                   uint32_t *ovals)
{
#define F(NB)                                                                                      \
    pb_ms_postscan_warp<WARP_ITEMS, NB, PAIRS, REORDER>                                            \
        <<<tiles, PB_MS_BLOCK>>>(keys, vals, n, fn, G, sub, okeys, ovals)
    PB_MS_NBITS_SWITCH5(nbits, F)
#undef F
}

/* The three stages on arbitrary buffers, so the multisplit sort can chain
 * BMS passes. */
struct pass_args {
    pb_ms_variant v;
    bool lookback, pairs, lanes;
    const uint32_t *keys, *vals;
    uint32_t *okeys, *ovals;
    uint32_t n;
    pb_bucket_fn fn;
    split_mod *s;
};

int stage_prescan(const pass_args &a, pb_err *err)
{
    split_mod *s = a.s;
    int nbits = pb_ms_bits(a.fn.m);
    if (a.lookback) {
        PB_CUDA_TRY(cudaMemsetAsync(s->d_totals, 0, PB_MS_MAX_BUCKETS * 4 + 4), err);
        PB_CUDA_TRY(cudaMemsetAsync(s->d_status, 0, (size_t)s->tiles * a.fn.m * 8), err);
    }
    if (a.v == PB_MS_BMS) {
        if (a.pairs)
            prescan<BMS_ITEMS_PAIRS, false>(nbits, a.lanes, s->tiles, a.keys, a.n, a.fn, s->d_H,
                                            s->subproblems, a.lookback ? s->d_totals : nullptr);
        else
            prescan<BMS_ITEMS_KEYS, false>(nbits, a.lanes, s->tiles, a.keys, a.n, a.fn, s->d_H,
                                           s->subproblems, a.lookback ? s->d_totals : nullptr);
    } else {
        prescan<WARP_ITEMS, true>(nbits, a.lanes, s->tiles, a.keys, a.n, a.fn, s->d_H,
                                  s->subproblems, nullptr);
    }
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int stage_scan(const pass_args &a, pb_err *err)
{
    if (a.lookback) return 0; /* folded into the postscan */
    split_mod *s = a.s;
    size_t bytes = s->temp_bytes;
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(s->d_temp, bytes, s->d_H, s->d_G,
                                              (int64_t)a.fn.m * s->subproblems),
                err);
    return 0;
}

int stage_postscan(const pass_args &a, pb_err *err)
{
    split_mod *s = a.s;
    int nbits = pb_ms_bits(a.fn.m);
    if (a.v == PB_MS_BMS) {
        if (a.pairs)
            postscan_block_m<BMS_ITEMS_PAIRS, true>(nbits, a.lookback, s->tiles, a.keys, a.vals,
                                                    a.n, a.fn, s->d_G, s->d_totals, s->d_status,
                                                    s->d_counter, a.okeys, a.ovals);
        else
            postscan_block_m<BMS_ITEMS_KEYS, false>(nbits, a.lookback, s->tiles, a.keys, a.vals,
                                                    a.n, a.fn, s->d_G, s->d_totals, s->d_status,
                                                    s->d_counter, a.okeys, a.ovals);
    } else {
        bool reorder = a.v == PB_MS_WMS;
#define ARGS nbits, s->tiles, a.keys, a.vals, a.n, a.fn, s->d_G, s->subproblems, a.okeys, a.ovals
        if (a.pairs && reorder) postscan_warp<true, true>(ARGS);
        else if (a.pairs) postscan_warp<true, false>(ARGS);
        else if (reorder) postscan_warp<false, true>(ARGS);
        else postscan_warp<false, false>(ARGS);
#undef ARGS
    }
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int run_all(const pass_args &a, pb_err *err)
{
    if (a.n == 0) return 0;
    if (stage_prescan(a, err) || stage_scan(a, err)) return -1;
    return stage_postscan(a, err);
}

/* Sizes the scratch of one pass and carves it from one allocation. */
size_t layout(split_mod *s, pb_ms_variant v, uint64_t n, uint32_t m, bool pairs, bool lookback,
              char *base)
{
    uint32_t tk = tile_keys(v, pairs);
    s->v = v;
    s->lookback = lookback;
    s->tiles = (uint32_t)((n + tk - 1) / tk);
    s->subproblems = v == PB_MS_BMS ? s->tiles : s->tiles * PB_MS_WARPS;
    size_t cells = lookback ? 0 : (size_t)m * s->subproblems;
    s->temp_bytes = 0;
    if (!lookback && cells)
        cub::DeviceScan::ExclusiveSum(nullptr, s->temp_bytes, (uint32_t *)nullptr,
                                      (uint32_t *)nullptr, (int64_t)cells);
    size_t off = 0;
    auto take = [&](size_t bytes) {
        char *p = base ? base + off : nullptr;
        off += (bytes + 255) & ~(size_t)255;
        return p;
    };
    s->d_H = (uint32_t *)take(cells * 4);
    s->d_G = (uint32_t *)take(cells * 4);
    s->d_temp = take(s->temp_bytes);
    s->d_totals = (uint32_t *)take(PB_MS_MAX_BUCKETS * 4 + 4);
    s->d_counter = s->d_totals ? s->d_totals + PB_MS_MAX_BUCKETS : nullptr;
    s->d_status = (unsigned long long *)take(lookback ? (size_t)s->tiles * m * 8 : 0);
    return off;
}

void mod_free(void *p)
{
    split_mod *s = (split_mod *)p;
    if (!s) return;
    cudaFree(s->d_H); /* the start of the one allocation */
    free(s);
}

pass_args args_of(pb_gpu_ms *g)
{
    split_mod *s = (split_mod *)g->mod;
    pass_args a;
    a.v = s->v;
    a.lookback = s->lookback;
    a.lanes = s->lanes;
    a.pairs = g->pairs;
    a.keys = g->d_keys;
    a.vals = g->d_vals;
    a.okeys = g->d_okeys;
    a.ovals = g->d_ovals;
    a.n = (uint32_t)g->n;
    a.fn = pb_gpu_ms_bucket_fn(g);
    a.s = s;
    return a;
}

int complete(pb_gpu_ms *g, pb_err *err) { return run_all(args_of(g), err); }

int setup(pb_gpu_ms *g, const void *ctx, pb_err *err)
{
    pb_ms_variant v = *(const pb_ms_variant *)ctx;
    split_mod *s = (split_mod *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of host memory");
    g->mod = s;
    g->mod_free = mod_free;
    g->check = PB_MS_CHECK_STABLE;
    s->stage = (int)g->params.v[PB_MS_SPLIT_P_STAGE];
    s->lanes = g->params.v[PB_MS_SPLIT_P_COUNT] == 0;
    bool lookback = v == PB_MS_BMS && g->params.v[PB_MS_SPLIT_P_SCAN] == 1;
    size_t bytes = layout(s, v, g->n, g->prob.m, g->pairs, lookback, nullptr);
    char *base = nullptr;
    cudaError_t e = cudaMalloc(&base, bytes ? bytes : 256);
    if (e != cudaSuccess)
        return pb_err_set(err, "cudaMalloc of %zu bytes of scratch: %s", bytes,
                          cudaGetErrorString(e));
    layout(s, v, g->n, g->prob.m, g->pairs, lookback, base); /* d_H is base: mod_free frees it */
    if (s->stage != STAGE_ALL) {
        /* The stages before the timed one, so it has its inputs. */
        g->complete = complete;
        if (run_all(args_of(g), err) || pb_gpu_sync(err)) return -1;
    }
    return 0;
}

} // namespace

int pb_ms_split_prepare(pb_ms_variant v, const pb_point *pt, void **state, pb_err *err)
{
    const pb_params *p = pt->params;
    uint32_t m = (uint32_t)p->v[PB_MS_P_BUCKETS];
    int stage = (int)p->v[PB_MS_SPLIT_P_STAGE];
    bool lookback = v == PB_MS_BMS && p->v[PB_MS_SPLIT_P_SCAN] == 1;
    if (v != PB_MS_BMS && m > 32)
        return pb_err_set(err, "%s handles at most 32 buckets (warp-wide histograms); got %u",
                          v == PB_MS_DMS ? "gpu-dms" : "gpu-wms", m);
    if (lookback && stage == STAGE_SCAN)
        return pb_err_set(err, "gpu-bms: stage=scan needs scan=matrix (the look-back has no "
                               "separate scan)");
    if (pt->n >= (UINT64_C(1) << 31))
        return pb_err_set(err, "multisplit: n = %llu exceeds 2^31 - 1",
                          (unsigned long long)pt->n);
    return pb_gpu_ms_prepare_with(pt, setup, &v, state, err);
}

int pb_ms_split_run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample; /* deterministic: every sample does the same work */
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    split_mod *s = (split_mod *)g->mod;
    pass_args a = args_of(g);
    if (a.n == 0) return 0;
    switch (s->stage) {
    case STAGE_PRESCAN: return stage_prescan(a, err);
    case STAGE_SCAN: return stage_scan(a, err);
    case STAGE_POSTSCAN:
        /* The look-back's tile counter restarts with each pass. */
        if (a.lookback) {
            PB_CUDA_TRY(cudaMemsetAsync(s->d_counter, 0, 4), err);
            PB_CUDA_TRY(cudaMemsetAsync(s->d_status, 0, (size_t)s->tiles * a.fn.m * 8), err);
        }
        return stage_postscan(a, err);
    default: return run_all(a, err);
    }
}

uint64_t pb_ms_split_footprint(pb_ms_variant v, const pb_point *pt)
{
    split_mod s;
    uint32_t m = (uint32_t)pt->params->v[PB_MS_P_BUCKETS];
    bool lookback = v == PB_MS_BMS && pt->params->v[PB_MS_SPLIT_P_SCAN] == 1;
    return pb_gpu_ms_footprint_io(pt) + layout(&s, v, pt->n, m, pt->item_bytes == 8, lookback, nullptr);
}

size_t pb_ms_bms_scratch_bytes(uint64_t n, uint32_t m, bool pairs)
{
    split_mod s;
    return layout(&s, PB_MS_BMS, n, m, pairs, false, nullptr) + 256;
}

int pb_ms_bms_pass(const uint32_t *keys, const uint32_t *vals, uint32_t *okeys, uint32_t *ovals,
                   uint64_t n, pb_bucket_fn fn, void *scratch, pb_err *err)
{
    split_mod s;
    layout(&s, PB_MS_BMS, n, fn.m, vals != nullptr, false, (char *)scratch);
    pass_args a;
    a.v = PB_MS_BMS;
    a.lookback = false;
    a.lanes = true;
    a.pairs = vals != nullptr;
    a.keys = keys;
    a.vals = vals;
    a.okeys = okeys;
    a.ovals = ovals;
    a.n = (uint32_t)n;
    a.fn = fn;
    a.s = &s;
    return run_all(a, err);
}

/* onesweep-ms: a stable multisplit in one pass with decoupled look-back, in
 * the style of CUB's onesweep radix sort pass, for any bucket identifier of
 * the family (many buckets). A run is two launches: the
 * bucket histogram (which also zeroes the look-back and scans the counts)
 * and the pass (kernels in gpu_os_kernels.cuh). Equal to the C twin bit
 * for bit. n < 2^30 (30-bit look-back counts). */
#include <stdlib.h>

#include "algorithms/multisplit/gpu_os_kernels.cuh"
#include "families/multisplit/gpu_ms_state.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    {"tile", PB_PARAM_ENUM, 0, 0, 0, "large|cub",
     "threads x items a block, two blocks an SM: large 384 x 28 (fewer tiles share the "
     "per-tile cost of m bins: ranking, look-back; keys measured fastest; pairs read each "
     "value through its position's 16-bit source slot) or CUB's sm90 onesweep shapes, "
     "384 x 20 keys, 384 x 23 pairs (values reordered through a third tile buffer)"},
};
enum { P_TILE = PB_MS_NCOMMON };

/* The shapes of `tile`, from the tuning policy (gpu_ms_tuning.cuh, where
 * the measurements behind them are named). */
using shape_large_keys = pb_os_shape<PB_MS_POLICY(OS_LARGE_KEYS)>;
using shape_cub_keys = pb_os_shape<PB_MS_POLICY(OS_CUB_KEYS)>;
using shape_large_pairs = pb_os_shape<PB_MS_POLICY(OS_LARGE_PAIRS)>;
using shape_cub_pairs = pb_os_shape<PB_MS_POLICY(OS_CUB_PAIRS)>;

struct os_mod {
    int tile; /* the `tile` parameter */
    uint32_t tiles, hgrid;
    uint32_t *d_hist, *d_bins, *d_ctrs, *d_lookback;
    size_t smem; /* the pass kernel's shared memory, set by dispatch(configure) */
};

void os_free(void *p)
{
    os_mod *o = (os_mod *)p;
    if (!o) return;
    cudaFree(o->d_hist); /* one allocation: hist, bins, ctrs, look-back */
    free(o);
}

/* The `tile` values, in the parameter's order. */
enum { TILE_LARGE, TILE_CUB };

template <class S> constexpr uint32_t items_of() { return S::BLOCK * S::ITEMS; }

uint32_t tile_items(int tile, bool pairs)
{
    if (pairs)
        return tile == TILE_CUB ? items_of<shape_cub_pairs>() : items_of<shape_large_pairs>();
    return tile == TILE_CUB ? items_of<shape_cub_keys>() : items_of<shape_large_keys>();
}

cudaError_t dispatch(pb_gpu_ms *g, bool configure);

int setup(pb_gpu_ms *g, const void *, pb_err *err)
{
    os_mod *o = (os_mod *)calloc(1, sizeof *o);
    if (!o) return pb_err_set(err, "out of host memory");
    g->mod = o;
    g->mod_free = os_free;
    uint32_t m = g->prob.fn.m;
    o->tile = (int)g->params.v[P_TILE];
    uint32_t ti = tile_items(o->tile, g->pairs);
    o->tiles = (uint32_t)((g->n + ti - 1) / ti);
    int dev = 0, sms = 0;
    PB_CUDA_TRY(cudaGetDevice(&dev), err);
    PB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
    /* Four 512-thread blocks an SM: a full GPU of loads in flight. */
    uint64_t need = (g->n / 4 + PB_OS_HBLOCK - 1) / PB_OS_HBLOCK;
    o->hgrid = (uint32_t)(need < (uint64_t)sms * 4 ? (need ? need : 1) : (uint64_t)sms * 4);
    size_t words = 2 * PB_MS_MAX_BUCKETS + 2 + (size_t)o->tiles * m;
    PB_CUDA_TRY(cudaMalloc(&o->d_hist, words * 4), err);
    o->d_bins = o->d_hist + PB_MS_MAX_BUCKETS;
    o->d_ctrs = o->d_bins + PB_MS_MAX_BUCKETS;
    o->d_lookback = o->d_ctrs + 2;
    /* The kernels leave hist and ctrs zero for the next run. */
    PB_CUDA_TRY(cudaMemset(o->d_hist, 0, (2 * PB_MS_MAX_BUCKETS + 2) * 4), err);
    /* The pass kernel's shared-memory attributes, once, outside the timed
     * runs; a GPU with less shared memory a block than the shape's (the
     * pairs' on sm_86, sm_89 and sm_75: gpu_ms_tuning.cuh) is told apart. */
    cudaError_t e = dispatch(g, true);
    int optin = 0;
    if (e != cudaSuccess &&
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess &&
        o->smem > (size_t)optin) {
        cudaGetLastError();
        return pb_err_set(err, "gpu-onesweep-ms: its pass needs %zu KB of shared memory a block, this "
                               "GPU has %d KB",
                          o->smem >> 10, optin >> 10);
    }
    PB_CUDA_TRY(e, err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pt->n >= PB_OS_MAX_N)
        return pb_err_set(err, "gpu-onesweep-ms: n must be below 2^30 (30-bit look-back counts)");
    return pb_gpu_ms_prepare_with(pt, setup, nullptr, state, err);
}

/* The kernels a point runs, chosen by its parameters: launched, or with
 * `configure` (set-up) only given the attributes they need. */
template <int NB, class S, bool PAIRS, int KIND>
cudaError_t pass(pb_gpu_ms *g, os_mod *o, pb_bucket_fn fn, bool configure)
{
    constexpr size_t bytes = sizeof(pb_os_smem<NB, S, PAIRS>);
    auto *kernel = pb_os_pass<NB, S, PAIRS, KIND>;
    if (configure) {
        o->smem = bytes;
        if (bytes <= 48 * 1024) return cudaSuccess;
        /* Above 48 KB a kernel must ask; pairs at two blocks an SM need up
         * to 2 x 108 KB, all of the carveout. */
        cudaError_t e =
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
        return e ? e
                 : cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                        cudaSharedmemCarveoutMaxShared);
    }
    kernel<<<o->tiles, S::BLOCK, bytes>>>(g->d_keys, g->d_vals, (uint32_t)g->n, fn, o->d_bins,
                                          o->d_lookback, o->d_ctrs, g->d_okeys, g->d_ovals);
    return cudaSuccess;
}

template <int NB, int KIND>
cudaError_t launch(pb_gpu_ms *g, os_mod *o, pb_bucket_fn fn, bool configure)
{
    if (!configure)
        pb_os_histogram<NB, KIND><<<o->hgrid, PB_OS_HBLOCK>>>(
            g->d_keys, (uint32_t)g->n, fn, o->d_hist, o->d_bins, o->d_lookback, o->tiles * fn.m,
            o->d_ctrs);
    if (g->pairs)
        return o->tile == TILE_CUB ? pass<NB, shape_cub_pairs, true, KIND>(g, o, fn, configure)
                                   : pass<NB, shape_large_pairs, true, KIND>(g, o, fn, configure);
    return o->tile == TILE_CUB ? pass<NB, shape_cub_keys, false, KIND>(g, o, fn, configure)
                               : pass<NB, shape_large_keys, false, KIND>(g, o, fn, configure);
}

/* Every kernel is compiled for each bucket kind and each NB. */
template <int NB> cudaError_t launch_nb(pb_gpu_ms *g, os_mod *o, pb_bucket_fn fn, bool configure)
{
    switch (fn.kind) {
    case PB_BUCKET_DELTA: return launch<NB, PB_BUCKET_DELTA>(g, o, fn, configure);
    case PB_BUCKET_IDENTITY: return launch<NB, PB_BUCKET_IDENTITY>(g, o, fn, configure);
    case PB_BUCKET_RADIX: return launch<NB, PB_BUCKET_RADIX>(g, o, fn, configure);
    default: return launch<NB, PB_BUCKET_RANGE>(g, o, fn, configure);
    }
}

cudaError_t dispatch(pb_gpu_ms *g, bool configure)
{
    os_mod *o = (os_mod *)g->mod;
    pb_bucket_fn fn = pb_gpu_ms_bucket_fn(g);
    switch (pb_ms_bits(fn.m)) {
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: return launch_nb<5>(g, o, fn, configure);
    case 6: return launch_nb<6>(g, o, fn, configure);
    case 7: return launch_nb<7>(g, o, fn, configure);
    default: return launch_nb<8>(g, o, fn, configure);
    }
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    if (!g->n) return 0;
    dispatch(g, false);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

uint64_t footprint(const pb_point *pt)
{
    uint32_t m = (uint32_t)pt->params->v[PB_MS_P_BUCKETS];
    uint32_t ti = tile_items((int)pt->params->v[P_TILE], pt->item_bytes == 8);
    uint64_t tiles = (pt->n + ti - 1) / ti;
    return pb_gpu_ms_footprint_io(pt) + tiles * m * 4 + 4096;
}

} // namespace

PB_MODULE_DEF(onesweep_ms, "gpu-onesweep-ms", pb_multisplit_gpu_hooks,
    .summary = "stable multisplit in one pass with decoupled look-back (CUB onesweep's design, "
               "CUB's block ranker, any bucket identifier); m <= 256, n < 2^30",
    PB_PARAMS(params), .max_n = PB_OS_MAX_N - 1, .footprint = footprint, .prepare = prepare, .run = run);

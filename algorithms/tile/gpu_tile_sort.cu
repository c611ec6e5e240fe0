/* tile-sort: every tile of 32 x m items sorted ascending in shared memory,
 * one tile a block, by the `method`:
 *   scatter  a 5-bit LSD radix sort, each pass ballot ranks and a scatter
 *            to bucket start + rank (7 passes, the last of 2 bits);
 *   split    32 conflict-free one-bit passes over Gray(key) (dmm_tile.h);
 *   paper    Theorem 1 with merge-sorted rows, one warp a tile;
 *   cub      cub::BlockRadixSort.
 * (no pad: a sort's passes are scatters already; see tile-partition). */
#include "algorithms/tile/gpu_tile_cub.cuh"
#include "algorithms/tile/gpu_tile_launch.cuh"
#include "algorithms/tile/gpu_tile_paper.cuh"
#include "dmm/dmm_sort.h"

using namespace pb_tile;

namespace {

const pb_param_spec params[] = {
    PB_TILE_COMMON_PARAMS,
};

} // namespace

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_sort_scatter(const uint32_t *in, uint32_t *out)
{
    constexpr int L = M / WARPS, N = 32 * M;
    __shared__ uint32_t buf[N];
    __shared__ uint32_t cnt[WARPS][32];
    const size_t base = (size_t)blockIdx.x * N;
    uint32_t x[L];
    load_lines<L>(in + base, x);
#pragma unroll 1
    for (unsigned p = 0; p < PB_TILE_SORT_PASSES; p++) {
        if (p > 0) reload_lines<L, false>(buf, x);
        scatter_by_digit<L, false>(x, p * PB_TILE_SORT_DIGIT_BITS, buf, cnt);
    }
    store_lines<L, false>(buf, out + base);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_sort_split(const uint32_t *in, uint32_t *out)
{
    split_tile<M, PB_TILE_SORT>(in, out, 32);
}

template <int M>
__global__ void __launch_bounds__(32) pb_tile_sort_paper(const uint32_t *in, uint32_t *out, int g,
                                                          int rounds)
{
    pb_paper::sort_tile<M, false>(in, out, g, rounds);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_sort_cub(const uint32_t *in, uint32_t *out)
{
    cub_sort<M>(in, out, 0);
}

namespace {

template <int M> int setup_m(pb_gpu_tile *g, pb_err *err)
{
    if (g->prob.method != PB_TILE_PAPER) return 0;
    return pb_tile_allow_smem(pb_tile_sort_paper<M>, pb_paper::sort_smem(M, false), err);
}

int setup(pb_gpu_tile *g, pb_err *err) { PB_TILE_DISPATCH_M(setup_m, g, err); }

template <int M> int launch(pb_gpu_tile *g, pb_err *err)
{
    const unsigned tiles = (unsigned)g->prob.tiles;
    const uint32_t *in = g->d_in;
    uint32_t *out = g->d_out;
    switch (g->prob.method) {
    case PB_TILE_SCATTER: pb_tile_sort_scatter<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_SPLIT: pb_tile_sort_split<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_PAPER: {
        int gs = (int)pb_dmm_thm1_superrow(32, M), rounds = (int)pb_dmm_thm1_rounds(32, (unsigned)gs);
        pb_tile_sort_paper<M><<<tiles, 32, pb_paper::sort_smem(M, false)>>>(in, out, gs, rounds);
        break;
    }
    case PB_TILE_CUB: pb_tile_sort_cub<M><<<tiles, BLOCK>>>(in, out); break;
    default: return pb_err_set(err, "gpu-tile-sort: method %d", (int)g->prob.method);
    }
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_gpu_tile_prepare(pt, PB_TILE_SORT, setup, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample; /* deterministic: every repeat sorts the same input */
    pb_gpu_tile *g = (pb_gpu_tile *)state;
    PB_TILE_DISPATCH_M(launch, g, err);
}

} // namespace

PB_TILE_MODULE(sort, "tiles of 32 x m sorted in shared memory: radix sort by naive scatters, "
               "conflict-free split passes, the paper's Theorem 1, CUB BlockRadixSort");

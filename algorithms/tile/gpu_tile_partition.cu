/* tile-partition: every tile of 32 x m items grouped by its 32 labels (the
 * top 5 bits) in shared memory, one tile a block, by the `method`:
 *   scatter  ballot ranks, each item stored at its label's start + rank;
 *   pad      the same into a buffer with a word of padding every 32;
 *   split    six conflict-free one-bit passes (dmm_tile.h);
 *   paper    Theorem 1 with counting-sorted rows, one warp a tile;
 *   cub      cub::BlockRadixSort on the label bits.
 * All but paper give the stable grouping (the C reference); paper groups
 * the labels with its own order inside each (its C twin is the simulator's
 * model, run by tile-partition-twin). */
#include "algorithms/tile/gpu_tile_cub.cuh"
#include "algorithms/tile/gpu_tile_launch.cuh"
#include "algorithms/tile/gpu_tile_paper.cuh"
#include "dmm/dmm_sort.h"

using namespace pb_tile;

namespace {

const pb_param_spec params[] = {
    PB_TILE_COMMON_PARAMS,
};

template <int M, bool PAD>
__device__ __forceinline__ void scatter_tile(const uint32_t *in, uint32_t *out)
{
    constexpr int L = M / WARPS, N = 32 * M;
    __shared__ uint32_t buf[PAD ? N + M : N];
    __shared__ uint32_t cnt[WARPS][32];
    const size_t base = (size_t)blockIdx.x * N;
    uint32_t x[L];
    load_lines<L>(in + base, x);
    scatter_by_digit<L, PAD>(x, PB_TILE_LABEL_SHIFT, buf, cnt);
    store_lines<L, PAD>(buf, out + base);
}

} // namespace

/* Kernel names start with pb_tile_<op>_<method>: the profiling script
 * matches them to result rows. */
template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_partition_scatter(const uint32_t *in, uint32_t *out)
{
    scatter_tile<M, false>(in, out);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_partition_pad(const uint32_t *in, uint32_t *out)
{
    scatter_tile<M, true>(in, out);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_partition_split(const uint32_t *in, uint32_t *out)
{
    split_tile<M, PB_TILE_PARTITION>(in, out, PB_TILE_SPLIT_PARTITION_PASSES);
}

template <int M>
__global__ void __launch_bounds__(32) pb_tile_partition_paper(const uint32_t *in, uint32_t *out,
                                                               int g, int rounds)
{
    pb_paper::sort_tile<M, true>(in, out, g, rounds);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_partition_cub(const uint32_t *in, uint32_t *out)
{
    cub_sort<M>(in, out, (int)PB_TILE_LABEL_SHIFT);
}

namespace {

template <int M> int setup_m(pb_gpu_tile *g, pb_err *err)
{
    if (g->prob.method != PB_TILE_PAPER) return 0;
    return pb_tile_allow_smem(pb_tile_partition_paper<M>, pb_paper::sort_smem(M, true), err);
}

int setup(pb_gpu_tile *g, pb_err *err) { PB_TILE_DISPATCH_M(setup_m, g, err); }

template <int M> int launch(pb_gpu_tile *g, pb_err *err)
{
    const unsigned tiles = (unsigned)g->prob.tiles;
    const uint32_t *in = g->d_in;
    uint32_t *out = g->d_out;
    switch (g->prob.method) {
    case PB_TILE_SCATTER: pb_tile_partition_scatter<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_PAD: pb_tile_partition_pad<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_SPLIT: pb_tile_partition_split<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_PAPER: {
        int gs = (int)pb_dmm_thm1_superrow(32, M), rounds = (int)pb_dmm_thm1_rounds(32, (unsigned)gs);
        pb_tile_partition_paper<M><<<tiles, 32, pb_paper::sort_smem(M, true)>>>(in, out, gs, rounds);
        break;
    }
    case PB_TILE_CUB: pb_tile_partition_cub<M><<<tiles, BLOCK>>>(in, out); break;
    default: return pb_err_set(err, "gpu-tile-partition: method %d", (int)g->prob.method);
    }
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_gpu_tile_prepare(pt, PB_TILE_PARTITION, setup, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample; /* deterministic: every repeat partitions the same input */
    pb_gpu_tile *g = (pb_gpu_tile *)state;
    PB_TILE_DISPATCH_M(launch, g, err);
}

} // namespace

PB_TILE_MODULE(partition, "tiles of 32 x m grouped by 32 labels in shared memory: naive scatter, padded "
               "scatter, conflict-free split passes, the paper's Theorem 1, CUB BlockRadixSort");

/* tile-permute: every tile of 32 x m items permuted in shared memory, each
 * item to the destination in its top 13 bits (a random permutation of the
 * tile for the uniform pattern: the end of a locality-aware shuffle), one
 * tile a block, by the `method`:
 *   scatter  each item stored at its destination;
 *   pad      the same into a buffer with a word of padding every 32;
 *   split    log2(32 m) conflict-free one-bit passes over Gray(dest);
 *   paper    Section 3's colouring rounds, one warp a tile;
 *   cub      cub::BlockExchange::ScatterToStriped. */
#include "algorithms/tile/gpu_tile_cub.cuh"
#include "algorithms/tile/gpu_tile_launch.cuh"
#include "algorithms/tile/gpu_tile_paper.cuh"

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
    const size_t base = (size_t)blockIdx.x * N;
    uint32_t x[L];
    load_lines<L>(in + base, x);
    scatter_by_dest<L, PAD>(x, buf);
    store_lines<L, PAD>(buf, out + base);
}

} // namespace

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_permute_scatter(const uint32_t *in, uint32_t *out)
{
    scatter_tile<M, false>(in, out);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_permute_pad(const uint32_t *in, uint32_t *out)
{
    scatter_tile<M, true>(in, out);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_permute_split(const uint32_t *in, uint32_t *out)
{
    split_tile<M, PB_TILE_PERMUTE>(in, out, pb_tile_log2(32 * M));
}

template <int M>
__global__ void __launch_bounds__(32) pb_tile_permute_paper(const uint32_t *in, uint32_t *out,
                                                             uint64_t seed)
{
    pb_paper::permute_tile<M>(in, out, seed);
}

template <int M>
__global__ void __launch_bounds__(BLOCK) pb_tile_permute_cub(const uint32_t *in, uint32_t *out)
{
    cub_permute<M>(in, out);
}

namespace {

template <int M> int setup_m(pb_gpu_tile *g, pb_err *err)
{
    if (g->prob.method != PB_TILE_PAPER) return 0;
    return pb_tile_allow_smem(pb_tile_permute_paper<M>, pb_paper::permute_smem(M), err);
}

int setup(pb_gpu_tile *g, pb_err *err) { PB_TILE_DISPATCH_M(setup_m, g, err); }

template <int M> int launch(pb_gpu_tile *g, pb_err *err)
{
    const unsigned tiles = (unsigned)g->prob.tiles;
    const uint32_t *in = g->d_in;
    uint32_t *out = g->d_out;
    switch (g->prob.method) {
    case PB_TILE_SCATTER: pb_tile_permute_scatter<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_PAD: pb_tile_permute_pad<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_SPLIT: pb_tile_permute_split<M><<<tiles, BLOCK>>>(in, out); break;
    case PB_TILE_PAPER:
        pb_tile_permute_paper<M><<<tiles, 32, pb_paper::permute_smem(M)>>>(in, out, g->prob.seed);
        break;
    case PB_TILE_CUB: pb_tile_permute_cub<M><<<tiles, BLOCK>>>(in, out); break;
    default: return pb_err_set(err, "gpu-tile-permute: method %d", (int)g->prob.method);
    }
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_gpu_tile_prepare(pt, PB_TILE_PERMUTE, setup, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    /* The permutation is the input's; only the paper's route (its hash
     * seed, fixed per point so the simulator predicts it) could vary. */
    (void)sample;
    pb_gpu_tile *g = (pb_gpu_tile *)state;
    PB_TILE_DISPATCH_M(launch, g, err);
}

} // namespace

PB_TILE_MODULE(permute, "tiles of 32 x m permuted in shared memory: naive scatter, padded scatter, "
               "conflict-free split passes, the paper's colouring rounds, CUB BlockExchange");

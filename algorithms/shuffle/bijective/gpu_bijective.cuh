/* The bijective shuffle on the GPU (Mitchell et al. 2024, Algorithm 1), the
 * pieces its three fusion levels share.
 *
 * The padded domain [0, 2^b) is cut into tiles of BLOCK * ITEMS positions;
 * a thread evaluates the bijection at ITEMS consecutive positions (ITEMS
 * independent Feistel chains in flight), keeps the values below m, and a
 * block scan gives each kept value its rank in the tile. The ranks are
 * staged in shared memory so the gather that follows issues all of a
 * thread's random reads before its first write, and the writes of a tile
 * land contiguously. Positions are compacted in order, so every variant
 * produces exactly the permutation of the C twin (bijective_twin.c). */
#ifndef PB_GPU_BIJECTIVE_CUH
#define PB_GPU_BIJECTIVE_CUH

#include <cub/cub.cuh>

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "families/shuffle/gpu_records.cuh"
#include "families/shuffle/gpu_shuffle_buffers.h"

namespace pb_bijective {

constexpr int BLOCK = 256;
constexpr int ITEMS = 8;
constexpr int TILE = BLOCK * ITEMS;

/* The bijection as a functor, its kind fixed at compile time so the round
 * loop carries no branch. */
template <int KIND> struct bijection {
    pb_bij f;
    __device__ __forceinline__ uint64_t operator()(uint64_t x) const
    {
        if constexpr (KIND == PB_BIJ_LCG) return pb_lcg_apply(&f.lcg, x);
        else return pb_varphilox_apply(&f.vp, x);
    }
};

/* Evaluates the tile's positions of this thread; returns how many it keeps.
 * VariablePhilox runs its rounds across all ITEMS chains at once (rounds
 * outer, items inner): ITEMS independent multiplies per round in flight,
 * and each round key read once. Same arithmetic as pb_varphilox_apply. */
template <int KIND, typename Offset>
__device__ __forceinline__ int evaluate(const bijection<KIND> &f, uint64_t m, uint64_t domain,
                                        uint64_t tile, Offset (&src)[ITEMS], bool (&keep)[ITEMS])
{
    uint64_t pos = tile * TILE + (uint64_t)threadIdx.x * ITEMS;
    uint64_t s[ITEMS];
    if constexpr (KIND == PB_BIJ_LCG) {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) s[k] = pb_lcg_apply(&f.f.lcg, pos + k);
    } else {
        const pb_varphilox &v = f.f.vp;
        uint32_t l[ITEMS], r[ITEMS];
        const uint32_t shift = v.right_bits - v.left_bits;
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            l[k] = (uint32_t)((pos + k) >> v.right_bits);
            r[k] = (uint32_t)((pos + k) & v.right_mask);
        }
        for (int i = 0; i < v.rounds; i++) {
            const uint32_t key = v.key[i];
#pragma unroll
            for (int k = 0; k < ITEMS; k++) {
                uint64_t p = PB_VARPHILOX_M0 * l[k];
                uint32_t lo = ((uint32_t)p << shift) | (r[k] >> v.left_bits);
                l[k] = ((uint32_t)(p >> 32) ^ key ^ r[k]) & v.left_mask;
                r[k] = lo & v.right_mask;
            }
        }
#pragma unroll
        for (int k = 0; k < ITEMS; k++) s[k] = (uint64_t)l[k] << v.right_bits | r[k];
    }
    int count = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        keep[k] = pos + k < domain && s[k] < m;
        src[k] = (Offset)s[k];
        count += keep[k];
    }
    return count;
}

/* Records (item = rec*): the type that names them in the kernels' T; their
 * width, in 64-bit words, comes as the kernels' `words` argument. */
struct record_words {
};

/* Stages the kept sources at their ranks, then gathers them to
 * out[tile_offset + rank]: up to ITEMS random reads in flight per thread,
 * then coalesced writes. `rank` is the thread's first rank in the tile.
 * `words`: records only (below). */
template <typename T, typename Offset>
__device__ __forceinline__ void gather_tile(const T *__restrict__ in, T *__restrict__ out, unsigned words,
                                            Offset *staged, const Offset (&src)[ITEMS],
                                            const bool (&keep)[ITEMS], Offset rank,
                                            Offset tile_count, uint64_t tile_offset)
{
    (void)words;
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        if (keep[k]) staged[rank++] = src[k];
    __syncthreads();
    T v[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        Offset j = threadIdx.x + k * BLOCK;
        if (j < tile_count) v[k] = in[staged[j]];
    }
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        Offset j = threadIdx.x + k * BLOCK;
        if (j < tile_count) out[tile_offset + j] = v[k];
    }
}

/* Records: the same staging, then a group of threads (pb_record_group) a
 * record, its lanes copying the record's words side by side: whole records,
 * to the same places as the items above. */
template <typename Offset>
__device__ __forceinline__ void gather_tile(const record_words *in_, record_words *out_, unsigned words,
                                            Offset *staged, const Offset (&src)[ITEMS],
                                            const bool (&keep)[ITEMS], Offset rank,
                                            Offset tile_count, uint64_t tile_offset)
{
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        if (keep[k]) staged[rank++] = src[k];
    __syncthreads();
    const uint64_t *in = (const uint64_t *)in_;
    uint64_t *out = (uint64_t *)out_;
    const unsigned group = pb_record_group(words), lane = threadIdx.x % group;
    for (Offset j = threadIdx.x / group; j < tile_count; j += BLOCK / group)
        pb_record_copy(out + (tile_offset + j) * words, in + (uint64_t)staged[j] * words, words, lane, group);
}

/* ---- bijective2: one pass, decoupled look-back (CUB's tile state) ---- */

template <typename Offset> __global__ void init_tile_state(cub::ScanTileState<Offset> state, int tiles)
{
    state.InitializeStatus(tiles);
}

template <int KIND, typename T, typename Offset>
__global__ void __launch_bounds__(BLOCK)
    single_pass(const T *__restrict__ in, T *__restrict__ out, unsigned words, uint64_t m, uint64_t domain,
                bijection<KIND> f, cub::ScanTileState<Offset> state)
{
    using Scan = cub::BlockScan<Offset, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
    using Prefix = cub::TilePrefixCallbackOp<Offset, ::cuda::std::plus<Offset>, cub::ScanTileState<Offset>>;
    __shared__ struct {
        typename Prefix::TempStorage prefix;
        typename Scan::TempStorage scan;
    } ts;
    __shared__ Offset staged[TILE];
    __shared__ Offset tile_base;

    const int tile = blockIdx.x;
    Offset src[ITEMS];
    bool keep[ITEMS];
    Offset count = (Offset)evaluate(f, m, domain, tile, src, keep);
    Offset rank, tile_count;
    if (tile == 0) {
        Scan(ts.scan).ExclusiveSum(count, rank, tile_count);
        if (threadIdx.x == 0) {
            state.SetInclusive(0, tile_count);
            tile_base = 0;
        }
        __syncthreads();
    } else {
        Prefix prefix(state, ts.prefix, ::cuda::std::plus<Offset>(), tile);
        Scan(ts.scan).ExclusiveSum(count, rank, prefix);
        __syncthreads();
        if (threadIdx.x == 0) tile_base = prefix.GetExclusivePrefix();
        tile_count = prefix.GetBlockAggregate();
        __syncthreads();
        rank -= tile_base; /* the scan included the tile's prefix */
    }
    gather_tile(in, out, words, staged, src, keep, rank, tile_count, (uint64_t)tile_base);
}

/* ---- bijective1: two passes, reduce then scan ---- */

template <int KIND, typename Offset>
__global__ void __launch_bounds__(BLOCK)
    count_tiles(uint64_t m, uint64_t domain, bijection<KIND> f, Offset *counts)
{
    using Reduce = cub::BlockReduce<Offset, BLOCK>;
    __shared__ typename Reduce::TempStorage ts;
    Offset src[ITEMS];
    bool keep[ITEMS];
    Offset total = Reduce(ts).Sum((Offset)evaluate(f, m, domain, blockIdx.x, src, keep));
    if (threadIdx.x == 0) counts[blockIdx.x] = total;
}

template <int KIND, typename T, typename Offset>
__global__ void __launch_bounds__(BLOCK)
    scan_gather(const T *__restrict__ in, T *__restrict__ out, unsigned words, uint64_t m, uint64_t domain,
                bijection<KIND> f, const Offset *__restrict__ offsets)
{
    using Scan = cub::BlockScan<Offset, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
    __shared__ typename Scan::TempStorage ts;
    __shared__ Offset staged[TILE];
    Offset src[ITEMS];
    bool keep[ITEMS];
    Offset rank, tile_count;
    Scan(ts).ExclusiveSum((Offset)evaluate(f, m, domain, blockIdx.x, src, keep), rank, tile_count);
    gather_tile(in, out, words, staged, src, keep, rank, tile_count, (uint64_t)offsets[blockIdx.x]);
}

/* ---- bijective0: separate passes ---- */

template <int KIND, typename Offset>
__global__ void evaluate_all(uint64_t domain, bijection<KIND> f, Offset *values)
{
    for (uint64_t x = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; x < domain;
         x += (uint64_t)gridDim.x * blockDim.x)
        values[x] = (Offset)f(x);
}

template <typename Offset> struct below {
    uint64_t m;
    __device__ __forceinline__ bool operator()(Offset v) const { return v < m; }
};

/* ---- sample permutations: one block per permutation ---- */

/* Permutation j of the batch is the shuffle of [0, n) for sample first + j:
 * the bijection's keys are drawn on the device, and the block walks the
 * padded domain tile by tile, carrying the count of kept values. */
using BlockScan32 = cub::BlockScan<uint32_t, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;

/* The whole bijective shuffle of m items by one block, walking the padded
 * domain a tile at a time: put(r, src) for every output place r and its
 * source (in place order, as bijective_twin). The block must all call it;
 * f (shared) and ts are the caller's. */
template <int KIND, typename Put>
__device__ __forceinline__ void block_shuffle(const bijection<KIND> &f, uint32_t m,
                                              typename BlockScan32::TempStorage &ts, Put put)
{
    uint64_t domain = UINT64_C(1) << f.f.bits;
    uint32_t carry = 0;
    for (uint64_t tile = 0; tile * TILE < domain; tile++) {
        uint32_t src[ITEMS];
        bool keep[ITEMS];
        uint32_t rank, tile_count;
        BlockScan32(ts).ExclusiveSum((uint32_t)evaluate(f, m, domain, tile, src, keep), rank, tile_count);
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if (keep[k]) put(carry + rank++, src[k]);
        carry += tile_count;
        __syncthreads(); /* ts is reused by the next tile's scan */
    }
}

template <int KIND>
__global__ void __launch_bounds__(BLOCK)
    sample_permutations(uint32_t n, int rounds, uint64_t seed, uint64_t first, uint32_t *out)
{
    __shared__ typename BlockScan32::TempStorage ts;
    __shared__ bijection<KIND> f;
    if (threadIdx.x == 0) pb_bij_init(&f.f, (pb_bij_kind)KIND, rounds, n, seed, first + blockIdx.x);
    __syncthreads();
    uint32_t *perm = out + (uint64_t)blockIdx.x * n;
    block_shuffle(f, n, ts, [&](uint32_t r, uint32_t src) { perm[r] = src; });
}

} // namespace pb_bijective

/* The three modules' shared host side (gpu_bijective.cu). */
enum pb_bijective_variant { PB_BIJECTIVE0, PB_BIJECTIVE1, PB_BIJECTIVE2 };

int pb_bijective_prepare(int variant, const pb_point *pt, void **state, pb_err *err);
int pb_bijective_run(void *state, uint64_t sample, pb_err *err);
void pb_bijective_release(void *state);
uint64_t pb_bijective_footprint0(const pb_point *pt);
uint64_t pb_bijective_footprint1(const pb_point *pt);
uint64_t pb_bijective_footprint2(const pb_point *pt);
int pb_bijective_sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                              uint64_t count, uint32_t *out, pb_err *err);
extern const pb_param_spec pb_bijective_params[2];

/* bijective2 on the caller's device buffers and stream: out = the shuffle
 * of in's m items that bijective_twin gives for (kind, rounds, seed,
 * stream_id), the kernels of the timed module. scratch: at least
 * pb_bijective2_scratch_bytes(m) (any m up to the size it was made for).
 * Queues its work and returns. */
size_t pb_bijective2_scratch_bytes(uint64_t m_max);
int pb_bijective2_shuffle_async(const void *in, void *out, uint64_t m, unsigned item_bytes, pb_bij_kind kind,
                                int rounds, uint64_t seed, uint64_t stream_id, void *scratch, size_t scratch_bytes,
                                cudaStream_t stream, pb_err *err);

#endif

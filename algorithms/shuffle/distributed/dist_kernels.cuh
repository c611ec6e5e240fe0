/* The distributed shuffle's kernels (gpu_dist_shuffle.cu): the
 * destinations drawn and counted (step 1), the slice ordered by them
 * (step 2, the fused split), and the sample batch's permutations counted
 * and shuffled. Included by gpu_dist_shuffle.cu alone: its kernels are
 * the module's own (an unnamed namespace), as in one file. */
#ifndef PB_DIST_KERNELS_CUH
#define PB_DIST_KERNELS_CUH

#include <stdint.h>

#include <cub/cub.cuh>

#include "algorithms/shuffle/bijective/gpu_bijective.cuh"
#include "algorithms/shuffle/distributed/dist_exchange.h"
#include "algorithms/shuffle/distributed/dist_twin.h"
#include "families/shuffle/gpu_records.h"

namespace {

using pb_dist::G_MAX;
constexpr int THREADS = 256;

unsigned bits_for(uint64_t v) /* ceil(log2(v)), 0 for v <= 1 */
{
    unsigned b = 0;
    while ((UINT64_C(1) << b) < v) b++;
    return b;
}

/* The destinations of the four slice items at virtual place u (a multiple
 * of 4): virtual places count from vs = lo & ~3, so a group of four is one
 * Philox block (pb_dist_dest4, global index vs + u); places before the
 * slice (the o = lo & 3 first) or past it get G, no destination. */
__device__ __forceinline__ void dests4(uint64_t seed, uint64_t sample, uint64_t lo, uint64_t len, uint64_t u,
                                       uint32_t G, uint32_t (&d)[4])
{
    const uint64_t vs = lo & ~UINT64_C(3), o = lo & 3;
    if (u >= o + len) {
        d[0] = d[1] = d[2] = d[3] = G;
        return;
    }
    pb_dist_dest4(seed, sample, (vs + u) >> 2, G, d);
#pragma unroll
    for (int q = 0; q < 4; q++)
        if (u + q < o || u + q - o >= len) d[q] = G;
}

/* Step 1 (split = cub): keys[t] = dest(lo + t) for the slice, and the G
 * counts; a thread a Philox block. */
__global__ void draw_dests(uint64_t seed, uint64_t sample, uint64_t lo, uint64_t len, uint32_t G, uint8_t *keys,
                           unsigned long long *counts)
{
    __shared__ unsigned hist[G_MAX];
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    const uint64_t o = lo & 3, groups = (len + o + 3) / 4;
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < groups;
         g += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t d[4];
        dests4(seed, sample, lo, len, 4 * g, G, d);
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (d[q] < G) {
                keys[4 * g + q - o] = (uint8_t)d[q];
                atomicAdd(&hist[d[q]], 1u);
            }
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x)
        if (hist[t]) atomicAdd(&counts[t], (unsigned long long)hist[t]);
}

/* The batch of sample permutations: item k of the device's c x len block
 * is permutation j = k / len's index lo + k % len, drawn for sample
 * first + j, and carries j in its top word so the receiver can regroup. */
__global__ void draw_batch_dests(uint64_t seed, uint64_t first, uint64_t lo, uint64_t len, uint64_t total, uint32_t G,
                                 uint8_t *keys, uint64_t *vals, unsigned long long *counts)
{
    __shared__ unsigned hist[G_MAX];
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < total;
         k += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t j = k / len, i = lo + k % len;
        uint32_t d = pb_dist_dest(seed, first + j, i, G);
        keys[k] = (uint8_t)d;
        vals[k] = j << 32 | i;
        atomicAdd(&hist[d], 1u);
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x)
        if (hist[t]) atomicAdd(&counts[t], (unsigned long long)hist[t]);
}

/* The fused split (split = fused, scalars; not the default: slower than
 * CUB's sort, docs/measured.md; Nsight Compute finds its scatter
 * instruction-bound, 112 registers and 25% occupancy, by the ranking of
 * four items a lane, not memory-bound): two passes over tiles of
 * SPLIT_TILE virtual places (dests4), a warp taking ROUNDS x 128
 * consecutive ones, a lane four at a time (one Philox block). The first
 * pass draws every destination and counts each tile's per destination; a
 * scan of those counts (destination-major) gives every (destination, tile)
 * its place in the ordered slice; the second pass draws the destinations
 * again, ranks each item among the warp's earlier items of its
 * destination (ballots on the destination's bits give, for each slot, the
 * lanes holding the same destination there), adds the earlier warps' and
 * the tile's place, and writes the item there. The order is the stable
 * sort's (CUB's split gives the same), no key is stored, the items are
 * read and written once. */
constexpr int ROUNDS = 2, WARPS = THREADS / 32, SPLIT_TILE = THREADS * 4 * ROUNDS;

__global__ void __launch_bounds__(THREADS)
    split_count(uint64_t seed, uint64_t sample, uint64_t lo, uint64_t len, uint32_t G, uint64_t tiles,
                unsigned long long *tile_counts, unsigned long long *counts)
{
    __shared__ unsigned hist[G_MAX];
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint64_t base = blockIdx.x * (uint64_t)SPLIT_TILE + warp * (uint64_t)(ROUNDS * 128);
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        uint32_t d[4];
        dests4(seed, sample, lo, len, base + k * 128 + lane * 4, G, d);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            unsigned peers = __match_any_sync(0xffffffffu, d[q]);
            if (d[q] < G && lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&hist[d[q]], (unsigned)__popc(peers));
        }
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) {
        tile_counts[t * tiles + blockIdx.x] = hist[t];
        if (hist[t]) atomicAdd(&counts[t], (unsigned long long)hist[t]);
    }
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    split_scatter(const T *__restrict__ in, T *__restrict__ out, uint64_t seed, uint64_t sample, uint64_t lo,
                  uint64_t len, uint32_t G, uint64_t tiles, const unsigned long long *__restrict__ offsets)
{
    __shared__ unsigned wcount[WARPS][G_MAX];
    __shared__ unsigned long long place[WARPS][G_MAX];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (unsigned t = lane; t < G; t += 32) wcount[warp][t] = 0;
    __syncwarp();
    const uint64_t o = lo & 3;
    const uint64_t base = blockIdx.x * (uint64_t)SPLIT_TILE + warp * (uint64_t)(ROUNDS * 128);
    const int nb = 32 - __clz((int)G); /* bits of the values 0 .. G (G: none) */
    const unsigned lower = (1u << lane) - 1, higher = ~lower & ~(1u << lane);
    T v[ROUNDS][4];
    uint32_t d[ROUNDS][4], rank[ROUNDS][4];
#pragma unroll
    for (int k = 0; k < ROUNDS; k++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            uint64_t u = base + k * 128 + lane * 4 + q;
            if (u >= o && u - o < len) v[k][q] = in[u - o];
        }
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        dests4(seed, sample, lo, len, base + k * 128 + lane * 4, G, d[k]);
        unsigned bal[4][7];
#pragma unroll
        for (int q = 0; q < 4; q++)
#pragma unroll
            for (int b = 0; b < 7; b++) bal[q][b] = b < nb ? __ballot_sync(0xffffffffu, d[k][q] >> b & 1) : 0;
        bool last[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const uint32_t x = d[k][q];
            unsigned below = 0, above = 0;
#pragma unroll
            for (int p = 0; p < 4; p++) {
                unsigned same = 0xffffffffu;
#pragma unroll
                for (int b = 0; b < 7; b++)
                    if (b < nb) same &= (x >> b & 1) ? bal[p][b] : ~bal[p][b];
                below += (unsigned)__popc(same & lower) + (p < q && d[k][p] == x);
                above += (unsigned)__popc(same & higher) + (p > q && d[k][p] == x);
            }
            rank[k][q] = x < G ? wcount[warp][x] + below : 0;
            last[q] = x < G && above == 0;
        }
        __syncwarp();
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (last[q]) wcount[warp][d[k][q]] = rank[k][q] + 1;
        __syncwarp();
    }
    __syncthreads();
    /* Each destination's place for each warp: the tile's, then the earlier warps'. */
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) {
        unsigned long long at = offsets[t * tiles + blockIdx.x];
        for (int w = 0; w < WARPS; w++) {
            place[w][t] = at;
            at += wcount[w][t];
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ROUNDS; k++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (d[k][q] < G) out[place[warp][d[k][q]] + rank[k][q]] = v[k][q];
}

/* The batch: how many received items belong to each permutation. */
__global__ void count_perms(const uint64_t *__restrict__ v, uint64_t n, uint32_t *counts)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        atomicAdd(&counts[v[i] >> 32], 1u);
}

/* The batch's step 4: block j shuffles permutation j's received items
 * (seg_cnt[j] of them at seg_off[j]) with the bijective shuffle of stream
 * pb_dist_stream(first + j, d): out[r] = in[src] for the r-th position x
 * of the padded domain (in order) whose image src is below the count, as
 * bijective_twin and bijective2 do. */
template <int KIND>
__global__ void __launch_bounds__(pb_bijective::BLOCK)
    shuffle_perms(const uint64_t *__restrict__ in, uint32_t *__restrict__ out, const uint32_t *seg_cnt,
                  const uint32_t *seg_off, int rounds, uint64_t seed, uint64_t first, uint32_t d)
{
    using namespace pb_bijective;
    __shared__ typename BlockScan32::TempStorage ts;
    __shared__ bijection<KIND> f;
    const uint32_t m = seg_cnt[blockIdx.x];
    if (m == 0) return;
    const uint64_t *seg = in + seg_off[blockIdx.x];
    uint32_t *o = out + seg_off[blockIdx.x];
    if (threadIdx.x == 0) pb_bij_init(&f.f, (pb_bij_kind)KIND, rounds, m, seed, pb_dist_stream(first + blockIdx.x, d));
    __syncthreads();
    block_shuffle(f, m, ts, [&](uint32_t r, uint32_t src) { o[r] = (uint32_t)seg[src]; });
}

} // namespace

#endif

/* The tile kernels of many warps (one tile a block of 8 warps, warp w owning
 * lines w*L .. w*L+L-1, L = m / 8, one item a lane a line): the scatter
 * (and its padded layout) and the split method. Every shared-memory access
 * here is one step of the simulator's model (dmm/dmm_tile_model.c), in the
 * same order with the same addresses; changing one means changing the
 * other, and the models' tests and the GPU tests hold them together.
 *
 * Global memory is read and written with .cg (cached in L2, not L1): in
 * Volta and later, L1 and shared memory share their data banks, and the
 * profiler's shared-memory conflict counters can count L1 traffic from
 * global accesses too; keeping global accesses out of L1 keeps the counters
 * to what shared memory does. */
#ifndef PB_GPU_TILE_BLOCK_CUH
#define PB_GPU_TILE_BLOCK_CUH

#include <stdint.h>

#include "dmm/dmm_tile.h"
#include "dmm/dmm_tile_input.h"

namespace pb_tile {

constexpr int WARPS = PB_TILE_WARPS;
constexpr int BLOCK = 32 * WARPS;

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }
__device__ __forceinline__ unsigned warp_id() { return threadIdx.x >> 5; }
__device__ __forceinline__ uint32_t lanes_below() { return (1u << lane_id()) - 1u; }

/* The word a tile position is kept at (PAD: a word after every 32). */
template <bool PAD> __device__ __forceinline__ uint32_t slot(uint32_t pos)
{
    return PAD ? pos + (pos >> 5) : pos;
}

/* The block's lines of the tile from global memory. */
template <int L> __device__ __forceinline__ void load_lines(const uint32_t *tin, uint32_t (&x)[L])
{
    const unsigned w = warp_id(), lane = lane_id();
#pragma unroll
    for (int i = 0; i < L; i++) x[i] = __ldcg(tin + (w * L + i) * 32u + lane);
}

/* The block's lines from the buffer (line order). */
template <int L, bool PAD>
__device__ __forceinline__ void reload_lines(const uint32_t *buf, uint32_t (&x)[L])
{
    const unsigned w = warp_id(), lane = lane_id();
#pragma unroll
    for (int i = 0; i < L; i++) x[i] = buf[slot<PAD>((w * L + i) * 32u + lane)];
}

/* The buffer, in line order, to global memory. */
template <int L, bool PAD>
__device__ __forceinline__ void store_lines(const uint32_t *buf, uint32_t *tout)
{
    const unsigned w = warp_id(), lane = lane_id();
#pragma unroll
    for (int i = 0; i < L; i++) {
        const uint32_t pos = (w * L + i) * 32u + lane;
        __stcg(tout + pos, buf[slot<PAD>(pos)]);
    }
}

/* One stable scatter of the block's lines by digit (x >> shift) & 31 into
 * buf. Per line, five ballots give each lane the mask of the lanes sharing
 * its digit (its rank in the line) and the count of the digit equal to its
 * lane index; lane b keeps the warp's running count of digit b. Shared
 * memory: each lane stores its warp's count of its digit-lane; warp 0 loads
 * them, scans over digits with shuffles and stores each warp's base of
 * each digit; then per line a lane loads its digit's base (equal digits
 * read one word: a broadcast) and stores its item at base + offset. Ends
 * with a barrier: buf holds the tile, every lane may read any of it. */
template <int L, bool PAD>
__device__ __forceinline__ void scatter_by_digit(uint32_t (&x)[L], unsigned shift, uint32_t *buf,
                                                 uint32_t (*cnt)[32])
{
    const unsigned w = warp_id(), lane = lane_id();
    uint32_t off[L], run = 0;
#pragma unroll
    for (int i = 0; i < L; i++) {
        const uint32_t dg = (x[i] >> shift) & 31u;
        uint32_t peers = ~0u, same = ~0u;
#pragma unroll
        for (int k = 0; k < 5; k++) {
            const uint32_t bal = __ballot_sync(~0u, (dg >> k) & 1u);
            peers &= ((dg >> k) & 1u) ? bal : ~bal;
            same &= ((lane >> k) & 1u) ? bal : ~bal;
        }
        off[i] = __shfl_sync(~0u, run, (int)dg) + __popc(peers & lanes_below());
        run += __popc(same);
    }
    cnt[w][lane] = run;
    __syncthreads();
    if (w == 0) {
        uint32_t v[WARPS], total = 0;
#pragma unroll
        for (int k = 0; k < WARPS; k++) total += v[k] = cnt[k][lane];
        uint32_t incl = total;
#pragma unroll
        for (int d = 1; d < 32; d *= 2) {
            const uint32_t t = __shfl_up_sync(~0u, incl, d);
            if (lane >= (unsigned)d) incl += t;
        }
        uint32_t base = incl - total;
#pragma unroll
        for (int k = 0; k < WARPS; k++) {
            cnt[k][lane] = base;
            base += v[k];
        }
    }
    __syncthreads();
#pragma unroll
    for (int i = 0; i < L; i++) {
        const uint32_t d = cnt[w][(x[i] >> shift) & 31u] + off[i];
        buf[slot<PAD>(d)] = x[i];
    }
    __syncthreads();
}

/* The permutation's scatter: every item straight to its destination. */
template <int L, bool PAD>
__device__ __forceinline__ void scatter_by_dest(const uint32_t (&x)[L], uint32_t *buf)
{
#pragma unroll
    for (int i = 0; i < L; i++) buf[slot<PAD>(pb_tile_dest(x[i]))] = x[i];
    __syncthreads();
}

template <int OP> __device__ __forceinline__ uint32_t split_bit(uint32_t item, unsigned pass)
{
    if (OP == PB_TILE_PARTITION) return pb_tile_split_bit_partition(item, pass);
    if (OP == PB_TILE_SORT) return pb_tile_split_bit_sort(item, pass);
    return pb_tile_split_bit_permute(item, pass);
}

/* One pass of the split method by key bit `pass` (dmm_tile.h): per line a
 * ballot of the ones; a zero with r0 zeros below it in the line goes to
 * A0 + r0, a one with r1 ones below it to N - 1 - (32 j - A0 + r1), A0
 * the zeros in lines before j: this warp's earlier lines (in registers) and
 * the earlier warps' totals (lane 0 of each warp stores its total; every
 * warp loads the WARPS totals, one a lane). In each line the zeros then
 * take the banks A0 .. A0 + z - 1 and the ones the others: no conflict,
 * whatever the input. Ends with a barrier. */
template <int L, int OP>
__device__ __forceinline__ void split_pass(uint32_t (&x)[L], unsigned pass, uint32_t *buf,
                                           uint32_t *s_z, uint32_t n)
{
    const unsigned w = warp_id(), lane = lane_id();
    uint32_t ones[L], zeros = 0;
#pragma unroll
    for (int i = 0; i < L; i++) {
        ones[i] = __ballot_sync(~0u, split_bit<OP>(x[i], pass));
        zeros += 32u - __popc(ones[i]);
    }
    if (lane == 0) s_z[w] = zeros;
    __syncthreads();
    const uint32_t v = lane < (unsigned)WARPS ? s_z[lane] : 0u;
    uint32_t a0 = 0;
#pragma unroll
    for (int k = 0; k < WARPS; k++) {
        const uint32_t t = __shfl_sync(~0u, v, k);
        if ((unsigned)k < w) a0 += t;
    }
    /* pos = a0 - r1 + (one ? n - 1 - 32 j : lane): a select and an add. */
#pragma unroll
    for (int i = 0; i < L; i++) {
        const uint32_t j = w * L + i, r1 = __popc(ones[i] & lanes_below());
        buf[a0 - r1 + (((ones[i] >> lane) & 1u) ? n - 1u - 32u * j : lane)] = x[i];
        a0 += 32u - __popc(ones[i]);
    }
    __syncthreads();
}

/* The split method on one tile a block: `passes` passes, the data in one
 * buffer (each pass loads its lines into registers, then stores them to
 * their new places after a barrier). */
template <int M, int OP>
__device__ __forceinline__ void split_tile(const uint32_t *in, uint32_t *out, unsigned passes)
{
    constexpr int L = M / WARPS, N = 32 * M;
    __shared__ uint32_t buf[N];
    __shared__ uint32_t s_z[WARPS];
    const size_t base = (size_t)blockIdx.x * N;
    uint32_t x[L];
    load_lines<L>(in + base, x);
#pragma unroll 1
    for (unsigned p = 0; p < passes; p++) {
        if (p > 0) reload_lines<L, false>(buf, x);
        split_pass<L, OP>(x, p, buf, s_z, N);
    }
    store_lines<L, false>(buf, out + base);
}

} // namespace pb_tile

#endif

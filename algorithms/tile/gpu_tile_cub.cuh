/* CUB's block-level primitives doing the tile operations: BlockRadixSort
 * (partition: the 5 label bits, stable, so the same output as the scatter;
 * sort: all 32 bits) and BlockExchange::ScatterToStriped (permute: items to
 * their ranks, CUB's padded layout when items a thread > 4). One tile a
 * block of 256 threads, m / 8 items a thread. */
#ifndef PB_GPU_TILE_CUB_CUH
#define PB_GPU_TILE_CUB_CUH

#include <stdint.h>

#include <cub/block/block_exchange.cuh>
#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_store.cuh>

#include "algorithms/tile/gpu_tile_block.cuh"

namespace pb_tile {

/* Block b's tile: 32 * M items from b * 32 * M (the first GPU run found
 * every tile but the first left unwritten when this offset was missing). */
template <int M> __device__ __forceinline__ size_t cub_tile_base() { return (size_t)blockIdx.x * 32 * M; }

/* The tile loaded blocked (thread t holds items t*ITEMS ..: the input order
 * a stable sort keeps), sorted on bits [begin_bit, 32), stored striped. */
template <int M> __device__ __forceinline__ void cub_sort(const uint32_t *in, uint32_t *out, int begin_bit)
{
    constexpr int ITEMS = M / WARPS;
    const uint32_t *tin = in + cub_tile_base<M>();
    uint32_t *tout = out + cub_tile_base<M>();
    typedef cub::BlockRadixSort<uint32_t, BLOCK, ITEMS> sort_t;
    __shared__ typename sort_t::TempStorage temp;
    uint32_t k[ITEMS];
    cub::LoadDirectBlockedVectorized(threadIdx.x, const_cast<uint32_t *>(tin), k);
    sort_t(temp).SortBlockedToStriped(k, begin_bit, 32);
    cub::StoreDirectStriped<BLOCK>(threadIdx.x, tout, k);
}

/* The tile loaded striped, each item scattered to its destination. */
template <int M> __device__ __forceinline__ void cub_permute(const uint32_t *in, uint32_t *out)
{
    constexpr int ITEMS = M / WARPS;
    const uint32_t *tin = in + cub_tile_base<M>();
    uint32_t *tout = out + cub_tile_base<M>();
    typedef cub::BlockExchange<uint32_t, BLOCK, ITEMS> exchange_t;
    __shared__ typename exchange_t::TempStorage temp;
    uint32_t k[ITEMS], o[ITEMS];
    int rank[ITEMS];
    cub::LoadDirectStriped<BLOCK>(threadIdx.x, tin, k);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) rank[i] = (int)pb_tile_dest(k[i]);
    exchange_t(temp).ScatterToStriped(k, o, rank);
    cub::StoreDirectStriped<BLOCK>(threadIdx.x, tout, o);
}

} // namespace pb_tile

#endif

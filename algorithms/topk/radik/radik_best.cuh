/* radik's cluster path at k = 1 (a row's best key: greedy decoding's
 * query), a kernel of its own beside radik_cluster.cuh (16-bit keys) and
 * radik_cluster_w.cuh (word keys): one read of the row, in the same parts
 * of the same 16-byte packs, in which each thread keeps the best key it
 * reads; then the cluster's best key (pb_radik_cl_best), which block 0
 * writes. No sample, no rounds, no candidates: those cost a small top-k
 * query as much as its read.
 *
 * The best key is the largest order key, the smallest index among its
 * equals: the one answer under ties = lowest-index, and an answer under
 * any. Its own kernel, not a branch of the cluster kernels: a branch there
 * made the compiler spill more of their registers on every path.
 *
 * radik.cu launches it in the cluster kernels' place (the same grid, block
 * and clusters) when k = 1, asking for their shared memory (radik.cu says
 * why). */
#ifndef PB_RADIK_BEST_CUH
#define PB_RADIK_BEST_CUH

#include "algorithms/topk/radik/radik_cluster.cuh"
#include "algorithms/topk/radik/radik_cluster_w.cuh"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

/* A warp's best, then [last]: the block's (read by block 0). */
template <class K> struct pb_radik_cl_best_smem {
    K key[PB_RADIK_CL_BLOCK / 32 + 1];
    uint32_t idx[PB_RADIK_CL_BLOCK / 32 + 1];
};

/* Keeps (o, i) where it beats (bo, bi). From bo = 0, bi = ~0u any key of
 * the row beats it. */
template <class K>
__device__ __forceinline__ void pb_radik_cl_best_keep(K o, uint32_t i, K &bo, uint32_t &bi)
{
    if (o > bo || (o == bo && i < bi)) bo = o, bi = i;
}

template <class K> __device__ __forceinline__ void pb_radik_cl_best_warp(K &bo, uint32_t &bi)
{
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) {
        const K o = __shfl_xor_sync(0xffffffffu, bo, m);
        const uint32_t i = __shfl_xor_sync(0xffffffffu, bi, m);
        pb_radik_cl_best_keep(o, i, bo, bi);
    }
}

/* The cluster's best from each thread's: a warp's by shuffles, the
 * block's in shared memory, the cluster's by block 0 reading every
 * block's. Called by every thread of every block of the cluster (C blocks,
 * C <= 32); true in block 0's thread 0, whose bo, bi are then the row's.
 * No block leaves before block 0 has read its best. */
template <class K>
__device__ __forceinline__ bool pb_radik_cl_best(const cooperative_groups::cluster_group &cl,
                                                 uint32_t C, pb_radik_cl_best_smem<K> &s, K &bo,
                                                 uint32_t &bi)
{
    enum { W = PB_RADIK_CL_BLOCK / 32 };
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    pb_radik_cl_best_warp(bo, bi);
    if (lane == 0) s.key[warp] = bo, s.idx[warp] = bi;
    __syncthreads();
    if (warp == 0) {
        bo = lane < W ? s.key[lane] : (K)0;
        bi = lane < W ? s.idx[lane] : ~0u;
        pb_radik_cl_best_warp(bo, bi);
        if (lane == 0) s.key[W] = bo, s.idx[W] = bi;
    }
    cl.sync();
    const bool reader = cl.block_rank() == 0 && warp == 0;
    if (reader) {
        bo = lane < C ? *cl.map_shared_rank(&s.key[W], lane) : (K)0;
        bi = lane < C ? *cl.map_shared_rank(&s.idx[W], lane) : ~0u;
        pb_radik_cl_best_warp(bo, bi);
    }
    cl.sync();
    return reader && lane == 0;
}

/* Each thread's best key of block b's part (of C) of the row of len keys
 * from key rb. Word keys (fp32, u32, i32, fp64, u64) through their reads;
 * fp16 and bf16 (K = uint32_t) order-keyed two a word (pb_topk_okey16x2). */
template <int DT, int LG, class K>
__device__ __forceinline__ void pb_radik_best_read(const pb_radik_args<K> &a, uint64_t rb,
                                                   uint32_t len, uint32_t C, uint32_t b, K &bo,
                                                   uint32_t &bi)
{
    if constexpr (pb_radik_dt16<DT>::value) {
        const pb_radik_cl_part w = pb_radik_cl_part_of(a.data16, rb, len, C, b);
        pb_radik_cl_read<true>(w, [&](const uint4 &x, uint32_t p, bool in) {
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const uint32_t o2 = pb_topk_okey16x2(pb_radik_cl_word(x, j), DT, LG);
                const uint32_t i = 8 * p + 2 * j - w.head; /* wraps below the row: then >= len */
                if (in && i < w.len) pb_radik_cl_best_keep(o2 & 0xffffu, i, bo, bi);
                if (in && i + 1 < w.len) pb_radik_cl_best_keep(o2 >> 16, i + 1, bo, bi);
            }
        });
    } else {
        const pb_radik_clw_part<K> w = pb_radik_clw_part_of(a.data, rb, len, C, b);
        pb_radik_clw_read<DT, LG, true, PB_RADIK_CL_BATCH>(w, [&](K o, uint32_t i, bool in) {
            if (in) pb_radik_cl_best_keep(o, i, bo, bi);
        });
    }
}

#endif /* __CUDA_ARCH__ >= 900 */

/* The kernel, for every dtype. The value written: for word keys from its
 * order key, as radik_cluster_w.cuh writes values; for fp16 and bf16 the
 * row's raw key, as radik_cluster.cuh writes them. k, salt and filter are
 * the cluster kernels' arguments (radik.cu launches either): k is 1 here,
 * and there is no sample. */
template <class K, int DT, int LG>
__global__ void __launch_bounds__(PB_RADIK_CL_BLOCK, 2)
    pb_radik_best(pb_radik_args<K> a, uint64_t k, uint32_t salt, int filter)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    (void)salt, (void)filter;
    __shared__ pb_radik_cl_best_smem<K> s;
    cooperative_groups::cluster_group cl = cooperative_groups::this_cluster();
    const uint32_t C = cl.num_blocks(), b = cl.block_rank(), row = blockIdx.y;
    const uint64_t rb = a.begin[row];
    const uint32_t len = (uint32_t)(a.end[row] - rb); /* below 2^31: radik.cu */
    if (len == 0 || k == 0) return;                   /* the whole cluster: the row is its own */
    K bo = 0;
    uint32_t bi = ~0u;
    pb_radik_best_read<DT, LG>(a, rb, len, C, b, bo, bi);
    if (pb_radik_cl_best(cl, C, s, bo, bi)) {
        const uint64_t out = a.out_off[row];
        if constexpr (pb_radik_dt16<DT>::value)
            a.vals[out] = a.data16[rb + bi];
        else
            a.vals[out] = pb_radik_raw_dt<DT, LG>(bo);
        a.idx[out] = bi;
    }
#endif
}

#endif

/* What radik's two cluster kernels share (radik_cluster.cuh for 16-bit
 * keys, radik_cluster_w.cuh for word keys): a block's shared memory,
 * its digit histograms (32 counters a digit, one a lane) and their sum,
 * the block scans, and slots a warp at a time. */
#ifndef PB_RADIK_CLUSTER_BLOCK_CUH
#define PB_RADIK_CLUSTER_BLOCK_CUH

#include <stdint.h>

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include "algorithms/topk/radik/radik_block.cuh"
#include "algorithms/topk/radik/radik_tuning.h"

/* Clusters and distributed shared memory exist from sm_90: below it the
 * device code here is not compiled (radik_cluster.cu says where it runs). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

struct pb_radik_cl_sum3 {
    __device__ __forceinline__ uint3 operator()(const uint3 &x, const uint3 &y) const
    {
        return make_uint3(x.x + y.x, x.y + y.y, x.z + y.z);
    }
};

/* Warp scans: a raking scan keeps a word a thread (for uint3, 6 KiB). */
typedef cub::BlockScan<uint3, PB_RADIK_CL_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> pb_radik_cl_scan3;
typedef cub::BlockScan<uint32_t, PB_RADIK_CL_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> pb_radik_cl_scan1;

/* What a block's cluster path chose (sel[]). */
enum {
    PB_RADIK_CL_B,        /* the pivot bin: the take-th largest key's high digit */
    PB_RADIK_CL_HB,       /* B's bin in read 1's histogram (its raw byte, or B) */
    PB_RADIK_CL_ABOVE,    /* the row's keys in bins above B */
    PB_RADIK_CL_T,        /* the pivot key */
    PB_RADIK_CL_G,        /* the row's keys above T */
    PB_RADIK_CL_E,        /* ties of T to take */
    PB_RADIK_CL_GT_LOW,   /* keys of B above T in the blocks before this one */
    PB_RADIK_CL_EQ_BASE,  /* ties in the blocks before this one */
    PB_RADIK_CL_OWN_EQ,   /* this block's ties */
    PB_RADIK_CL_GT_HIGH,  /* keys in bins above B in the blocks before this one */
    PB_RADIK_CL_TOTAL,    /* the row's keys in read 1's histogram */
    PB_RADIK_CL_OWN_GT,   /* this block's keys above T */
    PB_RADIK_CL_NSEL
};

struct pb_radik_cl_smem {
    uint32_t lane[256 * 32]; /* [digit][lane] */
    /* This block's histograms (read by the whole cluster): the high digit
     * of its keys (read 1), the low digit of its keys in B (read 2). */
    uint32_t hist[2][256];
    uint32_t gt1;    /* this block's keys in bins above B (read by the higher ranks) */
    uint32_t ctr[2]; /* read 3's slots: keys above T, ties */
    uint32_t ncand, nties; /* candidates (pb_radik_cl_cands), and their ties to rank */
    uint32_t ovf;          /* the candidates outgrew the room (read by the cluster) */
    uint32_t samp[256];    /* the sample's digit histogram */
    uint32_t sel[PB_RADIK_CL_NSEL];
    union {
        pb_radik_cl_scan3::TempStorage s3;
        pb_radik_cl_scan1::TempStorage s1;
    } scan;
};

/* Sums the lane copies of every digit into hist[h] and zeroes them for
 * the next read, less nsub in digit sub_bin (the keys outside the row that
 * edge packs counted as raw 0: pb_radik_cl_clear). Two threads a digit,
 * each reading 16 lanes rotated by the digit, so that a warp's 32 reads
 * fall in 32 banks. */
__device__ __forceinline__ void pb_radik_cl_reduce_to(pb_radik_cl_smem &s, uint32_t *out,
                                                      uint32_t sub_bin, uint32_t nsub)
{
    __syncthreads();
    uint32_t bin = threadIdx.x >> 1, part = threadIdx.x & 1, sum = 0;
#pragma unroll
    for (uint32_t j = 0; j < 16; j++) {
        uint32_t w = bin * 32 + ((part * 16 + j + bin) & 31);
        sum += s.lane[w];
        s.lane[w] = 0;
    }
    sum += __shfl_xor_sync(0xffffffffu, sum, 1);
    if (part == 0) out[bin] = sum - (bin == sub_bin ? nsub : 0);
}
/* ... into hist[h] (read by the cluster). */
__device__ __forceinline__ void pb_radik_cl_reduce(pb_radik_cl_smem &s, int h, uint32_t sub_bin,
                                                   uint32_t nsub)
{
    pb_radik_cl_reduce_to(s, s.hist[h], sub_bin, nsub);
}

/* A block's aligned 16-byte packs [pa, pb), NB a thread loaded ahead:
 * f(x, p, in) for each pack a thread holds, called by every thread the
 * same number of times (in: the pack exists), in index order of the block
 * (sub-tile by sub-tile), so f may hold block-wide scans. The last read of
 * a row streams (LAST: evict first); the others leave it in L2 for the
 * next. It stops before a batch once done() (block-uniform) holds. */
template <bool LAST, int NB, class F, class D>
__device__ __forceinline__ void pb_radik_cl_packs(const uint4 *packs, uint32_t pa, uint32_t pb,
                                                  F f, D done)
{
    for (uint32_t base = pa; base < pb && !done(); base += PB_RADIK_CL_BLOCK * NB) {
        uint4 x[NB];
#pragma unroll
        for (int u = 0; u < NB; u++) {
            uint32_t p = base + threadIdx.x + u * PB_RADIK_CL_BLOCK;
            x[u] = p < pb ? (LAST ? __ldcs(packs + p) : __ldg(packs + p)) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < NB; u++) {
            uint32_t p = base + threadIdx.x + u * PB_RADIK_CL_BLOCK;
            f(x[u], p, p < pb);
        }
    }
}

/* One more in the lane counter at shared address `at` (a 32-bit shared
 * window address): a reduction with no result and no branch, where
 * atomicAdd on a generic address was a branch, a read of the block's
 * cluster slot and an address sum around each ATOMS (in the SASS). */
__device__ __forceinline__ void pb_radik_cl_inc(uint32_t at)
{
    asm volatile("red.shared.add.u32 [%0], 1;" ::"r"(at) : "memory");
}
__device__ __forceinline__ void pb_radik_cl_inc_if(bool p, uint32_t at)
{
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t@q red.shared.add.u32 [%0], 1;\n\t}" ::"r"(at),
                 "r"((uint32_t)p)
                 : "memory");
}

/* One shared word (at the same offset in every block of the cluster)
 * summed over the C blocks: x the cluster's, y the blocks' before block b,
 * z block b's. Every block's word is loaded before any is added: a remote
 * load takes hundreds of cycles, and a loop that added each as it came
 * waited for them one at a time, C times in every round. */
__device__ __forceinline__ uint3 pb_radik_cl_cluster_sum(const cooperative_groups::cluster_group &cl,
                                                        uint32_t *word, uint32_t C, uint32_t b)
{
    uint32_t n[PB_RADIK_CL_MAXC];
#pragma unroll
    for (uint32_t c = 0; c < PB_RADIK_CL_MAXC; c++) n[c] = c < C ? *cl.map_shared_rank(word, c) : 0;
    uint3 v = make_uint3(0, 0, 0);
#pragma unroll
    for (uint32_t c = 0; c < PB_RADIK_CL_MAXC; c++) {
        v.x += n[c];
        v.y += c < b ? n[c] : 0;
        v.z += c == b ? n[c] : 0;
    }
    return v;
}

/* Block b's packs [*pa, *pb) of a row's np, split evenly over C blocks
 * (a block past the row's end gets none): every kernel of the cluster path
 * reads a row in the same parts. */
__device__ __forceinline__ void pb_radik_cl_split(uint32_t np, uint32_t C, uint32_t b, uint32_t *pa,
                                                  uint32_t *pb)
{
    const uint32_t per = (np + C - 1) / C;
    *pa = b * per < np ? b * per : np;
    *pb = *pa + per < np ? *pa + per : np;
}

/* Slots for the keys of mask m from counter *ctr, a warp at a time (every
 * lane calls it): this lane's first slot. */
__device__ __forceinline__ uint32_t pb_radik_cl_slots(uint32_t *ctr, uint32_t m)
{
    uint32_t c = __popc(m), incl = pb_radik_warp_incl_sum(c), base = 0;
    if ((threadIdx.x & 31) == 31) base = atomicAdd(ctr, incl);
    return __shfl_sync(0xffffffffu, base, 31) + incl - c;
}

#endif /* __CUDA_ARCH__ >= 900 */

#endif

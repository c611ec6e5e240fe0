/* radik's cluster path (its `cluster` parameter): a batch of short rows of
 * 16-bit keys (fp16, bf16) selected by one kernel, one thread-block
 * cluster a row, with no other launch and no host synchronisation.
 *
 * Why. The multi-pass query (radik_kernels.cuh) is a chain of about ten
 * launches: start, filter, then selects and passes. On a row of 2^29 keys
 * the filter's one read is the cost; on 16 rows of 2^20 fp16 (an LLM
 * vocabulary a row) the chain is: on an H200 at 07df373 start 15.7 us
 * (one block a row, latency-bound), filter 27.2, the select after it 9.7
 * and eight launches of 2.8-8.8 us, 72 us in all, where one read of the
 * batch's 32 MiB takes about 9. Here a row's blocks share their
 * histograms through distributed shared memory and wait for each other at
 * cluster barriers (well under a microsecond) instead of at launches.
 *
 * How. A 16-bit order key (topk_key.h) is two 8-bit digits. The C blocks
 * of a row's cluster split it into contiguous parts of aligned 16-byte
 * packs (eight keys; offset padding: a pack's keys outside the row are
 * masked) and read it three times:
 *   read 1  every block histograms its keys' high digit; at a cluster
 *           barrier every block sums the C histograms (read remotely) and
 *           finds the pivot bin B, the high digit of the take-th largest
 *           key, and how many keys lie above it;
 *   read 2  the low digit of the keys in B: the pivot key T, the number G
 *           of keys above T, and E = take - G ties to take; each block
 *           learns where its keys above T start in the row's output (the
 *           counts of the blocks before it) and how many ties it takes:
 *           its quota, the ties of the blocks before it first;
 *   read 3  keys above T are written (slots from a block counter, a warp
 *           at a time), and each block's quota of ties. With ties =
 *           lowest-index a block whose quota is part of its ties takes
 *           them in index order (a block scan a sub-tile, until the quota
 *           is full), so the row gets the E ties of the smallest indices;
 *           with ties = any it takes them in counter order.
 * The answer's contract is the family's: exactly take = min(k, len) keys,
 * every key above the take-th included. A batch's rows are at most a few
 * MiB each and read by their cluster back to back, so reads 2 and 3 find
 * most of the row in L2.
 *
 * Histograms. Each digit has 32 counters, one a lane ([digit][lane]: bank
 * = lane), so a warp's 32 shared-memory atomics hit 32 banks whatever its
 * keys are: an all-equal row costs what a uniform one does. */
#ifndef PB_RADIK_CLUSTER_CUH
#define PB_RADIK_CLUSTER_CUH

#include <stdint.h>

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include "algorithms/topk/radik_kernels.cuh"

/* 512 threads, two blocks an SM: a cluster of eight 1024-thread blocks
 * (one an SM) fitted 15 times at once on an H100, so a 16th row waited
 * for a second wave (Nsight Compute, 0614d37: "Max Active Clusters 15"). */
#define PB_RADIK_CL_BLOCK 512
/* Packs a thread loads before it uses them (64 KiB in flight a block). */
#define PB_RADIK_CL_BATCH 8
/* A row's blocks: one a PB_RADIK_CL_PART keys, a power of two, at most
 * PB_RADIK_CL_MAXC (the portable cluster size). */
#define PB_RADIK_CL_PART (1u << 17)
#define PB_RADIK_CL_MAXC 8
/* `cluster = auto` takes the path for rows up to this long (see radik.cu). */
#define PB_RADIK_CL_MAXLEN (1u << 22)

struct pb_radik_cl_sum3 {
    __device__ __forceinline__ uint3 operator()(const uint3 &x, const uint3 &y) const
    {
        return make_uint3(x.x + y.x, x.y + y.y, x.z + y.z);
    }
};

/* Warp scans: a 1024-thread block's raking scan would take 12 KiB. */
typedef cub::BlockScan<uint3, PB_RADIK_CL_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> pb_radik_cl_scan3;
typedef cub::BlockScan<uint32_t, PB_RADIK_CL_BLOCK, cub::BLOCK_SCAN_WARP_SCANS> pb_radik_cl_scan1;

/* What a block's cluster path chose (sel[]). */
enum {
    PB_RADIK_CL_B,        /* the pivot bin: the take-th largest key's high digit */
    PB_RADIK_CL_ABOVE,    /* the row's keys in bins above B */
    PB_RADIK_CL_T,        /* the pivot key */
    PB_RADIK_CL_G,        /* the row's keys above T */
    PB_RADIK_CL_E,        /* ties of T to take */
    PB_RADIK_CL_GT_LOW,   /* keys of B above T in the blocks before this one */
    PB_RADIK_CL_EQ_BASE,  /* ties in the blocks before this one */
    PB_RADIK_CL_OWN_EQ,   /* this block's ties */
    PB_RADIK_CL_GT_HIGH,  /* keys in bins above B in the blocks before this one */
    PB_RADIK_CL_NSEL
};

struct pb_radik_cl_smem {
    uint32_t lane[256 * 32]; /* [digit][lane] */
    /* This block's histograms (read by the whole cluster): the high digit
     * of its keys (read 1), the low digit of its keys in B (read 2). */
    uint32_t hist[2][256];
    uint32_t gt1;    /* this block's keys in bins above B (read by the higher ranks) */
    uint32_t ctr[2]; /* read 3's slots: keys above T, ties */
    uint32_t sel[PB_RADIK_CL_NSEL];
    union {
        pb_radik_cl_scan3::TempStorage s3;
        pb_radik_cl_scan1::TempStorage s1;
    } scan;
};

/* Key e (0..7) of a pack, zero-extended. */
__device__ __forceinline__ uint32_t pb_radik_cl_half(const uint4 &x, uint32_t e)
{
    uint32_t w = e < 2 ? x.x : e < 4 ? x.y : e < 6 ? x.z : x.w;
    return (e & 1) ? w >> 16 : w & 0xffffu;
}

/* Sums the lane copies of every digit into hist[h] and zeroes them for
 * the next read. Two threads a digit, each reading 16 lanes rotated by
 * the digit, so that a warp's 32 reads fall in 32 banks. */
__device__ __forceinline__ void pb_radik_cl_reduce(pb_radik_cl_smem &s, int h)
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
    if (part == 0) s.hist[h][bin] = sum;
}

/* A block's part of a row: packs [pa, pb) of the row's (pack 0 holds its
 * first key, at `head` in it: key e of pack p is the row's key
 * 8p + e - head, outside the row when that wraps past len). */
struct pb_radik_cl_part {
    const uint4 *packs;
    uint32_t pa, pb, head, len;
};

/* One read of the block's packs: f(x, p, in) for each pack a thread
 * holds, PB_RADIK_CL_BATCH loaded ahead, called by every thread the same
 * number of times (in: the pack exists), in index order of the block
 * (sub-tile by sub-tile), so f may hold block-wide scans. The last read
 * streams (evict first); the others leave the row in L2 for the next. */
template <bool LAST, class F>
__device__ __forceinline__ void pb_radik_cl_read(const pb_radik_cl_part &w, F f)
{
    for (uint32_t base = w.pa; base < w.pb; base += PB_RADIK_CL_BLOCK * PB_RADIK_CL_BATCH) {
        uint4 x[PB_RADIK_CL_BATCH];
#pragma unroll
        for (int u = 0; u < PB_RADIK_CL_BATCH; u++) {
            uint32_t p = base + threadIdx.x + u * PB_RADIK_CL_BLOCK;
            x[u] = p < w.pb ? (LAST ? __ldcs(w.packs + p) : __ldg(w.packs + p))
                            : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < PB_RADIK_CL_BATCH; u++) {
            uint32_t p = base + threadIdx.x + u * PB_RADIK_CL_BLOCK;
            f(x[u], p, p < w.pb);
        }
    }
}

/* Whether pack p lies wholly in the row, and the mask of its keys that
 * do (bit e: key e). */
__device__ __forceinline__ bool pb_radik_cl_full(const pb_radik_cl_part &w, uint32_t p)
{
    return 8 * p >= w.head && 8 * p + 8 - w.head <= w.len;
}
__device__ __forceinline__ uint32_t pb_radik_cl_inrow(const pb_radik_cl_part &w, uint32_t p)
{
    if (pb_radik_cl_full(w, p)) return 0xffu;
    uint32_t m = 0;
#pragma unroll
    for (uint32_t e = 0; e < 8; e++) m |= (uint32_t)(8 * p + e - w.head < w.len) << e;
    return m;
}

/* Word j of a pack: its keys 2j (low half) and 2j + 1. */
__device__ __forceinline__ uint32_t pb_radik_cl_word(const uint4 &x, int j)
{
    return j == 0 ? x.x : j == 1 ? x.y : j == 2 ? x.z : x.w;
}

/* The masks of a pack's keys in the row whose order key is above T, and
 * equal to it. Most packs hold no key at T or above: one test a word
 * finds that before the masks are built. */
template <int DT, int LG>
__device__ __forceinline__ void pb_radik_cl_masks(const uint4 &x, uint32_t p, bool in,
                                                  const pb_radik_cl_part &w, uint32_t T,
                                                  uint32_t &gt, uint32_t &eq)
{
    gt = eq = 0;
    if (!in) return;
    uint32_t o[4];
    bool reach = false;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        o[j] = pb_topk_okey16x2(pb_radik_cl_word(x, j), DT, LG);
        reach |= (o[j] & 0xffffu) >= T || (o[j] >> 16) >= T;
    }
    if (!reach) return;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint32_t lo = o[j] & 0xffffu, hi = o[j] >> 16;
        gt |= (uint32_t)(lo > T) << (2 * j) | (uint32_t)(hi > T) << (2 * j + 1);
        eq |= (uint32_t)(lo == T) << (2 * j) | (uint32_t)(hi == T) << (2 * j + 1);
    }
    uint32_t m = pb_radik_cl_inrow(w, p);
    gt &= m;
    eq &= m;
}

/* Writes the keys of mask m (of pack p) at vals/idx[at], [at + 1], ...,
 * at most `room` of them. */
__device__ __forceinline__ void pb_radik_cl_write(uint32_t *vals, uint32_t *idx, uint32_t at,
                                                  const uint4 &x, uint32_t p, uint32_t head,
                                                  uint32_t m, uint32_t room)
{
    for (uint32_t n = 0; m && n < room; n++) {
        uint32_t e = __ffs(m) - 1;
        m &= m - 1;
        vals[at + n] = pb_radik_cl_half(x, e);
        idx[at + n] = 8 * p + e - head;
    }
}

/* Slots for the keys of mask m from counter *ctr, a warp at a time (every
 * lane calls it): this lane's first slot. */
__device__ __forceinline__ uint32_t pb_radik_cl_slots(uint32_t *ctr, uint32_t m)
{
    uint32_t c = __popc(m), incl = pb_radik_warp_incl_sum(c), base = 0;
    if ((threadIdx.x & 31) == 31) base = atomicAdd(ctr, incl);
    return __shfl_sync(0xffffffffu, base, 31) + incl - c;
}

/* The kernel: grid (C, rows), clusters of C blocks along x (block rank =
 * blockIdx.x), one cluster a row. k: the query's k. */
template <int DT, int LG>
__global__ void __launch_bounds__(PB_RADIK_CL_BLOCK, 2)
    pb_radik_cluster16(pb_radik_args<uint32_t> a, uint64_t k)
{
    namespace cg = cooperative_groups;
    __shared__ pb_radik_cl_smem s;
    cg::cluster_group cl = cg::this_cluster();
    const uint32_t C = cl.num_blocks(), b = cl.block_rank(), row = blockIdx.y;
    const uint32_t lane = threadIdx.x & 31;
    const uint64_t rb = a.begin[row];
    pb_radik_cl_part w;
    w.len = (uint32_t)(a.end[row] - rb); /* below 2^31: radik.cu */
    const uint32_t take = (uint32_t)(k < w.len ? k : w.len);
    if (take == 0) return; /* the whole cluster: the row is its own */
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.lane[i] = 0;
    if (threadIdx.x < 2) s.ctr[threadIdx.x] = 0;
    w.head = (uint32_t)(rb & 7);
    w.packs = reinterpret_cast<const uint4 *>(a.data16) + (rb >> 3);
    const uint32_t np = (w.head + w.len + 7) >> 3, per = (np + C - 1) / C;
    w.pa = b * per < np ? b * per : np;
    w.pb = w.pa + per < np ? w.pa + per : np;
    __syncthreads();

    /* Read 1: the high digit (okey >> 8 of each half; times 32, the lane
     * copies' stride: (o >> 3) & 0x1fe0 and (o >> 19) & 0x1fe0). */
    pb_radik_cl_read<false>(w, [=](const uint4 &x, uint32_t p, bool in) {
        if (!in) return;
        uint32_t m = pb_radik_cl_inrow(w, p);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t o = pb_topk_okey16x2(pb_radik_cl_word(x, j), DT, LG);
            if (m >> (2 * j) & 1) atomicAdd(&s.lane[((o >> 3) & 0x1fe0u) | lane], 1u);
            if (m >> (2 * j + 1) & 1) atomicAdd(&s.lane[((o >> 19) & 0x1fe0u) | lane], 1u);
        }
    });
    pb_radik_cl_reduce(s, 0);
    cl.sync();
    /* The pivot bin: thread t < 256 holds bin 255 - t, so an inclusive
     * scan over threads is a sum over the bins from the top. x: the row's
     * keys, y: this block's. */
    {
        uint32_t bin = 255 - threadIdx.x;
        uint3 v = make_uint3(0, 0, 0), incl;
        if (threadIdx.x < 256) {
            for (uint32_t c = 0; c < C; c++) v.x += *cl.map_shared_rank(&s.hist[0][bin], c);
            v.y = s.hist[0][bin];
        }
        pb_radik_cl_scan3(s.scan.s3).InclusiveScan(v, incl, pb_radik_cl_sum3());
        if (threadIdx.x < 256 && incl.x >= take && incl.x - v.x < take) {
            s.sel[PB_RADIK_CL_B] = bin;
            s.sel[PB_RADIK_CL_ABOVE] = incl.x - v.x;
            s.gt1 = incl.y - v.y;
        }
        __syncthreads();
    }
    const uint32_t B = s.sel[PB_RADIK_CL_B], above = s.sel[PB_RADIK_CL_ABOVE];

    /* Read 2: the low digit of the keys in B. */
    const uint32_t B2 = B << 8 | B << 24;
    pb_radik_cl_read<false>(w, [=](const uint4 &x, uint32_t p, bool in) {
        if (!in) return;
        uint32_t m = pb_radik_cl_inrow(w, p);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t o = pb_topk_okey16x2(pb_radik_cl_word(x, j), DT, LG), d = o ^ B2;
            if ((m >> (2 * j) & 1) && !(d & 0xff00u))
                atomicAdd(&s.lane[((o & 0xffu) << 5) | lane], 1u);
            if ((m >> (2 * j + 1) & 1) && !(d & 0xff000000u))
                atomicAdd(&s.lane[((o >> 11) & 0x1fe0u) | lane], 1u);
        }
    });
    pb_radik_cl_reduce(s, 1);
    cl.sync();
    /* The pivot key, and this block's share of the output. x: the row's
     * keys of B with this low digit, y: the blocks' before this one, z:
     * this block's. */
    {
        const uint32_t need = take - above, lo = 255 - threadIdx.x;
        uint3 v = make_uint3(0, 0, 0), incl;
        if (threadIdx.x < 256)
            for (uint32_t c = 0; c < C; c++) {
                uint32_t h = *cl.map_shared_rank(&s.hist[1][lo], c);
                v.x += h;
                v.y += c < b ? h : 0;
                v.z += c == b ? h : 0;
            }
        pb_radik_cl_scan3(s.scan.s3).InclusiveScan(v, incl, pb_radik_cl_sum3());
        if (threadIdx.x < 256 && incl.x >= need && incl.x - v.x < need) {
            uint32_t G = above + incl.x - v.x;
            s.sel[PB_RADIK_CL_T] = (B << 8) | lo;
            s.sel[PB_RADIK_CL_G] = G;
            s.sel[PB_RADIK_CL_E] = take - G;
            s.sel[PB_RADIK_CL_GT_LOW] = incl.y - v.y;
            s.sel[PB_RADIK_CL_EQ_BASE] = v.y;
            s.sel[PB_RADIK_CL_OWN_EQ] = v.z;
        }
        if (threadIdx.x == 256) {
            uint32_t g = 0;
            for (uint32_t c = 0; c < b; c++) g += *cl.map_shared_rank(&s.gt1, c);
            s.sel[PB_RADIK_CL_GT_HIGH] = g;
        }
        __syncthreads();
    }
    /* This block reads no other's shared memory from here on; it waits
     * for the others' reads of its own before it exits. */
    __cluster_barrier_arrive();
    const uint32_t T = s.sel[PB_RADIK_CL_T], G = s.sel[PB_RADIK_CL_G], E = s.sel[PB_RADIK_CL_E];
    const uint32_t eq_base = s.sel[PB_RADIK_CL_EQ_BASE], own_eq = s.sel[PB_RADIK_CL_OWN_EQ];
    const uint32_t quota = E > eq_base ? (E - eq_base < own_eq ? E - eq_base : own_eq) : 0;
    const bool ordered = a.lowest && quota > 0 && quota < own_eq;
    /* The row's output, from the first slot of this block's keys above T
     * (vals, idx) and of its ties (tvals, tidx). */
    const uint64_t out = a.out_off[row];
    const uint32_t gt_at = s.sel[PB_RADIK_CL_GT_HIGH] + s.sel[PB_RADIK_CL_GT_LOW];
    uint32_t *vals = a.vals + out + gt_at, *idx = a.idx + out + gt_at;
    uint32_t *tvals = a.vals + out + G + eq_base, *tidx = a.idx + out + G + eq_base;
    uint32_t taken = 0; /* ordered: this block's ties met so far (a scan's running total) */

    /* Read 3: the output. */
    pb_radik_cl_read<true>(w, [&](const uint4 &x, uint32_t p, bool in) {
        uint32_t gt, eq;
        pb_radik_cl_masks<DT, LG>(x, p, in, w, T, gt, eq);
        if (__any_sync(0xffffffffu, gt != 0))
            pb_radik_cl_write(vals, idx, pb_radik_cl_slots(&s.ctr[0], gt), x, p, w.head, gt, 32);
        if (ordered) {
            /* Block-uniform: taken is the scans' running total. */
            if (taken < quota) {
                uint32_t ex, all;
                pb_radik_cl_scan1(s.scan.s1).ExclusiveSum(__popc(eq), ex, all);
                uint32_t at = taken + ex;
                if (at < quota) pb_radik_cl_write(tvals, tidx, at, x, p, w.head, eq, quota - at);
                taken += all;
                __syncthreads(); /* the scan's storage is used again */
            }
        } else if (quota > 0 && __any_sync(0xffffffffu, eq != 0)) {
            uint32_t at = pb_radik_cl_slots(&s.ctr[1], eq);
            if (at < quota) pb_radik_cl_write(tvals, tidx, at, x, p, w.head, eq, quota - at);
        }
    });
    __cluster_barrier_wait();
}

#endif

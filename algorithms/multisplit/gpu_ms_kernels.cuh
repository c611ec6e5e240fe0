/* The kernels of DMS, WMS and BMS (Ashkiani et al. 2017, Sections 5.4-5.6),
 * for today's warp intrinsics.
 *
 * Layout. A block of PB_MS_WARPS warps handles a tile; warp w of the tile
 * handles 32 * ITEMS consecutive keys, item i of lane l being key
 * warp_start + 32 i + l. Loads are coalesced, and the (item, lane) order is
 * the input order, so ranking items in that order keeps the multisplit
 * stable.
 *
 * Warp-level histograms and offsets (Section 5.5) with binary ballots: for
 * each of the ceil(log2 m) bits of the bucket id a ballot; the AND of the
 * ballots (or their complements) gives every lane the mask of the lanes
 * whose key shares its bucket, and lane l also builds the masks of the
 * buckets it is "in charge of" (l, l + 32, ...), so the running per-bucket
 * counts of the warp live in registers, MAXJ = ceil(m / 32) per lane, and a
 * key's offset is one shuffle from the lane in charge of its bucket.
 *
 * Subproblems: DMS and WMS count per warp tile (H is m x warps), BMS per
 * block tile (m x tiles). H is bucket-major, so one exclusive scan over it
 * gives every (bucket, subproblem) its global base (equation (3)). BMS can
 * instead take its per-tile bases from a decoupled look-back over the
 * tiles' bucket counts (the one-pass chained scan of CUB's onesweep), with
 * the bucket totals counted beforehand: then H is never written. */
#ifndef PB_GPU_MS_KERNELS_CUH
#define PB_GPU_MS_KERNELS_CUH

#include <stdint.h>

#include <cub/block/block_scan.cuh>

#include "algorithms/multisplit/gpu_ms_tuning.cuh"
#include "core/gpu_warp.cuh"
#include "families/multisplit/ms_bucket.h"

#define PB_MS_WARPS PB_MS_POLICY(WARPS)
#define PB_MS_BLOCK (32 * PB_MS_WARPS)
#define PB_MS_FULL 0xffffffffu
/* Registers of bucket counts per lane: ceil(2^NBITS / 32). */
#define PB_MS_MAXJ(NBITS) ((NBITS) <= 5 ? 1 : 1 << ((NBITS)-5))

/* Resident blocks an SM the postscans are compiled for. A postscan loads
 * its tile once and waits on it, so other blocks hide the latency; but
 * capped too far, one spills its ranks. Measured (docs/measured.md):
 * key-only BMS 4 (64 registers) and WMS 3 beat the compiler's own choice
 * (80 and 96 registers); BMS pairs 3 and WMS pairs 2 are what the compiler
 * chose unbounded; DMS keys stay unbounded (0: its 96 registers; bounded
 * to 2 blocks it took 126 and ran slower); DMS pairs, allowed a whole SM's
 * registers, ran faster. */
#define PB_MS_POST_BLOCKS(PAIRS) ((PAIRS) ? 3 : 4)
#define PB_MS_POST_WARP_BLOCKS(PAIRS, REORDER) ((REORDER) ? ((PAIRS) ? 2 : 3) : ((PAIRS) ? 1 : 0))

/* Look-back status words: flag in the top two bits, count below. */
#define PB_MS_AGGREGATE (UINT64_C(1) << 62)
#define PB_MS_PREFIX (UINT64_C(2) << 62)
#define PB_MS_COUNT_MASK ((UINT64_C(1) << 62) - 1)

/* A compile-time bool as a value: a kernel's generic lambda takes one to be
 * compiled once for full tiles (no bounds checks, no branches around each
 * key) and once for the last, partial, tile. */
template <bool B> struct pb_ms_bool {
    static constexpr bool value = B;
};

__device__ __forceinline__ uint32_t pb_ms_lanemask_lt()
{
    uint32_t r;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
    return r;
}

/* Range buckets search their splitters in shared memory. */
__device__ __forceinline__ pb_bucket_fn pb_ms_stage_splitters(pb_bucket_fn fn, uint32_t *s_split)
{
    if (fn.kind == PB_BUCKET_RANGE) {
        for (uint32_t i = threadIdx.x; i + 1 < fn.m; i += blockDim.x) s_split[i] = fn.splitters[i];
        __syncthreads();
        fn.splitters = s_split;
    }
    return fn;
}

/* One window: 32 keys, one per lane. Returns the mask of valid lanes whose
 * key is in this lane's bucket b; adds the window to the counts of the
 * buckets this lane is in charge of; `before` gets the count of b's keys in
 * earlier windows (when WANT_BEFORE). ALL: every lane is valid (a full
 * tile), which saves the ballot of the valid lanes. */
template <int NBITS, int MAXJ, bool WANT_BEFORE, bool ALL = false>
__device__ __forceinline__ uint32_t pb_ms_window(uint32_t b, bool valid, uint32_t (&cnt)[MAXJ],
                                                 uint32_t &before)
{
    const uint32_t lane = threadIdx.x & 31;
    const uint32_t vmask = ALL ? PB_MS_FULL : __ballot_sync(PB_MS_FULL, valid);
    uint32_t peers = vmask;
    uint32_t own[MAXJ];
#pragma unroll
    for (int j = 0; j < MAXJ; j++) own[j] = vmask;
    /* bal ^ (bit - 1) is bal where the bit is set and ~bal where it is not:
     * one three-input logic op with the AND. NBITS is a compile-time
     * constant so the lane's own flips are computed once per kernel. */
#pragma unroll
    for (int k = 0; k < NBITS; k++) {
        const uint32_t bal = __ballot_sync(PB_MS_FULL, (b >> k) & 1u);
        peers &= bal ^ (((b >> k) & 1u) - 1u);
#pragma unroll
        for (int j = 0; j < MAXJ; j++) own[j] &= bal ^ ((((lane + 32u * j) >> k) & 1u) - 1u);
    }
    if (WANT_BEFORE && MAXJ == 1) {
        before = __shfl_sync(PB_MS_FULL, cnt[0], b & 31u); /* b < 32 */
    } else if (WANT_BEFORE) {
        before = 0;
#pragma unroll
        for (int j = 0; j < MAXJ; j++) {
            uint32_t t = __shfl_sync(PB_MS_FULL, cnt[j], b & 31u);
            if ((uint32_t)j == (b >> 5)) before = t;
        }
    }
#pragma unroll
    for (int j = 0; j < MAXJ; j++) cnt[j] += __popc(own[j]);
    return peers;
}

/* The same for m > 32, where keeping counts for ceil(m / 32) buckets per
 * lane would cost ceil(m / 32) * log2 m mask operations a window: the
 * warp's counts live in its row of shared memory instead, and the lowest
 * lane of each group of peers (distinct groups have distinct buckets, so no
 * atomics) adds the group's size. */
template <int NBITS, bool WANT_BEFORE>
__device__ __forceinline__ uint32_t pb_ms_window_smem(uint32_t b, bool valid, uint32_t *cnt,
                                                      uint32_t &before)
{
    const uint32_t lane = threadIdx.x & 31;
    uint32_t peers = __ballot_sync(PB_MS_FULL, valid);
#pragma unroll
    for (int k = 0; k < NBITS; k++) {
        const uint32_t bal = __ballot_sync(PB_MS_FULL, (b >> k) & 1u);
        peers &= bal ^ (((b >> k) & 1u) - 1u);
    }
    uint32_t c = valid ? cnt[b] : 0;
    if (WANT_BEFORE) before = c;
    __syncwarp();
    if (valid && lane == (uint32_t)(__ffs(peers) - 1)) cnt[b] = c + __popc(peers);
    __syncwarp();
    return peers;
}

/* The bucket ids of ITEMS keys, for one bucket kind: with the kind a
 * constant, pb_bucket_of's switch folds away instead of running per key. */
template <int KIND, int ITEMS>
__device__ __forceinline__ void pb_ms_buckets_of(pb_bucket_fn fn, const uint32_t (&k)[ITEMS],
                                                 uint32_t (&b)[ITEMS])
{
    fn.kind = KIND;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) b[i] = pb_bucket_of(fn, k[i]);
}

template <int ITEMS>
__device__ __forceinline__ void pb_ms_buckets(pb_bucket_fn fn, const uint32_t (&k)[ITEMS],
                                              uint32_t (&b)[ITEMS])
{
    switch (fn.kind) {
    case PB_BUCKET_DELTA: pb_ms_buckets_of<PB_BUCKET_DELTA>(fn, k, b); break;
    case PB_BUCKET_IDENTITY: pb_ms_buckets_of<PB_BUCKET_IDENTITY>(fn, k, b); break;
    case PB_BUCKET_RADIX: pb_ms_buckets_of<PB_BUCKET_RADIX>(fn, k, b); break;
    default: pb_ms_buckets_of<PB_BUCKET_RANGE>(fn, k, b); break;
    }
}

/* Ranks a warp's ITEMS windows (m <= 32): rank[i] is the number of the
 * warp's keys before item i, in input order, with its bucket. Returns the
 * count of bucket `lane` in the warp. FULL: all the warp's keys are below
 * n. */
template <int ITEMS, int NBITS, bool FULL = false>
__device__ __forceinline__ uint32_t pb_ms_rank_warp(const uint32_t (&b)[ITEMS],
                                                    uint32_t warp_start, uint32_t n,
                                                    uint32_t (&rank)[ITEMS])
{
    const uint32_t lane = threadIdx.x & 31;
    uint32_t cnt[1] = {0};
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t before;
        uint32_t peers = pb_ms_window<NBITS, 1, true, FULL>(
            b[i], FULL || warp_start + 32u * i + lane < n, cnt, before);
        rank[i] = before + __popc(peers & pb_ms_lanemask_lt());
    }
    return cnt[0];
}

/* Loads a warp's ITEMS windows (coalesced) and their bucket ids. FULL:
 * all of them are below n. */
template <int ITEMS, bool PAIRS, bool FULL = false>
__device__ __forceinline__ void pb_ms_load(const uint32_t *__restrict__ keys,
                                           const uint32_t *__restrict__ vals, uint32_t n,
                                           uint32_t warp_start, pb_bucket_fn fn,
                                           uint32_t (&k)[ITEMS], uint32_t (&v)[ITEMS],
                                           uint32_t (&b)[ITEMS])
{
    const uint32_t lane = threadIdx.x & 31;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t idx = warp_start + 32u * i + lane;
        k[i] = FULL || idx < n ? keys[idx] : 0;
        if (PAIRS) v[i] = FULL || idx < n ? vals[idx] : 0;
    }
    pb_ms_buckets(fn, k, b);
}

/* The prescan only counts, so a lane may hold any of the warp's keys: 16-byte
 * loads, lane l's item 4j + t being key warp_start + 128 j + 4 l + t. The
 * keys are 16-byte aligned (a cudaMalloc'd array; warp_start a multiple of
 * 32 * ITEMS). Returns the mask of valid items. */
template <int ITEMS>
__device__ __forceinline__ uint32_t pb_ms_load_any(const uint32_t *__restrict__ keys, uint32_t n,
                                                   uint32_t warp_start, pb_bucket_fn fn,
                                                   uint32_t (&k)[ITEMS], uint32_t (&b)[ITEMS])
{
    static_assert(ITEMS % 4 == 0 && ITEMS <= 32, "whole 16-byte packs");
    const uint32_t lane = threadIdx.x & 31;
    uint32_t valid = 0;
#pragma unroll
    for (int j = 0; j < ITEMS / 4; j++) {
        uint32_t idx = warp_start + 128u * j + 4u * lane;
        uint4 x;
        if (idx + 4 <= n) {
            x = *reinterpret_cast<const uint4 *>(keys + idx);
        } else {
            x.x = idx < n ? keys[idx] : 0;
            x.y = idx + 1 < n ? keys[idx + 1] : 0;
            x.z = idx + 2 < n ? keys[idx + 2] : 0;
            x.w = 0; /* idx + 3 >= n here */
        }
        k[4 * j] = x.x;
        k[4 * j + 1] = x.y;
        k[4 * j + 2] = x.z;
        k[4 * j + 3] = x.w;
#pragma unroll
        for (int t = 0; t < 4; t++) valid |= (uint32_t)(idx + t < n) << (4 * j + t);
    }
    pb_ms_buckets(fn, k, b);
    return valid;
}

/* Prescan counts for m <= 32 without ballots. Each lane counts its own keys
 * in 8-bit fields, four buckets to a word (at most 255 keys a lane): in
 * registers for m <= 8, else in the lane's own column of shared memory,
 * which no other lane touches (no atomics, no barriers). redux.sync then
 * sums each word over the warp in two 16-bit halves. That is about 8
 * instructions a key per lane, so 8 warp instructions per 32 keys, where
 * the ballot window costs 14 (m = 8) to 22 (m = 32), and the ballot
 * prescan was compute-bound, not memory-bound (docs/measured.md). Returns the warp's
 * count of bucket `lane`. */
/* Words of a lane's counters (four buckets each), and whether they fit in
 * registers; the prescan sizes its shared columns by them. */
__host__ __device__ constexpr int pb_ms_lane_words(int nbits)
{
    return nbits > 2 ? 1 << (nbits - 2) : 1;
}
__host__ __device__ constexpr bool pb_ms_lane_regs(int nbits)
{
    return pb_ms_lane_words(nbits) <= 2;
}

template <int ITEMS, int NBITS>
__device__ __forceinline__ uint32_t pb_ms_count_lanes(const uint32_t (&b)[ITEMS], uint32_t valid,
                                                      uint32_t *s_col)
{
    static_assert(NBITS <= 5 && ITEMS <= 255, "8-bit fields of at most 32 buckets");
    constexpr int W = pb_ms_lane_words(NBITS);
    constexpr bool REGS = pb_ms_lane_regs(NBITS);
    uint32_t c[W];
#pragma unroll
    for (int w = 0; w < W; w++) {
        if constexpr (REGS) c[w] = 0;
        else s_col[w * PB_MS_BLOCK] = 0;
    }
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        const uint32_t inc = ((valid >> i) & 1u) << ((b[i] & 3u) << 3);
        if constexpr (REGS) {
#pragma unroll
            for (int w = 0; w < W; w++) c[w] += (b[i] >> 2) == (uint32_t)w ? inc : 0u;
        } else {
            s_col[(b[i] >> 2) * PB_MS_BLOCK] += inc;
        }
    }
    const uint32_t lane = threadIdx.x & 31;
    uint32_t mine = 0;
#pragma unroll
    for (int w = 0; w < W; w++) {
        uint32_t x;
        if constexpr (REGS) x = c[w];
        else x = s_col[w * PB_MS_BLOCK];
        const uint32_t lo = pb_warp_add(PB_MS_FULL, x & 0x00ff00ffu);
        const uint32_t hi = pb_warp_add(PB_MS_FULL, (x >> 8) & 0x00ff00ffu);
        /* Bucket 4w + r sits in lo's low half (r = 0), hi's low (1), lo's
         * high (2), hi's high (3). */
        if ((lane >> 2) == (uint32_t)w) {
            const uint32_t h = (lane & 1u) ? hi : lo;
            mine = (lane & 2u) ? h >> 16 : h & 0xffffu;
        }
    }
    return mine;
}

/* Prescan. PER_WARP: H[b * subproblems + warp] (DMS, WMS); else per block
 * tile: H[b * tiles + tile] (BMS, matrix), or, with totals != NULL, the
 * tile's counts added to the bucket totals (BMS, look-back). */
template <int ITEMS, int NBITS, bool PER_WARP, bool LANES>
__global__ void __launch_bounds__(PB_MS_BLOCK)
    pb_ms_prescan(const uint32_t *__restrict__ keys, uint32_t n, pb_bucket_fn fn,
                  uint32_t *__restrict__ H, uint32_t subproblems, uint32_t *__restrict__ totals)
{
    constexpr int MAXJ = PB_MS_MAXJ(NBITS);
    static_assert(!LANES || MAXJ == 1, "lane counters for m <= 32");
    __shared__ uint32_t s_split[PB_MS_MAX_BUCKETS];
    __shared__ uint32_t s_hist[PB_MS_WARPS][32 * MAXJ];
    __shared__ uint32_t s_cols[LANES && !pb_ms_lane_regs(NBITS) ? pb_ms_lane_words(NBITS) : 1]
                              [PB_MS_BLOCK];
    fn = pb_ms_stage_splitters(fn, s_split);
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint32_t tile = blockIdx.x;
    const uint32_t warp_start = tile * (PB_MS_BLOCK * ITEMS) + warp * (32 * ITEMS);
    uint32_t k[ITEMS], b[ITEMS];
    const uint32_t valid = pb_ms_load_any<ITEMS>(keys, n, warp_start, fn, k, b);
    uint32_t unused;
    if constexpr (LANES) {
        s_hist[warp][lane] = pb_ms_count_lanes<ITEMS, NBITS>(b, valid, &s_cols[0][threadIdx.x]);
    } else if (MAXJ == 1) {
        uint32_t cnt[1] = {0};
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            pb_ms_window<NBITS, 1, false>(b[i], (valid >> i) & 1, cnt, unused);
        s_hist[warp][lane] = cnt[0];
    } else {
#pragma unroll
        for (int j = 0; j < MAXJ; j++) s_hist[warp][lane + 32 * j] = 0;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < ITEMS; i++)
            pb_ms_window_smem<NBITS, false>(b[i], (valid >> i) & 1, s_hist[warp], unused);
    }
    __syncthreads();
    const uint32_t m = fn.m;
    if (PER_WARP) {
        /* Transposed through shared memory: each bucket's row gets 8
         * consecutive words (one sector) per block. */
        for (uint32_t e = threadIdx.x; e < m * PB_MS_WARPS; e += PB_MS_BLOCK) {
            uint32_t bb = e / PB_MS_WARPS, w = e % PB_MS_WARPS;
            H[(uint64_t)bb * subproblems + tile * PB_MS_WARPS + w] = s_hist[w][bb];
        }
    } else {
        for (uint32_t bb = threadIdx.x; bb < m; bb += PB_MS_BLOCK) {
            uint32_t sum = 0;
#pragma unroll
            for (int w = 0; w < PB_MS_WARPS; w++) sum += s_hist[w][bb];
            if (totals) {
                if (sum) atomicAdd(&totals[bb], sum);
            } else {
                H[(uint64_t)bb * subproblems + tile] = sum;
            }
        }
    }
}

/* DMS and WMS postscan: per warp tile, G[b * warps + warp] is the global base
 * of bucket b's keys of this warp (m <= 32). WMS first reorders the warp's
 * keys by bucket in shared memory (Section 5.6.1) so that its writes are
 * runs of consecutive addresses; DMS writes each key straight to its place. */
template <int ITEMS, int NBITS, bool PAIRS, bool REORDER>
__global__ void __launch_bounds__(PB_MS_BLOCK, PB_MS_POST_WARP_BLOCKS(PAIRS, REORDER))
    pb_ms_postscan_warp(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                        uint32_t n, pb_bucket_fn fn, const uint32_t *__restrict__ G,
                        uint32_t warps, uint32_t *__restrict__ okeys, uint32_t *__restrict__ ovals)
{
    __shared__ uint32_t s_split[PB_MS_MAX_BUCKETS];
    __shared__ uint32_t s_keys[REORDER ? PB_MS_BLOCK * ITEMS : 1];
    __shared__ uint32_t s_vals[REORDER && PAIRS ? PB_MS_BLOCK * ITEMS : 1];
    __shared__ uint8_t s_b[REORDER ? PB_MS_BLOCK * ITEMS : 1];
    fn = pb_ms_stage_splitters(fn, s_split);
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint32_t gw = blockIdx.x * PB_MS_WARPS + warp;
    const uint32_t warp_start = gw * (32 * ITEMS);
    if (warp_start >= n) return; /* whole warps only: no block barrier follows */
    uint32_t k[ITEMS], v[ITEMS], b[ITEMS], rank[ITEMS];
    pb_ms_load<ITEMS, PAIRS>(keys, vals, n, warp_start, fn, k, v, b);
    const uint32_t cnt = pb_ms_rank_warp<ITEMS, NBITS>(b, warp_start, n, rank);
    const uint32_t m = fn.m;
    const uint32_t gbase = lane < m ? G[(uint64_t)lane * warps + gw] : 0;
    if (!REORDER) {
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t g = __shfl_sync(PB_MS_FULL, gbase, b[i] & 31u) + rank[i];
            if (warp_start + 32u * i + lane < n) {
                okeys[g] = k[i];
                if (PAIRS) ovals[g] = v[i];
            }
        }
        return;
    }
    /* The warp's bucket starts: an exclusive scan over the lanes in charge. */
    uint32_t c = lane < m ? cnt : 0, incl = c;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t t = __shfl_up_sync(PB_MS_FULL, incl, d);
        if (lane >= (uint32_t)d) incl += t;
    }
    const uint32_t wstart = incl - c;
    uint32_t *sk = s_keys + warp * 32 * ITEMS;
    uint32_t *sv = s_vals + (PAIRS ? warp * 32 * ITEMS : 0);
    uint8_t *sb = s_b + warp * 32 * ITEMS;
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t pos = __shfl_sync(PB_MS_FULL, wstart, b[i] & 31u) + rank[i];
        if (warp_start + 32u * i + lane < n) {
            sk[pos] = k[i];
            if (PAIRS) sv[pos] = v[i];
            sb[pos] = (uint8_t)b[i];
        }
    }
    __syncwarp();
    const uint32_t valid = min(n - warp_start, 32u * ITEMS);
#pragma unroll
    for (int i = 0; i < ITEMS; i++) {
        uint32_t j = 32u * i + lane;
        uint32_t bj = j < valid ? sb[j] : 0;
        uint32_t g = __shfl_sync(PB_MS_FULL, gbase, bj) + j - __shfl_sync(PB_MS_FULL, wstart, bj);
        if (j < valid) {
            okeys[g] = sk[j];
            if (PAIRS) ovals[g] = sv[j];
        }
    }
}

/* Ranks a block tile (Section 5.5.4): rank[i] is the number of keys of
 * item i's bucket before it in its warp, s_whist[w][b] becomes the count of
 * bucket b in the warps before w, and thread t < m gets bucket t's count in
 * the tile. Ends past a barrier. FULL: the tile holds no key past n. */
template <int ITEMS, int NBITS, bool FULL, int ROW>
__device__ __forceinline__ uint32_t pb_ms_rank_block(const uint32_t (&b)[ITEMS],
                                                     uint32_t warp_start, uint32_t n, uint32_t m,
                                                     uint32_t (&rank)[ITEMS],
                                                     uint32_t (*s_whist)[ROW])
{
    constexpr int MAXJ = PB_MS_MAXJ(NBITS);
    static_assert(ROW == 32 * MAXJ, "a row of counts per warp");
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31, t = threadIdx.x;
    if (MAXJ == 1) {
        s_whist[warp][lane] = pb_ms_rank_warp<ITEMS, NBITS, FULL>(b, warp_start, n, rank);
    } else {
#pragma unroll
        for (int j = 0; j < MAXJ; j++) s_whist[warp][lane + 32 * j] = 0;
        __syncwarp();
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t before;
            uint32_t peers = pb_ms_window_smem<NBITS, true>(
                b[i], FULL || warp_start + 32u * i + lane < n, s_whist[warp], before);
            rank[i] = before + __popc(peers & pb_ms_lanemask_lt());
        }
    }
    __syncthreads();
    uint32_t tcount = 0;
    if (t < m) {
#pragma unroll
        for (int w = 0; w < PB_MS_WARPS; w++) {
            uint32_t c = s_whist[w][t];
            s_whist[w][t] = tcount;
            tcount += c;
        }
    }
    return tcount;
}

/* BMS postscan: the block tile's keys are ranked per warp, combined across
 * warps (Section 5.5.4), reordered by bucket over the whole tile in shared
 * memory (Section 5.6.2) and written out. The tile's global bases come from
 * G (matrix scan) or, when LOOKBACK, from the bucket totals and a decoupled
 * look-back over the earlier tiles' counts. */
template <int ITEMS, int NBITS, bool PAIRS, bool LOOKBACK>
__global__ void __launch_bounds__(PB_MS_BLOCK, PB_MS_POST_BLOCKS(PAIRS))
    pb_ms_postscan_block(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals,
                         uint32_t n, pb_bucket_fn fn, const uint32_t *__restrict__ G,
                         uint32_t tiles, const uint32_t *__restrict__ totals,
                         unsigned long long *status, uint32_t *tile_counter,
                         uint32_t *__restrict__ okeys, uint32_t *__restrict__ ovals)
{
    constexpr int TILE = PB_MS_BLOCK * ITEMS;
    constexpr int MAXJ = PB_MS_MAXJ(NBITS);
    typedef cub::BlockScan<uint32_t, PB_MS_BLOCK> scan_t;
    __shared__ union {
        typename scan_t::TempStorage scan;
    } s_u;
    __shared__ uint32_t s_split[PB_MS_MAX_BUCKETS];
    __shared__ uint32_t s_whist[PB_MS_WARPS][32 * MAXJ];
    __shared__ uint32_t s_shift[32 * MAXJ];
    __shared__ uint32_t s_keys[TILE];
    __shared__ uint32_t s_vals[PAIRS ? TILE : 1];
    __shared__ uint8_t s_b[TILE];
    __shared__ uint32_t s_tile;

    fn = pb_ms_stage_splitters(fn, s_split);
    if (LOOKBACK) {
        /* Tiles in the order blocks start, so every look-back waits only on
         * blocks that are already running. */
        if (threadIdx.x == 0) s_tile = atomicAdd(tile_counter, 1u);
        __syncthreads();
    }
    const uint32_t tile = LOOKBACK ? s_tile : blockIdx.x;
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const uint32_t tile_start = tile * TILE;
    const uint32_t warp_start = tile_start + warp * (32 * ITEMS);
    /* Thread t is in charge of bucket t (m <= 256 = PB_MS_BLOCK): the
     * tile's count, the tile's bucket starts, global base. */
    const uint32_t m = fn.m, t = threadIdx.x;
    auto body = [&](auto full) {
        constexpr bool FULL = decltype(full)::value;
        /* br[i] packs item i's rank (below 32 * ITEMS) over its bucket id (8
         * bits): only ITEMS registers stay live across the tile's scan and
         * barriers. */
        static_assert(32 * ITEMS <= (1 << 24), "ranks fit above the bucket id");
        uint32_t k[ITEMS], v[ITEMS], br[ITEMS], tcount;
        {
            uint32_t b[ITEMS], rank[ITEMS];
            pb_ms_load<ITEMS, PAIRS, FULL>(keys, vals, n, warp_start, fn, k, v, b);
            tcount = pb_ms_rank_block<ITEMS, NBITS, FULL>(b, warp_start, n, m, rank, s_whist);
#pragma unroll
            for (int i = 0; i < ITEMS; i++) br[i] = rank[i] << 8 | b[i];
        }
        uint32_t bstart, gbase = 0;
        scan_t(s_u.scan).ExclusiveSum(tcount, bstart);
        if (LOOKBACK) {
            uint32_t total = t < m ? totals[t] : 0, gstart;
            __syncthreads(); /* the scan storage is reused */
            scan_t(s_u.scan).ExclusiveSum(total, gstart);
            if (t < m) {
                unsigned long long *my = status + (uint64_t)tile * m + t;
                uint64_t prefix = 0;
                if (tile == 0) {
                    atomicExch(my, PB_MS_PREFIX | tcount);
                } else {
                    atomicExch(my, PB_MS_AGGREGATE | tcount);
                    for (int64_t p = (int64_t)tile - 1; p >= 0; p--) {
                        volatile unsigned long long *ps = status + (uint64_t)p * m + t;
                        unsigned long long s;
                        do {
                            s = *ps;
                        } while ((s >> 62) == 0);
                        prefix += s & PB_MS_COUNT_MASK;
                        if ((s & ~PB_MS_COUNT_MASK) == PB_MS_PREFIX) break;
                    }
                    atomicExch(my, PB_MS_PREFIX | (prefix + tcount));
                }
                gbase = gstart + (uint32_t)prefix;
            }
        } else if (t < m) {
            gbase = G[(uint64_t)t * tiles + tile];
        }
        /* s_whist[w][t] becomes where warp w's keys of bucket t start in the
         * reordered tile, s_shift[t] what turns a tile position of bucket t
         * into its global one: the scatter and the write each look up one
         * word a key. */
        if (t < m) {
#pragma unroll
            for (int w = 0; w < PB_MS_WARPS; w++) s_whist[w][t] += bstart;
            s_shift[t] = gbase - bstart;
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            if (FULL || warp_start + 32u * i + lane < n) {
                const uint32_t b = br[i] & 0xffu, pos = s_whist[warp][b] + (br[i] >> 8);
                s_keys[pos] = k[i];
                if (PAIRS) s_vals[pos] = v[i];
                s_b[pos] = (uint8_t)b;
            }
        }
        __syncthreads();
        const uint32_t valid = FULL ? TILE : min(n - tile_start, (uint32_t)TILE);
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t j = PB_MS_BLOCK * i + t;
            if (FULL || j < valid) {
                uint32_t g = s_shift[s_b[j]] + j;
                okeys[g] = s_keys[j];
                if (PAIRS) ovals[g] = s_vals[j];
            }
        }
    };
    if (tile_start + TILE <= n) body(pb_ms_bool<true>());
    else body(pb_ms_bool<false>());
}

#endif

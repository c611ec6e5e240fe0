/* The kernels of onesweep-ms: a stable multisplit in one pass over the
 * keys after a histogram, in the style of CUB's onesweep radix sort pass
 * (Adinets and Merrill 2022), with any bucket identifier of the family in
 * place of a radix digit.
 *
 *   pb_os_histogram  counts the buckets of all keys (per-warp shared
 *                    histograms, one global atomic a bucket a block); the
 *                    last block to finish turns the counts into each
 *                    bucket's first output position. It also zeroes the
 *                    pass's look-back words and resets the tile counter,
 *                    so a run is two launches and no memset.
 *   pb_os_pass       one tile a block, tiles taken in launch order from a
 *                    counter (a block only ever waits on tiles already
 *                    running): the tile's keys are ranked stably by bucket
 *                    with CUB's BlockRadixRankMatchEarlyCounts (warp-striped
 *                    keys, match-by-ballot over the bucket id's NB bits),
 *                    whose early per-bucket counts are published at once for
 *                    the decoupled look-back; the keys (then the values) are
 *                    reordered in shared memory and written out, runs of one
 *                    bucket contiguous.
 *
 * NB = ceil(log2 m), at least 5 (CUB's ranker needs a warp's worth of
 * bins), is a template parameter: the ranking's ballot loop and histograms
 * have 2^NB entries, so m = 64 costs six ballots a key where a radix sort
 * pass over 6 bits (CUB's, 8-bit digits) costs eight.
 *
 * Look-back words are 32 bits: a 2-bit state (partial: this tile's count;
 * global: the inclusive count over tiles 0..t) and a 30-bit count, so n is
 * below 2^30. */
#ifndef PB_GPU_OS_KERNELS_CUH
#define PB_GPU_OS_KERNELS_CUH

#include <stdint.h>

#include <cub/block/block_radix_rank.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_pipeline_primitives.h>

#include "algorithms/multisplit/gpu_ms_tuning.cuh"
#include "families/multisplit/ms_bucket.h"

/* A pass's tile: BLOCK threads of ITEMS keys, MINB blocks an SM (which
 * caps the registers). CUB's sm90 onesweep tuning is 384 x 20 for 4-byte
 * keys and 384 x 23 for 4-byte key-value pairs, two blocks an SM. PERM
 * (pairs): the values are not reordered in a buffer of their own; the key
 * reorder also writes each position's source slot (16 bits) and the
 * write-out reads the value from the staged tile through it: 2.5 tile
 * words of shared memory, not 3, so larger tiles fit two blocks an SM,
 * with the keys' registers and no per-slot state kept across the
 * write-out. (The earlier SEQ form, values reordered after the keys
 * through the keys' buffer, kept every slot's rank and bucket live across
 * the key write-out and spilled at 384 x 28: millions of local-memory
 * requests a pass, docs/measured.md.) */
template <int BLOCK_, int ITEMS_, int MINB_, bool PERM_ = false> struct pb_os_shape {
    static constexpr int BLOCK = BLOCK_, ITEMS = ITEMS_, MINB = MINB_;
    static constexpr bool PERM = PERM_;
    static_assert(!PERM_ || BLOCK_ * ITEMS_ <= 65536, "16-bit source slots");
};
#define PB_OS_HBLOCK PB_MS_POLICY(OS_HBLOCK)
#define PB_OS_PARTIAL (1u << 30)
#define PB_OS_GLOBAL (1u << 31)
#define PB_OS_COUNT (PB_OS_PARTIAL - 1u)
#define PB_OS_MAX_N (UINT64_C(1) << 30)

/* A bucket id as CUB's rankers ask for it ("digit"), for one bucket kind:
 * with the kind a constant, pb_bucket_of's switch folds away (a multiply
 * for delta buckets). The key goes through an opaque move first: the
 * ranker asks for each key's digit twice, across a barrier, and the
 * compiler otherwise keeps all of a thread's digits live in between
 * (20 registers more, and spills at two blocks an SM) to save a multiply. */
template <int KIND> struct pb_os_digit {
    pb_bucket_fn fn;
    __device__ __forceinline__ uint32_t Digit(uint32_t key) const
    {
        pb_bucket_fn f = fn;
        f.kind = KIND;
        uint32_t k;
        asm volatile("mov.b32 %0, %1;" : "=r"(k) : "r"(key));
        return pb_bucket_of(f, k);
    }
};

/* Range buckets search their splitters in shared memory. */
__device__ __forceinline__ void pb_os_splitters(pb_bucket_fn &fn, uint32_t *spl, int threads)
{
    if (fn.kind != PB_BUCKET_RANGE) return;
    for (uint32_t i = threadIdx.x; i + 1 < fn.m; i += threads) spl[i] = fn.splitters[i];
    fn.splitters = spl;
}

/* hist: m zero words (left zero); bins: each bucket's first output
 * position; lookback: `words` to zero; ctrs[0] the pass's tile counter,
 * ctrs[1] this kernel's count of finished blocks (both left zero). */
template <int NB, int KIND>
__global__ void __launch_bounds__(PB_OS_HBLOCK)
    pb_os_histogram(const uint32_t *__restrict__ keys, uint32_t n, pb_bucket_fn fn,
                    uint32_t *hist, uint32_t *bins, uint32_t *lookback, uint32_t words,
                    uint32_t *ctrs)
{
    constexpr int D = 1 << NB, WARPS = PB_OS_HBLOCK / 32;
    using scan_t = cub::BlockScan<uint32_t, PB_OS_HBLOCK>;
    __shared__ uint32_t h[WARPS][D];
    __shared__ uint32_t spl[PB_MS_MAX_BUCKETS];
    __shared__ typename scan_t::TempStorage scan;
    __shared__ bool last;
    for (int i = threadIdx.x; i < WARPS * D; i += PB_OS_HBLOCK) (&h[0][0])[i] = 0;
    pb_os_splitters(fn, spl, PB_OS_HBLOCK);
    const pb_os_digit<KIND> digit{fn};
    const uint32_t tid = blockIdx.x * PB_OS_HBLOCK + threadIdx.x;
    const uint32_t stride = gridDim.x * PB_OS_HBLOCK;
    for (uint32_t i = tid; i < words; i += stride) lookback[i] = 0;
    __syncthreads();
    uint32_t *mine = h[threadIdx.x / 32];
    auto count = [&](uint32_t key) { atomicAdd(&mine[digit.Digit(key)], 1u); };
    auto count4 = [&](uint4 v) { count(v.x), count(v.y), count(v.z), count(v.w); };
    /* Four 16-byte loads in flight a thread, then their 16 keys counted. */
    const uint4 *k4 = reinterpret_cast<const uint4 *>(keys);
    const uint32_t n4 = n / 4;
    uint32_t i = tid;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = k4[i + j * stride];
#pragma unroll
        for (int j = 0; j < 4; j++) count4(v[j]);
    }
    for (; i < n4; i += stride) count4(k4[i]);
    if (tid < n - 4 * n4) count(keys[4 * n4 + tid]);
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < fn.m; b += PB_OS_HBLOCK) {
        uint32_t s = 0;
#pragma unroll
        for (int w = 0; w < WARPS; w++) s += h[w][b];
        if (s) atomicAdd(&hist[b], s);
    }
    /* The last block to finish sees every block's counts (threadfence
     * before the count of finished blocks, the classic last-block
     * pattern) and scans them. */
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) last = atomicAdd(&ctrs[1], 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    uint32_t c = threadIdx.x < fn.m ? __ldcg(&hist[threadIdx.x]) : 0, ex;
    scan_t(scan).ExclusiveSum(c, ex);
    if (threadIdx.x < fn.m) {
        bins[threadIdx.x] = ex;
        hist[threadIdx.x] = 0;
    }
    if (threadIdx.x == 0) ctrs[0] = ctrs[1] = 0;
}

template <int NB, class S>
using pb_os_rank_t = cub::BlockRadixRankMatchEarlyCounts<S::BLOCK, NB, false,
                                                         cub::BLOCK_SCAN_RAKING_MEMOIZE,
                                                         cub::WARP_MATCH_ANY, 1>;

/* The ranker hands each thread its bucket's count in the tile as soon as
 * the tile's histogram is known, before the ranks: published at once as
 * the tile's partial count (or, for tile 0, as the global one). */
struct pb_os_publish {
    static constexpr bool EMPTY = false;
    uint32_t *word; /* this tile's look-back word of this thread's bucket, or NULL */
    bool first;
    int &count;
    __device__ __forceinline__ void operator()(int (&bins)[1])
    {
        count = bins[0];
        if (word)
            *(volatile uint32_t *)word = (uint32_t)bins[0] | (first ? PB_OS_GLOBAL : PB_OS_PARTIAL);
    }
};

/* Keys, and for pairs the values beside them (PERM: each position's
 * source slot), each in tile order after the reorder; the ranker's storage
 * is dead by then and shares their space. Pairs also stage the tile's
 * values in input order (`stage`, filled by cp.async while the keys are
 * ranked). Pairs take 3 x 35 KB at 384 x 23 (PERM at 384 x 28: 2 x 43 +
 * 21 KB): dynamic shared memory. */
template <int NB, class S, bool PAIRS> struct pb_os_smem {
    static constexpr int TILE = S::BLOCK * S::ITEMS;
    uint32_t stage[PAIRS ? TILE : 1];
    union {
        struct {
            uint32_t keys[TILE];
            uint32_t vals[PAIRS && !S::PERM ? TILE : 1];
        };
        typename pb_os_rank_t<NB, S>::TempStorage rank;
    };
    uint16_t perm[PAIRS && S::PERM ? TILE : 1];
    uint32_t goff[1 << NB];
    uint32_t spl[PB_MS_MAX_BUCKETS];
    uint32_t tile;
};

/* One tile; FULL: all of its TILE slots hold keys (every tile but the
 * last). Slots past n hold the key 0xffffffff, which every bucket
 * identifier of the family maps to the largest bucket any key reaches
 * (m - 1; for radix digits cut short by the word's end, all ones); they
 * are the tile's last keys, so the stable ranking puts them after every
 * real key and they occupy its last positions, which are not written
 * (CUB's default-key rule). */
template <int NB, class S, bool PAIRS, int KIND, bool FULL>
__device__ __forceinline__ void pb_os_tile(const uint32_t *__restrict__ keys,
                                           const uint32_t *__restrict__ vals, uint32_t n,
                                           const pb_bucket_fn &fn, const uint32_t *bins,
                                           uint32_t *lookback, uint32_t *okeys, uint32_t *ovals,
                                           pb_os_smem<NB, S, PAIRS> &s, uint32_t tile)
{
    constexpr int ITEMS = S::ITEMS;
    constexpr uint32_t TILE = S::BLOCK * ITEMS;
    static_assert((1 << NB) <= S::BLOCK, "one bucket a thread");
    const uint32_t base = tile * TILE, m = fn.m;
    const uint32_t lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    /* Warp-striped: slot u of a lane is key base + warp * ITEMS * 32 + u * 32
     * + lane, so each load is a warp's 128 contiguous bytes and the slots
     * in (warp, u, lane) order are the input order the ranking keeps. */
    const uint32_t first = base + warp * ITEMS * 32 + lane;
    if (PAIRS) {
        /* The values' loads go out now, straight to shared memory (no
         * registers; cp.async through CUDA's pipeline primitives), and land
         * while the keys are ranked: 16-byte copies of the tile in input
         * order, zero-filled past n. */
        static_assert(TILE % 4 == 0, "16-byte chunks");
        for (uint32_t c = threadIdx.x; c < TILE / 4; c += S::BLOCK) {
            uint32_t at = base + 4 * c;
            if (FULL || at + 4 <= n) {
                __pipeline_memcpy_async(&s.stage[4 * c], vals + at, 16);
            } else {
                /* Past n: one value a copy, so no read leaves the array. */
                for (uint32_t j = 0; j < 4; j++)
                    __pipeline_memcpy_async(&s.stage[4 * c + j], at + j < n ? vals + at + j : vals,
                                            4, at + j < n ? 0 : 4);
            }
        }
        __pipeline_commit();
    }
    uint32_t key[ITEMS];
#pragma unroll
    for (int u = 0; u < ITEMS; u++) {
        uint32_t i = first + u * 32;
        key[u] = FULL || i < n ? keys[i] : 0xffffffffu;
    }
    int rank[ITEMS], excl[1], count = 0;
    pb_os_publish pub{threadIdx.x < m ? &lookback[(size_t)tile * m + threadIdx.x] : nullptr,
                      tile == 0, count};
    const pb_os_digit<KIND> digit{fn};
    pb_os_rank_t<NB, S>(s.rank).RankKeys(key, rank, digit, excl, pub);
    if (PAIRS) __pipeline_wait_prior(0);
    __syncthreads(); /* the ranker's storage becomes the reorder buffer */
    const uint32_t slot0 = warp * ITEMS * 32 + lane;
    constexpr bool PERM = PAIRS && S::PERM;
#pragma unroll
    for (int u = 0; u < ITEMS; u++) {
        s.keys[rank[u]] = key[u];
        if (PERM) s.perm[rank[u]] = (uint16_t)(slot0 + u * 32);
    }
    if (PAIRS && !PERM) {
        /* The values follow their keys into the buffer now, while the
         * ranks are at hand, so the write-out needs no per-slot state. */
#pragma unroll
        for (int u = 0; u < ITEMS; u++) s.vals[rank[u]] = s.stage[slot0 + u * 32];
    }
    /* The bucket's offset: its first output position, less its first
     * position in the tile, plus its keys in tiles 0..tile-1 (look-back:
     * walk down until a tile that has published its inclusive count). */
    if (threadIdx.x < m) {
        uint32_t g = bins[threadIdx.x] - (uint32_t)excl[0];
        if (tile > 0) {
            uint32_t before = 0;
            for (uint32_t j = tile; j-- > 0;) {
                const volatile uint32_t *w = &lookback[(size_t)j * m + threadIdx.x];
                uint32_t v;
                do v = *w;
                while (v == 0);
                before += v & PB_OS_COUNT;
                if (v & PB_OS_GLOBAL) break;
            }
            *(volatile uint32_t *)&lookback[(size_t)tile * m + threadIdx.x] =
                (before + (uint32_t)count) | PB_OS_GLOBAL;
            g += before;
        }
        s.goff[threadIdx.x] = g;
    }
    __syncthreads();
    const uint32_t items = FULL ? TILE : n - base;
#pragma unroll
    for (int u = 0; u < ITEMS; u++) {
        uint32_t i = threadIdx.x + u * S::BLOCK;
        if (FULL || i < items) {
            uint32_t k = s.keys[i], o = i + s.goff[digit.Digit(k)];
            okeys[o] = k;
            if (PAIRS) ovals[o] = PERM ? s.stage[s.perm[i]] : s.vals[i];
        }
    }
}

template <int NB, class S, bool PAIRS, int KIND>
__global__ void __launch_bounds__(S::BLOCK, S::MINB)
    pb_os_pass(const uint32_t *__restrict__ keys, const uint32_t *__restrict__ vals, uint32_t n,
               pb_bucket_fn fn, const uint32_t *__restrict__ bins, uint32_t *lookback,
               uint32_t *ctrs, uint32_t *okeys, uint32_t *ovals)
{
    extern __shared__ __align__(16) unsigned char pb_os_dyn[];
    pb_os_smem<NB, S, PAIRS> &s = *reinterpret_cast<pb_os_smem<NB, S, PAIRS> *>(pb_os_dyn);
    if (threadIdx.x == 0) s.tile = atomicAdd(&ctrs[0], 1u);
    pb_os_splitters(fn, s.spl, S::BLOCK);
    __syncthreads();
    const uint32_t tile = s.tile;
    if ((uint64_t)(tile + 1) * (S::BLOCK * S::ITEMS) <= n)
        pb_os_tile<NB, S, PAIRS, KIND, true>(keys, vals, n, fn, bins, lookback, okeys, ovals,
                                                  s, tile);
    else
        pb_os_tile<NB, S, PAIRS, KIND, false>(keys, vals, n, fn, bins, lookback, okeys, ovals,
                                                   s, tile);
}

#endif

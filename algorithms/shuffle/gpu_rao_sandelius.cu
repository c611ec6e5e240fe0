/* gpu-rao-sandelius: the GPU Rao-Sandelius shuffle (issue 20, item 1;
 * docs/gpu-rao-sandelius.md), equal bit for bit to its C model
 * (grs_model.h, and the CPU module grs-twin). Second version: the
 * multisplits that move the whole array are coalesced passes that draw
 * their labels instead of storing them.
 *
 *   1. the first sort (labels of key_bits <= 8 by item index) and then
 *      `plan` levels of splits by position labels (level_bits <= 8) run
 *      over the whole array while the segments are larger than `target`
 *      items on average: each is one multisplit pass over tiles of 4096
 *      positions (a tile lies in one segment): a count kernel draws the
 *      tile's labels (sixteen a Philox block, nothing read) and counts
 *      them, CUB's scan turns the counts, laid out segment-major,
 *      label-major, tile-minor, into every (tile, label)'s place in the
 *      output, and a move kernel reads the tile, draws its labels again,
 *      orders it by label in shared memory (stable: warp ranks by ballots,
 *      as CUB's) and writes each label's run to its place (coalesced runs);
 *   2. one block a segment (fast_segment): at most `cap` items, split once
 *      in shared memory on 16-bit indices and its parts shuffled by
 *      Fisher-Yates on the indices (four steps a Philox block), the items
 *      written once through them. A larger segment, or one whose split
 *      made a part to split again, takes the general path: every level in
 *      global memory with a scratch buffer (a segment of at least BIG items
 *      split by the whole block, smaller ones a warp each, parts of at most
 *      `small` finished by one thread, the segments still to split in a
 *      list in global memory); the output never depends on the path.
 *
 * A segment of at most `small` items is not split at any level (the
 * model's rule): a pass moves it whole to its first sub-segment.
 * Records: a u32 permutation by the same kernels, then a record gather
 * (the model's output is a function of positions only).
 * Sample permutations (the quality battery) run the same kernels on a
 * batch: every permutation a segment of the first pass. */
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "algorithms/shuffle/grs_model.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "families/shuffle/gpu_records.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_items.h"

namespace {

enum { P_KEY_BITS, P_TARGET, P_LEVEL_BITS, P_SMALL, P_CAP };
constexpr int MAXL = 256; /* labels of a split at most (8 bits) */
constexpr uint32_t NONE = 0xffffffffu;

/* The segment kernel: BT threads; segments of at least BIG items are
 * split by the whole block. */
constexpr int BT = 512, NW = BT / 32;
constexpr uint32_t BIG = 1024;

/* The multisplit passes: PT threads, IPL items a lane, TILE a tile. */
constexpr int PT = 256, PNW = PT / 32, IPL = 16, CH = 32 * IPL, TILE = PNW * CH;

struct grs_args {
    philox4x32_key_t k;
    uint64_t first; /* the sample of permutation 0 */
    uint64_t n;     /* items a permutation */
    unsigned lb;
    uint32_t small, cap;
};

/* One multisplit pass: labels of `bits` from stream (w1, tag); segments of
 * at most `small` items (0: none, the first sort) pass through whole. */
struct pass_args {
    philox4x32_key_t k;
    uint64_t first, n;
    uint32_t w1, tag, bits, small, nseg;
};

__device__ __forceinline__ uint32_t word_of(const philox4x32_ctr_t &r, uint32_t w)
{
    return w == 0 ? r.v[0] : w == 1 ? r.v[1] : w == 2 ? r.v[2] : r.v[3];
}

/* lab[p - lo] for positions lo <= p < hi of a permutation's stream (w1,
 * tag) at `sample`, as pb_grs_label: the top `bits` of byte p & 3 of word
 * (p >> 2) & 3 of block p >> 4, sixteen labels a Philox block (a word's
 * four at once: a shift and a mask keep each byte's top bits). Threads
 * tid, tid + nt, ... share the blocks. */
__device__ void draw_labels(uint8_t *lab, uint64_t lo, uint64_t hi, philox4x32_key_t k, uint32_t w1, uint32_t tag,
                            uint64_t sample, uint32_t bits, unsigned tid, unsigned nt)
{
    if (hi <= lo) return;
    const uint32_t mask = 0x01010101u * ((1u << bits) - 1);
    const uint64_t g0 = lo >> 4, g1 = (hi - 1) >> 4;
    for (uint64_t q = g0 + tid; q <= g1; q += nt) {
        philox4x32_ctr_t c = {{(uint32_t)q, w1, (uint32_t)sample, (uint32_t)(sample >> 32) | tag << 30}};
        philox4x32_ctr_t r = philox4x32(c, k);
        const uint64_t p0 = 16 * q;
        const bool whole = p0 >= lo && p0 + 16 <= hi;
#pragma unroll
        for (uint32_t w = 0; w < 4; w++) {
            const uint32_t x = (word_of(r, w) >> (8 - bits)) & mask;
#pragma unroll
            for (uint32_t b = 0; b < 4; b++) {
                const uint64_t p = p0 + 4 * w + b;
                if (whole || (p >= lo && p < hi)) lab[p - lo] = (uint8_t)(x >> (8 * b));
            }
        }
    }
}

/* The lanes of a warp whose label equals this lane's (labels of `bits`
 * bits; lanes with valid false take part in no set): a ballot a bit, as
 * CUB's radix ranking does; __match_any_sync was the first version's, and
 * the slowest step of every split (its cost grows with the distinct
 * labels in the warp). */
__device__ __forceinline__ unsigned match_label(uint32_t L, bool valid, uint32_t bits)
{
    unsigned m = __ballot_sync(0xffffffffu, valid);
    for (uint32_t b = 0; b < bits; b++) {
        const unsigned x = __ballot_sync(0xffffffffu, (L >> b) & 1u);
        m &= (L >> b) & 1u ? x : ~x;
    }
    return m;
}

/* A block's exclusive sum of one value a thread: CUB's, by warp scans. */
template <int NT> using block_scan = cub::BlockScan<unsigned, NT, cub::BLOCK_SCAN_WARP_SCANS>;

/* ---- the multisplit passes ---- */

/* Segments [j n, (j + 1) n): the permutations of a batch. */
__global__ void first_segments(uint64_t n, uint32_t count, uint32_t *ss, uint32_t *se)
{
    for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < count; j += gridDim.x * blockDim.x) {
        ss[j] = (uint32_t)(j * n);
        se[j] = (uint32_t)((j + 1) * n);
    }
}

/* tc[s] = tiles of segment s; tc[nseg] = 0 (the scan's total). */
__global__ void tile_counts(uint32_t nseg, const uint32_t *ss, const uint32_t *se, uint32_t *tc)
{
    for (uint32_t s = blockIdx.x * blockDim.x + threadIdx.x; s <= nseg; s += gridDim.x * blockDim.x)
        tc[s] = s < nseg ? (uint32_t)(((uint64_t)se[s] - ss[s] + TILE - 1) / TILE) : 0;
}

/* The tile a block works on: its segment s (tstart[s] <= t < tstart[s +
 * 1]), position range and permutation; false past the last tile. */
struct tile_at {
    uint32_t s, u, tiles, p0, m, len;
    uint64_t j;
};

__device__ bool find_tile(const pass_args &a, const uint32_t *ss, const uint32_t *se, const uint32_t *tstart,
                          tile_at *ta)
{
    __shared__ uint32_t found;
    const uint32_t t = blockIdx.x;
    if (threadIdx.x == 0) {
        uint32_t r = NONE;
        if (t < tstart[a.nseg]) {
            uint32_t lo = 0, hi = a.nseg; /* tstart[lo] <= t < tstart[hi] */
            while (hi - lo > 1) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (tstart[mid] <= t) lo = mid;
                else hi = mid;
            }
            r = lo;
        }
        found = r;
    }
    __syncthreads();
    const uint32_t s = found;
    if (s == NONE) return false;
    ta->s = s;
    ta->u = t - tstart[s];
    ta->tiles = tstart[s + 1] - tstart[s];
    const uint32_t start = ss[s];
    ta->len = se[s] - start;
    ta->p0 = start + ta->u * TILE;
    ta->m = min((uint32_t)TILE, ta->len - ta->u * TILE);
    ta->j = start / a.n;
    return true;
}

/* The tile's labels into lab[0, m). */
__device__ void tile_labels(const pass_args &a, const tile_at &ta, uint8_t *lab)
{
    if (a.small && ta.len <= a.small) { /* passes through whole */
        for (uint32_t p = threadIdx.x; p < ta.m; p += PT) lab[p] = 0;
        return;
    }
    const uint64_t rel = ta.p0 - ta.j * a.n;
    draw_labels(lab, rel, rel + ta.m, a.k, a.w1, a.tag, a.first + ta.j, a.bits, threadIdx.x, PT);
}

/* Where (tile, label L)'s count goes: segment-major, label-major,
 * tile-minor, so that the exclusive scan is each one's output place. */
__device__ __forceinline__ uint64_t cell(const pass_args &a, const uint32_t *tstart, const tile_at &ta, uint32_t L)
{
    return ((uint64_t)tstart[ta.s] << a.bits) + (uint64_t)L * ta.tiles + ta.u;
}

__global__ void __launch_bounds__(PT)
    pass_count(pass_args a, const uint32_t *ss, const uint32_t *se, const uint32_t *tstart, uint32_t *H)
{
    __shared__ uint8_t lab[TILE];
    __shared__ unsigned cnt[MAXL];
    tile_at ta;
    if (!find_tile(a, ss, se, tstart, &ta)) return;
    for (uint32_t L = threadIdx.x; L < MAXL; L += PT) cnt[L] = 0;
    tile_labels(a, ta, lab);
    __syncthreads();
    for (uint32_t p = threadIdx.x; p < ta.m; p += PT) atomicAdd(&cnt[lab[p]], 1u);
    __syncthreads();
    for (uint32_t L = threadIdx.x; L < (1u << a.bits); L += PT) H[cell(a, tstart, ta, L)] = cnt[L];
}

/* Three blocks an SM (85 registers at most; 47 KiB of shared memory each). */
template <typename T>
__global__ void __launch_bounds__(PT, 3)
    pass_move(pass_args a, const uint32_t *ss, const uint32_t *se, const uint32_t *tstart, const uint32_t *H,
              const T *__restrict__ src, T *__restrict__ dst)
{
    __shared__ uint8_t lab[TILE], slab[TILE];
    __shared__ T item[TILE];
    __shared__ unsigned short wh[PNW][MAXL]; /* a warp's count, then its next place, of each label */
    __shared__ unsigned lstart[MAXL], goff[MAXL];
    __shared__ typename block_scan<PT>::TempStorage scan;
    tile_at ta;
    if (!find_tile(a, ss, se, tstart, &ta)) return;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, lower = (1u << lane) - 1;
    for (unsigned i = threadIdx.x; i < PNW * MAXL; i += PT) (&wh[0][0])[i] = 0;
    /* The items first, all loads in flight at once (coalesced by warp). */
    T v[IPL];
#pragma unroll
    for (int q = 0; q < IPL; q++) {
        uint32_t p = warp * CH + q * 32 + lane;
        v[q] = p < ta.m ? src[ta.p0 + p] : T(0);
    }
    tile_labels(a, ta, lab);
    __syncthreads();
    unsigned pm[IPL]; /* each item's peers, kept for the placing loop */
#pragma unroll
    for (int q = 0; q < IPL; q++) {
        uint32_t p = warp * CH + q * 32 + lane;
        uint32_t L = p < ta.m ? lab[p] : NONE;
        unsigned peers = match_label(L, L != NONE, a.bits);
        pm[q] = peers;
        if (L != NONE && lane == (unsigned)(__ffs(peers) - 1)) wh[warp][L] += (unsigned short)__popc(peers);
        __syncwarp();
    }
    __syncthreads();
    /* Thread L (PT == MAXL): label L's places, warp by warp. */
    unsigned tot = 0;
    for (int w = 0; w < PNW; w++) tot += wh[w][threadIdx.x];
    unsigned run;
    block_scan<PT>(scan).ExclusiveSum(tot, run);
    lstart[threadIdx.x] = run;
    for (int w = 0; w < PNW; w++) {
        unsigned h = wh[w][threadIdx.x];
        wh[w][threadIdx.x] = (unsigned short)run;
        run += h;
    }
    goff[threadIdx.x] = threadIdx.x < (1u << a.bits) ? H[cell(a, tstart, ta, threadIdx.x)] : 0;
    __syncthreads();
#pragma unroll
    for (int q = 0; q < IPL; q++) {
        uint32_t p = warp * CH + q * 32 + lane;
        uint32_t L = p < ta.m ? lab[p] : NONE;
        const unsigned peers = pm[q];
        if (L != NONE) {
            unsigned slot = wh[warp][L] + __popc(peers & lower);
            item[slot] = v[q];
            slab[slot] = (uint8_t)L;
        }
        __syncwarp();
        if (L != NONE && lane == (unsigned)(__ffs(peers) - 1)) wh[warp][L] += (unsigned short)__popc(peers);
        __syncwarp();
    }
    __syncthreads();
    for (uint32_t r = threadIdx.x; r < ta.m; r += PT) {
        uint32_t L = slab[r];
        dst[goff[L] + r - lstart[L]] = item[r];
    }
}

/* The segments after a pass: (s, L) for every segment s and label L, in
 * output order (empty ones included). */
__global__ void next_segments(uint32_t nseg, uint32_t bits, const uint32_t *ss, const uint32_t *se,
                              const uint32_t *tstart, const uint32_t *H, uint32_t *ns, uint32_t *ne)
{
    const uint32_t B = 1u << bits;
    for (uint64_t x = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; x < (uint64_t)nseg << bits;
         x += (uint64_t)gridDim.x * blockDim.x) {
        const uint32_t s = (uint32_t)(x >> bits), L = (uint32_t)(x & (B - 1));
        const uint32_t tiles = tstart[s + 1] - tstart[s];
        const uint64_t c = ((uint64_t)tstart[s] << bits) + (uint64_t)L * tiles;
        ns[x] = tiles ? H[c] : ss[s];
        ne[x] = L + 1 < B ? (tiles ? H[c + tiles] : ss[s]) : se[s];
    }
}

/* ---- inside a segment ---- */

/* Fisher-Yates of A[ps, ps + m), segment at position S of its
 * permutation: step t's word at position S + ps + t, four steps a Philox
 * block; a rejected word (probability below m / 2^32) gives way to the
 * model's retries. */
template <typename T>
__device__ void fisher_yates(T *A, uint64_t S, uint32_t ps, uint32_t m, const grs_args &g, uint64_t sample)
{
    uint64_t held = ~UINT64_C(0);
    philox4x32_ctr_t r = {{0, 0, 0, 0}};
    for (uint32_t t = 0; t + 1 < m; t++) {
        const uint32_t j = m - 1 - t;
        const uint64_t pos = S + ps + t;
        if ((pos >> 2) != held) {
            held = pos >> 2;
            philox4x32_ctr_t c = {
                {(uint32_t)held, 0, (uint32_t)sample, (uint32_t)(sample >> 32) | (uint32_t)PB_GRS_TAG_FY << 30}};
            r = philox4x32(c, g.k);
        }
        uint32_t x;
        if (!pb_lemire_pick(word_of(r, (uint32_t)(pos & 3)), j + 1, &x)) x = pb_grs_fy_pick(g.k, pos, j + 1, sample);
        if (x != j) {
            T y = A[ps + j];
            A[ps + j] = A[ps + x];
            A[ps + x] = y;
        }
    }
}

struct lists {
    uint32_t *ns, *ne; /* the next level's segments */
    unsigned *nnext;   /* shared counter */
};

/* Part [ps, ps + cnt) at depth `depth`: Fisher-Yates now, or the next list. */
template <typename T>
__device__ void finish_part(T *A, uint64_t S, uint32_t ps, uint32_t cnt, uint32_t depth, const grs_args &g,
                            uint64_t sample, const lists &L)
{
    if (cnt == 0) return;
    if (cnt <= g.small || depth >= PB_GRS_MAX_LEVELS) {
        fisher_yates(A, S, ps, cnt, g, sample);
    } else {
        unsigned at = atomicAdd(L.nnext, 1u);
        L.ns[at] = ps;
        L.ne[at] = ps + cnt;
    }
}

/* Position p's level label, drawn where it is needed (the general path
 * keeps no label array: its segments may be larger than shared memory). */
__device__ __forceinline__ uint32_t label_at(uint32_t p, const grs_args &g, uint64_t S, uint32_t level,
                                             uint64_t sample)
{
    return pb_grs_level_label(g.k, S + p, level, sample, g.lb);
}

/* A warp counts the level labels of positions [wa, we) into hist (one
 * word a label, the warp's own, added to). */
__device__ void warp_count(uint32_t wa, uint32_t we, uint32_t level, const grs_args &g,
                           uint64_t S, uint64_t sample, unsigned *hist)
{
    const unsigned lane = threadIdx.x & 31;
    for (uint32_t c = wa; c < we; c += 32) {
        uint32_t p = c + lane;
        uint32_t L = p < we ? label_at(p, g, S, level, sample) : NONE;
        unsigned peers = match_label(L, L != NONE, g.lb);
        if (L != NONE && lane == (unsigned)(__ffs(peers) - 1)) hist[L] += (unsigned)__popc(peers);
        __syncwarp();
    }
}

/* A warp moves positions [wa, we) of A to B[a + place], place = hist[label]
 * (the next free place of each label, advanced as it goes): stable. */
template <typename T>
__device__ void warp_move(const T *A, T *B, uint32_t a, uint32_t wa, uint32_t we, uint32_t level,
                          const grs_args &g, uint64_t S, uint64_t sample, unsigned *hist)
{
    const unsigned lane = threadIdx.x & 31, lower = (1u << lane) - 1;
    for (uint32_t c = wa; c < we; c += 32) {
        uint32_t p = c + lane;
        uint32_t L = p < we ? label_at(p, g, S, level, sample) : NONE;
        unsigned peers = match_label(L, L != NONE, g.lb);
        if (L != NONE) B[a + hist[L] + __popc(peers & lower)] = A[p];
        __syncwarp();
        if (L != NONE && lane == (unsigned)(__ffs(peers) - 1)) hist[L] += (unsigned)__popc(peers);
        __syncwarp();
    }
}

/* Labels a lane owns in a warp's split: [lane * per, lane * per + per). */
constexpr int PER = MAXL / 32;

/* One warp splits [a, e) stably by its level labels (A -> B -> A), then
 * finishes its parts. hist: MAXL words of the warp's own. */
template <typename T>
__device__ void warp_split(T *A, T *B, uint32_t a, uint32_t e, uint32_t level, const grs_args &g,
                           uint64_t S, uint64_t sample, unsigned *hist, const lists &L)
{
    const unsigned lane = threadIdx.x & 31, nl = 1u << g.lb, per = (nl + 31) / 32;
    for (unsigned q = lane; q < nl; q += 32) hist[q] = 0;
    __syncwarp();
    warp_count(a, e, level, g, S, sample, hist);
    __syncwarp();
    unsigned cnt[PER], base[PER], sum = 0;
#pragma unroll
    for (int i = 0; i < PER; i++) {
        unsigned q = lane * per + i;
        cnt[i] = (i < (int)per && q < nl) ? hist[q] : 0;
        sum += cnt[i];
    }
    unsigned incl = sum;
    for (int o = 1; o < 32; o <<= 1) {
        unsigned x = __shfl_up_sync(0xffffffffu, incl, o);
        if ((int)lane >= o) incl += x;
    }
    unsigned run = incl - sum;
    __syncwarp();
#pragma unroll
    for (int i = 0; i < PER; i++) {
        unsigned q = lane * per + i;
        base[i] = run;
        if (i < (int)per && q < nl) hist[q] = run;
        run += cnt[i];
    }
    __syncwarp();
    warp_move(A, B, a, a, e, level, g, S, sample, hist);
    __syncwarp();
    for (uint32_t p = a + lane; p < e; p += 32) A[p] = B[p];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < PER; i++)
        if (i < (int)per) finish_part(A, S, a + base[i], cnt[i], level + 1, g, sample, L);
    __syncwarp();
}

struct block_shared {
    unsigned hist[NW][MAXL];
    unsigned tot[MAXL], lbase[MAXL];
    block_scan<BT>::TempStorage scan;
};

/* The whole block splits [a, e): warp w counts and moves its contiguous
 * chunk; the places are label-major, warp-minor (the stable order). */
template <typename T>
__device__ void block_split(T *A, T *B, uint32_t a, uint32_t e, uint32_t level, const grs_args &g,
                            uint64_t S, uint64_t sample, block_shared &bs, const lists &L)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nl = 1u << g.lb;
    const uint32_t len = e - a, cw = ((len + NW - 1) / NW + 31) & ~31u;
    const uint32_t wa = a + min(len, warp * cw), we = a + min(len, (warp + 1) * cw);
    for (unsigned q = lane; q < nl; q += 32) bs.hist[warp][q] = 0;
    __syncthreads();
    warp_count(wa, we, level, g, S, sample, bs.hist[warp]);
    __syncthreads();
    unsigned t = 0;
    if (threadIdx.x < nl)
        for (int w = 0; w < NW; w++) t += bs.hist[w][threadIdx.x];
    unsigned run;
    block_scan<BT>(bs.scan).ExclusiveSum(t, run);
    if (threadIdx.x < nl) {
        bs.tot[threadIdx.x] = t;
        bs.lbase[threadIdx.x] = run;
        for (int w = 0; w < NW; w++) {
            unsigned h = bs.hist[w][threadIdx.x];
            bs.hist[w][threadIdx.x] = run;
            run += h;
        }
    }
    __syncthreads();
    warp_move(A, B, a, wa, we, level, g, S, sample, bs.hist[warp]);
    __syncthreads();
    for (uint32_t p = a + threadIdx.x; p < e; p += BT) A[p] = B[p];
    __syncthreads();
    if (threadIdx.x < nl) finish_part(A, S, a + bs.lbase[threadIdx.x], bs.tot[threadIdx.x], level + 1, g, sample, L);
    __syncthreads();
}

/* The common case in shared memory: the segment's labels drawn, one stable
 * split at `depth` computed on 16-bit indices (idx[slot] = the position
 * whose item goes there), each part shuffled by Fisher-Yates on the
 * indices, the items written once through them. The counting loop keeps
 * each position's rank among its warp's equal labels (rank[p]), so placing
 * needs no second round of ballots; rank lives where the items go next,
 * and the upper half of the block loads the items while the lower half
 * runs Fisher-Yates. An index costs 2 bytes where a second item buffer
 * cost 8, which lets two blocks share an SM. False, with nothing written,
 * when a part is larger than `small` (it would split again: rare, the
 * general path redoes the segment). */
struct fast_shared {
    unsigned short hist[NW][MAXL]; /* a warp's count, then its first slot, of each label */
    unsigned tot[MAXL], lbase[MAXL];
    block_scan<BT>::TempStorage scan;
    int spill;
};

/* from[0, m) -> to[0, m) by threads [t0, t0 + nt), eight loads in flight a
 * thread before their stores (stores to shared memory could alias `from`
 * as far as the compiler knows: one at a time otherwise). */
template <typename T>
__device__ void load_items(const T *from, T *to, uint32_t m, unsigned t0, unsigned nt)
{
    for (uint32_t p0 = threadIdx.x - t0; p0 < m; p0 += 8 * nt) {
        T r[8];
#pragma unroll
        for (int q = 0; q < 8; q++) r[q] = p0 + q * nt < m ? __ldg(from + p0 + q * nt) : T(0);
#pragma unroll
        for (int q = 0; q < 8; q++)
            if (p0 + q * nt < m) to[p0 + q * nt] = r[q];
    }
}

template <typename T>
__device__ bool fast_segment(const T *in, T *arr, uint32_t m, uint64_t S, uint32_t depth, const grs_args &g,
                             uint64_t sample, unsigned char *smem, fast_shared &fs)
{
    T *A = (T *)smem;
    uint16_t *rank = (uint16_t *)smem; /* until the items come */
    uint16_t *idx = (uint16_t *)(A + g.cap);
    uint8_t *lab = (uint8_t *)(idx + g.cap);
    const unsigned tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, lower = (1u << lane) - 1, nl = 1u << g.lb;
    if (m <= g.small) {
        load_items(in, A, m, 0, BT);
        __syncthreads();
        if (tid == 0) fisher_yates(A, S, 0, m, g, sample);
        __syncthreads();
        for (uint32_t q = tid; q < m; q += BT) arr[q] = A[q];
        return true;
    }
    for (unsigned i = tid; i < NW * MAXL; i += BT) (&fs.hist[0][0])[i] = 0;
    if (tid == 0) fs.spill = 0;
    draw_labels(lab, S, S + m, g.k, depth, PB_GRS_TAG_LEVEL, sample, g.lb, tid, BT);
    __syncthreads();
    const uint32_t cw = ((m + NW - 1) / NW + 31) & ~31u;
    const uint32_t wa = min(m, warp * cw), we = min(m, (warp + 1) * cw);
    for (uint32_t c = wa; c < we; c += 32) {
        const uint32_t p = c + lane;
        const bool v = p < we;
        const uint32_t L = v ? lab[p] : 0;
        const unsigned peers = match_label(L, v, g.lb);
        const unsigned h = v ? fs.hist[warp][L] : 0;
        __syncwarp();
        if (v) {
            rank[p] = (uint16_t)(h + __popc(peers & lower));
            if (lane == (unsigned)(__ffs(peers) - 1)) fs.hist[warp][L] = (unsigned short)(h + __popc(peers));
        }
        __syncwarp();
    }
    __syncthreads();
    unsigned t = 0;
    if (tid < nl)
        for (int w = 0; w < NW; w++) t += fs.hist[w][tid];
    unsigned run;
    block_scan<BT>(fs.scan).ExclusiveSum(t, run);
    if (tid < nl) {
        fs.tot[tid] = t;
        fs.lbase[tid] = run;
        for (int w = 0; w < NW; w++) {
            unsigned h = fs.hist[w][tid];
            fs.hist[w][tid] = (unsigned short)run;
            run += h;
        }
        if (t > g.small) fs.spill = 1;
    }
    __syncthreads();
    if (fs.spill) return false;
    for (uint32_t p = wa + lane; p < we; p += 32) idx[fs.hist[warp][lab[p]] + rank[p]] = (uint16_t)p;
    __syncthreads();
    static_assert(MAXL <= BT / 2, "Fisher-Yates takes at most the lower half of the block");
    if (tid < nl) fisher_yates(idx, S, fs.lbase[tid], fs.tot[tid], g, sample);
    else if (tid >= BT / 2) load_items(in, A, m, BT / 2, BT / 2);
    __syncthreads();
    for (uint32_t q = tid; q < m; q += BT) arr[q] = A[idx[q]];
    return true;
}

/* One block a segment [starts[b], ends[b]) of src, shuffled into the same
 * positions of data; its splits start at depth `depth0`. A segment of at
 * most `cap` items takes fast_segment; a larger one, or one whose split
 * made a part to split again, the general path: every level in global
 * memory (the segment copied to data first, scratch as the second buffer,
 * the segments still to split in lists), the same output. */
template <typename T>
__global__ void __launch_bounds__(BT, 2)
    shuffle_segments(const T *src, T *data, T *scratch, const uint32_t *starts, const uint32_t *ends, grs_args g,
                     uint32_t depth0, uint32_t *ls0, uint32_t *le0, uint32_t *ls1, uint32_t *le1)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ fast_shared fs;
    __shared__ unsigned ncur, nnext;
    const uint64_t start = starts[blockIdx.x];
    const uint32_t m = ends[blockIdx.x] - (uint32_t)start;
    if (m == 0) return;
    const uint64_t j = start / g.n, S = start - j * g.n, sample = g.first + j;
    const T *in = src + start;
    T *arr = data + start;
    if (m <= g.cap && depth0 < PB_GRS_MAX_LEVELS && fast_segment(in, arr, m, S, depth0, g, sample, smem, fs)) return;
    __syncthreads();
    /* The general path; its counts live where the fast path's arrays were. */
    block_shared &bs = *(block_shared *)smem;
    T *A = arr, *B = scratch + start;
    if (in != arr) {
        for (uint32_t p = threadIdx.x; p < m; p += BT) A[p] = in[p];
        __syncthreads();
    }
    if (m <= g.small) {
        if (threadIdx.x == 0) fisher_yates(A, S, 0, m, g, sample);
        return;
    }
    uint32_t *cs = ls0 + start, *ce = le0 + start, *xs = ls1 + start, *xe = le1 + start;
    if (threadIdx.x == 0) {
        cs[0] = 0;
        ce[0] = m;
        ncur = 1;
    }
    __syncthreads();
    for (uint32_t level = depth0;; level++) {
        const unsigned nc = ncur;
        if (nc == 0) break;
        __syncthreads(); /* every thread has read ncur */
        if (threadIdx.x == 0) nnext = 0;
        __syncthreads();
        if (level >= PB_GRS_MAX_LEVELS) { /* never: 64 splits sent a segment whole */
            for (unsigned i = threadIdx.x; i < nc; i += BT) fisher_yates(A, S, cs[i], ce[i] - cs[i], g, sample);
            __syncthreads();
            break;
        }
        lists L = {xs, xe, &nnext};
        for (unsigned i = 0; i < nc; i++)
            if (ce[i] - cs[i] >= BIG) block_split(A, B, cs[i], ce[i], level, g, S, sample, bs, L);
        const unsigned warp = threadIdx.x >> 5;
        for (unsigned i = warp; i < nc; i += NW)
            if (ce[i] - cs[i] < BIG)
                warp_split(A, B, cs[i], ce[i], level, g, S, sample, bs.hist[warp], L);
        __syncthreads();
        if (threadIdx.x == 0) ncur = nnext;
        uint32_t *t = cs;
        cs = xs, xs = t, t = ce, ce = xe, xe = t;
        __syncthreads();
    }
}

/* vals[P] = P mod n: a batch's identity permutations. */
__global__ void batch_identity(uint32_t *vals, uint64_t n, uint64_t total)
{
    for (uint64_t P = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; P < total;
         P += (uint64_t)gridDim.x * blockDim.x)
        vals[P] = (uint32_t)(P % n);
}

/* ---- the module ---- */

/* Shared capacity in items: `cap`, or (0) 9216: 8192 (the default
 * target) and 12 standard deviations of a segment's size at 2^29, in 99
 * KiB for u64 (an item, an index and a label an item), so that two blocks
 * share an SM. At most 65535 (16-bit indices). */
uint32_t cap_of(const pb_params *p)
{
    return p->v[P_CAP] > 0 ? (uint32_t)p->v[P_CAP] : 9216u;
}

/* The plan for n: the first sort's bits, then levels over the whole array
 * while a segment holds more than max(target, small) items on average. */
struct plan {
    unsigned kb, levels;
};

plan plan_of(const pb_grs_shape &sh, uint64_t n, uint64_t target)
{
    plan pl = {sh.key_bits, 0};
    const uint64_t stop = target > sh.small ? target : sh.small;
    while (pl.kb + pl.levels * sh.level_bits < 40 && (n >> (pl.kb + pl.levels * sh.level_bits)) > stop) pl.levels++;
    return pl;
}

/* Events a traced run records at most: the start, a pass each, the end. */
constexpr int NEV = 42;

/* Buffers for `total` items in `count` permutations of n. */
struct work {
    uint64_t total, count, n;
    unsigned ib;
    grs_args g;
    plan pl;
    uint64_t nseg_max; /* segments after the last pass */
    uint32_t *ss, *se, *ns, *ne, *tc, *tstart, *H, *vals, *ls0, *le0, *ls1, *le1;
    void *scratch, *temp;
    size_t temp_bytes;
    /* PB_GRS_PHASES=1: events after the start and each pass and the
     * segment kernel, printed after each run (the print waits for the run,
     * so traced samples are not timings). */
    bool trace;
    int nev;
    cudaEvent_t ev[NEV];
    size_t smem; /* the segment kernel's dynamic shared memory */
};

int mark(work *w, pb_err *err)
{
    if (!w->trace || w->nev >= NEV) return 0;
    if (!w->ev[w->nev]) PB_CUDA_TRY(cudaEventCreate(&w->ev[w->nev]), err);
    PB_CUDA_TRY(cudaEventRecord(w->ev[w->nev++]), err);
    return 0;
}

int print_phases(work *w, pb_err *err)
{
    if (!w->trace || w->nev < 2) return 0;
    PB_CUDA_TRY(cudaEventSynchronize(w->ev[w->nev - 1]), err);
    fprintf(stderr, "grs phases n=%llu item=%u key_bits=%u levels=%u:", (unsigned long long)w->n, w->ib, w->pl.kb,
            w->pl.levels);
    for (int i = 1; i < w->nev; i++) {
        float ms = 0;
        PB_CUDA_TRY(cudaEventElapsedTime(&ms, w->ev[i - 1], w->ev[i]), err);
        const char *what = i == w->nev - 1 ? "segments" : (i == 1 && w->pl.kb) ? "first sort" : "level";
        fprintf(stderr, " %s %.3f ms%s", what, ms, i == w->nev - 1 ? "\n" : ",");
    }
    return 0;
}

void work_free(work *w)
{
    for (int i = 0; i < NEV; i++)
        if (w->ev[i]) cudaEventDestroy(w->ev[i]);
    void *p[] = {w->ss, w->se, w->ns, w->ne, w->tc, w->tstart, w->H, w->vals,
                 w->ls0, w->le0, w->ls1, w->le1, w->scratch, w->temp};
    for (void *q : p) cudaFree(q);
    memset(w, 0, sizeof *w);
}

int work_alloc(work *w, const pb_params *p, uint64_t n, uint64_t count, unsigned ib, uint64_t seed, bool identity,
               pb_err *err)
{
    pb_grs_shape sh = pb_grs_shape_of(p->v, n);
    w->n = n, w->count = count, w->total = n * count, w->ib = ib;
    w->g.k = pb_grs_key(seed);
    w->g.n = n;
    w->g.lb = sh.level_bits;
    w->g.small = sh.small;
    w->g.cap = cap_of(p);
    const char *tr = getenv("PB_GRS_PHASES");
    w->trace = tr && *tr && strcmp(tr, "0") != 0;
    if (sh.key_bits > 8)
        return pb_err_set(err, "gpu-rao-sandelius: key_bits %u: at most 8 (one pass of the first sort)", sh.key_bits);
    if (w->g.lb > 8) return pb_err_set(err, "gpu-rao-sandelius: level_bits %u: at most 8 (256 parts)", w->g.lb);
    w->pl = plan_of(sh, n, (uint64_t)p->v[P_TARGET]);
    const unsigned shift = w->pl.kb + w->pl.levels * w->g.lb;
    if (shift > 30 || (count << shift) > (UINT64_C(1) << 31))
        return pb_err_set(err, "gpu-rao-sandelius: the shape makes %llu x 2^%u segments; raise target or small",
                          (unsigned long long)count, shift);
    w->nseg_max = count << shift;
    /* The largest pass's count cells: (tiles + its segments) << its bits. */
    const uint64_t tiles = (w->total + TILE - 1) / TILE;
    uint64_t nseg_in = count, cells = 1;
    for (unsigned l = 0; l <= w->pl.levels; l++) {
        unsigned bits = l == 0 ? w->pl.kb : w->g.lb;
        if (!bits) continue;
        uint64_t c = (tiles + nseg_in) << bits;
        if (c > cells) cells = c;
        nseg_in <<= bits;
    }
    const size_t t = (size_t)(w->total ? w->total : 1), segs = (size_t)w->nseg_max;
    PB_CUDA_TRY(cudaMalloc(&w->ss, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->se, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ns, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ne, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->tc, (segs + 1) * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->tstart, (segs + 1) * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->H, cells * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ls0, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->le0, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ls1, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->le1, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->scratch, t * ib), err);
    if (identity) {
        /* The identity the batch (or the records' permutation) starts
         * from, once: the passes never write it. */
        PB_CUDA_TRY(cudaMalloc(&w->vals, t * 4), err);
        if (w->total) { /* no grid of zero blocks: n = 0 has nothing to name */
            batch_identity<<<pb_grid_for(w->total, 256), 256>>>(w->vals, w->n, w->total);
            PB_CUDA_LAUNCHED(err);
        }
    }
    /* The segment kernel's shared memory: the fast path's items, indices
     * and labels, or the general path's counts, whichever is larger. */
    w->smem = ((size_t)w->g.cap * (ib + 3) + 15) & ~(size_t)15;
    if (w->smem < sizeof(block_shared)) w->smem = sizeof(block_shared);
    if (ib == 4)
        PB_CUDA_TRY(cudaFuncSetAttribute(shuffle_segments<uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)w->smem),
                    err);
    else
        PB_CUDA_TRY(cudaFuncSetAttribute(shuffle_segments<uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)w->smem),
                    err);
    size_t b1 = 0, b2 = 0;
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, b1, w->tc, w->tstart, segs + 1), err);
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, b2, w->H, w->H, cells), err);
    w->temp_bytes = b1 > b2 ? b1 : b2;
    PB_CUDA_TRY(cudaMalloc(&w->temp, w->temp_bytes ? w->temp_bytes : 16), err);
    return 0;
}

/* One multisplit pass over the current segments (w->ss, w->se; nseg of
 * them): src -> dst, then the segments become (s, label) pairs. */
template <typename T>
int run_pass(work *w, uint32_t w1, uint32_t tag, uint32_t bits, uint32_t small, uint64_t nseg, const T *src, T *dst,
             pb_err *err)
{
    pass_args a = {w->g.k, w->g.first, w->n, w1, tag, bits, small, (uint32_t)nseg};
    const uint64_t upper = (w->total + TILE - 1) / TILE + nseg;
    const size_t cells = (size_t)upper << bits;
    tile_counts<<<pb_grid_for(nseg + 1, 256), 256>>>((uint32_t)nseg, w->ss, w->se, w->tc);
    PB_CUDA_LAUNCHED(err);
    size_t tb = w->temp_bytes;
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(w->temp, tb, w->tc, w->tstart, nseg + 1), err);
    PB_CUDA_TRY(cudaMemsetAsync(w->H, 0, cells * 4), err);
    pass_count<<<(unsigned)upper, PT>>>(a, w->ss, w->se, w->tstart, w->H);
    PB_CUDA_LAUNCHED(err);
    tb = w->temp_bytes;
    /* In place (CUB scans in place when input and output are one): the
     * counts become each (tile, label)'s place. */
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(w->temp, tb, w->H, w->H, cells), err);
    pass_move<T><<<(unsigned)upper, PT>>>(a, w->ss, w->se, w->tstart, w->H, src, dst);
    PB_CUDA_LAUNCHED(err);
    next_segments<<<pb_grid_for(nseg << bits, 256), 256>>>((uint32_t)nseg, bits, w->ss, w->se, w->tstart, w->H,
                                                           w->ns, w->ne);
    PB_CUDA_LAUNCHED(err);
    uint32_t *x = w->ss;
    w->ss = w->ns, w->ns = x, x = w->se, w->se = w->ne, w->ne = x;
    return 0;
}

/* The whole shuffle for `first`: in -> out (count == 1; in may be NULL
 * for the identity), or the identity permutations into out. */
template <typename T> int shuffle_typed(work *w, const T *in, T *out, uint64_t first, pb_err *err)
{
    if (w->total == 0) return 0;
    w->g.first = first;
    w->nev = 0;
    if (mark(w, err)) return -1;
    if (!in) in = (const T *)w->vals;
    first_segments<<<pb_grid_for(w->count, 256), 256>>>(w->n, (uint32_t)w->count, w->ss, w->se);
    PB_CUDA_LAUNCHED(err);
    /* Passes alternate between out and scratch; the segment kernel reads
     * the last one's output (or the input) and writes out. */
    T *buf[2] = {out, (T *)w->scratch};
    const T *cur = in;
    uint64_t nseg = w->count;
    int k = 0;
    if (w->pl.kb) {
        if (run_pass<T>(w, 0, PB_GRS_TAG_KEY, w->pl.kb, 0, nseg, cur, buf[k & 1], err)) return -1;
        cur = buf[k++ & 1];
        nseg <<= w->pl.kb;
        if (mark(w, err)) return -1;
    }
    for (unsigned l = 0; l < w->pl.levels; l++) {
        if (run_pass<T>(w, l, PB_GRS_TAG_LEVEL, w->g.lb, w->g.small, nseg, cur, buf[k & 1], err)) return -1;
        cur = buf[k++ & 1];
        nseg <<= w->g.lb;
        if (mark(w, err)) return -1;
    }
    shuffle_segments<T><<<(unsigned)nseg, BT, w->smem>>>(cur, out, (T *)w->scratch, w->ss, w->se, w->g,
                                                      w->pl.levels, w->ls0, w->le0, w->ls1, w->le1);
    PB_CUDA_LAUNCHED(err);
    if (mark(w, err)) return -1;
    return print_phases(w, err);
}

struct state {
    void *bufs; /* first: the _via helpers */
    work w;
    uint32_t *perm; /* records: the permutation of indices */
};

int prepare(const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    if (pt->n >= (UINT64_C(1) << 32))
        return pb_err_set(err, "gpu-rao-sandelius: %llu items, beyond 2^32 - 1", (unsigned long long)pt->n);
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    const bool rec = pt->item_bytes != 4 && pt->item_bytes != 8;
    if (rec) PB_CUDA_TRY(cudaMalloc(&s->perm, (pt->n ? pt->n : 1) * 4), err);
    return work_alloc(&s->w, pt->params, pt->n, 1, rec ? 4 : pt->item_bytes, pt->seed, rec, err);
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    if (sample >= PB_GRS_MAX_SAMPLE) return pb_err_set(err, "gpu-rao-sandelius: sample beyond 2^62");
    if (s->perm) {
        if (shuffle_typed<uint32_t>(&s->w, nullptr, s->perm, sample, err)) return -1;
        return pb_gpu_gather_records_u32(b->d_in, b->d_out, s->perm, s->w.n, b->pt.item_bytes, nullptr, err);
    }
    if (s->w.ib == 4) return shuffle_typed<uint32_t>(&s->w, (const uint32_t *)b->d_in, (uint32_t *)b->d_out, sample, err);
    return shuffle_typed<uint64_t>(&s->w, (const uint64_t *)b->d_in, (uint64_t *)b->d_out, sample, err);
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    work_free(&s->w);
    cudaFree(s->perm);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t footprint(const pb_point *pt)
{
    /* scratch (or, records, the permutation, its scratch and the
     * identity), four list arrays, the pass counts (a word a label a tile)
     * and the segment tables */
    const uint64_t ib = pt->item_bytes == 4 || pt->item_bytes == 8 ? pt->item_bytes : 12;
    return pb_gpu_shuffle_footprint(pt) + pt->n * (ib + 16) + (pt->n / TILE + 2) * 2048 + (64u << 20);
}

int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count, uint32_t *out,
                 pb_err *err)
{
    if (count == 0 || n == 0) return 0;
    if (first + count > PB_GRS_MAX_SAMPLE) return pb_err_set(err, "gpu-rao-sandelius: samples beyond 2^62");
    /* Batches of at most 2^22 items, and one permutation at least. */
    uint64_t per = (UINT64_C(1) << 22) / n;
    if (per < 1) per = 1;
    int rc = 0;
    for (uint64_t done = 0; !rc && done < count; done += per) {
        uint64_t c = count - done < per ? count - done : per;
        work w;
        memset(&w, 0, sizeof w);
        uint32_t *d = nullptr;
        rc = work_alloc(&w, params, n, c, 4, seed, true, err);
        if (!rc && cudaMalloc(&d, (size_t)c * n * 4) != cudaSuccess) rc = pb_err_set(err, "sample_perms: no device memory");
        if (!rc) rc = shuffle_typed<uint32_t>(&w, nullptr, d, first + done, err);
        if (!rc) {
            cudaError_t e = cudaMemcpy(out + done * n, d, (size_t)c * n * 4, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) rc = pb_err_set(err, "sample_perms: %s", cudaGetErrorString(e));
        }
        cudaFree(d);
        work_free(&w);
    }
    return rc;
}

const pb_param_spec params[] = {
    PB_GRS_SHAPE_PARAMS(8), /* 256 parts at most: a pass's and a block's label counts */
    {"cap", PB_PARAM_INT, 0, 0, 16384, NULL,
     "items a segment may hold to be worked on in shared memory; larger ones go through global memory "
     "(0: 9216; small values force the global path, for tests)"},
};

} // namespace

extern "C" const pb_module pb_module_gpu_rao_sandelius = {
    .name = "gpu-rao-sandelius",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_SEEDED,
    .summary = "GPU Rao-Sandelius: coalesced multisplit passes by drawn random labels, then each segment split by "
               "random labels in shared memory and finished by Fisher-Yates; exactly uniform, equal to grs-twin",
    .params = params,
    .nparams = 5,
    .max_n = (UINT64_C(1) << 32) - 1,
    .footprint = footprint,
    .prepare = prepare,
    .run = run,
    .result = pb_gpu_shuffle_result_via,
    .verify = pb_gpu_shuffle_verify_via,
    .release = release,
    .sample_perms = sample_perms,
    .refresh = pb_gpu_shuffle_refresh_via,
    .fingerprint = pb_gpu_shuffle_fingerprint_via,
    .bound = PB_BOUND_NONE,
    .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR) | PB_ITEM_CLASSES(PB_ITEM_RECORD),
};

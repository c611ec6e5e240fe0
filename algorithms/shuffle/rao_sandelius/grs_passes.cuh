/* Stage 1 of the GPU Rao-Sandelius shuffle (gpu_rao_sandelius.cu): the
 * multisplit passes over the whole array, a tile's labels counted, then
 * the tile moved to every label's place. */
#ifndef PB_GRS_PASSES_CUH
#define PB_GRS_PASSES_CUH

#include "algorithms/shuffle/rao_sandelius/grs_kernel_args.cuh"
#include "families/shuffle/gpu_records.h"

namespace {

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
    const uint32_t t = blockIdx.x + a.tile0;
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
        dst[goff[L] + r - lstart[L] - a.dst_base] = item[r];
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

} // namespace

#endif

/* Stage 2 of the GPU Rao-Sandelius shuffle (gpu_rao_sandelius.cu): inside
 * a segment, the fast path in shared memory (fast_segment) and the
 * general one in global memory, down to Fisher-Yates on the parts. */
#ifndef PB_GRS_SEGMENT_CUH
#define PB_GRS_SEGMENT_CUH

#include "algorithms/shuffle/rao_sandelius/grs_kernel_args.cuh"
#include "families/shuffle/gpu_records.h"

namespace {

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

/* One block a segment [starts[b], ends[b]) of src (position P at
 * src[P - src_base]: 0, or a group's start when src is a slot of the L2
 * order's ring), shuffled into the same positions of data; its splits
 * start at depth `depth0`. A segment of at
 * most `cap` items takes fast_segment; a larger one, or one whose split
 * made a part to split again, the general path: every level in global
 * memory (the segment copied to data first, scratch as the second buffer,
 * the segments still to split in lists), the same output. */
template <typename T>
__global__ void __launch_bounds__(BT, 2)
    shuffle_segments(const T *src, uint32_t src_base, T *data, T *scratch, const uint32_t *starts,
                     const uint32_t *ends, grs_args g, uint32_t depth0, uint32_t *ls0, uint32_t *le0, uint32_t *ls1,
                     uint32_t *le1)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ fast_shared fs;
    __shared__ unsigned ncur, nnext;
    const uint64_t start = starts[blockIdx.x];
    const uint32_t m = ends[blockIdx.x] - (uint32_t)start;
    if (m == 0) return;
    const uint64_t j = start / g.n, S = start - j * g.n, sample = g.first + j;
    const T *in = src + (start - src_base);
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

} // namespace

#endif

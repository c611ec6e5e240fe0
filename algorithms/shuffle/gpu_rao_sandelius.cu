/* gpu-rao-sandelius: the GPU Rao-Sandelius shuffle (issue 20, item 1;
 * docs/gpu-rao-sandelius.md), equal bit for bit to its C model
 * (grs_model.h, and the CPU module grs-twin). A first version, built for
 * correctness and a first measurement:
 *
 *   1. every item draws its first label (pb_grs_item_key) and CUB's radix
 *      sort orders the items by it, stably (keys stored: the model's
 *      "labels drawn again in each pass" is a later step);
 *   2. a bounds pass finds each bucket (a run of equal labels);
 *   3. one block a bucket: the bucket is loaded into shared memory (or,
 *      when it is larger than `cap` items, worked on in global memory with
 *      a scratch buffer: the same code, so the output never depends on
 *      where), then split level by level by 2^level_bits labels drawn at
 *      positions (a segment of at least BIG items by the whole block, the
 *      smaller ones a warp each), each part of at most `small` items
 *      shuffled by Fisher-Yates by one thread as soon as it is formed;
 *      the segments still to split wait in a list in global memory.
 *
 * Sample permutations (the quality battery) run the same kernels on a
 * batch: every permutation a segment of CUB's segmented radix sort, then
 * one block a (permutation, bucket). */
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "algorithms/shuffle/grs_model.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_items.h"

namespace {

enum { P_KEY_BITS, P_TARGET, P_LEVEL_BITS, P_SMALL, P_CAP };
constexpr int BT = 256, NW = BT / 32;
/* Segments of at least BIG items are split by the whole block. */
constexpr uint32_t BIG = 1024;
constexpr uint32_t NONE = 0xffffffffu;

struct grs_args {
    philox4x32_key_t k;
    uint64_t first; /* the sample of permutation 0 */
    uint64_t n;     /* items a permutation */
    uint64_t nb;    /* buckets a permutation: 2^key_bits */
    unsigned kb, lb;
    uint32_t small, cap;
};

/* ---- first labels and buckets ---- */

__global__ void first_labels(grs_args g, uint64_t total, uint32_t *keys, uint32_t *vals)
{
    for (uint64_t P = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; P < total;
         P += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t j = P / g.n, i = P - j * g.n;
        keys[P] = pb_grs_item_key(g.k, i, g.first + j, g.kb);
        if (vals) vals[P] = (uint32_t)i; /* sample permutations: the identity */
    }
}

/* starts[j * nb + b], ends[...]: bucket b of permutation j (zeroed before:
 * an empty bucket stays [0, 0)). */
__global__ void bucket_bounds(grs_args g, uint64_t total, const uint32_t *__restrict__ ko, uint32_t *starts,
                              uint32_t *ends)
{
    for (uint64_t P = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; P < total;
         P += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t j = P / g.n, p = P - j * g.n;
        uint32_t lab = ko[P];
        uint64_t id = j * g.nb + lab;
        if (p == 0 || ko[P - 1] != lab) starts[id] = (uint32_t)p;
        if (p == g.n - 1 || ko[P + 1] != lab) ends[id] = (uint32_t)(p + 1);
    }
}

/* ---- inside a bucket ---- */

/* Fisher-Yates of A[ps, ps + m), bucket at position S of its permutation. */
template <typename T>
__device__ void fisher_yates(T *A, uint64_t S, uint32_t ps, uint32_t m, const grs_args &g, uint64_t sample)
{
    for (uint32_t t = 0; t + 1 < m; t++) {
        uint32_t j = m - 1 - t;
        uint32_t r = pb_grs_fy_pick(g.k, S + ps + t, j + 1, sample);
        if (r != j) {
            T x = A[ps + j];
            A[ps + j] = A[ps + r];
            A[ps + r] = x;
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

__device__ __forceinline__ uint32_t level_label(const grs_args &g, uint64_t pos, uint32_t level, uint64_t sample)
{
    return pb_grs_level_label(g.k, pos, level, sample, g.lb);
}

/* A warp counts the level labels of positions [wa, we) into hist (32
 * words of its own, added to). */
__device__ void warp_count(uint32_t wa, uint32_t we, uint32_t level, const grs_args &g, uint64_t S, uint64_t sample,
                           unsigned *hist)
{
    const unsigned lane = threadIdx.x & 31;
    for (uint32_t c = wa; c < we; c += 32) {
        uint32_t p = c + lane;
        uint32_t lab = p < we ? level_label(g, S + p, level, sample) : NONE;
        unsigned peers = __match_any_sync(0xffffffffu, lab);
        if (lab != NONE && lane == (unsigned)(__ffs(peers) - 1)) hist[lab] += (unsigned)__popc(peers);
        __syncwarp();
    }
}

/* A warp moves positions [wa, we) of A to B[a + place], place = hist[label]
 * (the next free place of each label, advanced as it goes): stable. */
template <typename T>
__device__ void warp_move(const T *A, T *B, uint32_t a, uint32_t wa, uint32_t we, uint32_t level, const grs_args &g,
                          uint64_t S, uint64_t sample, unsigned *hist)
{
    const unsigned lane = threadIdx.x & 31, lower = (1u << lane) - 1;
    for (uint32_t c = wa; c < we; c += 32) {
        uint32_t p = c + lane;
        uint32_t lab = p < we ? level_label(g, S + p, level, sample) : NONE;
        unsigned peers = __match_any_sync(0xffffffffu, lab);
        if (lab != NONE) B[a + hist[lab] + __popc(peers & lower)] = A[p];
        __syncwarp();
        if (lab != NONE && lane == (unsigned)(__ffs(peers) - 1)) hist[lab] += (unsigned)__popc(peers);
        __syncwarp();
    }
}

/* One warp splits [a, e) stably by its level labels (A -> B -> A), then
 * finishes its parts (lane q: part q). hist: 32 words of the warp's own. */
template <typename T>
__device__ void warp_split(T *A, T *B, uint32_t a, uint32_t e, uint32_t level, const grs_args &g, uint64_t S,
                           uint64_t sample, unsigned *hist, const lists &L)
{
    const unsigned lane = threadIdx.x & 31;
    hist[lane] = 0;
    __syncwarp();
    warp_count(a, e, level, g, S, sample, hist);
    unsigned cnt = hist[lane], incl = cnt;
    for (int o = 1; o < 32; o <<= 1) {
        unsigned v = __shfl_up_sync(0xffffffffu, incl, o);
        if ((int)lane >= o) incl += v;
    }
    const unsigned base = incl - cnt;
    __syncwarp();
    hist[lane] = base;
    __syncwarp();
    warp_move(A, B, a, a, e, level, g, S, sample, hist);
    for (uint32_t p = a + lane; p < e; p += 32) A[p] = B[p];
    __syncwarp();
    finish_part(A, S, a + base, cnt, level + 1, g, sample, L);
    __syncwarp();
}

/* The whole block splits [a, e): warp w counts and moves its contiguous
 * chunk; the places are label-major, warp-minor (the stable order). */
template <typename T>
__device__ void block_split(T *A, T *B, uint32_t a, uint32_t e, uint32_t level, const grs_args &g, uint64_t S,
                            uint64_t sample, unsigned (*hist)[32], unsigned *tot, unsigned *lbase, const lists &L)
{
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t len = e - a, cw = ((len + NW - 1) / NW + 31) & ~31u;
    const uint32_t wa = a + min(len, warp * cw), we = a + min(len, (warp + 1) * cw);
    hist[warp][lane] = 0;
    __syncwarp();
    warp_count(wa, we, level, g, S, sample, hist[warp]);
    __syncthreads();
    if (warp == 0) {
        unsigned t = 0;
        for (int w = 0; w < NW; w++) t += hist[w][lane];
        unsigned incl = t;
        for (int o = 1; o < 32; o <<= 1) {
            unsigned v = __shfl_up_sync(0xffffffffu, incl, o);
            if ((int)lane >= o) incl += v;
        }
        unsigned run = incl - t;
        tot[lane] = t;
        lbase[lane] = run;
        for (int w = 0; w < NW; w++) {
            unsigned h = hist[w][lane];
            hist[w][lane] = run;
            run += h;
        }
    }
    __syncthreads();
    warp_move(A, B, a, wa, we, level, g, S, sample, hist[warp]);
    __syncthreads();
    for (uint32_t p = a + threadIdx.x; p < e; p += BT) A[p] = B[p];
    __syncthreads();
    if (threadIdx.x < 32) finish_part(A, S, a + lbase[threadIdx.x], tot[threadIdx.x], level + 1, g, sample, L);
    __syncthreads();
}

/* One block a (permutation, bucket). */
template <typename T>
__global__ void __launch_bounds__(BT)
    shuffle_buckets(T *data, T *scratch, const uint32_t *starts, const uint32_t *ends, grs_args g, uint32_t *ls0,
                    uint32_t *le0, uint32_t *ls1, uint32_t *le1)
{
    extern __shared__ unsigned char smem[];
    __shared__ unsigned hist[NW][32], tot[32], lbase[32], ncur, nnext;
    const uint64_t bid = blockIdx.x, j = bid / g.nb;
    const uint32_t S = starts[bid], m = ends[bid] - S;
    if (m == 0) return;
    const uint64_t sample = g.first + j, off = j * g.n + S;
    T *arr = data + off;
    const bool sh = m <= g.cap;
    T *A = sh ? (T *)smem : arr;
    T *B = sh ? (T *)smem + g.cap : scratch + off;
    if (sh) {
        for (uint32_t p = threadIdx.x; p < m; p += BT) A[p] = arr[p];
        __syncthreads();
    }
    if (m <= g.small) {
        if (threadIdx.x == 0) fisher_yates(A, S, 0, m, g, sample);
    } else {
        uint32_t *cs = ls0 + off, *ce = le0 + off, *xs = ls1 + off, *xe = le1 + off;
        if (threadIdx.x == 0) {
            cs[0] = 0;
            ce[0] = m;
            ncur = 1;
        }
        __syncthreads();
        for (uint32_t level = 0;; level++) {
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
                if (ce[i] - cs[i] >= BIG) block_split(A, B, cs[i], ce[i], level, g, S, sample, hist, tot, lbase, L);
            const unsigned warp = threadIdx.x >> 5;
            for (unsigned i = warp; i < nc; i += NW)
                if (ce[i] - cs[i] < BIG) warp_split(A, B, cs[i], ce[i], level, g, S, sample, hist[warp], L);
            __syncthreads();
            if (threadIdx.x == 0) ncur = nnext;
            uint32_t *t = cs;
            cs = xs, xs = t, t = ce, ce = xe, xe = t;
            __syncthreads();
        }
    }
    __syncthreads();
    if (sh)
        for (uint32_t p = threadIdx.x; p < m; p += BT) arr[p] = A[p];
}

/* ---- the module ---- */

/* Shared capacity in items: `cap`, or (0) as many as 2 x 48 KiB hold. */
uint32_t cap_of(const pb_params *p, unsigned ib)
{
    return p->v[P_CAP] > 0 ? (uint32_t)p->v[P_CAP] : (uint32_t)(49152 / ib);
}

/* Buffers for `total` items in `count` permutations of n. */
struct work {
    uint64_t total, count, n;
    unsigned ib;
    grs_args g;
    uint32_t *keys, *keys_out, *vals, *starts, *ends, *ls0, *le0, *ls1, *le1;
    int *seg; /* batch: permutation offsets (count + 1) */
    void *scratch, *temp;
    size_t temp_bytes;
};

void work_free(work *w)
{
    void *p[] = {w->keys, w->keys_out, w->vals, w->starts, w->ends, w->ls0, w->le0, w->ls1, w->le1, w->seg,
                 w->scratch, w->temp};
    for (void *q : p) cudaFree(q);
    memset(w, 0, sizeof *w);
}

int work_alloc(work *w, const pb_params *p, uint64_t n, uint64_t count, unsigned ib, uint64_t seed, pb_err *err)
{
    pb_grs_shape sh = pb_grs_shape_of(p->v, n);
    w->n = n, w->count = count, w->total = n * count, w->ib = ib;
    w->g.k = pb_grs_key(seed);
    w->g.n = n;
    w->g.kb = sh.key_bits;
    w->g.lb = sh.level_bits;
    w->g.nb = UINT64_C(1) << sh.key_bits;
    w->g.small = sh.small;
    w->g.cap = cap_of(p, ib);
    if (w->g.lb > 5) return pb_err_set(err, "gpu-rao-sandelius: level_bits %u: at most 5 (a warp's 32 parts)", w->g.lb);
    size_t t = (size_t)(w->total ? w->total : 1), cells = (size_t)(count * w->g.nb);
    PB_CUDA_TRY(cudaMalloc(&w->keys, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->keys_out, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->starts, cells * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ends, cells * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ls0, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->le0, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ls1, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->le1, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->scratch, t * ib), err);
    size_t bytes = 0;
    if (count == 1) {
        if (ib == 4)
            PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, w->keys, w->keys_out, (const uint32_t *)nullptr,
                                                        (uint32_t *)nullptr, w->total, 0, (int)w->g.kb),
                        err);
        else
            PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, bytes, w->keys, w->keys_out, (const uint64_t *)nullptr,
                                                        (uint64_t *)nullptr, w->total, 0, (int)w->g.kb),
                        err);
    } else {
        PB_CUDA_TRY(cudaMalloc(&w->vals, t * 4), err);
        PB_CUDA_TRY(cudaMalloc(&w->seg, (count + 1) * sizeof(int)), err);
        PB_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(nullptr, bytes, w->keys, w->keys_out, w->vals,
                                                             (uint32_t *)nullptr, (int64_t)w->total, (int64_t)count,
                                                             w->seg, w->seg + 1, 0, (int)w->g.kb),
                    err);
    }
    w->temp_bytes = bytes;
    PB_CUDA_TRY(cudaMalloc(&w->temp, bytes ? bytes : 16), err);
    return 0;
}

/* Steps 1-3 for `first`: in -> out (count == 1), or the identity
 * permutations into out (u32, count of them). */
template <typename T> int shuffle_typed(work *w, const T *in, T *out, uint64_t first, pb_err *err)
{
    if (w->total == 0) return 0;
    w->g.first = first;
    first_labels<<<pb_grid_for(w->total, BT), BT>>>(w->g, w->total, w->keys, w->vals);
    PB_CUDA_LAUNCHED(err);
    if (w->g.kb == 0) { /* one bucket a permutation: no sort */
        const void *src = w->count == 1 ? (const void *)in : (const void *)w->vals;
        PB_CUDA_TRY(cudaMemcpyAsync(out, src, w->total * sizeof(T), cudaMemcpyDeviceToDevice), err);
        PB_CUDA_TRY(cudaMemsetAsync(w->keys_out, 0, w->total * 4), err);
    } else if (w->count == 1) {
        {
            PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(w->temp, w->temp_bytes, w->keys, w->keys_out, in, out,
                                                        w->total, 0, (int)w->g.kb),
                        err);
        }
    } else {
        PB_CUDA_TRY(cub::DeviceSegmentedRadixSort::SortPairs(w->temp, w->temp_bytes, w->keys, w->keys_out, w->vals,
                                                             (uint32_t *)out, (int64_t)w->total, (int64_t)w->count,
                                                             w->seg, w->seg + 1, 0, (int)w->g.kb),
                    err);
    }
    size_t cells = (size_t)(w->count * w->g.nb);
    PB_CUDA_TRY(cudaMemsetAsync(w->starts, 0, cells * 4), err);
    PB_CUDA_TRY(cudaMemsetAsync(w->ends, 0, cells * 4), err);
    bucket_bounds<<<pb_grid_for(w->total, BT), BT>>>(w->g, w->total, w->keys_out, w->starts, w->ends);
    PB_CUDA_LAUNCHED(err);
    size_t smem = (size_t)2 * w->g.cap * sizeof(T);
    PB_CUDA_TRY(cudaFuncSetAttribute(shuffle_buckets<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem), err);
    shuffle_buckets<T><<<(unsigned)cells, BT, smem>>>(out, (T *)w->scratch, w->starts, w->ends, w->g, w->ls0,
                                                       w->le0, w->ls1, w->le1);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

struct state {
    void *bufs; /* first: the _via helpers */
    work w;
};

int prepare(const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    if (pt->n >= (UINT64_C(1) << 32)) return pb_err_set(err, "gpu-rao-sandelius: %llu items, beyond 2^32 - 1", (unsigned long long)pt->n);
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    if (pt->item_bytes != 4 && pt->item_bytes != 8) return pb_err_set(err, "gpu-rao-sandelius: u32 and u64 items only");
    return work_alloc(&s->w, pt->params, pt->n, 1, pt->item_bytes, pt->seed, err);
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    if (sample >= PB_GRS_MAX_SAMPLE) return pb_err_set(err, "gpu-rao-sandelius: sample beyond 2^62");
    if (s->w.ib == 4) return shuffle_typed<uint32_t>(&s->w, (const uint32_t *)b->d_in, (uint32_t *)b->d_out, sample, err);
    return shuffle_typed<uint64_t>(&s->w, (const uint64_t *)b->d_in, (uint64_t *)b->d_out, sample, err);
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    work_free(&s->w);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t footprint(const pb_point *pt)
{
    /* scratch, two key arrays, four list arrays, CUB's sort (about another
     * copy of keys and items) */
    return pb_gpu_shuffle_footprint(pt) + pt->n * (2ull * pt->item_bytes + 28) + (64u << 20);
}

int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count, uint32_t *out,
                 pb_err *err)
{
    if (count == 0 || n == 0) return 0;
    if (first + count > PB_GRS_MAX_SAMPLE) return pb_err_set(err, "gpu-rao-sandelius: samples beyond 2^62");
    /* Batches of at most 2^22 items, and one permutation at least. */
    uint64_t per = (UINT64_C(1) << 22) / n;
    if (per < 2) per = 2; /* count 1 takes the single-permutation path */
    int rc = 0;
    for (uint64_t done = 0; !rc && done < count; done += per) {
        uint64_t c = count - done < per ? count - done : per;
        if (c == 1) c = 2; /* a batch of two, the second dropped: the same kernels */
        work w;
        memset(&w, 0, sizeof w);
        uint32_t *d = nullptr;
        rc = work_alloc(&w, params, n, c, 4, seed, err);
        if (!rc) {
            int *off = (int *)malloc((c + 1) * sizeof(int));
            if (!off) rc = pb_err_set(err, "out of memory");
            for (uint64_t j = 0; !rc && j <= c; j++) off[j] = (int)(j * n);
            cudaError_t e = rc ? cudaSuccess : cudaMemcpy(w.seg, off, (c + 1) * sizeof(int), cudaMemcpyHostToDevice);
            free(off);
            if (!rc && e != cudaSuccess) rc = pb_err_set(err, "sample_perms: %s", cudaGetErrorString(e));
        }
        if (!rc && cudaMalloc(&d, (size_t)c * n * 4) != cudaSuccess) rc = pb_err_set(err, "sample_perms: no device memory");
        if (!rc) rc = shuffle_typed<uint32_t>(&w, nullptr, d, first + done, err);
        uint64_t keep = count - done < c ? count - done : c;
        if (!rc) {
            cudaError_t e = cudaMemcpy(out + done * n, d, (size_t)keep * n * 4, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) rc = pb_err_set(err, "sample_perms: %s", cudaGetErrorString(e));
        }
        cudaFree(d);
        work_free(&w);
    }
    return rc;
}

const pb_param_spec params[] = {
    PB_GRS_SHAPE_PARAMS(5), /* a warp's 32 parts at most */
    {"cap", PB_PARAM_INT, 0, 0, 1LL << 20, NULL,
     "items a bucket may hold to be worked on in shared memory; larger ones go through global memory "
     "(0: 48 KiB of items; small values force the global path, for tests)"},
};

} // namespace

extern "C" const pb_module pb_module_gpu_rao_sandelius = {
    .name = "gpu-rao-sandelius",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_SEEDED,
    .summary = "GPU Rao-Sandelius: CUB radix sort by random labels, then each bucket split by random labels in "
               "shared memory and finished by Fisher-Yates; exactly uniform, equal to grs-twin",
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
};

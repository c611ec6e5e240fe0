/* gpu-pov-shuffle: the POV-shuffle (algorithms/shuffle/pov/pov.h, docs/pov.md)
 * in place on the GPU, equal bit for bit to its C twin pov-shuffle.
 *
 * Each iteration the GPU makes its own layout: a thread a physical block
 * draws the block's 64-bit key and CUB's radix sort (stable, like the
 * twin's) orders the blocks by key into sigma; the host draws the offset
 * (one Philox call) and passes it by value with the launch, so no host
 * buffer is shared with the device and nothing waits on it. Then
 * one CUDA block a virtual block: its threads list the virtual block's
 * places, gather its items into shared memory, make all its draws in
 * parallel (every draw depends only on its own counter) while they gather,
 * one thread does the Fisher-Yates swaps on a permutation of the places,
 * and the threads write item perm[l] to place l. The battery's sample
 * permutations come from the same kernel, many at once (a batch of
 * identities; the host makes their sigmas, by the twin's function). */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>

#include "algorithms/shuffle/pov/pov_twin.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "core/module.h"
#include "families/shuffle/gpu_records.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"

namespace {

enum { P_ITERATIONS, P_BLOCK, P_VBLOCK };

constexpr int THREADS = 128;  /* scalar items */
constexpr int RTHREADS = 256; /* records: warp 0 draws and swaps while seven warps gather */

const pb_param_spec params[] = {
    {"iterations", PB_PARAM_INT, PB_POV_DEFAULT_ITERATIONS, 1, PB_POV_MAX_ITERATIONS, NULL,
     "POV iterations (offset, block assignment, shuffle of each virtual block)"},
    {"block", PB_PARAM_INT, PB_POV_DEFAULT_BLOCK, 1, PB_POV_MAX_VBLOCK_ITEMS, NULL, "items a physical block"},
    {"vblock", PB_PARAM_INT, PB_POV_DEFAULT_VBLOCK, 1, PB_POV_MAX_VBLOCK_ITEMS, NULL,
     "physical blocks a virtual block (block x vblock <= 4096)"},
};

pb_pov_params pov_params(const pb_params *p)
{
    return pb_pov_params{(uint32_t)p->v[P_ITERATIONS], (uint32_t)p->v[P_BLOCK], (uint32_t)p->v[P_VBLOCK]};
}

size_t smem_bytes(const pb_pov_params &p, unsigned item_bytes)
{
    size_t m = (size_t)p.block * p.vblock;
    return m * item_bytes + (m + 1) * sizeof(uint16_t);
}

/* Records: the places (4 bytes), the draws and the permutation of the
 * places the swaps make (2 bytes each), after the virtual block's records
 * when they are staged in shared memory (`staged`), alone when in global
 * scratch. */
size_t smem_bytes_records(const pb_pov_params &p, unsigned item_bytes, bool staged)
{
    size_t m = (size_t)p.block * p.vblock;
    return (staged ? m * item_bytes : 0) + m * sizeof(uint32_t) + (m + 1) * sizeof(uint16_t) + m * sizeof(uint16_t);
}

/* Shared memory a block may have on H100 and H200 (227 KiB): virtual
 * blocks of records beyond it are staged in global scratch instead. The
 * footprint's estimate; prepare asks the device. */
constexpr size_t SMEM_OPTIN = 227 * 1024;

/* Virtual block v's layout, shared by both kernels: its slots s0 .. (the
 * physical blocks sigma assigns it), which of them (if any) is the short
 * last physical block, the only one not `block` long, and its item count.
 * Every thread of the block calls it (it synchronises); nslots and
 * short_slot are the caller's __shared__ words. */
struct vblock_layout {
    uint64_t s0;
    uint32_t ss, short_len, m;

    /* Item l of the virtual block: slot k, item t of its physical block. */
    __device__ uint64_t where(const uint32_t *sg, uint64_t n, const pb_pov_params &p, uint64_t off,
                              uint32_t l) const
    {
        uint32_t k, t;
        uint32_t before = ss == UINT32_MAX ? UINT32_MAX : ss * p.block;
        if (l < before) k = l / p.block, t = l % p.block;
        else if (l < before + short_len) k = ss, t = l - before;
        else {
            uint32_t r = l - before - short_len;
            k = ss + 1 + r / p.block, t = r % p.block;
        }
        return pb_pov_position(n, p.block, off, sg[s0 + k], t);
    }
};

__device__ vblock_layout layout_of(const uint32_t *sg, uint64_t n, const pb_pov_params &p, uint64_t nblocks,
                                   uint32_t v, uint32_t *nslots, uint32_t *short_slot)
{
    vblock_layout L;
    L.s0 = (uint64_t)v * p.vblock;
    if (threadIdx.x == 0) {
        *nslots = (uint32_t)(nblocks - L.s0 < p.vblock ? nblocks - L.s0 : p.vblock);
        *short_slot = UINT32_MAX;
    }
    __syncthreads();
    for (uint32_t k = threadIdx.x; k < *nslots; k += blockDim.x)
        if (sg[L.s0 + k] == nblocks - 1) *short_slot = k;
    __syncthreads();
    L.ss = *short_slot;
    L.short_len = L.ss == UINT32_MAX ? p.block : pb_pov_block_len(n, p.block, nblocks - 1);
    L.m = *nslots * p.block - (p.block - L.short_len);
    return L;
}

/* The Fisher-Yates draws of steps m .. 2 (draws[i] for step i), four a
 * Philox call, made by threads tid of nt in parallel (each draw depends on
 * its own counter only). */
__device__ void make_draws(uint16_t *draws, uint32_t m, uint64_t seed, uint64_t sample, uint32_t it, uint32_t v,
                           uint32_t tid, uint32_t nt)
{
    for (uint32_t g = tid; g <= (m >> 2); g += nt) {
        philox4x32_ctr_t w = pb_pov_words(seed, sample, it, v, g, 0);
        for (uint32_t q = 0; q < 4; q++) {
            uint32_t i = 4 * g + q, r;
            if (i < 2 || i > m) continue;
            if (!pb_lemire_pick(w.v[q], i, &r)) r = pb_pov_draw(seed, sample, it, v, i, i);
            draws[i] = (uint16_t)r;
        }
    }
}

/* Thread 0's Fisher-Yates swaps, steps m .. 2, on a (the items, or a
 * permutation of their places), with the draws already made. */
template <typename T>
__device__ void fisher_yates_swaps(T *a, const uint16_t *draws, uint32_t m)
{
    for (uint32_t i = m; i > 1; i--) {
        uint32_t r = draws[i];
        T x = a[i - 1];
        a[i - 1] = a[r];
        a[r] = x;
    }
}

/* Step 2 of the layout on the device: block b's key (its value, b, is
 * the identity prepare wrote once: the sort leaves its input as it was). */
__global__ void block_keys(uint64_t *keys, uint64_t nblocks, uint64_t seed, uint64_t sample, uint32_t it)
{
    for (uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; b < nblocks;
         b += (uint64_t)gridDim.x * blockDim.x)
        keys[b] = pb_pov_block_key(seed, sample, it, b);
}

/* One iteration over `count` arrays of n items (array j at base + j n, its
 * sigma at sigma + j nblocks, its offset offs[j], its sample first + j; a
 * single array, offs null, has offset off); CUDA block (j, v) shuffles
 * virtual block v of array j. */
template <typename T>
__global__ void __launch_bounds__(THREADS)
    pov_iteration(T *base, uint64_t n, pb_pov_params p, uint64_t nblocks, uint32_t nv, const uint32_t *sigma,
                  const uint64_t *offs, uint64_t off1, uint64_t seed, uint64_t first, uint32_t it)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ uint32_t short_slot, nslots;
    const uint64_t j = blockIdx.x / nv;
    const uint32_t v = (uint32_t)(blockIdx.x - j * nv);
    T *a = base + j * n;
    const uint32_t *sg = sigma + j * nblocks;
    const uint64_t sample = first + j;
    const uint64_t off = offs ? offs[j] : off1;
    const uint32_t m_most = p.block * p.vblock;
    T *buf = (T *)smem;
    uint16_t *draws = (uint16_t *)(smem + (size_t)m_most * sizeof(T));

    const vblock_layout L = layout_of(sg, n, p, nblocks, v, &nslots, &short_slot);
    const uint32_t m = L.m;
    auto where = [&](uint32_t l) { return L.where(sg, n, p, off, l); };

    for (uint32_t l = threadIdx.x; l < m; l += THREADS) buf[l] = a[where(l)];
    make_draws(draws, m, seed, sample, it, v, threadIdx.x, THREADS);
    __syncthreads();
    if (threadIdx.x == 0) fisher_yates_swaps(buf, draws, m);
    __syncthreads();
    for (uint32_t l = threadIdx.x; l < m; l += THREADS) a[where(l)] = buf[l];
}

/* One iteration on records of `vecs` vectors V (16 bytes where the width
 * allows, else 8). The threads list the virtual block's places; then warp
 * 0 makes the draws and thread 0 the Fisher-Yates swaps on a permutation
 * of the places (2-byte entries, so a swap costs the same at any width)
 * while the other seven warps gather the records into shared memory
 * (global scratch where a block's shared memory cannot hold them), groups
 * of `group` threads a record, four records in flight a thread; then every
 * group writes record perm[l] to place l. The same swaps on the same
 * draws: the twin's output. */
template <typename V>
__global__ void __launch_bounds__(RTHREADS)
    pov_records(V *a, V *scratch, unsigned vecs, unsigned group, uint64_t n, pb_pov_params p, uint64_t nblocks,
                const uint32_t *sg, uint64_t off, uint64_t seed, uint64_t sample, uint32_t it)
{
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ uint32_t short_slot, nslots;
    const uint32_t v = blockIdx.x;
    const uint32_t m_most = p.block * p.vblock;
    V *buf = scratch ? scratch + (size_t)v * m_most * vecs : (V *)smem;
    uint32_t *pos = (uint32_t *)(scratch ? smem : smem + (size_t)m_most * vecs * sizeof(V));
    uint16_t *draws = (uint16_t *)(pos + m_most);
    uint16_t *perm = draws + m_most + 1;

    const vblock_layout L = layout_of(sg, n, p, nblocks, v, &nslots, &short_slot);
    const uint32_t m = L.m;
    for (uint32_t l = threadIdx.x; l < m; l += RTHREADS) pos[l] = (uint32_t)L.where(sg, n, p, off, l);
    __syncthreads();
    if (threadIdx.x < 32) {
        for (uint32_t l = threadIdx.x; l < m; l += 32) perm[l] = (uint16_t)l;
        make_draws(draws, m, seed, sample, it, v, threadIdx.x, 32);
        __syncwarp();
        if (threadIdx.x == 0) fisher_yates_swaps(perm, draws, m);
    } else {
        const unsigned t = threadIdx.x - 32, lane = t % group, groups = (RTHREADS - 32) / group;
        for (uint32_t l0 = t / group; l0 < m; l0 += 4 * groups)
            for (unsigned k = lane; k < vecs; k += group) {
                V x[4];
#pragma unroll
                for (unsigned q = 0; q < 4; q++) {
                    uint32_t l = l0 + q * groups;
                    if (l < m) x[q] = a[(size_t)pos[l] * vecs + k];
                }
#pragma unroll
                for (unsigned q = 0; q < 4; q++) {
                    uint32_t l = l0 + q * groups;
                    if (l < m) buf[(size_t)l * vecs + k] = x[q];
                }
            }
    }
    __syncthreads();
    const unsigned lane = threadIdx.x % group, groups = RTHREADS / group;
    for (uint32_t l = threadIdx.x / group; l < m; l += groups) {
        V *dst = a + (size_t)pos[l] * vecs;
        const V *src = buf + (size_t)perm[l] * vecs;
        for (unsigned k = lane; k < vecs; k += group) dst[k] = src[k];
    }
}

template <typename T>
cudaError_t launch(T *d, uint64_t n, const pb_pov_params &p, uint64_t count, const uint32_t *d_sigma,
                   const uint64_t *d_offs, uint64_t off1, uint64_t seed, uint64_t first, uint32_t it)
{
    uint64_t nblocks = pb_pov_blocks(n, p.block);
    uint32_t nv = (uint32_t)pb_pov_vblocks(n, &p);
    pov_iteration<T><<<(unsigned)(count * nv), THREADS, smem_bytes(p, sizeof(T))>>>(d, n, p, nblocks, nv, d_sigma,
                                                                                    d_offs, off1, seed, first, it);
    return cudaGetLastError();
}

/* The module's state: the family's buffers (run in place on d_out), the
 * blocks' keys and sigma, and CUB's sort storage. */
struct state {
    pb_gpu_shuffle_buffers *bufs;
    pb_pov_params p;
    uint64_t nblocks;
    uint64_t *d_keys, *d_keys_sorted; /* [nblocks] */
    uint32_t *d_blocks, *d_sigma;     /* [nblocks]: the identity (the sort's values), sigma */
    void *d_sort_temp;
    size_t sort_temp_bytes;
    void *d_scratch; /* records: virtual blocks too wide for shared memory */
    size_t smem;     /* records: pov_records's dynamic shared memory */
};

int refresh(void *st, pb_err *err);

bool vec16(unsigned item_bytes) { return item_bytes % 16 == 0; }

template <typename V>
cudaError_t records_smem_attr(size_t smem)
{
    return cudaFuncSetAttribute(pov_records<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
}

uint64_t footprint(const pb_point *pt)
{
    pb_pov_params p = pov_params(pt->params);
    uint64_t scratch = 0, nb = pb_pov_blocks(pt->n, p.block);
    if (pb_shuffle_is_record(pt->item_bytes) && smem_bytes_records(p, pt->item_bytes, true) > SMEM_OPTIN)
        scratch = pb_pov_vblocks(pt->n, &p) * p.block * p.vblock * pt->item_bytes;
    /* Keys twice, blocks and sigma, and the sort's storage (about the keys
     * again). */
    return pb_gpu_shuffle_footprint(pt) + nb * (8 + 8 + 4 + 4 + 12) + (1u << 20) + scratch;
}

int prepare(const pb_point *pt, void **out, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out = s;
    s->p = pov_params(pt->params);
    if (pb_pov_check(pt->n, &s->p, err)) return -1;
    if (pb_gpu_shuffle_prepare(pt, (void **)&s->bufs, err)) return -1;
    s->nblocks = pb_pov_blocks(pt->n, s->p.block);
    size_t nb = s->nblocks ? s->nblocks : 1;
    PB_CUDA_TRY(cudaMalloc(&s->d_keys, nb * sizeof *s->d_keys), err);
    PB_CUDA_TRY(cudaMalloc(&s->d_keys_sorted, nb * sizeof *s->d_keys_sorted), err);
    PB_CUDA_TRY(cudaMalloc(&s->d_blocks, nb * sizeof *s->d_blocks), err);
    PB_CUDA_TRY(cudaMalloc(&s->d_sigma, nb * sizeof *s->d_sigma), err);
    pb_iota<<<pb_grid_for(nb, 256), 256>>>(s->d_blocks, nb);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, s->sort_temp_bytes, s->d_keys, s->d_keys_sorted,
                                                s->d_blocks, s->d_sigma, (int64_t)nb),
                err);
    PB_CUDA_TRY(cudaMalloc(&s->d_sort_temp, s->sort_temp_bytes), err);
    PB_CUDA_TRY(cudaFuncSetAttribute(pov_iteration<uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes(s->p, 4)),
                err);
    PB_CUDA_TRY(cudaFuncSetAttribute(pov_iteration<uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)smem_bytes(s->p, 8)),
                err);
    if (pb_shuffle_is_record(pt->item_bytes)) {
        /* A virtual block's records in shared memory where they fit (rec256
         * at the defaults: 64 KiB), else in global scratch (rec1024 at the
         * defaults: 256 KiB, beyond any block's shared memory). */
        int dev, most;
        PB_CUDA_TRY(cudaGetDevice(&dev), err);
        PB_CUDA_TRY(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), err);
        bool staged = smem_bytes_records(s->p, pt->item_bytes, true) <= (size_t)most;
        if (!staged && pt->n >= 2) {
            size_t bytes = (size_t)pb_pov_vblocks(pt->n, &s->p) * s->p.block * s->p.vblock * pt->item_bytes;
            PB_CUDA_TRY(cudaMalloc(&s->d_scratch, bytes), err);
        }
        s->smem = smem_bytes_records(s->p, pt->item_bytes, staged);
        PB_CUDA_TRY(vec16(pt->item_bytes) ? records_smem_attr<uint4>(s->smem) : records_smem_attr<uint2>(s->smem),
                    err);
    }
    return refresh(s, err);
}

/* In place: the input is copied into the output buffer before the sample
 * (untimed), and the run shuffles the output buffer. */
int refresh(void *st, pb_err *err)
{
    state *s = (state *)st;
    if (pb_gpu_shuffle_refresh(s->bufs, err)) return -1;
    size_t bytes = (size_t)s->bufs->pt.n * s->bufs->pt.item_bytes;
    if (bytes) PB_CUDA_TRY(cudaMemcpyAsync(s->bufs->d_out, s->bufs->d_in, bytes, cudaMemcpyDeviceToDevice), err);
    return 0;
}

template <typename V>
void launch_records(state *s, uint64_t n, uint64_t off, uint64_t seed, uint64_t sample, uint32_t it)
{
    unsigned vecs = s->bufs->pt.item_bytes / sizeof(V);
    pov_records<V><<<(unsigned)pb_pov_vblocks(n, &s->p), RTHREADS, s->smem>>>(
        (V *)s->bufs->d_out, (V *)s->d_scratch, vecs, pb_record_group(vecs), n, s->p, s->nblocks, s->d_sigma, off,
        seed, sample, it);
}

/* Every iteration on the device, in stream order: the blocks' keys, their
 * sort into sigma, the virtual blocks' shuffles (the offset a launch
 * argument). No host buffer is shared with the device, so runs may follow
 * one another unwaited. */
int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    uint64_t n = s->bufs->pt.n, seed = s->bufs->pt.seed;
    unsigned ib = s->bufs->pt.item_bytes;
    if (n < 2) return 0;
    for (uint32_t it = 0; it < s->p.iterations; it++) {
        block_keys<<<pb_grid_for(s->nblocks, 256), 256>>>(s->d_keys, s->nblocks, seed, sample, it);
        PB_CUDA_LAUNCHED(err);
        PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(s->d_sort_temp, s->sort_temp_bytes, s->d_keys, s->d_keys_sorted,
                                                    s->d_blocks, s->d_sigma, (int64_t)s->nblocks),
                    err);
        uint64_t off = pb_pov_offset(n, s->p.block, seed, sample, it);
        if (pb_shuffle_is_record(ib)) {
            if (vec16(ib)) launch_records<uint4>(s, n, off, seed, sample, it);
            else launch_records<uint2>(s, n, off, seed, sample, it);
            PB_CUDA_LAUNCHED(err);
            continue;
        }
        uint32_t *d32 = (uint32_t *)s->bufs->d_out;
        uint64_t *d64 = (uint64_t *)s->bufs->d_out;
        cudaError_t e = ib == 4 ? launch(d32, n, s->p, 1, s->d_sigma, nullptr, off, seed, sample, it)
                                : launch(d64, n, s->p, 1, s->d_sigma, nullptr, off, seed, sample, it);
        PB_CUDA_TRY(e, err);
    }
    return 0;
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    cudaFree(s->d_keys), cudaFree(s->d_keys_sorted), cudaFree(s->d_blocks), cudaFree(s->d_sigma);
    cudaFree(s->d_sort_temp), cudaFree(s->d_scratch);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

/* `count` identities shuffled by the timed kernel, all at once, one
 * iteration a launch; sigma (the twin's function, equal to the device's
 * sort) and the offset made on the host for each. */
int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count, uint32_t *out,
                 pb_err *err)
{
    pb_pov_params p = pov_params(params);
    if (pb_pov_check(n, &p, err)) return -1;
    for (uint64_t j = 0; j < count; j++)
        for (uint32_t i = 0; i < n; i++) out[j * n + i] = i;
    if (n < 2 || count == 0) return 0;
    uint64_t nb = pb_pov_blocks(n, p.block);
    if (count * pb_pov_vblocks(n, &p) >= (UINT64_C(1) << 31))
        return pb_err_set(err, "gpu-pov-shuffle sample_perms: batch of %llu too large", (unsigned long long)count);
    uint32_t *h_sigma = (uint32_t *)malloc(count * nb * sizeof *h_sigma), *d = nullptr, *d_sigma = nullptr;
    uint64_t *h_offs = (uint64_t *)malloc(count * sizeof *h_offs), *d_offs = nullptr;
    cudaError_t e = h_sigma && h_offs ? cudaSuccess : cudaErrorMemoryAllocation;
    if (e == cudaSuccess) e = cudaFuncSetAttribute(pov_iteration<uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                   (int)smem_bytes(p, 4));
    if (e == cudaSuccess) e = cudaMalloc(&d, count * n * sizeof *d);
    if (e == cudaSuccess) e = cudaMalloc(&d_sigma, count * nb * sizeof *d_sigma);
    if (e == cudaSuccess) e = cudaMalloc(&d_offs, count * sizeof *d_offs);
    if (e == cudaSuccess) e = cudaMemcpy(d, out, count * n * sizeof *d, cudaMemcpyHostToDevice);
    int failed = 0;
    for (uint32_t it = 0; it < p.iterations && e == cudaSuccess && !failed; it++) {
        for (uint64_t j = 0; j < count && !failed; j++)
            failed = pb_pov_layout(n, &p, seed, first + j, it, 1, h_sigma + j * nb, h_offs + j, err) != 0;
        /* Synchronous copies: the previous launch has read them. */
        if (!failed) e = cudaMemcpy(d_sigma, h_sigma, count * nb * sizeof *d_sigma, cudaMemcpyHostToDevice);
        if (!failed && e == cudaSuccess) e = cudaMemcpy(d_offs, h_offs, count * sizeof *d_offs, cudaMemcpyHostToDevice);
        if (!failed && e == cudaSuccess) e = launch(d, n, p, count, d_sigma, d_offs, 0, seed, first, it);
    }
    if (e == cudaSuccess && !failed) e = cudaMemcpy(out, d, count * n * sizeof *d, cudaMemcpyDeviceToHost);
    cudaFree(d), cudaFree(d_sigma), cudaFree(d_offs);
    free(h_sigma), free(h_offs);
    if (failed) return -1;
    if (e != cudaSuccess) return pb_err_set(err, "gpu-pov-shuffle sample_perms: %s", cudaGetErrorString(e));
    return 0;
}

} // namespace

PB_SHUFFLE_MODULE(gpu_pov_shuffle, "gpu-pov-shuffle", pb_shuffle_gpu_via_hooks, sample_perms,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE | PB_MOD_APPROXIMATE,
    .summary = "POV-shuffle on the GPU: blocks assigned by a radix sort of random keys, a CUDA block a "
               "virtual block, Fisher-Yates in shared memory; equal to cpu-pov-shuffle bit for bit",
    PB_PARAMS(params), .max_n = PB_POV_MAX_N, .footprint = footprint, .prepare = prepare, .run = run,
    .release = release, .refresh = refresh, .reference = "cpu-pov-shuffle");

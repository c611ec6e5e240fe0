/* sort-shuffle: a random 64-bit key for every item from Random123's Philox,
 * then CUB's radix sort of the (key, item) pairs: the "sort on infinite
 * random keys" family that Rao-Sandelius and MergeShuffle reduce to. Keys
 * tie with probability about n^2 / 2^65; the sort is stable, so even then
 * the result is reproducible. Records: the keys sort their indices, and the
 * records are gathered whole by them. */
#include <stdlib.h>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "core/rng.h"
#include "families/shuffle/gpu_records.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"

namespace {

constexpr int BLOCK = 256;

/* Key i of permutation `stream`: Philox(seed; i, stream). */
__device__ __forceinline__ uint64_t random_key(uint64_t seed, uint64_t stream, uint64_t i)
{
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t c = {{(uint32_t)i, (uint32_t)(i >> 32), (uint32_t)stream, (uint32_t)(stream >> 32)}};
    philox4x32_ctr_t w = philox4x32(c, key);
    return (uint64_t)w.v[0] << 32 | w.v[1];
}

__global__ void make_keys(unsigned long long *keys, uint64_t n, uint64_t seed, uint64_t stream)
{
    for (uint64_t i = blockIdx.x * (uint64_t)BLOCK + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * BLOCK)
        keys[i] = random_key(seed, stream, i);
}

/* Sample permutations: permutation j's keys and its values 0..n-1. */
__global__ void make_batch(unsigned long long *keys, uint32_t *values, uint32_t n, uint64_t count,
                           uint64_t seed, uint64_t first)
{
    for (uint64_t g = blockIdx.x * (uint64_t)BLOCK + threadIdx.x; g < count * n;
         g += (uint64_t)gridDim.x * BLOCK) {
        keys[g] = random_key(seed, first + g / n, g % n);
        values[g] = (uint32_t)(g % n);
    }
}

/* Segment j of a batch starts at j * n. */
struct segment_start {
    int64_t n;
    __host__ __device__ int64_t operator()(int64_t j) const { return j * n; }
};

struct state {
    void *bufs;
    uint64_t n, seed;
    unsigned item_bytes;
    unsigned long long *keys_in, *keys_out;
    void *temp;
    size_t temp_bytes;
    /* Records: their indices (0..n-1, then sorted with the keys): 32-bit
     * where n allows. */
    void *idx_in, *idx_out;
    bool wide_idx;
};

/* Records: sort (key, index) pairs, then gather the records by the sorted
 * indices; the same permutation as (key, item) pairs, since both sorts
 * are stable and an index stands where its item would. */
template <typename I> cudaError_t sort_index(state *s, void *temp, size_t &bytes)
{
    return cub::DeviceRadixSort::SortPairs(temp, bytes, s->keys_in, s->keys_out, (const I *)s->idx_in,
                                           (I *)s->idx_out, (int64_t)s->n);
}

template <typename T> cudaError_t sort(state *s, void *temp, size_t &bytes)
{
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    return cub::DeviceRadixSort::SortPairs(temp, bytes, s->keys_in, s->keys_out, (const T *)b->d_in,
                                           (T *)b->d_out, (int64_t)s->n);
}

cudaError_t sort_any(state *s, void *temp, size_t &bytes)
{
    if (pb_shuffle_is_record(s->item_bytes))
        return s->wide_idx ? sort_index<uint64_t>(s, temp, bytes) : sort_index<uint32_t>(s, temp, bytes);
    return s->item_bytes == 4 ? sort<uint32_t>(s, temp, bytes) : sort<uint64_t>(s, temp, bytes);
}

int prepare(const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    s->n = pt->n;
    s->seed = pt->seed;
    s->item_bytes = pt->item_bytes;
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    if (s->n == 0) return 0;
    PB_CUDA_TRY(cudaMalloc(&s->keys_in, s->n * 8), err);
    PB_CUDA_TRY(cudaMalloc(&s->keys_out, s->n * 8), err);
    if (pb_shuffle_is_record(s->item_bytes)) {
        s->wide_idx = s->n > (UINT64_C(1) << 32);
        size_t ib = s->wide_idx ? 8 : 4;
        PB_CUDA_TRY(cudaMalloc(&s->idx_in, s->n * ib), err);
        PB_CUDA_TRY(cudaMalloc(&s->idx_out, s->n * ib), err);
        if (s->wide_idx) pb_iota<<<pb_grid_for(s->n, BLOCK), BLOCK>>>((uint64_t *)s->idx_in, s->n);
        else pb_iota<<<pb_grid_for(s->n, BLOCK), BLOCK>>>((uint32_t *)s->idx_in, s->n);
        PB_CUDA_LAUNCHED(err);
    }
    PB_CUDA_TRY(sort_any(s, nullptr, s->temp_bytes), err);
    PB_CUDA_TRY(cudaMalloc(&s->temp, s->temp_bytes), err);
    return 0;
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    if (s->n == 0) return 0;
    make_keys<<<pb_grid_for(s->n, BLOCK), BLOCK>>>(s->keys_in, s->n, s->seed, sample);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(sort_any(s, s->temp, s->temp_bytes), err);
    if (pb_shuffle_is_record(s->item_bytes)) {
        auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
        return s->wide_idx ? pb_gpu_gather_records_u64(b->d_in, b->d_out, (const uint64_t *)s->idx_out, s->n,
                                                       s->item_bytes, NULL, err)
                           : pb_gpu_gather_records_u32(b->d_in, b->d_out, (const uint32_t *)s->idx_out, s->n,
                                                       s->item_bytes, NULL, err);
    }
    return 0;
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    cudaFree(s->keys_in), cudaFree(s->keys_out), cudaFree(s->temp);
    cudaFree(s->idx_in), cudaFree(s->idx_out);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t footprint(const pb_point *pt)
{
    /* Keys twice, and CUB's temporary storage (about the size of the pairs);
     * records sort 8-byte indices at most, twice. */
    unsigned sorted = pb_shuffle_is_record(pt->item_bytes) ? 8 : pt->item_bytes;
    uint64_t idx = pb_shuffle_is_record(pt->item_bytes) ? 16 * pt->n : 0;
    return pb_gpu_shuffle_footprint(pt) + 16 * pt->n + (uint64_t)pt->n * (8 + sorted) + idx + (32u << 20);
}

/* Each permutation is a segment of a segmented sort of random keys. */
int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                 uint64_t count, uint32_t *out, pb_err *err)
{
    (void)params;
    if (count == 0 || n == 0) return 0;
    uint64_t total = count * n;
    if (total > INT32_MAX) return pb_err_set(err, "gpu-sort-shuffle sample_perms: batch too large");
    unsigned long long *k_in = nullptr, *k_out = nullptr;
    uint32_t *v_in = nullptr, *v_out = nullptr;
    void *temp = nullptr;
    size_t temp_bytes = 0;
    /* Segment j is [j n, (j + 1) n): offsets as a strided counting iterator. */
    auto offsets = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                   segment_start{(int64_t)n});
    cudaError_t e = cudaMalloc(&k_in, total * 8);
    if (e == cudaSuccess) e = cudaMalloc(&k_out, total * 8);
    if (e == cudaSuccess) e = cudaMalloc(&v_in, total * 4);
    if (e == cudaSuccess) e = cudaMalloc(&v_out, total * 4);
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedSort::StableSortPairs(nullptr, temp_bytes, k_in, k_out, v_in, v_out,
                                                      (int64_t)total, (int64_t)count, offsets, offsets + 1);
    if (e == cudaSuccess) e = cudaMalloc(&temp, temp_bytes);
    if (e == cudaSuccess) {
        make_batch<<<pb_grid_for(total, BLOCK), BLOCK>>>(k_in, v_in, n, count, seed, first);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess)
        e = cub::DeviceSegmentedSort::StableSortPairs(temp, temp_bytes, k_in, k_out, v_in, v_out,
                                                      (int64_t)total, (int64_t)count, offsets, offsets + 1);
    if (e == cudaSuccess) e = cudaMemcpy(out, v_out, total * 4, cudaMemcpyDeviceToHost);
    cudaFree(k_in), cudaFree(k_out), cudaFree(v_in), cudaFree(v_out), cudaFree(temp);
    if (e != cudaSuccess) return pb_err_set(err, "gpu-sort-shuffle sample_perms: %s", cudaGetErrorString(e));
    return 0;
}

} // namespace

PB_SHUFFLE_MODULE(sort_shuffle, "gpu-sort-shuffle", pb_shuffle_gpu_via_hooks, sample_perms,
    .summary = "sort shuffle: random 64-bit Philox keys, CUB radix sort of (key, item) pairs",
    .footprint = footprint, .prepare = prepare, .run = run, .release = release);

/* sorted = yes for a GPU top-k module whose selection leaves each row's
 * results in no order (radik): put them in rank order on the device, best
 * key first, equal keys by increasing index, the order the C twin and
 * sort-and-choose give.
 *
 * A result's sort key is its order key (topk_key.h) above the complement of
 * its index, so keys are distinct within a row and any sort, stable or not,
 * gives the one order. Keys and the results' positions are sorted descending
 * (one row: DeviceRadixSort; a batch: DeviceSegmentedSort over the output
 * offsets), the values and indices gathered through the sorted positions
 * (a NaN's order key is canonical, so values are not rebuilt from keys), and
 * copied back. The positions the sort carries are the identity, written
 * once at set-up. All on the caller's stream, nothing waits on the host, so a
 * module may capture it in its graph.
 *
 * 64-bit values (fp64, u64): a 64-bit order key and a 32-bit index make 96
 * bits, past one 64-bit sort key, so the order is made in two stable sorts
 * (least significant first): the positions by index, ascending, then by
 * order key, descending, the first sort's order kept among equal keys (one
 * row: radix sorts, stable; a batch: the stable segmented sorts). */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "core/gpu_launch.cuh"
#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_key.h"

struct pb_gpu_topk_ranker {
    uint64_t *keys, *keys_sorted;
    uint32_t *pos, *pos_sorted, *idx;
    void *vals; /* the values' words: uint32_t, or uint64_t for 64-bit values */
    /* 64-bit values: the index-sorted indices, and the positions after the
     * second sort (pos, the identity, is the first's input every run). */
    uint32_t *idx_sorted, *pos_final;
    void *temp;
    size_t temp_bytes;
};

namespace {

/* The sort keys; their values, the positions, are the identity setup
 * wrote once (the sort leaves its input as it was). */
__global__ void rank_keys(const uint32_t *vals, const uint32_t *idx, uint64_t n, int dtype, int largest,
                          uint64_t *keys)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        keys[i] = (uint64_t)pb_topk_okey_of(vals[i], dtype, largest) << 32 | (uint32_t)~idx[i];
}

/* 64-bit values: the order keys of the results in index order (pos: the
 * positions the index sort left). */
__global__ void rank_keys64(const uint64_t *vals, const uint32_t *pos, uint64_t n, int dtype,
                            int largest, uint64_t *keys)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        keys[i] = pb_topk_okey64_of(vals[pos[i]], dtype, largest);
}

/* Batches of more rows than this rank with CUB's segmented radix sort (a
 * block a segment): DeviceSegmentedSort partitions more segments than its
 * policy's threshold (300 in CCCL 3) with a copy of their group sizes to
 * the host and a stream synchronisation, which a query captured in a CUDA
 * graph may not hold (gpu-radik's is: "operation not permitted when
 * stream is capturing"). Both sorts are stable. */
#define PB_TOPK_RANK_SEGSORT_MAX 256

cudaError_t rank_sort(const pb_gpu_topk *g, pb_gpu_topk_ranker *k, void *temp, size_t &bytes, cudaStream_t s)
{
    uint64_t n = g->prob.out_total, rows = g->prob.rows;
    if (rows == 1)
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, k->keys, k->keys_sorted, k->pos, k->pos_sorted,
                                                         n, 0, 64, s);
    if (rows > PB_TOPK_RANK_SEGSORT_MAX)
        return cub::DeviceSegmentedRadixSort::SortPairsDescending(
            temp, bytes, k->keys, k->keys_sorted, k->pos, k->pos_sorted, (int64_t)n, (int64_t)rows,
            g->d_out_off, g->d_out_off + 1, 0, 64, s);
    return cub::DeviceSegmentedSort::SortPairsDescending(temp, bytes, k->keys, k->keys_sorted, k->pos, k->pos_sorted,
                                                         (int64_t)n, (int64_t)rows, g->d_out_off, g->d_out_off + 1, s);
}

/* 64-bit values, first sort: the positions by index, ascending (stable). */
cudaError_t rank_sort_idx(const pb_gpu_topk *g, pb_gpu_topk_ranker *k, void *temp, size_t &bytes,
                          cudaStream_t s)
{
    uint64_t n = g->prob.out_total, rows = g->prob.rows;
    if (rows == 1)
        return cub::DeviceRadixSort::SortPairs(temp, bytes, g->d_idx, k->idx_sorted, k->pos,
                                               k->pos_sorted, n, 0, 32, s);
    if (rows > PB_TOPK_RANK_SEGSORT_MAX)
        return cub::DeviceSegmentedRadixSort::SortPairs(temp, bytes, g->d_idx, k->idx_sorted, k->pos,
                                                        k->pos_sorted, (int64_t)n, (int64_t)rows,
                                                        g->d_out_off, g->d_out_off + 1, 0, 32, s);
    return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, g->d_idx, k->idx_sorted, k->pos,
                                                     k->pos_sorted, (int64_t)n, (int64_t)rows,
                                                     g->d_out_off, g->d_out_off + 1, s);
}

/* ... second: by order key, descending, keeping the index order of equal
 * keys (stable). */
cudaError_t rank_sort_key64(const pb_gpu_topk *g, pb_gpu_topk_ranker *k, void *temp, size_t &bytes,
                            cudaStream_t s)
{
    uint64_t n = g->prob.out_total, rows = g->prob.rows;
    if (rows == 1)
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, k->keys, k->keys_sorted,
                                                         k->pos_sorted, k->pos_final, n, 0, 64, s);
    if (rows > PB_TOPK_RANK_SEGSORT_MAX)
        return cub::DeviceSegmentedRadixSort::SortPairsDescending(
            temp, bytes, k->keys, k->keys_sorted, k->pos_sorted, k->pos_final, (int64_t)n,
            (int64_t)rows, g->d_out_off, g->d_out_off + 1, 0, 64, s);
    return cub::DeviceSegmentedSort::StableSortPairsDescending(
        temp, bytes, k->keys, k->keys_sorted, k->pos_sorted, k->pos_final, (int64_t)n,
        (int64_t)rows, g->d_out_off, g->d_out_off + 1, s);
}

/* The values (words of T) and indices in the sorted positions' order,
 * through the ranker's buffers, and copied back over the results. */
template <class T>
cudaError_t gather_back(const pb_gpu_topk *g, pb_gpu_topk_ranker *k, const uint32_t *order,
                        unsigned grid, cudaStream_t s)
{
    uint64_t n = g->prob.out_total;
    T *vals = static_cast<T *>(g->d_vals), *out = static_cast<T *>(k->vals);
    pb_gather_by_index<<<grid, 256, 0, s>>>(vals, out, order, n);
    pb_gather_by_index<<<grid, 256, 0, s>>>(g->d_idx, k->idx, order, n);
    cudaError_t e = cudaGetLastError();
    if (!e) e = cudaMemcpyAsync(vals, out, n * sizeof(T), cudaMemcpyDeviceToDevice, s);
    if (!e) e = cudaMemcpyAsync(g->d_idx, k->idx, n * 4, cudaMemcpyDeviceToDevice, s);
    return e;
}

} // namespace

uint64_t pb_gpu_topk_rank_footprint(const pb_point *pt)
{
    if (!pt->params->v[PB_TOPK_P_SORTED]) return 0;
    /* Keys twice, positions twice, values and indices, and CUB's storage
     * (about the keys again); 64-bit values: 8-byte values, the sorted
     * indices and a third positions array too. */
    bool wide = pb_topk_dtype_is64((int)pt->params->v[PB_TOPK_P_DTYPE]);
    return (wide ? 52 : 40) * pb_topk_out_bound(pt) + (1 << 20);
}

int pb_gpu_topk_rank_setup(pb_gpu_topk *g, pb_err *err)
{
    if (!g->prob.sorted) return 0;
    bool wide = pb_topk_dtype_is64(g->prob.dtype);
    pb_gpu_topk_ranker *k = (pb_gpu_topk_ranker *)calloc(1, sizeof *k);
    if (!k) return pb_err_set(err, "out of host memory");
    g->ranker = k;
    size_t n = (size_t)(g->prob.out_total ? g->prob.out_total : 1);
    PB_CUDA_TRY(cudaMalloc(&k->keys, n * 8), err);
    PB_CUDA_TRY(cudaMalloc(&k->keys_sorted, n * 8), err);
    PB_CUDA_TRY(cudaMalloc(&k->pos, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&k->pos_sorted, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&k->vals, n * pb_topk_word_bytes(g->prob.dtype)), err);
    PB_CUDA_TRY(cudaMalloc(&k->idx, n * 4), err);
    if (wide) {
        PB_CUDA_TRY(cudaMalloc(&k->idx_sorted, n * 4), err);
        PB_CUDA_TRY(cudaMalloc(&k->pos_final, n * 4), err);
    }
    pb_iota<<<pb_grid_for(n, 256), 256>>>(k->pos, n);
    PB_CUDA_LAUNCHED(err);
    if (wide) {
        size_t a = 0, b = 0;
        PB_CUDA_TRY(rank_sort_idx(g, k, nullptr, a, 0), err);
        PB_CUDA_TRY(rank_sort_key64(g, k, nullptr, b, 0), err);
        k->temp_bytes = a > b ? a : b;
    } else {
        PB_CUDA_TRY(rank_sort(g, k, nullptr, k->temp_bytes, 0), err);
    }
    PB_CUDA_TRY(cudaMalloc(&k->temp, k->temp_bytes ? k->temp_bytes : 1), err);
    return 0;
}

int pb_gpu_topk_rank(const pb_gpu_topk *g, cudaStream_t s, pb_err *err)
{
    pb_gpu_topk_ranker *k = g->ranker;
    uint64_t n = g->prob.out_total;
    if (!k) return pb_err_set(err, "sorted = yes, but the ranking's buffers were not made");
    if (n < 2) return 0;
    unsigned grid = pb_grid_for(n, 256);
    size_t bytes = k->temp_bytes;
    if (pb_topk_dtype_is64(g->prob.dtype)) {
        PB_CUDA_TRY(rank_sort_idx(g, k, k->temp, bytes, s), err);
        rank_keys64<<<grid, 256, 0, s>>>(static_cast<const uint64_t *>(g->d_vals), k->pos_sorted,
                                         n, (int)g->prob.dtype, (int)g->prob.largest, k->keys);
        PB_CUDA_LAUNCHED(err);
        bytes = k->temp_bytes;
        PB_CUDA_TRY(rank_sort_key64(g, k, k->temp, bytes, s), err);
        PB_CUDA_TRY(gather_back<uint64_t>(g, k, k->pos_final, grid, s), err);
        return 0;
    }
    rank_keys<<<grid, 256, 0, s>>>(static_cast<const uint32_t *>(g->d_vals), g->d_idx, n,
                                   (int)g->prob.dtype, (int)g->prob.largest, k->keys);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(rank_sort(g, k, k->temp, bytes, s), err);
    PB_CUDA_TRY(gather_back<uint32_t>(g, k, k->pos_sorted, grid, s), err);
    return 0;
}

void pb_gpu_topk_rank_free(pb_gpu_topk_ranker *k)
{
    if (!k) return;
    cudaFree(k->keys), cudaFree(k->keys_sorted), cudaFree(k->pos), cudaFree(k->pos_sorted);
    cudaFree(k->vals), cudaFree(k->idx), cudaFree(k->temp);
    cudaFree(k->idx_sorted), cudaFree(k->pos_final);
    free(k);
}

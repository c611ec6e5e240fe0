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
 * module may capture it in its graph. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "core/gpu_launch.cuh"
#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_key.h"

struct pb_gpu_topk_ranker {
    uint64_t *keys, *keys_sorted;
    uint32_t *pos, *pos_sorted, *vals, *idx;
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

cudaError_t rank_sort(const pb_gpu_topk *g, pb_gpu_topk_ranker *k, void *temp, size_t &bytes, cudaStream_t s)
{
    uint64_t n = g->prob.out_total, rows = g->prob.rows;
    if (rows == 1)
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, k->keys, k->keys_sorted, k->pos, k->pos_sorted,
                                                         n, 0, 64, s);
    return cub::DeviceSegmentedSort::SortPairsDescending(temp, bytes, k->keys, k->keys_sorted, k->pos, k->pos_sorted,
                                                         (int64_t)n, (int64_t)rows, g->d_out_off, g->d_out_off + 1, s);
}

} // namespace

uint64_t pb_gpu_topk_rank_footprint(const pb_point *pt)
{
    if (!pt->params->v[PB_TOPK_P_SORTED]) return 0;
    /* Keys twice, positions twice, values and indices, and CUB's storage
     * (about the keys again). */
    return 40 * pb_topk_out_bound(pt) + (1 << 20);
}

int pb_gpu_topk_rank_setup(pb_gpu_topk *g, pb_err *err)
{
    if (!g->prob.sorted) return 0;
    if (pb_topk_dtype_is64(g->prob.dtype))
        return pb_err_set(err, "sorted = yes: the GPU ranking takes values of up to 32 bits, not "
                               "64-bit ones");
    pb_gpu_topk_ranker *k = (pb_gpu_topk_ranker *)calloc(1, sizeof *k);
    if (!k) return pb_err_set(err, "out of host memory");
    g->ranker = k;
    size_t n = (size_t)(g->prob.out_total ? g->prob.out_total : 1);
    PB_CUDA_TRY(cudaMalloc(&k->keys, n * 8), err);
    PB_CUDA_TRY(cudaMalloc(&k->keys_sorted, n * 8), err);
    PB_CUDA_TRY(cudaMalloc(&k->pos, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&k->pos_sorted, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&k->vals, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&k->idx, n * 4), err);
    pb_iota<<<pb_grid_for(n, 256), 256>>>(k->pos, n);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(rank_sort(g, k, nullptr, k->temp_bytes, 0), err);
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
    /* 32-bit values (setup refused the others). */
    uint32_t *vals = static_cast<uint32_t *>(g->d_vals);
    rank_keys<<<grid, 256, 0, s>>>(vals, g->d_idx, n, (int)g->prob.dtype, (int)g->prob.largest,
                                   k->keys);
    PB_CUDA_LAUNCHED(err);
    size_t bytes = k->temp_bytes;
    PB_CUDA_TRY(rank_sort(g, k, k->temp, bytes, s), err);
    pb_gather_by_index<<<grid, 256, 0, s>>>(vals, k->vals, k->pos_sorted, n);
    pb_gather_by_index<<<grid, 256, 0, s>>>(g->d_idx, k->idx, k->pos_sorted, n);
    PB_CUDA_LAUNCHED(err);
    PB_CUDA_TRY(cudaMemcpyAsync(g->d_vals, k->vals, n * 4, cudaMemcpyDeviceToDevice, s), err);
    PB_CUDA_TRY(cudaMemcpyAsync(g->d_idx, k->idx, n * 4, cudaMemcpyDeviceToDevice, s), err);
    return 0;
}

void pb_gpu_topk_rank_free(pb_gpu_topk_ranker *k)
{
    if (!k) return;
    cudaFree(k->keys), cudaFree(k->keys_sorted), cudaFree(k->pos), cudaFree(k->pos_sorted);
    cudaFree(k->vals), cudaFree(k->idx), cudaFree(k->temp);
    free(k);
}

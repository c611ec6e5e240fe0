#include "families/shuffle/gpu_shuffle_buffers.h"

#include <stdlib.h>

#include "core/cuda_check.h"
#include "families/shuffle/shuffle_items.h"

template <typename T> __global__ void fill_items(T *out, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = (T)pb_shuffle_item(i, sizeof(T));
}

extern "C" int pb_gpu_shuffle_prepare(const pb_point *pt, void **state, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)calloc(1, sizeof *b);
    if (!b) return pb_err_set(err, "out of memory");
    b->pt = *pt;
    b->params = *pt->params;
    b->pt.params = &b->params;
    *state = b;
    size_t bytes = (size_t)pt->n * pt->item_bytes;
    /* A valid allocation even for n = 0, so kernels and copies need no
     * special case. */
    size_t alloc = bytes ? bytes : 16;
    PB_CUDA_TRY(cudaMalloc(&b->d_in, alloc), err);
    PB_CUDA_TRY(cudaMalloc(&b->d_out, alloc), err);
    if (pt->n) {
        unsigned blocks = (unsigned)((pt->n + 255) / 256 < 65536 ? (pt->n + 255) / 256 : 65536);
        if (pt->item_bytes == 4) fill_items<<<blocks, 256>>>((uint32_t *)b->d_in, pt->n);
        else fill_items<<<blocks, 256>>>((uint64_t *)b->d_in, pt->n);
        PB_CUDA_LAUNCHED(err);
        /* Poison the output: a module that skips an item cannot pass. */
        PB_CUDA_TRY(cudaMemset(b->d_out, 0xa5, bytes), err);
    }
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    return 0;
}

extern "C" int pb_gpu_shuffle_result(void *state, const void **out, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    size_t bytes = (size_t)b->pt.n * b->pt.item_bytes;
    if (!b->h_out) {
        b->h_out = malloc(bytes ? bytes : 1);
        if (!b->h_out) return pb_err_set(err, "cannot allocate %zu bytes of host memory", bytes);
    }
    PB_CUDA_TRY(cudaMemcpy(b->h_out, b->d_out, bytes, cudaMemcpyDeviceToHost), err);
    *out = b->h_out;
    return 0;
}

extern "C" void pb_gpu_shuffle_release(void *state)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    if (!b) return;
    /* Release must not fail; a sticky error would already have been reported. */
    cudaFree(b->d_in);
    cudaFree(b->d_out);
    free(b->h_out);
    free(b);
}

extern "C" uint64_t pb_gpu_shuffle_footprint(const pb_point *pt)
{
    return 2 * pt->n * pt->item_bytes;
}

extern "C" int pb_gpu_shuffle_result_via(void *state, const void **out, pb_err *err)
{
    return pb_gpu_shuffle_result(*(void **)state, out, err);
}

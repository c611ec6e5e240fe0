/* cuda-memcpy: cudaMemcpyAsync device to device, the vendor's copy; the
 * reference the copy kernel's efficiency is judged by. */
#include "core/cuda_check.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    PB_CUDA_TRY(cudaMemcpyAsync(b->d_out, b->d_in, (size_t)b->pt.n * b->pt.item_bytes,
                                cudaMemcpyDeviceToDevice, 0),
                err);
    return 0;
}

PB_MODULE_DEF(cuda_memcpy, "gpu-cuda-memcpy", pb_shuffle_gpu_hooks, .flags = PB_MOD_CEILING,
    .summary = "cudaMemcpyAsync device-to-device: the vendor's copy",
    .run = run, .verify = pb_gpu_shuffle_verify_copy, .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR));

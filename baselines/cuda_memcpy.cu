/* cuda-memcpy: cudaMemcpyAsync device to device, the vendor's copy; the
 * reference the copy kernel's efficiency is judged by. */
#include "core/cuda_check.h"
#include "families/shuffle/gpu_shuffle_buffers.h"

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    PB_CUDA_TRY(cudaMemcpyAsync(b->d_out, b->d_in, (size_t)b->pt.n * b->pt.item_bytes,
                                cudaMemcpyDeviceToDevice, 0),
                err);
    return 0;
}

extern "C" const pb_module pb_module_cuda_memcpy = {
    .name = "cuda-memcpy",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_CEILING,
    .summary = "cudaMemcpyAsync device-to-device: the vendor's copy",
    .params = PB_NO_PARAMS,
    .footprint = pb_gpu_shuffle_footprint,
    .prepare = pb_gpu_shuffle_prepare,
    .run = run,
    .result = pb_gpu_shuffle_result,
    .verify = pb_gpu_shuffle_verify_copy,
    .release = pb_gpu_shuffle_release,
    .refresh = pb_gpu_shuffle_refresh,
    .fingerprint = pb_gpu_shuffle_fingerprint,
};

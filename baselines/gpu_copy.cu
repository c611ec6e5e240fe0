/* copy: contiguous device copy by a kernel, the GPU bandwidth ceiling that
 * GPU rows are compared with. 16-byte loads and stores, several in flight
 * per thread before the first store, a grid sized to fill every SM. */
#include "harness/cuda_check.h"
#include "harness/gpu_shuffle_buffers.h"

enum { THREADS = 256, UNROLL = 4 };

__global__ void __launch_bounds__(THREADS) copy16(const uint4 *__restrict__ in,
                                                  uint4 *__restrict__ out, uint64_t n16)
{
    uint64_t stride = (uint64_t)gridDim.x * THREADS;
    uint64_t i = blockIdx.x * (uint64_t)THREADS + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n16; i += UNROLL * stride) {
        uint4 v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) v[k] = __ldcs(in + i + k * stride);
#pragma unroll
        for (int k = 0; k < UNROLL; k++) __stcs(out + i + k * stride, v[k]);
    }
    for (; i < n16; i += stride) __stcs(out + i, __ldcs(in + i));
}

/* The bytes past the last whole 16 (at most 15). */
__global__ void copy_tail(const unsigned char *in, unsigned char *out, uint64_t from,
                          uint64_t bytes)
{
    uint64_t i = from + threadIdx.x;
    if (i < bytes) out[i] = in[i];
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    uint64_t bytes = b->pt.n * b->pt.item_bytes, n16 = bytes / 16;
    if (n16) {
        static int max_blocks;
        if (!max_blocks) {
            int dev, sms, per_sm;
            PB_CUDA_TRY(cudaGetDevice(&dev), err);
            PB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
            PB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy16, THREADS, 0),
                        err);
            max_blocks = sms * per_sm;
        }
        uint64_t want = (n16 + THREADS * UNROLL - 1) / (THREADS * UNROLL);
        unsigned blocks = (unsigned)(want < (uint64_t)max_blocks ? want : (uint64_t)max_blocks);
        copy16<<<blocks, THREADS>>>((const uint4 *)b->d_in, (uint4 *)b->d_out, n16);
        PB_CUDA_LAUNCHED(err);
    }
    if (bytes % 16) {
        copy_tail<<<1, 16>>>((const unsigned char *)b->d_in, (unsigned char *)b->d_out, n16 * 16,
                             bytes);
        PB_CUDA_LAUNCHED(err);
    }
    return 0;
}

extern "C" const pb_module pb_module_gpu_copy = {
    .name = "copy",
    .family = PB_FAMILY_SHUFFLE,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_CEILING,
    .summary = "contiguous device copy kernel: the GPU bandwidth ceiling",
    .params = PB_NO_PARAMS,
    .max_n = 0,
    .footprint = pb_gpu_shuffle_footprint,
    .prepare = pb_gpu_shuffle_prepare,
    .run = run,
    .result = pb_gpu_shuffle_result,
    .verify = NULL,
    .release = pb_gpu_shuffle_release,
};

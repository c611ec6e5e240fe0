/* copy: contiguous device copy by a kernel, the GPU bandwidth ceiling that
 * GPU rows are compared with. One 16-byte load and store per thread over a
 * grid that covers the whole buffer: this matched cudaMemcpyAsync, where a
 * persistent grid-stride loop with four loads in flight and streaming cache
 * hints fell short of it (docs/measurement.md, The ceilings). */
#include "core/cuda_check.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

enum { THREADS = 256 };

__global__ void __launch_bounds__(THREADS) copy16(const uint4 *__restrict__ in,
                                                  uint4 *__restrict__ out, uint64_t n16)
{
    uint64_t i = blockIdx.x * (uint64_t)THREADS + threadIdx.x;
    if (i < n16) out[i] = in[i];
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
        uint64_t blocks = (n16 + THREADS - 1) / THREADS;
        if (blocks > INT32_MAX) return pb_err_set(err, "gpu-copy: %llu bytes exceed one launch", (unsigned long long)bytes);
        copy16<<<(unsigned)blocks, THREADS>>>((const uint4 *)b->d_in, (uint4 *)b->d_out, n16);
        PB_CUDA_LAUNCHED(err);
    }
    if (bytes % 16) {
        copy_tail<<<1, 16>>>((const unsigned char *)b->d_in, (unsigned char *)b->d_out, n16 * 16,
                             bytes);
        PB_CUDA_LAUNCHED(err);
    }
    return 0;
}

PB_MODULE_DEF(gpu_copy, "gpu-copy", pb_shuffle_gpu_hooks, .flags = PB_MOD_CEILING,
    .summary = "contiguous device copy kernel: the GPU bandwidth ceiling",
    .run = run, .verify = pb_gpu_shuffle_verify_copy, .bound = PB_BOUND_COPY);

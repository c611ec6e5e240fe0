/* Test-only GPU modules that launch nothing useful: one writes nothing, one
 * writes the first half of its output (a copy of the input's first half).
 * Never in the registry; tests/test_every_sample.c runs them on a GPU, where
 * the harness's device check must report both failed. */
#include "tests/broken_modules.h"

#include "core/cuda_check.h"
#include "families/shuffle/gpu_shuffle_buffers.h"

static int run_noop(void *state, uint64_t sample, pb_err *err)
{
    (void)state, (void)sample, (void)err;
    return 0;
}

static int run_half(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    size_t half = (size_t)(b->pt.n / 2) * b->pt.item_bytes;
    PB_CUDA_TRY(cudaMemcpyAsync(b->d_out, b->d_in, half, cudaMemcpyDeviceToDevice), err);
    return 0;
}

#define BROKEN_GPU(id, text, fn)                                                                   \
    extern "C" const pb_module pb_broken_gpu_##id = {                                              \
        .name = "broken-gpu-" #id,                                                                 \
        .family = &pb_family_shuffle,                                                              \
        .device = PB_DEVICE_GPU,                                                                   \
        .flags = PB_MOD_SEEDED,                                                                    \
        .summary = text,                                                                           \
        .footprint = pb_gpu_shuffle_footprint,                                                     \
        .prepare = pb_gpu_shuffle_prepare,                                                         \
        .run = fn,                                                                                 \
        .result = pb_gpu_shuffle_result,                                                           \
        .verify = pb_gpu_shuffle_verify,                                                           \
        .release = pb_gpu_shuffle_release,                                                         \
        .refresh = pb_gpu_shuffle_refresh,                                                         \
        .fingerprint = pb_gpu_shuffle_fingerprint,                                                 \
    };

BROKEN_GPU(noop, "writes nothing", run_noop)
BROKEN_GPU(half, "writes half of its output", run_half)

/* Test-only GPU modules that launch nothing useful: one writes nothing, one
 * writes the first half of its output (a copy of the input's first half), one
 * splits a record (tests/shuffle/test_gpu_records.c).
 * Never in the registry; tests/bench/test_every_sample.c runs them on a GPU, where
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

/* A copy whose record 0 then gets record 1's tail (records only; scalars
 * are copied whole): the device check must find a record whose bytes did
 * not travel together. */
static int run_split(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    size_t w = b->pt.item_bytes;
    PB_CUDA_TRY(cudaMemcpyAsync(b->d_out, b->d_in, (size_t)b->pt.n * w, cudaMemcpyDeviceToDevice), err);
    if (b->pt.n >= 2 && w > 8)
        PB_CUDA_TRY(cudaMemcpyAsync((char *)b->d_out + 8, (const char *)b->d_in + w + 8, w - 8,
                                    cudaMemcpyDeviceToDevice),
                    err);
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
        .reference = NULL,                                                                         \
        .bound = PB_BOUND_NONE,                                                                    \
        .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR) | PB_ITEM_CLASSES(PB_ITEM_RECORD),                \
    };

BROKEN_GPU(noop, "writes nothing", run_noop)
BROKEN_GPU(half, "writes half of its output", run_half)
BROKEN_GPU(split, "copies, then gives record 0 record 1's tail", run_split)

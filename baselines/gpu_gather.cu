/* gather: out[i] = in[f(i)] on the device through the affine bijection of
 * affine.h, a fresh one per sample: the random-gather ceiling of the papers
 * (every read a different sector, every write coalesced). Each thread steps
 * f along a grid-stride walk, UNROLL reads in flight before its writes. */
#include "baselines/affine.h"
#include "core/cuda_check.h"
#include "families/shuffle/gpu_records.cuh"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"

enum { THREADS = 256, UNROLL = 4 };

template <typename T>
__global__ void __launch_bounds__(THREADS)
    gather(const T *__restrict__ in, T *__restrict__ out, pb_affine f, uint64_t step)
{
    uint64_t stride = (uint64_t)gridDim.x * THREADS;
    uint64_t i = blockIdx.x * (uint64_t)THREADS + threadIdx.x;
    if (i >= f.n) return;
    uint64_t p = pb_affine_apply(&f, i); /* f(i); f(i + stride) = f(i) + step mod n */
    for (; i < f.n; i += UNROLL * stride) {
        T v[UNROLL];
#pragma unroll
        for (int k = 0; k < UNROLL; k++) {
            if (i + k * stride < f.n) v[k] = __ldg(in + p);
            p += step;
            if (p >= f.n) p -= f.n;
        }
#pragma unroll
        for (int k = 0; k < UNROLL; k++)
            if (i + k * stride < f.n) out[i + k * stride] = v[k];
    }
}

/* Output place i's source: f(i). */
struct by_affine {
    pb_affine f;
    __device__ uint64_t operator()(uint64_t i) const { return pb_affine_apply(&f, i); }
};

/* Records of `words` 64-bit words: a thread group a record
 * (gpu_records.cuh), the groups walking f. */
__global__ void __launch_bounds__(THREADS)
    gather_records(const uint64_t *__restrict__ in, uint64_t *__restrict__ out, pb_affine f, unsigned words,
                   unsigned group)
{
    pb_gather_records<THREADS>(in, out, f.n, words, group, by_affine{f});
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    pb_gpu_shuffle_buffers *b = (pb_gpu_shuffle_buffers *)state;
    uint64_t n = b->pt.n;
    if (n == 0) return 0;
    static int max_blocks;
    if (!max_blocks) {
        int dev, sms, per_sm;
        PB_CUDA_TRY(cudaGetDevice(&dev), err);
        PB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
        PB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gather<uint64_t>,
                                                                  THREADS, 0),
                    err);
        max_blocks = sms * per_sm;
    }
    uint64_t want = (n + THREADS * UNROLL - 1) / (THREADS * UNROLL);
    unsigned blocks = (unsigned)(want < (uint64_t)max_blocks ? want : (uint64_t)max_blocks);
    /* A fresh bijection per sample, drawn on the host: well under a
     * microsecond, which the events see as launch latency. */
    pb_affine f = pb_affine_make(n, b->pt.seed, sample);
    uint64_t step = pb_mulmod(f.a, (uint64_t)blocks * THREADS % n, n);
    if (pb_shuffle_is_record(b->pt.item_bytes)) {
        unsigned words = b->pt.item_bytes / 8, group = pb_record_group(words);
        uint64_t rblocks = (n * group + THREADS - 1) / THREADS;
        rblocks = rblocks < (uint64_t)max_blocks ? rblocks : (uint64_t)max_blocks;
        gather_records<<<(unsigned)rblocks, THREADS>>>((const uint64_t *)b->d_in, (uint64_t *)b->d_out, f, words,
                                                       group);
    } else if (b->pt.item_bytes == 4)
        gather<<<blocks, THREADS>>>((const uint32_t *)b->d_in, (uint32_t *)b->d_out, f, step);
    else
        gather<<<blocks, THREADS>>>((const uint64_t *)b->d_in, (uint64_t *)b->d_out, f, step);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

PB_MODULE_DEF(gpu_gather, "gpu-gather", pb_shuffle_gpu_hooks, .flags = PB_MOD_CEILING | PB_MOD_SEEDED,
    .summary = "random gather through an on-the-fly bijection: the GPU gather ceiling",
    .run = run, .reference = "cpu-gather", .bound = PB_BOUND_GATHER);

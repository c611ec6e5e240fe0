#include "families/shuffle/gpu_records.h"

#include "core/cuda_check.h"

namespace {

constexpr int THREADS = 256;

template <typename I>
__global__ void __launch_bounds__(THREADS)
    gather_records(const uint64_t *__restrict__ in, uint64_t *__restrict__ out, const I *__restrict__ idx,
                   uint64_t n, unsigned words, unsigned group)
{
    uint64_t groups = (uint64_t)gridDim.x * (THREADS / group);
    unsigned lane = threadIdx.x % group;
    for (uint64_t i = (blockIdx.x * (uint64_t)THREADS + threadIdx.x) / group; i < n; i += groups) {
        const uint64_t *src = in + (uint64_t)idx[i] * words;
        uint64_t *dst = out + i * words;
        for (unsigned k = lane; k < words; k += group) dst[k] = __ldg(src + k);
    }
}

template <typename I>
int launch(const void *d_in, void *d_out, const I *d_idx, uint64_t n, unsigned item_bytes, pb_err *err)
{
    if (n == 0) return 0;
    unsigned words = item_bytes / 8, group = pb_record_group(words);
    /* A grid-stride walk: at most 2^16 blocks, each group a record at a time. */
    uint64_t want = (n * group + THREADS - 1) / THREADS;
    unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    gather_records<I><<<blocks, THREADS>>>((const uint64_t *)d_in, (uint64_t *)d_out, d_idx, n, words, group);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

} // namespace

extern "C" int pb_gpu_gather_records_u32(const void *d_in, void *d_out, const uint32_t *d_idx, uint64_t n,
                                         unsigned item_bytes, pb_err *err)
{
    return launch(d_in, d_out, d_idx, n, item_bytes, err);
}

extern "C" int pb_gpu_gather_records_u64(const void *d_in, void *d_out, const uint64_t *d_idx, uint64_t n,
                                         unsigned item_bytes, pb_err *err)
{
    return launch(d_in, d_out, d_idx, n, item_bytes, err);
}

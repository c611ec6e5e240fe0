#include "families/shuffle/gpu_records.cuh"

#include "core/cuda_check.h"

namespace {

constexpr int THREADS = 256;

/* Output place i's source: idx[i]. */
template <typename I> struct by_index {
    const I *__restrict__ idx;
    __device__ uint64_t operator()(uint64_t i) const { return (uint64_t)idx[i]; }
};

template <typename I>
__global__ void __launch_bounds__(THREADS)
    gather_records(const uint64_t *__restrict__ in, uint64_t *__restrict__ out, const I *__restrict__ idx,
                   uint64_t n, unsigned words, unsigned group)
{
    pb_gather_records<THREADS>(in, out, n, words, group, by_index<I>{idx});
}

template <typename I>
int launch(const void *d_in, void *d_out, const I *d_idx, uint64_t n, unsigned item_bytes, void *stream,
           pb_err *err)
{
    if (n == 0) return 0;
    unsigned words = item_bytes / 8, group = pb_record_group(words);
    /* A grid-stride walk: at most 2^16 blocks, each group a record at a time. */
    uint64_t want = (n * group + THREADS - 1) / THREADS;
    unsigned blocks = (unsigned)(want < 65536 ? want : 65536);
    gather_records<I><<<blocks, THREADS, 0, (cudaStream_t)stream>>>((const uint64_t *)d_in, (uint64_t *)d_out, d_idx, n, words, group);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

} // namespace

extern "C" int pb_gpu_gather_records_u32(const void *d_in, void *d_out, const uint32_t *d_idx, uint64_t n,
                                         unsigned item_bytes, void *stream, pb_err *err)
{
    return launch(d_in, d_out, d_idx, n, item_bytes, stream, err);
}

extern "C" int pb_gpu_gather_records_u64(const void *d_in, void *d_out, const uint64_t *d_idx, uint64_t n,
                                         unsigned item_bytes, void *stream, pb_err *err)
{
    return launch(d_in, d_out, d_idx, n, item_bytes, stream, err);
}

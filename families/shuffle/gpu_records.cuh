/* Records on the device, the kernels' side (gpu_records.h is the host's):
 * a group of threads (pb_record_group) moves one record, its lanes copying
 * the record's 64-bit words side by side, so a record is one run of
 * coalesced accesses. The record-moving kernels (the gather ceiling, the
 * index gather of sort-shuffle and bijective0, bijective1/2's tile gather)
 * share these. CUDA only. */
#ifndef PB_GPU_RECORDS_CUH
#define PB_GPU_RECORDS_CUH

#include <stdint.h>

#include "families/shuffle/gpu_records.h"

/* dst = src for one record of `words` words, by lane `lane` of a group of
 * `group` threads (read-only source: __ldg). */
__device__ __forceinline__ void pb_record_copy(uint64_t *__restrict__ dst, const uint64_t *__restrict__ src,
                                               unsigned words, unsigned lane, unsigned group)
{
    for (unsigned k = lane; k < words; k += group) dst[k] = __ldg(src + k);
}

/* out[i] = in[src(i)] for i < n records, a group a record along a
 * grid-stride walk of THREADS-thread blocks; src maps an output place to
 * its source record (an index list, an affine map). */
template <int THREADS, typename Src>
__device__ __forceinline__ void pb_gather_records(const uint64_t *__restrict__ in, uint64_t *__restrict__ out,
                                                  uint64_t n, unsigned words, unsigned group, Src src)
{
    uint64_t groups = (uint64_t)gridDim.x * (THREADS / group);
    unsigned lane = threadIdx.x % group;
    for (uint64_t i = (blockIdx.x * (uint64_t)THREADS + threadIdx.x) / group; i < n; i += groups)
        pb_record_copy(out + i * words, in + src(i) * words, words, lane, group);
}

#endif

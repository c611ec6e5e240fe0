/* Small kernels the sort- and scan-based multisplit references share. */
#ifndef PB_GPU_MS_HELPERS_CUH
#define PB_GPU_MS_HELPERS_CUH

#include <stdint.h>

#include "families/multisplit/ms_bucket.h"

/* The bucket id as a device functor (CUB select and partition operators). */
struct pb_ms_bucket_is {
    pb_bucket_fn fn;
    uint32_t want;
    __device__ __forceinline__ bool operator()(uint32_t key) const
    {
        return pb_bucket_of(fn, key) == want;
    }
    __device__ __forceinline__ bool operator()(unsigned long long pair) const
    {
        return pb_bucket_of(fn, (uint32_t)pair) == want;
    }
};

/* Key in the low half, value in the high half. */
__global__ void pb_ms_pack(const uint32_t *__restrict__ k, const uint32_t *__restrict__ v,
                           unsigned long long *__restrict__ out, uint32_t n);
__global__ void pb_ms_unpack(const unsigned long long *__restrict__ in, uint32_t *__restrict__ k,
                             uint32_t *__restrict__ v, uint32_t n);

#endif

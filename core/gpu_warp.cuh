/* Warp reductions of every lane's 32-bit word, on every architecture:
 * redux.sync (__reduce_*_sync) exists from sm_80; Turing sums and ORs with
 * five butterfly shuffles instead. Every lane of `mask` gets the result. */
#ifndef PB_GPU_WARP_CUH
#define PB_GPU_WARP_CUH

#include <stdint.h>

__device__ __forceinline__ uint32_t pb_warp_add(uint32_t mask, uint32_t x)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_add_sync(mask, x);
#else
    for (int d = 16; d > 0; d >>= 1) x += __shfl_xor_sync(mask, x, d);
    return x;
#endif
}

__device__ __forceinline__ uint32_t pb_warp_or(uint32_t mask, uint32_t x)
{
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(mask, x);
#else
    for (int d = 16; d > 0; d >>= 1) x |= __shfl_xor_sync(mask, x, d);
    return x;
#endif
}

#endif

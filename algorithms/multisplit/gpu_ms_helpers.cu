#include "algorithms/multisplit/gpu_ms_helpers.cuh"

__global__ void pb_ms_pack(const uint32_t *__restrict__ k, const uint32_t *__restrict__ v,
                           unsigned long long *__restrict__ out, uint32_t n)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = (unsigned long long)v[i] << 32 | k[i];
}

__global__ void pb_ms_unpack(const unsigned long long *__restrict__ in, uint32_t *__restrict__ k,
                             uint32_t *__restrict__ v, uint32_t n)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        unsigned long long p = in[i];
        k[i] = (uint32_t)p;
        v[i] = (uint32_t)(p >> 32);
    }
}

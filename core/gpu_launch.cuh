/* Small launch helpers shared by the GPU modules. */
#ifndef PB_GPU_LAUNCH_CUH
#define PB_GPU_LAUNCH_CUH

#include <stdint.h>

/* Blocks for a grid-stride loop over `work` items: enough to fill any
 * current GPU, capped so the loop, not the grid, covers the rest. */
static inline unsigned pb_grid_for(uint64_t work, int block)
{
    uint64_t blocks = (work + block - 1) / block;
    return (unsigned)(blocks < 65536 * 4 ? blocks : 65536 * 4);
}

/* idx[i] = i for i < n: the identity an index sort or gather starts from. */
template <typename Index> __global__ void pb_iota(Index *idx, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        idx[i] = (Index)i;
}

/* out[i] = in[src[i]] for i < n: the final pass of the shuffles that
 * compute their permutation as an index list first. */
template <typename T, typename Index>
__global__ void pb_gather_by_index(const T *__restrict__ in, T *__restrict__ out,
                                   const Index *__restrict__ src, uint64_t n)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        out[i] = in[src[i]];
}

#endif

/* The pass kernel, over the input or a row's candidates. */
#ifndef PB_RADIK_PASS_CUH
#define PB_RADIK_PASS_CUH

#include "algorithms/topk/radik/radik_block.cuh"

/* One pass over the input (INPUT) or the candidates a.cin. */
template <class K, bool INPUT, bool BUF>
__global__ void __launch_bounds__(PB_RADIK_BLOCK) pb_radik_pass(pb_radik_args<K> a)
{
    extern __shared__ __align__(16) unsigned char pb_radik_raw_smem[];
    pb_radik_pass_smem<K, BUF> &s =
        *reinterpret_cast<pb_radik_pass_smem<K, BUF> *>(pb_radik_raw_smem);
    if (a.hier)
        for (uint32_t i = threadIdx.x; i < PB_RADIK_BINS; i += PB_RADIK_BLOCK) s.hist[i] = 0;
    if (threadIdx.x == 0) s.b.fill_keep = s.b.fill_out = s.b.ties_full = 0;
    __syncthreads();
    pb_radik_walk(
        a, [&](uint32_t row) { return pb_radik_parts(a, row, a.rows[row], INPUT); },
        [&](const pb_radik_ctx<K> &c, uint32_t p) { pb_radik_partition<INPUT>(a, c, p, s); },
        [&](const pb_radik_ctx<K> &c) { pb_radik_finish_row(a, c, s); });
}

#endif

/* The rescheduled passes' plan: each row's partition count of the next
 * pass and their prefix, summed by the last block of the kernel that
 * visits every row. */
#ifndef PB_RADIK_PLAN_CUH
#define PB_RADIK_PLAN_CUH

#include <stdint.h>

/* Where a kernel that visits every row (one block a row) leaves the next
 * pass's plan: parts[row] per row, and in work[0, rows] their exclusive
 * prefix, which the last block to finish sums (arrivals counts the blocks
 * and is left at 0), so planning costs no launch of its own. parts NULL:
 * no plan (a single row, or a fold of blocks a row). */
struct pb_radik_plan {
    uint32_t *parts, *work, *arrivals;
};

/* Called by every thread of every block after thread 0 wrote parts[row]. */
__device__ void pb_radik_plan_last(const pb_radik_plan &pl, uint32_t n)
{
    typedef cub::BlockScan<uint32_t, PB_RADIK_BLOCK> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ uint32_t carry;
    __shared__ bool last;
    if (!pl.parts) return;
    if (threadIdx.x == 0) {
        __threadfence(); /* this block's parts[] before its arrival */
        last = atomicAdd(pl.arrivals, 1u) == gridDim.x - 1;
        carry = 0;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    for (uint32_t base = 0; base < n; base += PB_RADIK_BLOCK) {
        uint32_t i = base + threadIdx.x;
        uint32_t v = i < n ? __ldcg(pl.parts + i) : 0, x, total;
        scan_t(tmp).ExclusiveSum(v, x, total);
        if (i < n) pl.work[i] = carry + x;
        __syncthreads();
        if (threadIdx.x == 0) carry += total;
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        pl.work[n] = carry;
        *pl.arrivals = 0;
    }
}

#endif

/* The select kernel: a row's pivot bin from its histogram, and the next
 * pass's interval and mode, one block per row. */
#ifndef PB_RADIK_SELECT_CUH
#define PB_RADIK_SELECT_CUH

#include <cub/block/block_scan.cuh>

#include "algorithms/topk/radik/radik_load.cuh"
#include "algorithms/topk/radik/radik_plan.cuh"

#define PB_RADIK_SEL_PER (PB_RADIK_BINS / PB_RADIK_BLOCK)

/* Advances the rows that took part in the pass just run: those reading
 * `ran_src`, in mode FILTER if `ran_filter` and in any other mode if not.
 * Plans the next pass, which reads `next_src`. */
template <class K>
__global__ void __launch_bounds__(PB_RADIK_BLOCK)
    pb_radik_select(pb_radik_args<K> a, pb_radik_plan pl, int ran_src, int ran_filter,
                    int next_src)
{
    typedef cub::BlockScan<uint32_t, PB_RADIK_BLOCK> scan_t;
    __shared__ typename scan_t::TempStorage tmp;
    __shared__ uint32_t h[PB_RADIK_BINS];
    __shared__ uint32_t s_bin, s_above, s_count;
    uint32_t row = blockIdx.x;
    typename pb_radik_kt<K>::row *rp = &a.rows[row];
    uint32_t mode = rp->mode;
    bool mine = mode != PB_RADIK_DONE && rp->src == (uint32_t)ran_src &&
                (mode == PB_RADIK_FILTER) == (ran_filter != 0);
    bool counted = mine && (mode == PB_RADIK_COUNT || mode == PB_RADIK_SPLIT ||
                            mode == PB_RADIK_FILTER);
    if (counted) {
        /* A filter that kept fewer keys than needed finds no bin. */
        if (threadIdx.x == 0) s_bin = s_above = s_count = 0;
        /* Coalesced in and out (the next pass histograms into zeros), then
         * thread t scans bins in descending order from the top in shared
         * memory, so an exclusive scan gives it the count above its bins. */
        uint4 *g = reinterpret_cast<uint4 *>(a.hist + (uint64_t)row * PB_RADIK_BINS);
        for (uint32_t i = threadIdx.x; i < PB_RADIK_BINS / 4; i += PB_RADIK_BLOCK) {
            reinterpret_cast<uint4 *>(h)[i] = g[i];
            g[i] = make_uint4(0, 0, 0, 0);
        }
        __syncthreads();
        uint32_t top = PB_RADIK_BINS - 1 - threadIdx.x * PB_RADIK_SEL_PER, sum = 0;
        for (int j = 0; j < PB_RADIK_SEL_PER; j++) sum += h[top - ((j + threadIdx.x) % PB_RADIK_SEL_PER)];
        uint32_t above;
        scan_t(tmp).ExclusiveSum(sum, above);
        uint32_t need = rp->need;
        if (above < need && need <= above + sum) {
            for (int j = 0; j < PB_RADIK_SEL_PER; j++) {
                uint32_t v = h[top - j];
                if (need <= above + v) {
                    s_bin = top - j;
                    s_above = above;
                    s_count = v;
                    break;
                }
                above += v;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        typename pb_radik_kt<K>::row r = *rp;
        if (counted)
            pb_radik_row_advance(&r, s_bin, s_above, s_count, r.wr);
        else if (mine)
            pb_radik_row_advance(&r, 0, 0, 0, 0);
        if (mine) *rp = r;
        if (pl.parts) pl.parts[row] = pb_radik_parts(a, row, r, next_src == PB_RADIK_SRC_INPUT);
    }
    pb_radik_plan_last(pl, a.nrows);
}

#endif

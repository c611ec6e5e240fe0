/* The filter kernel: a row with a threshold keeps the keys at or above
 * it as candidates, histogrammed by the scaled digit, in one read. */
#ifndef PB_RADIK_FILTER_CUH
#define PB_RADIK_FILTER_CUH

#include "algorithms/topk/radik/radik_filter_block.cuh"

/* The filter pass's blocks an SM (its register cap): for 32-bit keys four,
 * as its shared memory allows, so 64 registers a thread (the compiler's
 * choice would be 80, and three blocks); 16-bit values three (80
 * registers: four spilled and ran slower, docs/measured.md); 64-bit keys
 * two (128 registers; left alone it took 155, one block). */
template <int DT> struct pb_radik_filter_blocks {
    static const int value = pb_radik_dt16<DT>::value                            ? 3
                             : sizeof(typename pb_radik_key_of<DT>::type) == 4 ? 4
                                                                               : 2;
};

/* DT: the dtype (K, its key type, follows). */
template <int DT, int LG>
__global__ void __launch_bounds__(PB_RADIK_BLOCK, pb_radik_filter_blocks<DT>::value)
    pb_radik_filter(pb_radik_args<typename pb_radik_key_of<DT>::type> a)
{
    typedef typename pb_radik_key_of<DT>::type K;
    __shared__ pb_radik_filter_smem<K> sm;
    if (a.hier)
        for (uint32_t i = threadIdx.x; i < PB_RADIK_BINS; i += PB_RADIK_BLOCK) sm.hist[i] = 0;
    if (threadIdx.x == 0) sm.fill = sm.eq_full = 0, sm.stop = sm.FBUF;
    __syncthreads();
    auto finish = [&](const pb_radik_ctx<K> &c) {
        if (a.hier) {
            pb_radik_filter_flush(a, c, sm, 0);
            pb_radik_flush_hist(a, c, sm.hist);
        }
        /* The next row's ties start uncounted (after every warp's last
         * read of the flag). Only a strict row sets it. */
        if (c.r.strict) {
            __syncthreads();
            if (threadIdx.x == 0) sm.eq_full = 0;
            __syncthreads();
        }
    };
    if (!a.prefetch) {
        pb_radik_walk(
            a, [&](uint32_t row) { return pb_radik_filter_parts(a, row, a.rows[row]); },
            [&](const pb_radik_ctx<K> &c, uint32_t p) {
                K raw[PB_RADIK_FITEMS];
                pb_radik_filter_load<DT>(a, c, p, raw);
                pb_radik_filter_body<DT, LG>(a, c, p, raw, sm);
            },
            finish);
        return;
    }
    /* radik's `prefetch`: within a row, a block's next partition is loaded
     * before the current one is processed, so its reads stay in flight
     * across the compares, votes and barriers. The block's partitions of a
     * row: [pa, pb) by `step` (the grid's width over one row, or 1 over a
     * block's range of the work prefix). */
    /* radik's `l2_prefetch`, 16-bit values only (the other kernels are
     * built without it, PB_RADIK_L2_AHEAD says why): partitions p + 2 step
     * .. p + (1 + l2ahead) step requested from L2 while p is processed and
     * p + step loaded, one more an iteration (thread 0, a bulk prefetch
     * each). */
    constexpr bool L2 = pb_radik_dt16<DT>::value;
    auto l2 = [&](const pb_radik_ctx<K> &c, uint32_t p, uint32_t pb) {
        if (threadIdx.x == 0 && p < pb) pb_radik_filter_l2<DT>(a, c, p);
    };
    auto segment = [&](const pb_radik_ctx<K> &c, uint32_t pa, uint32_t pb, uint32_t step) {
        K cur[PB_RADIK_FITEMS];
        pb_radik_filter_load<DT>(a, c, pa, cur);
        if constexpr (L2)
            for (int d = 2; d <= a.l2ahead; d++) l2(c, pa + d * step, pb);
        for (uint32_t p = pa; p < pb; p += step) {
            K next[PB_RADIK_FITEMS];
            bool more = p + step < pb;
            if (more) pb_radik_filter_load<DT>(a, c, p + step, next);
            if constexpr (L2)
                if (a.l2ahead) l2(c, p + (1 + a.l2ahead) * step, pb);
            pb_radik_filter_body<DT, LG>(a, c, p, cur, sm);
            if (more) {
#pragma unroll
                for (int s = 0; s < PB_RADIK_FITEMS; s++) cur[s] = next[s];
            }
        }
        finish(c);
    };
    /* One call of segment (the compiler allocates registers for one):
     * rescheduled (as pb_radik_walk), a contiguous range [gp, gp1) of the
     * partitions of all rows, a segment a row it meets; else the row's
     * partitions from blockIdx.x by the grid's width. */
    pb_radik_ctx<K> c;
    uint32_t row = blockIdx.y, gp = 0, gp1 = 0;
    if (a.work) {
        pb_radik_work_range(a, &gp, &gp1);
        if (gp >= gp1) return;
        row = pb_radik_work_row(a, gp);
    }
    for (;;) {
        uint32_t pa = blockIdx.x, pb, step = gridDim.x;
        if (a.work) {
            if (gp >= gp1) return;
            while (a.work[row + 1] <= gp) row++; /* skips rows without work */
            uint32_t w0 = a.work[row], e = min(gp1, a.work[row + 1]);
            pa = gp - w0, pb = e - w0, step = 1, gp = e;
        }
        pb_radik_enter(a, row, c);
        if (!a.work) pb = pb_radik_filter_parts(a, row, c.r);
        if (pa < pb) segment(c, pa, pb, step);
        if (!a.work) return;
    }
}

#endif

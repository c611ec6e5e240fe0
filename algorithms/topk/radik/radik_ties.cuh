/* radik's tie pass for `ties = lowest-index`: after the select has found a
 * row's pivot (its k-th key) and the final pass has written the keys above
 * it, the row's `need` keys equal to the pivot with the smallest indices
 * fill the rest of its output, [take - need, take), in index order.
 *
 * Why a pass of its own. The final pass sees the ties in whatever order the
 * candidates were written (reservation order, a race) and claims their
 * slots on one counter a row; neither gives the smallest indices. Here the
 * input is read in index order, in tie partitions of PB_RADIK_PART keys:
 *
 *   count   each partition counts its keys equal to the pivot (a block
 *           reduction; nothing shared between blocks);
 *   scan    an exclusive sum of the counts over all partitions of all rows
 *           (CUB), so partition q's first tie has row rank
 *           scan[q] - scan[first partition of its row];
 *   write   each partition whose first rank is below `need` ranks its ties
 *           in index order (warp ballots, then the warps' totals) and
 *           writes those ranked below `need`; the others read nothing.
 *
 * Deterministic (the same output positions every run) and without a
 * counter that every tie contends on. It costs one more read of the rows
 * whose final pass had ties to choose (the partitions of rows that took
 * all their ties, mode TAKE, read nothing) plus the partial read of the
 * write kernel.
 * Partition q of the batch belongs to the row r with tbase[r] <= q <
 * tbase[r + 1]: tbase is the prefix of the rows' partition counts, made on
 * the host from the layout. The scan wraps modulo 2^32 past 2^32 ties in a
 * batch; the difference within a row (below 2^31 keys) is still exact. */
#ifndef PB_RADIK_TIES_CUH
#define PB_RADIK_TIES_CUH

#include "algorithms/topk/radik/radik_block.cuh"

/* The row holding tie partition q: the last row whose tbase is <= q (rows
 * without partitions share their successor's tbase). */
__device__ __forceinline__ uint32_t pb_radik_tie_row(const uint32_t *tbase, uint32_t nrows,
                                                     uint32_t q)
{
    uint32_t lo = 0, hi = nrows;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (tbase[mid] <= q)
            lo = mid;
        else
            hi = mid;
    }
    while (tbase[lo + 1] <= q) lo++;
    return lo;
}

/* Loads tie partition p of row `row` (PB_RADIK_ITEMS keys a thread, slot
 * j of thread t at row index p * PART + j * BLOCK + t, so that index order
 * is slot-major, then thread order); bit j of the result: slot j holds the
 * pivot. raw[] gets the values (K: the key width, 64-bit values for fp64
 * and u64). */
template <class K>
__device__ __forceinline__ uint32_t pb_radik_tie_load(const pb_radik_args<K> &a, uint32_t row,
                                                      uint32_t p, K pivot,
                                                      K (&raw)[PB_RADIK_ITEMS])
{
    uint64_t b = a.begin[row];
    uint32_t len = (uint32_t)(a.end[row] - b), eq = 0;
#pragma unroll
    for (int j = 0; j < PB_RADIK_ITEMS; j++) {
        uint32_t rel = p * PB_RADIK_PART + j * PB_RADIK_BLOCK + threadIdx.x;
        raw[j] = rel < len ? pb_radik_at(a, pb_radik_is16(a), b + rel) : 0;
    }
#pragma unroll
    for (int j = 0; j < PB_RADIK_ITEMS; j++) {
        uint32_t rel = p * PB_RADIK_PART + j * PB_RADIK_BLOCK + threadIdx.x;
        eq |= (uint32_t)(rel < len && pb_radik_okey(a, raw[j]) == pivot) << j;
    }
    return eq;
}

template <class K>
__global__ void __launch_bounds__(PB_RADIK_BLOCK)
    pb_radik_tie_count(pb_radik_args<K> a, const uint32_t *tbase, uint32_t *counts)
{
    uint32_t total = tbase[a.nrows];
    for (uint32_t q = blockIdx.x; q < total; q += gridDim.x) {
        uint32_t row = pb_radik_tie_row(tbase, a.nrows, q);
        const typename pb_radik_kt<K>::row *rp = &a.rows[row];
        uint32_t need = pb_radik_tie_need(rp), sum = 0;
        if (need) {
            K raw[PB_RADIK_ITEMS];
            uint32_t eq = pb_radik_tie_load(a, row, q - tbase[row], pb_radik_tie_key(rp), raw);
            /* Also a barrier: the block moves on to q + gridDim.x together. */
#pragma unroll
            for (int j = 0; j < PB_RADIK_ITEMS; j++)
                sum += (uint32_t)__syncthreads_count((eq >> j) & 1);
        }
        if (threadIdx.x == 0) counts[q] = sum;
    }
}

template <class K>
__global__ void __launch_bounds__(PB_RADIK_BLOCK)
    pb_radik_tie_write(pb_radik_args<K> a, const uint32_t *tbase, const uint32_t *ranks)
{
    const uint32_t warps = PB_RADIK_BLOCK / 32;
    __shared__ uint32_t wt[PB_RADIK_ITEMS][PB_RADIK_BLOCK / 32];
    uint32_t total = tbase[a.nrows], lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    for (uint32_t q = blockIdx.x; q < total; q += gridDim.x) {
        uint32_t row = pb_radik_tie_row(tbase, a.nrows, q);
        const typename pb_radik_kt<K>::row *rp = &a.rows[row];
        uint32_t need = pb_radik_tie_need(rp);
        if (!need) continue;
        /* The rank of this partition's first tie in its row. */
        uint32_t first = ranks[q] - ranks[tbase[row]];
        if (first >= need) continue; /* uniform in the block */
        K pivot = pb_radik_tie_key(rp);
        uint32_t out = (uint32_t)(rp->take - need);
        K raw[PB_RADIK_ITEMS];
        uint32_t eq = pb_radik_tie_load(a, row, q - tbase[row], pivot, raw);
        uint32_t below[PB_RADIK_ITEMS];
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS; j++) {
            uint32_t m = __ballot_sync(0xffffffffu, (eq >> j) & 1);
            below[j] = (uint32_t)__popc(m & ((1u << lane) - 1));
            if (lane == 0) wt[j][w] = (uint32_t)__popc(m);
        }
        __syncthreads();
        /* Ties before slot j of this warp: all of slots < j, then the
         * warps before this one in slot j. */
        uint32_t before = first;
        uint64_t o0 = a.out_off[row];
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS; j++) {
            uint32_t slot = 0, all = 0;
            for (uint32_t v = 0; v < warps; v++) {
                slot += v < w ? wt[j][v] : 0;
                all += wt[j][v];
            }
            uint32_t rank = before + slot + below[j];
            if (((eq >> j) & 1) && rank < need) {
                a.vals[o0 + out + rank] = raw[j];
                a.idx[o0 + out + rank] =
                    (q - tbase[row]) * PB_RADIK_PART + (uint32_t)j * PB_RADIK_BLOCK + threadIdx.x;
            }
            before += all;
        }
        __syncthreads(); /* wt is read by all before the next partition */
    }
}

#endif

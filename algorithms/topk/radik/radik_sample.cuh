/* The block-level pieces of a row's sample: the random positions, the
 * loads, and `refine`'s ranking of a larger sample's extra keys. */
#ifndef PB_RADIK_SAMPLE_CUH
#define PB_RADIK_SAMPLE_CUH

#include <cub/block/block_radix_sort.cuh>

#include "algorithms/topk/radik/radik_load.cuh"

/* The positions: pb_radik_hash and pb_radik_sample_pos (radik_digit.h). */

/* Raw values of sample keys s0 + j * stride (j < N) of row `row` (from b,
 * len keys): random reads, issued together, with no key conversion or
 * 16/32-bit select between them. */
template <int N, class K>
__device__ __forceinline__ void pb_radik_sample_load(const pb_radik_args<K> &a, uint64_t b,
                                                     uint32_t s0, uint32_t stride, uint32_t row,
                                                     uint32_t salt, uint32_t len, K (&out)[N])
{
    if (pb_radik_is16(a)) {
        const uint16_t *d = a.data16 + b;
#pragma unroll
        for (int j = 0; j < N; j++)
            out[j] = __ldcs(d + pb_radik_sample_pos(s0 + j * stride, row, salt, len));
    } else {
        const K *d = a.data + b;
#pragma unroll
        for (int j = 0; j < N; j++)
            out[j] = __ldcs(d + pb_radik_sample_pos(s0 + j * stride, row, salt, len));
    }
}

/* `refine`'s shared memory: the larger sample's keys at or above the small
 * sample's threshold, their number, and the two keys ranked. `refine` is
 * for 32-bit words: 64-bit keys hold no list. */
template <class K> struct pb_radik_refine_smem {
    K list[sizeof(K) == 4 ? PB_RADIK_REFINE_LIST : 1];
    uint32_t n;
    K thr, est, up;
};

/* radik's `refine` (see PB_RADIK_REFINE_ITEMS), every thread of the start
 * block: the threshold thr (the small sample's key of rank j, which keeps
 * `kept` of its keys, sorted[0, kept)) is replaced by the key of rank j'
 * (pb_radik_filter_rank of the larger sample) among the larger sample's
 * keys, and the pivot estimate est by its key of rank take * S' / len, where
 * those ranks fall among the keys at or above thr. Every key of the larger
 * sample at or above thr is listed (the small sample's, and the extra ones
 * the test keeps), so a rank below their number is the larger sample's rank
 * too. Left as they are where the list overflows (a threshold shared by
 * much of the row: the small sample decided that already) or is too short
 * for rank j' (the larger sample disagrees with the small one; both are
 * samples, and the answer never depends on them), or where the new
 * threshold is shared by more than 1/PB_RADIK_TIE_STRICT of the larger
 * sample (a strict filter's case; the small sample did not see it). A key
 * of the list is ranked by counting the keys above it, and the equal ones
 * listed before it: a unique position, so one thread writes each. big:
 * this thread's extra keys, order keys. level: the row's tie_level
 * (pb_radik_tie_level, OFF where it does not apply): where the new
 * threshold is a level (pb_radik_level_tied), *strict becomes
 * PB_RADIK_STRICT_KEEP, and with UP the threshold may move up a key. */
template <class K>
__device__ void pb_radik_refine(const K (&big)[PB_RADIK_REFINE_ITEMS],
                                const K *sorted, uint32_t kept, uint32_t take, uint32_t len,
                                int level, pb_radik_refine_smem<K> &sm, K *thr, K *est,
                                uint32_t *strict)
{
    K *list = sm.list;
    if (threadIdx.x == 0) sm.n = 0;
    __syncthreads();
    const K t = *thr;
    auto add = [&](K key) {
        uint32_t at = atomicAdd(&sm.n, 1u);
        if (at < PB_RADIK_REFINE_LIST) list[at] = key;
    };
    for (uint32_t i = threadIdx.x; i < kept; i += PB_RADIK_BLOCK) add(sorted[i]);
#pragma unroll
    for (int j = 0; j < PB_RADIK_REFINE_ITEMS; j++) {
        K key = big[j];
        if (key >= t) add(key);
    }
    __syncthreads();
    const uint32_t n = sm.n;
    const uint32_t j = pb_radik_filter_rank(PB_RADIK_REFINE_SAMPLE, take, len);
    const uint64_t r = (uint64_t)take * PB_RADIK_REFINE_SAMPLE / len;
    if (n > PB_RADIK_REFINE_LIST || j >= n) return; /* block-uniform */
    for (uint32_t i = threadIdx.x; i < n; i += PB_RADIK_BLOCK) {
        K x = list[i];
        uint32_t pos = 0;
        for (uint32_t m = 0; m < n; m++) {
            K y = list[m];
            pos += y > x || (y == x && m < i);
        }
        if (pos == j) sm.thr = x;
        if (pos == r) sm.est = x;
    }
    __syncthreads();
    const K t2 = sm.thr;
    int tied = 0;
    for (uint32_t base = 0; base < n; base += PB_RADIK_BLOCK) {
        uint32_t i = base + threadIdx.x;
        tied += __syncthreads_count(i < n && list[i] == t2);
    }
    if ((uint64_t)tied * PB_RADIK_TIE_STRICT > PB_RADIK_REFINE_SAMPLE) return;
    *thr = t2;
    if (r < n) *est = sm.est;
    /* Block-uniform from here. */
    if (level == PB_RADIK_TIE_LEVEL_OFF ||
        !pb_radik_level_tied((uint32_t)tied, PB_RADIK_REFINE_SAMPLE, len, take))
        return;
    *strict = PB_RADIK_STRICT_KEEP;
    if (level != PB_RADIK_TIE_LEVEL_UP) return;
    /* up: the next listed key above t2 (the smallest), where
     * pb_radik_level_may_rise allows. */
    if (threadIdx.x == 0) sm.up = ~(K)0;
    __syncthreads();
    int above = 0;
    for (uint32_t base = 0; base < n; base += PB_RADIK_BLOCK) {
        uint32_t i = base + threadIdx.x;
        above += __syncthreads_count(i < n && list[i] > t2);
        if (i < n && list[i] > t2) atomicMin(&sm.up, list[i]);
    }
    __syncthreads();
    if (!pb_radik_level_may_rise((uint32_t)above, j)) return;
    const K up = sm.up;
    int tied_up = 0;
    for (uint32_t base = 0; base < n; base += PB_RADIK_BLOCK) {
        uint32_t i = base + threadIdx.x;
        tied_up += __syncthreads_count(i < n && list[i] == up);
    }
    *thr = up;
    if (!pb_radik_level_tied((uint32_t)tied_up, PB_RADIK_REFINE_SAMPLE, len, take))
        *strict = PB_RADIK_STRICT_OFF;
}

#endif

/* The start kernels: the refined rows' presample, and per row the select
 * state, the scaling reference and the pre-filter's threshold. */
#ifndef PB_RADIK_START_CUH
#define PB_RADIK_START_CUH

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include "algorithms/topk/radik/radik_plan.cuh"
#include "algorithms/topk/radik/radik_sample.cuh"

/* The samples of the rows that refine (radik.cu lists them: rrows, their
 * slots in order), gathered before the start kernel by many blocks, as
 * order keys: grid (PB_RADIK_REFINE_SAMPLE / PB_RADIK_PRESAMPLE_PART,
 * slots). The start kernel is one block a row, latency-bound: there,
 * refine's extra keys (56 a thread, each a position's hash and division,
 * a read and a conversion) took most of its time (docs/measured.md).
 * Sample key s is
 * word s of the slot (key s = x * PRESAMPLE_PART + j * BLOCK + t of block
 * x's thread t), so that these writes and the start kernel's reads are
 * coalesced; the start kernel then holds the keys in other threads than
 * when it loads them itself, which changes nothing (the sort and refine's
 * ranking see a set of keys). */
template <class K>
__global__ void __launch_bounds__(PB_RADIK_BLOCK)
    pb_radik_presample(pb_radik_args<K> a, const uint32_t *rrows, uint32_t salt)
{
    const uint32_t slot = blockIdx.y, row = rrows[slot];
    const uint64_t b = a.begin[row];
    const uint32_t len = (uint32_t)(a.end[row] - b);
    const uint32_t s0 = blockIdx.x * PB_RADIK_PRESAMPLE_PART + threadIdx.x;
    K v[PB_RADIK_PRESAMPLE_ITEMS];
    pb_radik_sample_load(a, b, s0, PB_RADIK_BLOCK, row, salt, len, v);
    K *out = a.samp + (uint64_t)slot * PB_RADIK_REFINE_SAMPLE + s0;
#pragma unroll
    for (int j = 0; j < PB_RADIK_PRESAMPLE_ITEMS; j++)
        out[j * PB_RADIK_BLOCK] = pb_radik_okey(a, v[j]);
}

/* `filter`: a pb_radik_filter_mode. Plans the first pass: the filter pass
 * if `filter` is on. */
template <class K>
__global__ void __launch_bounds__(PB_RADIK_BLOCK)
    pb_radik_start(pb_radik_args<K> a, uint64_t k, int scale, int filter, uint32_t salt,
                   pb_radik_plan pl)
{
    typedef cub::BlockRadixSort<K, PB_RADIK_BLOCK, PB_RADIK_SAMPLE_ITEMS> sort_t;
    __shared__ typename sort_t::TempStorage tmp;
    __shared__ K sorted[PB_RADIK_SAMPLE];
    constexpr bool CAN_REFINE = sizeof(K) == 4; /* see pb_radik_refine_smem */
    __shared__ pb_radik_refine_smem<K> rsm;
    uint32_t row = blockIdx.x;
    uint64_t b = a.begin[row];
    uint32_t len = (uint32_t)(a.end[row] - b);
    uint32_t take = k < len ? (uint32_t)k : len;
    K ref = 0, thr = 0, est = 0;
    uint32_t strict = PB_RADIK_STRICT_OFF;
    /* A short row costs a few launches whatever its digits, and the sample
     * would cost more than the passes it saves. */
    bool scaled = scale != PB_RADIK_SCALE_OFF && len >= PB_RADIK_SCALE_MIN && take < len;
    bool filt = filter != PB_RADIK_FILTER_OFF &&
                pb_radik_filterable(len, take, filter == PB_RADIK_FILTER_OVERSHOOT);
    if (scaled && scale == PB_RADIK_SCALE_RANDOM) {
        uint32_t i = pb_radik_hash(row * 0x9e3779b9U + salt) % len;
        ref = pb_radik_okey(a, pb_radik_at(a, pb_radik_is16(a), b + i));
    }
    if ((scaled && scale == PB_RADIK_SCALE_PIVOT) || filt) {
        /* The sample, drawn at hashed positions, sorted descending; its
         * (take * S / len)-th key estimates the pivot. */
        K keys[PB_RADIK_SAMPLE_ITEMS];
        /* `refine`: a row with a slot (radik.cu gives one to exactly the
         * rows that refine) has its whole sample gathered by presample, as
         * order keys; the larger sample's other keys are read now so that
         * their reads are in flight across the sort (block-uniform). */
        const int32_t slot = CAN_REFINE && a.rslot ? a.rslot[row] : -1;
        const bool refine = slot >= 0;
        K big[CAN_REFINE ? PB_RADIK_REFINE_ITEMS : 1];
        if (refine) {
            const K *sp = a.samp + (uint64_t)slot * PB_RADIK_REFINE_SAMPLE + threadIdx.x;
#pragma unroll
            for (int j = 0; j < PB_RADIK_SAMPLE_ITEMS; j++) keys[j] = sp[j * PB_RADIK_BLOCK];
            if constexpr (CAN_REFINE)
#pragma unroll
                for (int j = 0; j < PB_RADIK_REFINE_ITEMS; j++)
                    big[j] = sp[PB_RADIK_SAMPLE + j * PB_RADIK_BLOCK];
        } else {
            pb_radik_sample_load(a, b, threadIdx.x * PB_RADIK_SAMPLE_ITEMS, 1, row, salt, len,
                                 keys);
#pragma unroll
            for (int j = 0; j < PB_RADIK_SAMPLE_ITEMS; j++) keys[j] = pb_radik_okey(a, keys[j]);
        }
        /* On the key's bits only: 16-bit keys take half the digit passes. */
        sort_t(tmp).SortDescendingBlockedToStriped(keys, 0, (int)pb_topk_key_bits_of(a.dtype));
        for (int j = 0; j < PB_RADIK_SAMPLE_ITEMS; j++)
            sorted[j * PB_RADIK_BLOCK + threadIdx.x] = keys[j];
        __syncthreads();
        uint64_t rank = (uint64_t)take * PB_RADIK_SAMPLE / len;
        est = sorted[rank < PB_RADIK_SAMPLE ? rank : PB_RADIK_SAMPLE - 1];
        if (scaled && scale == PB_RADIK_SCALE_PIVOT) {
            ref = est;
            /* Adaptive: scale only when the plain first digit would keep
             * more than 1/256 of the row with the pivot (the sample's
             * estimate): on a narrow range, and on U[0, 1), whose top 13
             * key bits keep 1/32 of it (4 mantissa bits). Otherwise the
             * plain digit (one shift) is the cheaper first pass. */
            const int top = 8 * (int)sizeof(K) - PB_RADIK_BITS; /* the plain first digit */
            int same = 0;
            for (int j = 0; j < PB_RADIK_SAMPLE_ITEMS; j++)
                same += __syncthreads_count(sorted[j * PB_RADIK_BLOCK + threadIdx.x] >> top ==
                                            ref >> top);
            scaled = same * 256 > PB_RADIK_SAMPLE;
        }
        if (filt) {
            uint32_t j = filter == PB_RADIK_FILTER_OVERSHOOT
                             ? 0
                             : pb_radik_filter_rank(PB_RADIK_SAMPLE, take, len);
            filt = j < PB_RADIK_SAMPLE;
            if (filt) {
                /* Used only if it is selective: ties at the threshold (an
                 * all-equal row) would keep the whole row. With tie_aware
                 * such a threshold filters strictly (radik_digit.h): the
                 * sample keys above it number at most j, selective by
                 * pb_radik_filterable. */
                thr = sorted[j];
                int kept = 0, tied = 0;
                for (int i = 0; i < PB_RADIK_SAMPLE_ITEMS; i++) {
                    K x = sorted[i * PB_RADIK_BLOCK + threadIdx.x];
                    kept += __syncthreads_count(x >= thr);
                    tied += __syncthreads_count(x == thr);
                }
                bool selective = kept * PB_RADIK_FILTER_KEEP <= PB_RADIK_SAMPLE;
                /* Strict also where the threshold is selective but shared
                 * by many keys (more than 1/64 of the sample: few:16 keeps
                 * exactly 1/16, its top level, at k = 32): the keys equal
                 * to it would all become candidates for a few of them to
                 * be chosen (such rows ran markedly slower than uniform
                 * ones so: docs/measured.md). */
                bool many_tied = tied * PB_RADIK_TIE_STRICT > PB_RADIK_SAMPLE;
                if ((!selective || many_tied) && a.tie_aware)
                    strict = a.lowest ? PB_RADIK_STRICT_COUNT : PB_RADIK_STRICT_KEEP;
                filt = filter == PB_RADIK_FILTER_OVERSHOOT || selective || strict;
                if constexpr (CAN_REFINE)
                    if (refine && filt && !strict)
                        pb_radik_refine(big, sorted, (uint32_t)kept, take, len,
                                        a.tie_aware && !a.lowest ? a.tie_level : 0, rsm, &thr,
                                        &est, &strict);
            }
        }
    }
    if (threadIdx.x == 0) {
        typename pb_radik_kt<K>::row r;
        /* 16-bit types: 2^16 - 1; else every key of the width (no shift
         * by the width itself). */
        uint32_t kbits = pb_topk_key_bits_of(a.dtype);
        pb_radik_row_init(&r, len, k, scaled, ref,
                          kbits == 8 * sizeof(K) ? (K)~(K)0 : ((K)1 << kbits) - 1);
        if (filt) pb_radik_row_filter(&r, thr, est, strict);
        a.rows[row] = r;
        if (pl.parts)
            pl.parts[row] = filter != PB_RADIK_FILTER_OFF ? pb_radik_filter_parts(a, row, r)
                                                          : pb_radik_parts(a, row, r, true);
    }
    pb_radik_plan_last(pl, a.nrows);
}

#endif

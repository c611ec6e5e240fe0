/* RadiK's kernels (the paper's Algorithm 1 with its Section 3-4
 * optimisations), fused so a query reads its input twice; this file holds
 * what every kernel is given (the switches' enums, what a key width brings,
 * the argument block, the order-key conversions), the others one kernel or
 * its block-level pieces each (radik_start, radik_select, radik_pass,
 * radik_filter; radik_tuning.h the sizes):
 *
 *   start    per row: the select state; a sample for the scaling reference
 *            and the pre-filter's threshold (radik_digit.h)
 *   filter   input, rows with a threshold: keep the keys at or above it as
 *            candidates, histogrammed by the scaled digit (one read; a row
 *            whose sample was wrong goes on with pass 0)
 *   pass 0   input: histogram of the first digit             (countBin)
 *   select   per row: the pivot's bin, the next interval     (selectBin)
 *   pass 1   input: keys above the bin go to the output, keys in it become
 *            candidates and are histogrammed by the next digit
 *                                                 (selectCandidate, filter)
 *   select, pass 2 (candidates), select, pass 3 (candidates: the ties),
 *   and after a filter one more select and candidate pass; with
 *   ties = lowest-index the final pass writes only the keys above the
 *   pivot and radik_ties.cuh's pass chooses the ties by index
 *
 * A row's `src` says which passes it takes part in: the input passes skip
 * rows that have candidates, so a filtered row waits through the input
 * passes of rows that fell back. After each select, every row's partition
 * count of the next pass is summed into the rescheduling prefix.
 * No host synchronisation: every pass is launched, rows that are finished
 * skip it. A pass kernel is one template over where it reads (the input or
 * a candidate buffer) and whether it stages writes in shared memory.
 *
 * Switches (radik's parameters, for the ablation):
 *   hier     histograms in shared memory (warp-aggregated when a warp's
 *            digits agree) and merged into the global one once per block;
 *            counters reserved once per warp. Off: a global atomic per key.
 *   wbuf     the flush-efficient write buffer (3.1.2): candidates and
 *            results staged in a shared buffer of twice a partition,
 *            flushed in bursts when more than half full. Off: every key is
 *            written where its atomic reservation says.
 *   resched  task rescheduling (3.2.1): one persistent grid walks the
 *            partitions of all rows' live work, found from a prefix over
 *            rows computed on the device after each select. Off: one fold
 *            of blocks per row.
 *   pad      offset padding (3.2.2): a misaligned row is read as aligned
 *            16-byte packs from the nearest aligned address to its left,
 *            masking the elements outside it. Off: misaligned rows are read
 *            element by element.
 *
 * Key widths. Every kernel is a template over the order key's type K:
 * uint32_t for the dtypes up to 32 bits (16-bit values are read as such,
 * through data16), uint64_t for fp64 and u64 (instantiated only for them).
 * With 64-bit keys the row state is pb_radik_row64, a candidate is a
 * ulonglong2 {key, index} (16 bytes, one aligned load or store), a pack of
 * four values is two 16-byte loads (so a pack still starts at a multiple
 * of four elements, and the padding arithmetic is the same), and results
 * are written as 8-byte values. The 32-bit instantiation is the code as
 * it was: its PTX is the earlier one instruction for instruction, up to
 * the numbering of virtual registers, except in the filter kernels of
 * fp16 / bf16 smallest, where one complement of a kept key folds
 * differently (`not` of the order key for an `or` of the key, equal). */
#ifndef PB_RADIK_ARGS_CUH
#define PB_RADIK_ARGS_CUH

#include <stdint.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "algorithms/topk/radik/radik_digit.h"
#include "families/topk/topk_key.h"

enum pb_radik_scale { PB_RADIK_SCALE_OFF, PB_RADIK_SCALE_RANDOM, PB_RADIK_SCALE_PIVOT };
/* overshoot: the threshold is the sample's largest key, used whatever it
 * keeps, so that most rows fall back (the tests' way to reach the fallback) */
enum pb_radik_filter_mode { PB_RADIK_FILTER_OFF, PB_RADIK_FILTER_ON, PB_RADIK_FILTER_OVERSHOOT };
/* radik's `tie_level` (pb_radik_refine): a refined threshold shared by
 * sample keys whose ties would outnumber the take, with ties = any. strict:
 * filtered strictly (the keys above it, and `take` of those equal); up:
 * also moved to the next sample key above it, where enough sample keys lie
 * above it. */
enum pb_radik_tie_level { PB_RADIK_TIE_LEVEL_OFF, PB_RADIK_TIE_LEVEL_STRICT, PB_RADIK_TIE_LEVEL_UP };

/* What a key width K brings: the row state, a candidate {key, index} and
 * a pack of four raw values. */
template <class K> struct pb_radik_kt;
template <> struct pb_radik_kt<uint32_t> {
    typedef pb_radik_row row;
    typedef uint2 cand;
    typedef uint4 pack;
};
struct pb_radik_pack64 {
    ulonglong2 a, b; /* values 0, 1 and 2, 3 */
};
template <> struct pb_radik_kt<uint64_t> {
    typedef pb_radik_row64 row;
    typedef ulonglong2 cand; /* .y: the index */
    typedef pb_radik_pack64 pack;
};

/* The order key type of a dtype. */
template <int DT> struct pb_radik_key_of {
    typedef uint32_t type;
};
template <> struct pb_radik_key_of<PB_TOPK_F64> {
    typedef uint64_t type;
};
template <> struct pb_radik_key_of<PB_TOPK_U64> {
    typedef uint64_t type;
};

__host__ __device__ __forceinline__ uint2 pb_radik_cand(uint32_t key, uint32_t idx)
{
    return make_uint2(key, idx);
}
__host__ __device__ __forceinline__ ulonglong2 pb_radik_cand(uint64_t key, uint32_t idx)
{
    return make_ulonglong2(key, idx);
}
__device__ __forceinline__ uint32_t pb_radik_cand_key(const uint2 &e) { return e.x; }
__device__ __forceinline__ uint64_t pb_radik_cand_key(const ulonglong2 &e) { return e.x; }
__device__ __forceinline__ uint32_t pb_radik_cand_idx(const uint2 &e) { return e.y; }
__device__ __forceinline__ uint32_t pb_radik_cand_idx(const ulonglong2 &e) { return (uint32_t)e.y; }

template <class K> struct pb_radik_args {
    const K *data;          /* the values: 32-bit dtypes' (K = uint32_t), or 64-bit ones' */
    const uint16_t *data16; /* fp16 / bf16 values (the same buffer), else NULL */
    const uint64_t *begin, *end, *out_off;
    K *vals;                /* results in the values' words (32- or 64-bit) */
    uint32_t *idx;
    typename pb_radik_kt<K>::row *rows;
    uint32_t *hist;       /* rows * PB_RADIK_BINS */
    /* candidates read (key, index), row r's at begin[r]; and written */
    const typename pb_radik_kt<K>::cand *cin;
    typename pb_radik_kt<K>::cand *cout;
    const uint32_t *work; /* rescheduled: rows + 1 partition prefix; NULL: one fold a row */
    uint32_t nrows;
    int dtype, largest;
    int hier, pad;
    int lowest; /* ties = lowest-index: the final pass leaves the ties to radik_ties.cuh */
    int tie_aware; /* radik's `tie_aware`: strict filters at shared thresholds, ties claimed
                      until a block sees `need` taken (off: the paper's query, every tie claims) */
    int quick;     /* radik's `quick`: the filter compares raw values first */
    int prefetch;  /* radik's `prefetch`: the filter loads a row's next partition ahead */
    int l2ahead;   /* radik's `l2_prefetch`: steps a block asks L2 for ahead of its reads (0: none) */
    int tie_level; /* radik's `tie_level` (pb_radik_tie_level): a tied sampled threshold's treatment */
    /* Rows that refine (radik's `refine`, decided on the host): their
     * samples, gathered ahead by pb_radik_presample (rslot[row]: its slot
     * in samp, of PB_RADIK_REFINE_SAMPLE order keys; -1: the row does not
     * refine, and the start kernel loads its small sample itself). NULL:
     * no row refines. */
    const int32_t *rslot;
    K *samp;
};

__device__ __forceinline__ uint32_t pb_radik_okey(const pb_radik_args<uint32_t> &a, uint32_t raw)
{
    return pb_topk_okey_of(raw, a.dtype, a.largest);
}

/* fp64 or u64 (a.dtype is one of them: the 64-bit kernels serve no other). */
__device__ __forceinline__ uint64_t pb_radik_okey(const pb_radik_args<uint64_t> &a, uint64_t raw)
{
    return pb_topk_okey_wide(raw, a.dtype, a.largest);
}

/* The raw value of an order key (a NaN comes back as the canonical NaN). */
__device__ __forceinline__ uint32_t pb_radik_raw(const pb_radik_args<uint32_t> &a, uint32_t okey)
{
    return pb_topk_raw_of(okey, a.dtype, a.largest);
}

__device__ __forceinline__ uint64_t pb_radik_raw(const pb_radik_args<uint64_t> &a, uint64_t okey)
{
    return pb_topk_raw_wide(okey, a.dtype, a.largest);
}

/* The order key of raw value `raw` of dtype DT (LG: largest), the dtype
 * known when compiled (the filter pass). */
template <int DT, int LG> __device__ __forceinline__ uint32_t pb_radik_okey_dt(uint32_t raw)
{
    return pb_topk_okey_of(raw, DT, LG);
}
template <int DT, int LG> __device__ __forceinline__ uint64_t pb_radik_okey_dt(uint64_t raw)
{
    return pb_topk_okey_wide(raw, DT, LG);
}

/* Whether dtype DT (known when compiled) has 16-bit values. */
template <int DT> struct pb_radik_dt16 {
    static const bool value = DT == PB_TOPK_F16 || DT == PB_TOPK_BF16;
};

/* Whether the data are 16-bit values (read through data16). */
template <class K> __device__ __forceinline__ bool pb_radik_is16(const pb_radik_args<K> &a)
{
    return sizeof(K) == 4 && a.data16 != nullptr;
}

#endif

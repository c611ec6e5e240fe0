/* RadiK's kernels (the paper's Algorithm 1 with its Section 3-4
 * optimisations), fused so a query reads its input twice:
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
#ifndef PB_RADIK_KERNELS_CUH
#define PB_RADIK_KERNELS_CUH

#include <stdint.h>

#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "algorithms/topk/radik_digit.h"
#include "families/topk/topk_key.h"

#define PB_RADIK_BLOCK 256
#define PB_RADIK_ITEMS 8
#define PB_RADIK_PART (PB_RADIK_BLOCK * PB_RADIK_ITEMS) /* elements a partition */
#define PB_RADIK_SAMPLE_ITEMS (PB_RADIK_SAMPLE / PB_RADIK_BLOCK)
#define PB_RADIK_SCALE_MIN (1u << 15) /* shorter rows are not scaled */

/* The filter pass reads more keys a thread: its work per key is a compare.
 * 16-bit values stay packed two to a 32-bit word, so the same 16 words a
 * thread hold 32 of them: a partition of 16-bit values is twice as long,
 * read as 16-byte packs of eight. */
#define PB_RADIK_FITEMS 16
#define PB_RADIK_FPART (PB_RADIK_BLOCK * PB_RADIK_FITEMS)
#define PB_RADIK_FITEMS16 (2 * PB_RADIK_FITEMS)
#define PB_RADIK_FPART16 (PB_RADIK_BLOCK * PB_RADIK_FITEMS16)
/* A sampled threshold shared by more than 1/PB_RADIK_TIE_STRICT of the
 * sample filters strictly (tie_aware) even when it is selective. */
#define PB_RADIK_TIE_STRICT 64
/* radik's `refine`: a long row's filter threshold is read from a sample
 * eight times larger (PB_RADIK_REFINE_SAMPLE keys: the 2048 sorted ones and
 * PB_RADIK_REFINE_ITEMS more a thread), so that it keeps about an eighth
 * as many candidates. Only the extra keys at or above the small sample's
 * threshold are kept (a few dozen: at most PB_RADIK_REFINE_LIST), and
 * ranked by counting, not sorted. 32-bit words only (16-bit values too):
 * the extra keys are held in registers across the small sample's sort. */
#define PB_RADIK_REFINE_ITEMS 56
#define PB_RADIK_REFINE_SAMPLE (PB_RADIK_SAMPLE + PB_RADIK_BLOCK * PB_RADIK_REFINE_ITEMS)
#define PB_RADIK_REFINE_LIST 512
#define PB_RADIK_REFINE_MIN (1u << 25)
/* pb_radik_presample's keys a thread: few, so that each thread's chain of
 * random reads is short and many blocks share the row's 16384. */
#define PB_RADIK_PRESAMPLE_ITEMS 2
#define PB_RADIK_PRESAMPLE_PART (PB_RADIK_BLOCK * PB_RADIK_PRESAMPLE_ITEMS)

enum pb_radik_scale { PB_RADIK_SCALE_OFF, PB_RADIK_SCALE_RANDOM, PB_RADIK_SCALE_PIVOT };
/* overshoot: the threshold is the sample's largest key, used whatever it
 * keeps, so that most rows fall back (the tests' way to reach the fallback) */
enum pb_radik_filter_mode { PB_RADIK_FILTER_OFF, PB_RADIK_FILTER_ON, PB_RADIK_FILTER_OVERSHOOT };

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

/* Raw value i of the batch (zero-extended for 16-bit types), streamed. */
template <class K>
__device__ __forceinline__ K pb_radik_at(const pb_radik_args<K> &a, bool is16, uint64_t i)
{
    return is16 ? (K)__ldcs(a.data16 + i) : __ldcs(a.data + i);
}

/* The pack of four values from element e (a multiple of 4): one 16-byte
 * load, or an 8-byte one of 16-bit values. */
__device__ __forceinline__ uint4 pb_radik_pack(const pb_radik_args<uint32_t> &a, bool is16,
                                               uint64_t e)
{
    if (!is16) return __ldcs(reinterpret_cast<const uint4 *>(a.data + e));
    uint2 h = __ldcs(reinterpret_cast<const uint2 *>(a.data16 + e));
    return make_uint4(h.x & 0xffffu, h.x >> 16, h.y & 0xffffu, h.y >> 16);
}

/* ... or two 16-byte loads of 64-bit values (element e is 32-byte aligned). */
__device__ __forceinline__ pb_radik_pack64 pb_radik_pack(const pb_radik_args<uint64_t> &a, bool,
                                                         uint64_t e)
{
    const ulonglong2 *q = reinterpret_cast<const ulonglong2 *>(a.data + e);
    pb_radik_pack64 x;
    x.a = __ldcs(q);
    x.b = __ldcs(q + 1);
    return x;
}

__device__ __forceinline__ uint4 pb_radik_pack_zero(uint32_t) { return make_uint4(0, 0, 0, 0); }
__device__ __forceinline__ pb_radik_pack64 pb_radik_pack_zero(uint64_t)
{
    pb_radik_pack64 x;
    x.a = x.b = make_ulonglong2(0, 0);
    return x;
}

/* A pack's four values. */
__device__ __forceinline__ void pb_radik_unpack(const uint4 &x, uint32_t (&raw)[4])
{
    raw[0] = x.x, raw[1] = x.y, raw[2] = x.z, raw[3] = x.w;
}
__device__ __forceinline__ void pb_radik_unpack(const pb_radik_pack64 &x, uint64_t (&raw)[4])
{
    raw[0] = x.a.x, raw[1] = x.a.y, raw[2] = x.b.x, raw[3] = x.b.y;
}

/* Whether row r is read as aligned packs from (begin & ~3). */
template <class K>
__device__ __forceinline__ bool pb_radik_packed(const pb_radik_args<K> &a, uint64_t begin)
{
    return a.pad || (begin & 3) == 0;
}

__host__ __device__ __forceinline__ uint32_t pb_radik_nparts(uint64_t len)
{
    return (uint32_t)((len + PB_RADIK_PART - 1) / PB_RADIK_PART);
}

/* The elements an input pass reads of row `row`: packed reads start at the
 * aligned address at or left of the row. */
template <class K>
__device__ __forceinline__ uint64_t pb_radik_span(const pb_radik_args<K> &a, uint32_t row)
{
    uint64_t b = a.begin[row];
    return a.end[row] - (pb_radik_packed(a, b) ? (b & ~UINT64_C(3)) : b);
}

template <class K>
__device__ __forceinline__ uint32_t pb_radik_input_nparts(const pb_radik_args<K> &a, uint32_t row)
{
    return pb_radik_nparts(pb_radik_span(a, row));
}

/* Whether the filter pass reads row r's 16-bit values as aligned packs of
 * eight from (begin & ~7). */
template <class K>
__device__ __forceinline__ bool pb_radik_packed16(const pb_radik_args<K> &a, uint64_t begin)
{
    return a.pad || (begin & 7) == 0;
}

/* Partitions of row `row`, in state r, in the filter pass (0 unless it
 * filters): of FPART values, or of FPART16 16-bit ones, which packed reads
 * take from (begin & ~7). */
template <class K>
__device__ __forceinline__ uint32_t pb_radik_filter_parts(const pb_radik_args<K> &a, uint32_t row,
                                                          const typename pb_radik_kt<K>::row &r)
{
    if (r.mode != PB_RADIK_FILTER) return 0;
    if (pb_radik_is16(a)) {
        uint64_t b = a.begin[row];
        uint64_t span = a.end[row] - (pb_radik_packed16(a, b) ? (b & ~UINT64_C(7)) : b);
        return (uint32_t)((span + PB_RADIK_FPART16 - 1) / PB_RADIK_FPART16);
    }
    return (uint32_t)((pb_radik_span(a, row) + PB_RADIK_FPART - 1) / PB_RADIK_FPART);
}

/* Partitions of row `row`, in state r, in a pass over the input or over
 * candidates: 0 for a finished row, one waiting to filter, or one whose
 * next read is the other source. */
template <class K>
__device__ __forceinline__ uint32_t pb_radik_parts(const pb_radik_args<K> &a, uint32_t row,
                                                   const typename pb_radik_kt<K>::row &r,
                                                   bool input)
{
    if (r.mode == PB_RADIK_DONE || r.mode == PB_RADIK_FILTER ||
        r.src != (input ? PB_RADIK_SRC_INPUT : PB_RADIK_SRC_CAND))
        return 0;
    return input ? pb_radik_input_nparts(a, row) : pb_radik_nparts(r.len_in);
}

/* ---- planning: the rescheduled passes' work prefix ---- */

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

/* ---- start: select state and scaling reference, one block per row ---- */

__device__ __forceinline__ uint32_t pb_radik_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* The position in its row (of len keys) of sample key s: hashed, so that
 * the sample does not depend on the row's order. The small sample's keys
 * are s < PB_RADIK_SAMPLE, `refine`'s extra ones the next. */
__device__ __forceinline__ uint32_t pb_radik_sample_pos(uint32_t s, uint32_t row, uint32_t salt,
                                                        uint32_t len)
{
    return pb_radik_hash(s ^ (row * 0x85ebca6bU) ^ salt) % len;
}

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
    K thr, est;
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
 * this thread's extra keys, order keys. */
template <class K>
__device__ void pb_radik_refine(const K (&big)[PB_RADIK_REFINE_ITEMS],
                                const K *sorted, uint32_t kept, uint32_t take, uint32_t len,
                                pb_radik_refine_smem<K> &sm, K *thr, K *est)
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
}

/* The samples of the rows that refine (radik.cu lists them: rrows, their
 * slots in order), gathered before the start kernel by many blocks, as
 * order keys: grid (PB_RADIK_REFINE_SAMPLE / PB_RADIK_PRESAMPLE_PART,
 * slots). The start kernel is one block a row, latency-bound (about 19
 * cycles an instruction): on a 2^29 fp16 row on an H200 it took 47 us,
 * 34 more than without refine, most of it each extra key's position (a
 * hash and a division), read and conversion, 56 a thread. Sample key s is
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
                 * be chosen (fp16 few:16 at 2^24 took 1.54x its uniform
                 * time on an H100 so). */
                bool many_tied = tied * PB_RADIK_TIE_STRICT > PB_RADIK_SAMPLE;
                if ((!selective || many_tied) && a.tie_aware)
                    strict = a.lowest ? PB_RADIK_STRICT_COUNT : PB_RADIK_STRICT_KEEP;
                filt = filter == PB_RADIK_FILTER_OVERSHOOT || selective || strict;
                if constexpr (CAN_REFINE)
                    if (refine && filt && !strict)
                        pb_radik_refine(big, sorted, (uint32_t)kept, take, len, rsm, &thr,
                                        &est);
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

/* ---- select: the pivot's bin, one block per row ---- */

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

/* ---- the pass kernel ---- */

/* A block's "full" flags (ties_full, eq_full) are hints shared by warps
 * with no barrier between them: a warp that reads a stale 0 only makes an
 * extra claim that writes nothing. They are read and set with shared
 * atomics, so the race is a defined one (and compute-sanitizer's racecheck
 * sees atomics, not a hazard); lane 0 reads for its warp. Reset only
 * between barriers, by thread 0. */
__device__ __forceinline__ uint32_t pb_radik_flag_warp(uint32_t *flag)
{
    uint32_t f = 0;
    if ((threadIdx.x & 31) == 0) f = atomicOr(flag, 0u);
    return __shfl_sync(0xffffffffu, f, 0);
}

__device__ __forceinline__ void pb_radik_flag_set(uint32_t *flag) { atomicOr(flag, 1u); }

enum { PB_RADIK_NONE = 0, PB_RADIK_KEEP = 1, PB_RADIK_OUT = 2, PB_RADIK_TIE = 3 };

struct pb_radik_smem_buf {
    uint32_t fill_keep, fill_out, base_keep, base_out;
    uint32_t ties_full; /* this block has seen the row's `need` ties claimed (tie_aware) */
};

/* The block's row context while it works on a row's partitions. */
template <class K> struct pb_radik_ctx {
    uint32_t row;
    typename pb_radik_kt<K>::row r;
    uint64_t begin, end, out0; /* a row's candidates sit at begin, as the row does */
};

template <class K>
__device__ __forceinline__ void pb_radik_write_out(const pb_radik_args<K> &a,
                                                   const pb_radik_ctx<K> &c, uint32_t pos, K key,
                                                   uint32_t idx)
{
    a.vals[c.out0 + pos] = pb_radik_raw(a, key);
    a.idx[c.out0 + pos] = idx;
}

/* Reserves `count` slots of a row counter for the lanes in `mask` (each
 * lane asking for one): once per warp with `hier`, else once per lane.
 * Returns this lane's slot. */
__device__ __forceinline__ uint32_t pb_radik_reserve(uint32_t *counter, uint32_t mask, int hier)
{
    if (!hier) return atomicAdd(counter, 1u);
    uint32_t lane = threadIdx.x & 31, leader = __ffs(mask) - 1, base = 0;
    if (lane == leader) base = atomicAdd(counter, (uint32_t)__popc(mask));
    base = __shfl_sync(mask, base, leader);
    return base + __popc(mask & ((1u << lane) - 1));
}

/* The inclusive sum of v over the warp's lanes 0 .. this one (every lane
 * calls it). */
__device__ __forceinline__ uint32_t pb_radik_warp_incl_sum(uint32_t v)
{
    uint32_t lane = threadIdx.x & 31;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t y = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= (uint32_t)d) v += y;
    }
    return v;
}

/* 64-bit keys: candidates of 16 bytes, so the buffer takes 64 KiB, not 32. */
template <class K, bool BUF> struct pb_radik_pass_smem {
    uint32_t hist[PB_RADIK_BINS];
    typename pb_radik_kt<K>::cand buf[BUF ? 2 * PB_RADIK_PART : 1];
    pb_radik_smem_buf b;
};

/* Moves the block's histogram h of row c into the global one. */
template <class K>
__device__ void pb_radik_flush_hist(const pb_radik_args<K> &a, const pb_radik_ctx<K> &c,
                                    uint32_t *h)
{
    __syncthreads();
    uint32_t *g = a.hist + (uint64_t)c.row * PB_RADIK_BINS;
    for (uint32_t i = threadIdx.x; i < PB_RADIK_BINS; i += PB_RADIK_BLOCK) {
        uint32_t v = h[i];
        if (v) {
            atomicAdd(&g[i], v);
            h[i] = 0;
        }
    }
    __syncthreads();
}

/* Writes the buffered candidates and results of row c in two bursts. */
template <class K, bool BUF>
__device__ void pb_radik_flush_buf(const pb_radik_args<K> &a, const pb_radik_ctx<K> &c,
                                   pb_radik_pass_smem<K, BUF> &s)
{
    __syncthreads();
    uint32_t fk = s.b.fill_keep, fo = s.b.fill_out;
    if (fk + fo == 0) return;
    if (threadIdx.x == 0) {
        if (fk) s.b.base_keep = atomicAdd(&a.rows[c.row].wr, fk);
        if (fo) s.b.base_out = atomicAdd(&a.rows[c.row].nout, fo);
    }
    __syncthreads();
    uint32_t bk = s.b.base_keep, bo = s.b.base_out;
    for (uint32_t i = threadIdx.x; i < fk; i += PB_RADIK_BLOCK)
        a.cout[c.begin + bk + i] = s.buf[i];
    for (uint32_t i = threadIdx.x; i < fo; i += PB_RADIK_BLOCK) {
        typename pb_radik_kt<K>::cand e = s.buf[2 * PB_RADIK_PART - 1 - i];
        pb_radik_write_out(a, c, bo + i, pb_radik_cand_key(e), pb_radik_cand_idx(e));
    }
    __syncthreads();
    if (threadIdx.x == 0) s.b.fill_keep = s.b.fill_out = 0;
    __syncthreads();
}

/* Loads partition p of row c: keys and their indices within the row;
 * bit j of `valid` says whether slot j holds an element. Row-relative
 * indices are 32-bit (radik refuses rows of 2^31 or more). Every load of
 * the partition is issued before any key is used. */
template <bool INPUT, class K>
__device__ __forceinline__ void pb_radik_load(const pb_radik_args<K> &a, const pb_radik_ctx<K> &c,
                                              uint32_t p, K (&key)[PB_RADIK_ITEMS],
                                              uint32_t (&idx)[PB_RADIK_ITEMS], uint32_t &valid)
{
    valid = 0;
    uint32_t len = (uint32_t)(c.end - c.begin);
    if (INPUT && pb_radik_packed(a, c.begin)) {
        /* Aligned packs from the nearest 16-byte boundary at or left of the
         * row (offset padding): only the first and last pack see other
         * rows' elements, which the masks drop. */
        uint32_t head = (uint32_t)(c.begin & 3);
        const bool is16 = pb_radik_is16(a);
        const uint64_t e0 = c.begin - head + (uint64_t)p * PB_RADIK_PART;
        uint32_t rel0 = p * PB_RADIK_PART - head; /* wraps below 0: masked */
        typename pb_radik_kt<K>::pack x[PB_RADIK_ITEMS / 4];
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS / 4; j++) {
            uint32_t q = threadIdx.x + j * PB_RADIK_BLOCK;
            uint32_t r0 = rel0 + 4 * q;
            /* Some element of the pack is in the row (the first pack's r0
             * has wrapped to -head). */
            x[j] = r0 + 3 < len + 3 ? pb_radik_pack(a, is16, e0 + 4 * (uint64_t)q)
                                    : pb_radik_pack_zero(K());
        }
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS / 4; j++) {
            uint32_t r0 = rel0 + 4 * (threadIdx.x + j * PB_RADIK_BLOCK);
            K raw[4];
            pb_radik_unpack(x[j], raw);
#pragma unroll
            for (int t = 0; t < 4; t++) {
                uint32_t rel = r0 + t;
                key[j * 4 + t] = pb_radik_okey(a, raw[t]);
                idx[j * 4 + t] = rel;
                valid |= (uint32_t)(rel < len) << (j * 4 + t);
            }
        }
    } else if (INPUT) {
        const bool is16 = pb_radik_is16(a);
        K raw[PB_RADIK_ITEMS];
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS; j++) {
            uint32_t rel = p * PB_RADIK_PART + threadIdx.x + j * PB_RADIK_BLOCK;
            raw[j] = rel < len ? pb_radik_at(a, is16, c.begin + rel) : 0;
            idx[j] = rel;
            valid |= (uint32_t)(rel < len) << j;
        }
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS; j++) key[j] = pb_radik_okey(a, raw[j]);
    } else {
        const typename pb_radik_kt<K>::cand *cin = a.cin + c.begin;
        uint32_t n = c.r.len_in;
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS; j++) {
            uint32_t e = p * PB_RADIK_PART + threadIdx.x + j * PB_RADIK_BLOCK;
            typename pb_radik_kt<K>::cand x = e < n ? __ldcs(cin + e) : pb_radik_cand((K)0, 0u);
            key[j] = pb_radik_cand_key(x);
            idx[j] = pb_radik_cand_idx(x);
            valid |= (uint32_t)(e < n) << j;
        }
    }
}

/* Adds one key to the histogram of its digit (counted lanes only). The
 * first pass counts every key: plain shared atomics. */
template <class K, bool BUF>
__device__ __forceinline__ void pb_radik_count_all(const pb_radik_args<K> &a,
                                                   const pb_radik_ctx<K> &c,
                                                   pb_radik_pass_smem<K, BUF> &s, bool counted,
                                                   uint32_t d)
{
    if (!counted) return;
    if (a.hier)
        atomicAdd(&s.hist[d], 1u);
    else
        atomicAdd(&a.hist[(uint64_t)c.row * PB_RADIK_BINS + d], 1u);
}

/* The later passes count the candidates; warps without any skip it. */
template <class K, bool BUF>
__device__ __forceinline__ void pb_radik_count(const pb_radik_args<K> &a, const pb_radik_ctx<K> &c,
                                               pb_radik_pass_smem<K, BUF> &s, bool counted,
                                               uint32_t d)
{
    if (!__any_sync(0xffffffffu, counted)) return;
    if (a.hier) {
        /* Warp aggregation where it pays: when every counted lane has the
         * same digit (ties, an all-equal input), one atomic for the warp.
         * __match_any_sync would aggregate every group but costs more than
         * the shared atomics it saves on spread digits. */
        uint32_t cm = __ballot_sync(0xffffffffu, counted);
        uint32_t first = __shfl_sync(0xffffffffu, d, __ffs(cm) - 1);
        if (__all_sync(0xffffffffu, !counted || d == first)) {
            if ((threadIdx.x & 31) == 0) atomicAdd(&s.hist[first], (uint32_t)__popc(cm));
        } else if (counted) {
            atomicAdd(&s.hist[d], 1u);
        }
    } else if (counted) {
        atomicAdd(&a.hist[(uint64_t)c.row * PB_RADIK_BINS + d], 1u);
    }
}

/* One partition in one mode (the row's mode is uniform in a partition, so
 * each mode gets its own straight-line code). */
template <int MODE, bool INPUT, class K, bool BUF>
__device__ __forceinline__ void pb_radik_partition_mode(const pb_radik_args<K> &a,
                                                        const pb_radik_ctx<K> &c, uint32_t p,
                                                        pb_radik_pass_smem<K, BUF> &s)
{
    const typename pb_radik_kt<K>::row &r = c.r;
    K key[PB_RADIK_ITEMS];
    uint32_t idx[PB_RADIK_ITEMS], valid;
    pb_radik_load<INPUT>(a, c, p, key, idx, valid);
    if (MODE == PB_RADIK_COUNT) {
#pragma unroll
        for (int j = 0; j < PB_RADIK_ITEMS; j++)
            pb_radik_count_all(a, c, s, (valid >> j) & 1, pb_radik_digit(&r, key[j]));
        return;
    }
    uint32_t keep = 0, out = 0;
#pragma unroll
    for (int j = 0; j < PB_RADIK_ITEMS; j++) {
        K k = key[j];
        bool v = (valid >> j) & 1;
        bool o = v && (MODE == PB_RADIK_TAKE ? k >= r.lo : k > r.hi);
        bool kp = MODE == PB_RADIK_SPLIT && v && !o && k >= r.lo;
        out |= (uint32_t)o << j;
        keep |= (uint32_t)kp << j;
        if (MODE == PB_RADIK_SPLIT)
            pb_radik_count(a, c, s, kp, kp ? (uint32_t)((k - r.lo) >> r.shift) : 0u);
        /* ties = any: a key equal to the pivot claims a slot on the row's
         * one `ties` counter in global memory (once per warp with hier,
         * once per key without) and is written if its slot is below
         * `need`; which ties win is a race. Without tie_aware every tied
         * key claims, so an all-equal row of n keys made n / 32 atomics on
         * one address; with it, a warp that gets a slot at or past `need`
         * marks its block full and the block's later ties claim nothing
         * (about need / 32 + one a warp of the grid). With lowest-index the
         * pass writes only the keys above the pivot; radik_ties.cuh then
         * chooses the ties by index, without a shared counter. */
        if (MODE == PB_RADIK_FINAL && !a.lowest) {
            bool skip = a.tie_aware && pb_radik_flag_warp(&s.b.ties_full) != 0;
            bool tie = v && k == r.lo && !skip;
            uint32_t m = __ballot_sync(0xffffffffu, tie);
            if (tie) {
                uint32_t t = pb_radik_reserve(&a.rows[c.row].ties, m, a.hier);
                if (t < r.need) pb_radik_write_out(a, c, r.take - r.need + t, k, idx[j]);
                else if (a.tie_aware) pb_radik_flag_set(&s.b.ties_full);
            }
        }
        if (!BUF) {
            if (MODE == PB_RADIK_SPLIT) {
                uint32_t mk = __ballot_sync(0xffffffffu, kp);
                if (kp) {
                    uint32_t pos = pb_radik_reserve(&a.rows[c.row].wr, mk, a.hier);
                    a.cout[c.begin + pos] = pb_radik_cand(k, idx[j]);
                }
            }
            uint32_t mo = __ballot_sync(0xffffffffu, o);
            if (o) {
                uint32_t pos = pb_radik_reserve(&a.rows[c.row].nout, mo, a.hier);
                pb_radik_write_out(a, c, pos, k, idx[j]);
            }
        }
    }
    if (!BUF) return;
    /* Stage this partition's writes: a warp scan of both counts (packed in
     * one word), one shared atomic a warp to reserve its slots. */
    uint32_t lane = threadIdx.x & 31;
    uint32_t mine = (uint32_t)__popc(keep) | (uint32_t)__popc(out) << 16;
    uint32_t incl = pb_radik_warp_incl_sum(mine);
    uint32_t base = 0;
    if (lane == 31 && incl) {
        uint32_t bk = (incl & 0xffff) ? atomicAdd(&s.b.fill_keep, incl & 0xffff) : 0;
        uint32_t bo = (incl >> 16) ? atomicAdd(&s.b.fill_out, incl >> 16) : 0;
        base = bk | bo << 16;
    }
    base = __shfl_sync(0xffffffffu, base, 31) + (incl - mine);
    uint32_t fk = base & 0xffff, fo = base >> 16;
#pragma unroll
    for (int j = 0; j < PB_RADIK_ITEMS; j++) {
        if ((keep >> j) & 1) s.buf[fk++] = pb_radik_cand(key[j], idx[j]);
        if ((out >> j) & 1) s.buf[2 * PB_RADIK_PART - 1 - fo++] = pb_radik_cand(key[j], idx[j]);
    }
    __syncthreads();
    uint32_t fill = s.b.fill_keep + s.b.fill_out;
    __syncthreads(); /* everyone has read it before a warp reserves again */
    /* The next partition adds at most PART: flush only past half. */
    if (fill > PB_RADIK_PART) pb_radik_flush_buf(a, c, s);
}

template <bool INPUT, class K, bool BUF>
__device__ __forceinline__ void pb_radik_partition(const pb_radik_args<K> &a,
                                                   const pb_radik_ctx<K> &c, uint32_t p,
                                                   pb_radik_pass_smem<K, BUF> &s)
{
    switch (c.r.mode) {
    case PB_RADIK_COUNT:
        if (INPUT) pb_radik_partition_mode<PB_RADIK_COUNT, INPUT>(a, c, p, s);
        break;
    case PB_RADIK_SPLIT: pb_radik_partition_mode<PB_RADIK_SPLIT, INPUT>(a, c, p, s); break;
    case PB_RADIK_TAKE: pb_radik_partition_mode<PB_RADIK_TAKE, INPUT>(a, c, p, s); break;
    case PB_RADIK_FINAL: pb_radik_partition_mode<PB_RADIK_FINAL, INPUT>(a, c, p, s); break;
    default: break;
    }
}

template <class K, bool BUF>
__device__ void pb_radik_finish_row(const pb_radik_args<K> &a, const pb_radik_ctx<K> &c,
                                    pb_radik_pass_smem<K, BUF> &s)
{
    if (a.hier && (c.r.mode == PB_RADIK_COUNT || c.r.mode == PB_RADIK_SPLIT))
        pb_radik_flush_hist(a, c, s.hist);
    if (BUF) pb_radik_flush_buf(a, c, s);
    /* The next row's ties start unclaimed (every warp is past this row's
     * last read of the flag). Only a final pass sets it: other rows, and
     * the other passes of a batch, pay no barrier for it. */
    if (c.r.mode == PB_RADIK_FINAL) {
        __syncthreads();
        if (threadIdx.x == 0) s.b.ties_full = 0;
        __syncthreads();
    }
}

template <class K>
__device__ __forceinline__ void pb_radik_enter(const pb_radik_args<K> &a, uint32_t row,
                                               pb_radik_ctx<K> &c)
{
    c.row = row;
    c.r = a.rows[row];
    c.begin = a.begin[row];
    c.end = a.end[row];
    c.out0 = a.out_off[row];
}

/* Rescheduled passes (a.work, the prefix of the rows' partition counts):
 * this block's contiguous range [*p0, *p1) of the partitions of all rows. */
template <class K>
__device__ __forceinline__ void pb_radik_work_range(const pb_radik_args<K> &a, uint32_t *p0,
                                                    uint32_t *p1)
{
    uint32_t total = a.work[a.nrows];
    uint32_t chunk = (total + gridDim.x - 1) / gridDim.x;
    *p0 = blockIdx.x * chunk, *p1 = min(total, *p0 + chunk);
}

/* The row holding partition p of the work prefix: the last row whose
 * prefix is <= p (rows without work may follow it: the walkers skip them). */
template <class K> __device__ __forceinline__ uint32_t pb_radik_work_row(const pb_radik_args<K> &a, uint32_t p)
{
    uint32_t lo = 0, hi = a.nrows;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (a.work[mid] <= p) lo = mid;
        else hi = mid;
    }
    return lo;
}

/* Walks the partitions this block owns, calling body(c, p) for partition p
 * of row c.row and finish(c) after a row's last. Rescheduled (a.work, the
 * prefix of parts_of over rows): block b takes a contiguous range of the
 * partitions of all rows; else block (x, row) takes row's partitions x,
 * x + gridDim.x, ... (parts_of(row) of them). */
template <class K, class Parts, class Body, class Finish>
__device__ __forceinline__ void pb_radik_walk(const pb_radik_args<K> &a, Parts parts_of, Body body,
                                              Finish finish)
{
    pb_radik_ctx<K> c;
    if (a.work) {
        uint32_t p0, p1;
        pb_radik_work_range(a, &p0, &p1);
        if (p0 >= p1) return;
        uint32_t row = pb_radik_work_row(a, p0);
        while (a.work[row + 1] <= p0) row++; /* skips rows without work */
        pb_radik_enter(a, row, c);
        for (uint32_t p = p0; p < p1; p++) {
            if (p >= a.work[c.row + 1]) {
                finish(c);
                uint32_t nr = c.row + 1;
                while (a.work[nr + 1] <= p) nr++;
                pb_radik_enter(a, nr, c);
            }
            body(c, p - a.work[c.row]);
        }
        finish(c);
    } else {
        uint32_t row = blockIdx.y;
        uint32_t parts = parts_of(row);
        if (blockIdx.x >= parts) return;
        pb_radik_enter(a, row, c);
        for (uint32_t p = blockIdx.x; p < parts; p += gridDim.x) body(c, p);
        finish(c);
    }
}

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

/* ---- the filter pass ---- */

/* The filter pass's shared memory: the histogram, and a staging buffer for
 * candidates, flushed past half full with one reservation of the row's
 * counter a flush: a reservation a warp would serialise the whole grid on
 * one address (2^20 of them on a 2^29 row). The buffer is 12 KiB: 1536
 * candidates of 32-bit keys, 768 of 64-bit ones (the pass's static shared
 * memory stays below 48 KiB). */
#define PB_RADIK_FBUF_BYTES (1536 * 8)
template <class K> struct pb_radik_filter_smem {
    static const uint32_t FBUF = PB_RADIK_FBUF_BYTES / sizeof(typename pb_radik_kt<K>::cand);
    uint32_t hist[PB_RADIK_BINS];
    typename pb_radik_kt<K>::cand buf[FBUF];
    uint32_t fill, base;
    uint32_t stop;    /* where the first reservation past the end began (FBUF: none) */
    uint32_t eq_full; /* strict filter: this block has seen the row's `eq` reach take */
};

/* Writes the staged candidates of row c if there are more than `past`;
 * every thread of the block calls it. */
template <class K>
__device__ void pb_radik_filter_flush(const pb_radik_args<K> &a, const pb_radik_ctx<K> &c,
                                      pb_radik_filter_smem<K> &s, uint32_t past)
{
    __syncthreads();
    uint32_t fill = min(s.fill, s.stop); /* the staged entries: [0, first failed reservation) */
    __syncthreads(); /* read by all before a warp reserves again */
    if (fill <= past) return;
    if (threadIdx.x == 0) s.base = atomicAdd(&a.rows[c.row].wr, fill);
    __syncthreads();
    typename pb_radik_kt<K>::cand *out = a.cout + c.begin + s.base;
    for (uint32_t i = threadIdx.x; i < fill; i += PB_RADIK_BLOCK) out[i] = s.buf[i];
    __syncthreads();
    if (threadIdx.x == 0) s.fill = 0, s.stop = s.FBUF;
    __syncthreads();
}

/* A strict filter's keys equal to the threshold (bit s of eqm: slot s):
 * the warp counts them on the row's `eq` with one atomic, unless its
 * block has seen `eq` reach take; with KEEP, those whose slot is below
 * take join `keep` (slot order is slot-major within the warp's lanes: any
 * order would do, the slots only bound how many). */
template <int STRICT, class K>
__device__ __forceinline__ void pb_radik_filter_eq(const pb_radik_args<K> &a,
                                                   const pb_radik_ctx<K> &c,
                                                   pb_radik_filter_smem<K> &sm, uint32_t eqm,
                                                   uint32_t &keep)
{
    uint32_t cnt = (uint32_t)__popc(eqm);
    if (__reduce_add_sync(0xffffffffu, cnt) == 0) return;
    if (pb_radik_flag_warp(&sm.eq_full)) return;
    uint32_t lane = threadIdx.x & 31, incl = pb_radik_warp_incl_sum(cnt);
    uint32_t base = 0;
    if (lane == 31) {
        base = atomicAdd(&a.rows[c.row].eq, incl);
        if ((uint64_t)base + incl >= c.r.take) pb_radik_flag_set(&sm.eq_full);
    }
    base = __shfl_sync(0xffffffffu, base, 31) + incl - cnt;
    if (STRICT == PB_RADIK_STRICT_KEEP)
        for (uint32_t m = eqm; m; m &= m - 1) keep |= (uint32_t)(base++ < c.r.take) << (__ffs(m) - 1);
}

/* Loads the raw values of partition p of filtering row c: 16 a thread,
 * as aligned packs of four (16 bytes, two loads of 16 of 64-bit ones)
 * when the row is read packed (slot s at rel0 + (s / 4) * 4 * BLOCK + s %
 * 4), else one value a slot (rel0 + s * BLOCK); slots outside the row read
 * 0. 16-bit values (DT fp16 or bf16): 32 a thread, two to a word (slot s in
 * half s % 2 of word s / 2), as aligned 16-byte packs of eight (slot s at
 * rel0 + (s / 8) * 8 * BLOCK + s % 8) when read packed (pb_radik_packed16),
 * else one a slot. */
template <int DT, class K>
__device__ __forceinline__ void pb_radik_filter_load(const pb_radik_args<K> &a,
                                                     const pb_radik_ctx<K> &c, uint32_t p,
                                                     K (&raw)[PB_RADIK_FITEMS])
{
    const uint32_t len = (uint32_t)(c.end - c.begin);
    if constexpr (pb_radik_dt16<DT>::value) {
        if (pb_radik_packed16(a, c.begin)) {
            uint32_t head = (uint32_t)(c.begin & 7);
            const uint16_t *e0 = a.data16 + (c.begin - head + (uint64_t)p * PB_RADIK_FPART16);
            uint32_t rel0 = p * PB_RADIK_FPART16 - head + 8 * threadIdx.x;
#pragma unroll
            for (int j = 0; j < PB_RADIK_FITEMS16 / 8; j++) {
                uint32_t r0 = rel0 + 8 * j * PB_RADIK_BLOCK;
                uint4 x = make_uint4(0, 0, 0, 0);
                if (r0 + 7 < len + 7)
                    x = __ldcs(reinterpret_cast<const uint4 *>(
                        e0 + 8 * (uint64_t)(threadIdx.x + j * PB_RADIK_BLOCK)));
                raw[4 * j] = x.x, raw[4 * j + 1] = x.y, raw[4 * j + 2] = x.z, raw[4 * j + 3] = x.w;
            }
        } else {
            uint32_t rel0 = p * PB_RADIK_FPART16 + threadIdx.x;
#pragma unroll
            for (int j = 0; j < PB_RADIK_FITEMS; j++) {
                uint32_t r = rel0 + 2 * j * PB_RADIK_BLOCK;
                uint32_t lo = r < len ? __ldcs(a.data16 + c.begin + r) : 0;
                uint32_t hi = r + PB_RADIK_BLOCK < len
                                  ? __ldcs(a.data16 + c.begin + r + PB_RADIK_BLOCK)
                                  : 0;
                raw[j] = lo | hi << 16;
            }
        }
    } else if (pb_radik_packed(a, c.begin)) {
        uint32_t head = (uint32_t)(c.begin & 3);
        const uint64_t e0 = c.begin - head + (uint64_t)p * PB_RADIK_FPART;
        uint32_t rel0 = p * PB_RADIK_FPART - head + 4 * threadIdx.x;
        typename pb_radik_kt<K>::pack x[PB_RADIK_FITEMS / 4];
#pragma unroll
        for (int j = 0; j < PB_RADIK_FITEMS / 4; j++) {
            uint32_t r0 = rel0 + 4 * j * PB_RADIK_BLOCK;
            x[j] = r0 + 3 < len + 3
                       ? pb_radik_pack(a, false, e0 + 4 * (uint64_t)(threadIdx.x + j * PB_RADIK_BLOCK))
                       : pb_radik_pack_zero(K());
        }
#pragma unroll
        for (int j = 0; j < PB_RADIK_FITEMS / 4; j++) {
            K q[4];
            pb_radik_unpack(x[j], q);
            raw[4 * j] = q[0], raw[4 * j + 1] = q[1];
            raw[4 * j + 2] = q[2], raw[4 * j + 3] = q[3];
        }
    } else {
        uint32_t rel0 = p * PB_RADIK_FPART + threadIdx.x;
#pragma unroll
        for (int j = 0; j < PB_RADIK_FITEMS; j++) {
            uint32_t rel = rel0 + j * PB_RADIK_BLOCK;
            raw[j] = rel < len ? pb_radik_at(a, false, c.begin + rel) : 0;
        }
    }
}

/* Two 16-bit lanes of w against those of t: 0xffff in each lane where the
 * value may reach the threshold, as one packed compare (HSETP2) instead of
 * two key conversions. The compares are unordered, so a NaN value, or a
 * NaN threshold (a key no value has), passes, as pb_topk_raw_may_reach's
 * fp32 compare does; -0.0 and +0.0 compare equal. `strict` (the row's ties
 * at the threshold need no more keys): only values beyond it. */
template <int DT, int LG>
__device__ __forceinline__ uint32_t pb_radik_cmp16(uint32_t w, uint32_t t, bool strict)
{
    if (DT == PB_TOPK_F16) {
        __half2 v = *reinterpret_cast<const __half2 *>(&w), q = *reinterpret_cast<const __half2 *>(&t);
        if (LG) return strict ? __hgtu2_mask(v, q) : __hgeu2_mask(v, q);
        return strict ? __hltu2_mask(v, q) : __hleu2_mask(v, q);
    }
    __nv_bfloat162 v = *reinterpret_cast<const __nv_bfloat162 *>(&w);
    __nv_bfloat162 q = *reinterpret_cast<const __nv_bfloat162 *>(&t);
    if (LG) return strict ? __hgtu2_mask(v, q) : __hgeu2_mask(v, q);
    return strict ? __hltu2_mask(v, q) : __hleu2_mask(v, q);
}

/* The quick pre-test of a partition of 16-bit values, kept packed two to a
 * word: bit s set where slot s (pb_radik_fslots: half s / 16 of word
 * s % 16) may hold a key at or above the threshold (whose raw value is
 * tq), two slots a compare. The common case, no lane
 * of the warp with a value that may pass, costs a compare and an OR a
 * word and one vote (0 then); only a warp with one builds the slot mask.
 * Once the block has seen the row's ties fill its `take` (a strict row's
 * eq_full), the keys equal to the threshold are of no more use (filter_eq
 * turns them away), so the compare becomes strict: the values equal to the
 * threshold stop costing a key conversion each. Not for a threshold of
 * +-0.0, which compares equal to the other zero, a different key. */
template <int DT, int LG, int STRICT>
__device__ __forceinline__ uint32_t pb_radik_maybe16(const uint32_t (&w)[PB_RADIK_FITEMS],
                                                     uint32_t tq,
                                                     pb_radik_filter_smem<uint32_t> &sm)
{
    bool strict = STRICT && (tq & 0x7fffu) != 0 && pb_radik_flag_warp(&sm.eq_full);
    uint32_t t2 = tq | tq << 16, any = 0;
#pragma unroll
    for (int j = 0; j < PB_RADIK_FITEMS; j++) any |= pb_radik_cmp16<DT, LG>(w[j], t2, strict);
    if (!__any_sync(0xffffffffu, any != 0)) return 0;
    uint32_t maybe = 0;
#pragma unroll
    for (int j = 0; j < PB_RADIK_FITEMS; j++)
        maybe |= (pb_radik_cmp16<DT, LG>(w[j], t2, strict) & 0x10001u) << j;
    return maybe;
}

/* Whether raw value x of dtype DT (LG: largest) may have an order key at
 * or above the one whose raw value is tq (the quick test): for the dtypes
 * up to 32 bits pb_topk_raw_may_reach; for fp64 the same rule on doubles
 * (a compare of the values, unordered: a NaN value, or a NaN threshold,
 * passes; -0.0 and +0.0 compare equal, so both pass, and the key compare
 * after it tells them apart), for u64 the key compare itself. */
template <int DT, int LG>
__device__ __forceinline__ bool pb_radik_may_reach(uint32_t x, uint32_t tq)
{
    return pb_topk_raw_may_reach(x, tq, DT, LG);
}
template <int DT, int LG>
__device__ __forceinline__ bool pb_radik_may_reach(uint64_t x, uint64_t tq)
{
    if (DT == PB_TOPK_U64) return LG ? x >= tq : x <= tq;
    double v = __longlong_as_double((long long)x), t = __longlong_as_double((long long)tq);
    return LG ? !(v < t) : !(v > t);
}

/* The quick test of a strict row of 32-bit keys whose block has seen its
 * ties fill `take` (eq_full): whether raw x may have an order key above
 * the threshold's (raw value tq), not equal to it; as pb_radik_maybe16's
 * strict compare, and for the same reason: a warp whose values all equal
 * the threshold (an all-equal row) then leaves at the vote instead of
 * converting and comparing each key (on an H200 at 9aea95f, fp32 equal
 * at 2^29 took 0.745 ms against uniform's 0.600). A NaN value or
 * threshold passes (unordered); fp32 thresholds of +-0.0 are not asked
 * (the zeros compare equal but are different keys). */
template <int DT, int LG> __device__ __forceinline__ bool pb_radik_may_exceed(uint32_t x, uint32_t tq)
{
    if (DT == PB_TOPK_F32) {
        float v = __uint_as_float(x), t = __uint_as_float(tq);
        return LG ? !(v <= t) : !(v >= t);
    }
    if (DT == PB_TOPK_I32) return LG ? (int32_t)x > (int32_t)tq : (int32_t)x < (int32_t)tq;
    return LG ? x > tq : x < tq;
}

/* The raw value of order key okey of dtype DT (LG: largest). */
template <int DT, int LG> __device__ __forceinline__ uint32_t pb_radik_raw_dt(uint32_t okey)
{
    return pb_topk_raw_of(okey, DT, LG);
}
template <int DT, int LG> __device__ __forceinline__ uint64_t pb_radik_raw_dt(uint64_t okey)
{
    return pb_topk_raw_wide(okey, DT, LG);
}

/* Word j (0..15, not known when compiled) of a thread's 16: a chain of
 * compares and selects, where an index into the array would put it in
 * local memory (and a tree of selects would hold eight more registers
 * beside the 32 words of the current and next partitions). */
template <class K> __device__ __forceinline__ K pb_radik_pick(const K (&r)[PB_RADIK_FITEMS], uint32_t j)
{
    K v = r[0];
#pragma unroll
    for (int i = 1; i < PB_RADIK_FITEMS; i++) v = j == (uint32_t)i ? r[i] : v;
    return v;
}

/* A partition's slots as the filter sees them: NS of them (16, or 32 of
 * 16-bit values), raw value s (zero-extended) and its index in the row (an
 * index at or past the row's length: a slot outside it). Slot s of 16-bit
 * values is half s / 16 of word s % 16 (so that a word's two compare
 * results land in the mask with one shift: pb_radik_maybe16), which holds
 * value 2 (s % 16) + s / 16 of the thread's 32 in reading order. */
template <int DT, class K> struct pb_radik_fslots {
    static const int NS = pb_radik_dt16<DT>::value ? PB_RADIK_FITEMS16 : PB_RADIK_FITEMS;
    uint32_t rel0;
    bool packed;
    __device__ __forceinline__ pb_radik_fslots(const pb_radik_args<K> &a,
                                               const pb_radik_ctx<K> &c, uint32_t p)
    {
        if constexpr (pb_radik_dt16<DT>::value) {
            packed = pb_radik_packed16(a, c.begin);
            rel0 = packed ? p * PB_RADIK_FPART16 - (uint32_t)(c.begin & 7) + 8 * threadIdx.x
                          : p * PB_RADIK_FPART16 + threadIdx.x;
        } else {
            packed = pb_radik_packed(a, c.begin);
            rel0 = packed ? p * PB_RADIK_FPART - (uint32_t)(c.begin & 3) + 4 * threadIdx.x
                          : p * PB_RADIK_FPART + threadIdx.x;
        }
    }
    static __device__ __forceinline__ K value(const K (&raw)[PB_RADIK_FITEMS], uint32_t s)
    {
        if constexpr (pb_radik_dt16<DT>::value)
            return (pb_radik_pick(raw, s % 16) >> (16 * (s / 16))) & 0xffffu;
        return pb_radik_pick(raw, s);
    }
    __device__ __forceinline__ uint32_t rel(uint32_t s) const
    {
        if constexpr (pb_radik_dt16<DT>::value) {
            uint32_t o = 2 * (s % 16) + s / 16; /* in reading order */
            return packed ? rel0 + (o / 8) * 8 * PB_RADIK_BLOCK + o % 8 : rel0 + o * PB_RADIK_BLOCK;
        }
        return packed ? rel0 + (s / 4) * 4 * PB_RADIK_BLOCK + s % 4 : rel0 + s * PB_RADIK_BLOCK;
    }
};

/* Partition p of a filtering row c, its raw values loaded: keys at or
 * above the threshold (c.r.lo) become candidates, histogrammed by the
 * scaled digit around c.r.ref; a strict filter (STRICT, a pb_radik_strict)
 * keeps the keys above it and treats those equal by pb_radik_filter_eq.
 * The key conversion is specialised (DT, LG: dtype, largest).
 *
 * With `quick` (radik's parameter, on by default) a slot's key is converted
 * and compared only where the lane's value may reach the threshold
 * (pb_radik_may_reach: one compare of the raw value, a double compare for
 * fp64, a packed compare of two 16-bit values: pb_radik_maybe16); a warp
 * with none leaves at once. A lane visits only its own slots that may
 * pass, by their bits (pb_radik_pick fetches the word), since a selective
 * threshold leaves two or three such slots in a warp's 512 or 1024 values:
 * at 2^29, k = 1024, the threshold keeps 5 / 2048 of the keys, so most
 * warps have one, and a loop over every slot (uniform, as the first
 * version had) cost three instructions a slot where the compare costs one
 * (the 16-bit pass ran at 53% of the copy's rate on an H100 so). Without
 * `quick`, every key is converted and compared. With `hier` a warp stages
 * its candidates with one shared reservation (or, should the buffer be
 * full, one of the row's counter); without, every candidate reserves
 * alone. */
template <int DT, int LG, int STRICT, class K>
__device__ __forceinline__ void pb_radik_filter_part(const pb_radik_args<K> &a,
                                                     const pb_radik_ctx<K> &c, uint32_t p,
                                                     const K (&raw)[PB_RADIK_FITEMS],
                                                     pb_radik_filter_smem<K> &sm)
{
    typedef pb_radik_fslots<DT, K> slots_t;
    const int NS = slots_t::NS;
    /* Per lane for 16-bit values; fp32 and the other 32 / 64-bit types keep
     * the warp's uniform loop over its slots, which measured 2% faster
     * than the per-lane one on fp32 at 2^29 on an H100 (0.822 against
     * 0.837 ms: the 16 slots' loop is short, and the lane loop spilled). */
    const bool PER_LANE = pb_radik_dt16<DT>::value;
    const uint32_t len = (uint32_t)(c.end - c.begin);
    const K thr = c.r.lo;
    const slots_t sl(a, c, p);
    uint32_t keep = 0, eqm = 0;
    if (a.quick) {
        const K tq = pb_radik_raw_dt<DT, LG>(thr);
        uint32_t maybe = 0;
        if constexpr (pb_radik_dt16<DT>::value) {
            maybe = pb_radik_maybe16<DT, LG, STRICT>(raw, tq, sm);
        } else {
            /* A strict row of 32-bit keys, its ties full: pb_radik_may_exceed
             * (the choice is the warp's, made once, not a slot's). */
            bool strict = false;
            if constexpr (STRICT && sizeof(K) == 4)
                strict = (DT != PB_TOPK_F32 || (tq & 0x7fffffffu) != 0) &&
                         pb_radik_flag_warp(&sm.eq_full);
            if (strict) {
                if constexpr (STRICT && sizeof(K) == 4) {
#pragma unroll
                    for (int s = 0; s < NS; s++)
                        maybe |= (uint32_t)pb_radik_may_exceed<DT, LG>(raw[s], tq) << s;
                }
            } else {
#pragma unroll
                for (int s = 0; s < NS; s++)
                    maybe |= (uint32_t)pb_radik_may_reach<DT, LG>(raw[s], tq) << s;
            }
        }
        if constexpr (PER_LANE) {
            if (!__any_sync(0xffffffffu, maybe != 0)) return;
            for (uint32_t m = maybe; m; m &= m - 1) {
                uint32_t s = __ffs(m) - 1;
                K k = pb_radik_okey_dt<DT, LG>(slots_t::value(raw, s));
                bool in = sl.rel(s) < len;
                keep |= (uint32_t)(in && (STRICT ? k > thr : k >= thr)) << s;
                if (STRICT) eqm |= (uint32_t)(in && k == thr) << s;
            }
        } else {
            const uint32_t wm = __reduce_or_sync(0xffffffffu, maybe);
            if (!wm) return;
#pragma unroll
            for (int s = 0; s < NS; s++) {
                if (!((wm >> s) & 1)) continue;
                K k = pb_radik_okey_dt<DT, LG>(raw[s]);
                bool in = sl.rel(s) < len;
                keep |= (uint32_t)(in && (STRICT ? k > thr : k >= thr)) << s;
                if (STRICT) eqm |= (uint32_t)(in && k == thr) << s;
            }
        }
    } else {
#pragma unroll
        for (int s = 0; s < NS; s++) {
            K k = pb_radik_okey_dt<DT, LG>(slots_t::value(raw, s));
            bool in = sl.rel(s) < len;
            keep |= (uint32_t)(in && (STRICT ? k > thr : k >= thr)) << s;
            if (STRICT) eqm |= (uint32_t)(in && k == thr) << s;
        }
    }
    if (STRICT) pb_radik_filter_eq<STRICT>(a, c, sm, eqm, keep);
    if (!__any_sync(0xffffffffu, keep != 0)) return;
    uint32_t cnt = (uint32_t)__popc(keep), base = 0;
    uint32_t *wr = &a.rows[c.row].wr;
    bool staged = false;
    if (a.hier) {
        /* The warp's candidates in lane order: a scan of the counts, and
         * one reservation. A reservation past the buffer's end goes to the
         * row's counter instead and is not given back: `fill` only grows
         * until the flush, so every reservation after the first failed one
         * fails too, and the staged entries are exactly [0, stop), stop
         * being where the first failed one began. (Giving it back, as the
         * first version did, let a later warp succeed above a hole that an
         * outstanding failed reservation was about to give back: the flush
         * then wrote stale slots as candidates and lost that warp's, an
         * output slot left unwritten about once in 30 000 samples of a
         * 2^24 few:2 row at k = 2^18 on an H200.) */
        uint32_t lane = threadIdx.x & 31, incl = pb_radik_warp_incl_sum(cnt);
        uint32_t at = 0;
        if (lane == 31) {
            at = atomicAdd(&sm.fill, incl);
            if (at + incl > sm.FBUF) {
                atomicMin(&sm.stop, at);
                at = atomicAdd(wr, incl) | 0x80000000u; /* rows < 2^31 */
            }
        }
        at = __shfl_sync(0xffffffffu, at, 31);
        staged = !(at >> 31);
        base = (at & 0x7fffffffu) + incl - cnt;
    }
    uint32_t *g = a.hist + (uint64_t)c.row * PB_RADIK_BINS;
    /* Slot s's candidate, its key converted again (kept slots are few: no
     * array of keys to hold). */
    auto put = [&](uint32_t s, K k) {
        typename pb_radik_kt<K>::cand e = pb_radik_cand(k, sl.rel(s));
        if (staged) sm.buf[base++] = e;
        else a.cout[c.begin + (a.hier ? base++ : atomicAdd(wr, 1u))] = e;
        uint32_t d = pb_radik_scaled_digit(k, c.r.ref);
        atomicAdd(a.hier ? &sm.hist[d] : &g[d], 1u);
    };
    if constexpr (PER_LANE) {
        for (uint32_t m = keep; m; m &= m - 1) {
            uint32_t s = __ffs(m) - 1;
            put(s, pb_radik_okey_dt<DT, LG>(slots_t::value(raw, s)));
        }
    } else {
        const uint32_t wk = __reduce_or_sync(0xffffffffu, keep);
#pragma unroll
        for (int s = 0; s < NS; s++)
            if (((wk >> s) & 1) && ((keep >> s) & 1)) put(s, pb_radik_okey_dt<DT, LG>(raw[s]));
    }
}

/* One partition of the filter pass, dispatched on the row's strictness
 * (uniform over its partitions), then the staging buffer's flush check. */
template <int DT, int LG, class K>
__device__ __forceinline__ void pb_radik_filter_body(const pb_radik_args<K> &a,
                                                     const pb_radik_ctx<K> &c, uint32_t p,
                                                     const K (&raw)[PB_RADIK_FITEMS],
                                                     pb_radik_filter_smem<K> &sm)
{
    if (c.r.strict == PB_RADIK_STRICT_KEEP)
        pb_radik_filter_part<DT, LG, PB_RADIK_STRICT_KEEP>(a, c, p, raw, sm);
    else if (c.r.strict == PB_RADIK_STRICT_COUNT)
        pb_radik_filter_part<DT, LG, PB_RADIK_STRICT_COUNT>(a, c, p, raw, sm);
    else
        pb_radik_filter_part<DT, LG, PB_RADIK_STRICT_OFF>(a, c, p, raw, sm);
    if (a.hier) pb_radik_filter_flush(a, c, sm, sm.FBUF / 2);
}

/* The filter pass's blocks an SM (its register cap): for 32-bit keys four,
 * as its shared memory allows, so 64 registers a thread (the compiler's
 * choice would be 80, and three blocks); 16-bit values three (80
 * registers: at 2^29 on an H100, fp16 0.460 ms against 0.473 with four,
 * which spilled 240 bytes, and fp32 0.846 against 0.837); 64-bit keys two
 * (128 registers; left alone it took 155, one block). */
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
    auto segment = [&](const pb_radik_ctx<K> &c, uint32_t pa, uint32_t pb, uint32_t step) {
        K cur[PB_RADIK_FITEMS];
        pb_radik_filter_load<DT>(a, c, pa, cur);
        for (uint32_t p = pa; p < pb; p += step) {
            K next[PB_RADIK_FITEMS];
            bool more = p + step < pb;
            if (more) pb_radik_filter_load<DT>(a, c, p + step, next);
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

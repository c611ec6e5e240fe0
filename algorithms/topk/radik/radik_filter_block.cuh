/* The block-level pieces of the filter pass: its shared memory and
 * flush, the threshold compares (16-bit values two to a word) and a
 * partition's filtering. */
#ifndef PB_RADIK_FILTER_BLOCK_CUH
#define PB_RADIK_FILTER_BLOCK_CUH

#include "algorithms/topk/radik/radik_block.cuh"
#include "core/gpu_warp.cuh"

/* The filter pass's shared memory: the histogram, and the staging buffer
 * of PB_RADIK_FBUF_BYTES (radik_tuning.h says why its size). */
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
    if (pb_warp_add(0xffffffffu, cnt) == 0) return;
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

/* Asks L2 for partition p of filtering row c (pb_radik_l2_prefetch): the
 * values pb_radik_filter_load reads for it, from the 16-byte boundary at or
 * before the first to the one after the last, cut at the row's end. */
template <int DT, class K>
__device__ __forceinline__ void pb_radik_filter_l2(const pb_radik_args<K> &a,
                                                   const pb_radik_ctx<K> &c, uint32_t p)
{
    constexpr bool H = pb_radik_dt16<DT>::value;
    const uint32_t W = H ? 2 : (uint32_t)sizeof(K), FP = H ? PB_RADIK_FPART16 : PB_RADIK_FPART;
    const char *base = H ? reinterpret_cast<const char *>(a.data16)
                         : reinterpret_cast<const char *>(a.data);
    const bool packed = H ? pb_radik_packed16(a, c.begin) : pb_radik_packed(a, c.begin);
    const uint64_t head = packed ? (c.begin & (H ? 7 : 3)) : 0;
    const uint64_t lo = c.begin - head + (uint64_t)p * FP;
    const uint64_t hi = lo + FP < c.end ? lo + FP : c.end;
    if (lo >= hi) return;
    const uint64_t b0 = (lo * W) & ~(uint64_t)15, b1 = (hi * W + 15) & ~(uint64_t)15;
    pb_radik_l2_prefetch(base + b0, (uint32_t)(b1 - b0));
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
 * converting and comparing each key (without it an all-equal fp32 row
 * took a quarter longer than a uniform one: docs/measured.md). A NaN value or
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
 * (the 16-bit pass ran at about half the copy's rate so). Without
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
     * the warp's uniform loop over its slots, which measured slightly
     * faster than the per-lane one on fp32 (the 16 slots' loop is short,
     * and the lane loop spilled: docs/measured.md). */
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
            const uint32_t wm = pb_warp_or(0xffffffffu, maybe);
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
         * 2^24 few:2 row at k = 2^18.) */
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
        const uint32_t wk = pb_warp_or(0xffffffffu, keep);
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

#endif

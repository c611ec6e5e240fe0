/* The block-level pieces of a pass: shared flags and buffers, counter
 * reservations, the histogram and write-buffer flushes, the loads,
 * counting and partitioning of a partition, and the walk over the
 * partitions of all rows' live work (rescheduled or a fold a row). */
#ifndef PB_RADIK_BLOCK_CUH
#define PB_RADIK_BLOCK_CUH

#include "algorithms/topk/radik/radik_load.cuh"

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

#endif

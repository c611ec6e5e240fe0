/* radik's cluster path (its `cluster` parameter): a batch of short rows of
 * 16-bit keys (fp16, bf16) selected by one kernel, one thread-block
 * cluster a row, with no other launch and no host synchronisation.
 *
 * Why. The multi-pass query (radik_args.cuh lists its kernels) is a chain
 * of about ten launches: start, filter, then selects and passes. On a row
 * of 2^29 keys the filter's one read is the cost; on 16 rows of 2^20
 * fp16 (an LLM vocabulary a row) the chain is: the start kernel (one
 * block a row, latency-bound), the filter, a select and eight more
 * launches, together several times what one read of the batch's 32 MiB
 * takes (docs/measured.md). Here a row's blocks share their
 * histograms through distributed shared memory and wait for each other at
 * cluster barriers (well under a microsecond) instead of at launches.
 *
 * How. A 16-bit order key (topk_key.h) is two 8-bit digits. The C blocks
 * of a row's cluster split it into contiguous parts of aligned 16-byte
 * packs (eight keys; offset padding: a pack's keys outside the row are
 * masked, or counted as raw 0 and taken out of the histograms again).
 *   filter  every block draws the same 2048-key sample and finds the key
 *           at radik's filter rank in it (no barrier: the same keys, the
 *           same answer); one read keeps the keys that may reach it
 *           (radik's packed compare) as candidates in shared memory; at a
 *           cluster barrier the blocks sum their candidates' high digits
 *           (each reads the others' histograms remotely) and learn whether
 *           the row kept at least take keys at or above the threshold with
 *           no block out of room. If so the pivot is found among the
 *           candidates alone: one read of the row.
 * Otherwise (the sample was wrong, a row of few levels, filter = off) the
 * row is read three times:
 *   read 1  every block histograms its keys' high byte; the sum over the
 *           cluster gives the pivot bin B, the high digit of the take-th
 *           largest key, and how many keys lie above it;
 *   read 2  the low digit of the keys in B: the pivot key T, the number G
 *           of keys above T, and E = take - G ties to take;
 *   read 3  keys that may reach T kept as candidates, then written; a
 *           block with no key above T (the pivot is the row's top level)
 *           only takes its quota of ties, in a read that stops there.
 * Reads 1 and 2 histogram raw bytes (no key conversion), which are a
 * bijection of the order key's bytes except where NaNs lie: a row with keys
 * in a byte that may hold one is read again with order keys.
 * In both flows each block learns where its keys above T start in the
 * row's output (the counts of the blocks before it) and its quota of ties
 * (the ties of the blocks before it first); keys above T take slots from a
 * block counter, a warp at a time. With ties = lowest-index a block whose
 * quota is part of its ties takes them in index order (ranked among its
 * candidates, or a block scan a sub-tile of a re-read), so the row gets
 * the E ties of the smallest indices; with ties = any, in counter order.
 * The answer's contract is the family's: exactly take = min(k, len) keys,
 * every key above the take-th included.
 *
 * Histograms. Each digit has 32 counters, one a lane ([digit][lane]: bank
 * = lane), so a warp's 32 shared-memory reductions hit 32 banks whatever
 * its keys are.
 *
 * What it gains over the multi-pass query: docs/topk-radik.md and
 * docs/measured.md. */
#ifndef PB_RADIK_CLUSTER_CUH
#define PB_RADIK_CLUSTER_CUH

#include <stdint.h>

#include <cooperative_groups.h>
#include <cub/block/block_scan.cuh>

#include "algorithms/topk/radik/radik_cluster_block.cuh"
#include "algorithms/topk/radik/radik_cluster_kernel.cuh"
#include "algorithms/topk/radik/radik_filter_block.cuh"
#include "algorithms/topk/radik/radik_sample.cuh"

/* Clusters and distributed shared memory exist from sm_90: below it the
 * device code here is not compiled, and the kernel is an empty shell that
 * radik never launches (radik_cluster.cu says where it runs). */
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

/* Key e (0..7) of a pack, zero-extended. */
__device__ __forceinline__ uint32_t pb_radik_cl_half(const uint4 &x, uint32_t e)
{
    uint32_t w = e < 2 ? x.x : e < 4 ? x.y : e < 6 ? x.z : x.w;
    return (e & 1) ? w >> 16 : w & 0xffffu;
}

/* A block's part of a row: packs [pa, pb) of the row's (pack 0 holds its
 * first key, at `head` in it: key e of pack p is the row's key
 * 8p + e - head, outside the row when that wraps past len). */
struct pb_radik_cl_part {
    const uint4 *packs;
    uint32_t pa, pb, head, len;
};

/* Block b's part (of C) of the row of len keys from key rb of data16. */
__device__ __forceinline__ pb_radik_cl_part pb_radik_cl_part_of(const uint16_t *data16, uint64_t rb,
                                                                uint32_t len, uint32_t C, uint32_t b)
{
    pb_radik_cl_part w;
    w.len = len;
    w.head = (uint32_t)(rb & 7);
    w.packs = reinterpret_cast<const uint4 *>(data16) + (rb >> 3);
    pb_radik_cl_split((w.head + w.len + 7) >> 3, C, b, &w.pa, &w.pb);
    return w;
}

/* One read of the block's packs (pb_radik_cl_packs). */
template <bool LAST, int NB, class F, class D>
__device__ __forceinline__ void pb_radik_cl_read_until(const pb_radik_cl_part &w, F f, D done)
{
    pb_radik_cl_packs<LAST, NB>(w.packs, w.pa, w.pb, f, done);
}
/* The whole read. */
template <bool LAST, int NB = PB_RADIK_CL_BATCH, class F>
__device__ __forceinline__ void pb_radik_cl_read(const pb_radik_cl_part &w, F f)
{
    pb_radik_cl_read_until<LAST, NB>(w, f, [] { return false; });
}

/* Whether pack p lies wholly in the row, and the mask of its keys that
 * do (bit e: key e). */
__device__ __forceinline__ bool pb_radik_cl_full(const pb_radik_cl_part &w, uint32_t p)
{
    return 8 * p >= w.head && 8 * p + 8 - w.head <= w.len;
}
__device__ __forceinline__ uint32_t pb_radik_cl_inrow(const pb_radik_cl_part &w, uint32_t p)
{
    if (pb_radik_cl_full(w, p)) return 0xffu;
    uint32_t m = 0;
#pragma unroll
    for (uint32_t e = 0; e < 8; e++) m |= (uint32_t)(8 * p + e - w.head < w.len) << e;
    return m;
}

/* Word j of a pack: its keys 2j (low half) and 2j + 1. */
__device__ __forceinline__ uint32_t pb_radik_cl_word(const uint4 &x, int j)
{
    return j == 0 ? x.x : j == 1 ? x.y : j == 2 ? x.z : x.w;
}

/* Digit words. Reads 1 and 2 histogram a key's two bytes: those of its
 * raw value (RAW: no conversion, about three instructions a key) or of
 * its order key (pb_topk_okey16x2, two keys at a time). A raw byte is a
 * bijection of the order key's byte, so the raw histograms are the order
 * key's with the bins renamed (pb_radik_cl_raw_hi, _lo), except where a
 * raw high byte holds NaNs, which order keys put together as the canonical
 * NaN: rows with keys in such bins (pb_radik_cl_special) are read again
 * with conversion. */
template <int DT, int LG, bool RAW> __device__ __forceinline__ uint32_t pb_radik_cl_dw(uint32_t w)
{
    return RAW ? w : pb_topk_okey16x2(w, DT, LG);
}

/* The raw high byte of the keys whose order key's high byte is kb, and
 * the raw low byte of those of them whose order key's low byte is kl
 * (rh: their raw high byte). */
template <int LG> __device__ __forceinline__ uint32_t pb_radik_cl_raw_hi(uint32_t kb)
{
    if (!LG) kb ^= 0xffu;
    return (kb & 0x80u) ? kb & 0x7fu : ~kb & 0xffu;
}
template <int LG> __device__ __forceinline__ uint32_t pb_radik_cl_raw_lo(uint32_t kl, uint32_t rh)
{
    return (((rh & 0x80u) != 0) != (LG == 0)) ? ~kl & 0xffu : kl;
}

/* Whether raw high byte r may hold a NaN (fp16: 0x7c..0x7f and their
 * negatives, which hold the infinities too; bf16: 0x7f and 0xff, which
 * hold the largest finite values too). */
template <int DT> __device__ __forceinline__ bool pb_radik_cl_special(uint32_t r)
{
    return DT == PB_TOPK_F16 ? (r & 0x7fu) >= 0x7cu : (r & 0x7fu) == 0x7fu;
}

/* Pack x with its keys outside the row (mask m clear) made raw 0, so that
 * every key of a pack is counted; the histograms take them out again
 * (pb_radik_cl_reduce). */
__device__ __forceinline__ uint4 pb_radik_cl_clear(uint4 x, uint32_t m)
{
    uint32_t k[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
    for (int j = 0; j < 4; j++)
        k[j] &= ((m >> (2 * j) & 1) ? 0xffffu : 0u) | ((m >> (2 * j + 1) & 1) ? 0xffff0000u : 0u);
    return make_uint4(k[0], k[1], k[2], k[3]);
}

/* The mask of an edge pack's keys in the row (out of line: two packs a
 * row at most). Both out-of-line helpers are static: radik_cluster.cu and
 * radik_best.cu each include this file. */
static __device__ __noinline__ uint32_t pb_radik_cl_edge_mask(uint32_t p, uint32_t head, uint32_t len)
{
    pb_radik_cl_part w;
    w.head = head;
    w.len = len;
    return pb_radik_cl_inrow(w, p);
}

/* An edge pack (one the row does not fill) with its keys outside the row
 * made raw 0: out of line, so that the unrolled reads stay small. */
static __device__ __noinline__ uint4 pb_radik_cl_edge(uint4 x, uint32_t p, uint32_t head, uint32_t len)
{
    return pb_radik_cl_clear(x, pb_radik_cl_edge_mask(p, head, len));
}

/* Read 1: each key's high digit counted in lane column `at` (the shared
 * address of this lane's counter of digit 0; a digit's counters are 128
 * bytes apart). */
template <int DT, int LG, bool RAW, int NB>
__device__ __forceinline__ void pb_radik_cl_read1(const pb_radik_cl_part &w, uint32_t at)
{
    pb_radik_cl_read<false, NB>(w, [=](uint4 x, uint32_t p, bool in) {
        if (!in) return;
        if (!pb_radik_cl_full(w, p)) x = pb_radik_cl_edge(x, p, w.head, w.len);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t d = pb_radik_cl_dw<DT, LG, RAW>(pb_radik_cl_word(x, j));
            pb_radik_cl_inc(at + ((d >> 1) & 0x7f80u));
            pb_radik_cl_inc(at + ((d >> 17) & 0x7f80u));
        }
    });
}

/* Read 2: the low digit of each key whose high digit is hb. */
template <int DT, int LG, bool RAW, int NB>
__device__ __forceinline__ void pb_radik_cl_read2(const pb_radik_cl_part &w, uint32_t at,
                                                  uint32_t hb)
{
    const uint32_t hb2 = hb << 8 | hb << 24;
    pb_radik_cl_read<false, NB>(w, [=](uint4 x, uint32_t p, bool in) {
        if (!in) return;
        if (!pb_radik_cl_full(w, p)) x = pb_radik_cl_edge(x, p, w.head, w.len);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            uint32_t d = pb_radik_cl_dw<DT, LG, RAW>(pb_radik_cl_word(x, j)), e = d ^ hb2;
            pb_radik_cl_inc_if(!(e & 0xff00u), at + ((d << 7) & 0x7f80u));
            pb_radik_cl_inc_if(!(e & 0xff000000u), at + ((d >> 9) & 0x7f80u));
        }
    });
}

/* Read 3's quick test of a pack: bit e set where key e's raw value may
 * reach T (strict: may be above it), two keys a packed compare. */
template <int DT, int LG>
__device__ __forceinline__ uint32_t pb_radik_cl_reach8(const uint4 &x, uint32_t t2, bool strict)
{
    uint32_t c[4] = {pb_radik_cmp16<DT, LG>(x.x, t2, strict), pb_radik_cmp16<DT, LG>(x.y, t2, strict),
                     pb_radik_cmp16<DT, LG>(x.z, t2, strict), pb_radik_cmp16<DT, LG>(x.w, t2, strict)};
    uint32_t r = 0;
#pragma unroll
    for (int j = 0; j < 4; j++) r |= (c[j] & 1u) << (2 * j) | ((c[j] >> 16) & 1u) << (2 * j + 1);
    return r;
}

/* Whether a pack may hold a key at or above T (t2: T's raw value in both
 * halves; pb_radik_cmp16 passes every value whose key may reach it;
 * strict: above it). */
template <int DT, int LG>
__device__ __forceinline__ bool pb_radik_cl_reach(const uint4 &x, uint32_t t2, bool strict)
{
    return pb_radik_cl_reach8<DT, LG>(x, t2, strict) != 0;
}

/* The masks of a pack's keys in the row whose order key is above T, and
 * equal to it. Most packs hold no key at T or above: one packed compare a
 * word of the raw values with T's (t2: T's raw value in both halves;
 * radik's filter's test, pb_radik_cmp16: it passes every value whose key
 * may reach T, NaNs included) finds that before any key is converted. */
template <int DT, int LG>
__device__ __forceinline__ void pb_radik_cl_masks(const uint4 &x, uint32_t p, bool in,
                                                  const pb_radik_cl_part &w, uint32_t T,
                                                  uint32_t t2, uint32_t &gt, uint32_t &eq)
{
    gt = eq = 0;
    if (!in || !pb_radik_cl_reach<DT, LG>(x, t2, false)) return;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        uint32_t o = pb_topk_okey16x2(pb_radik_cl_word(x, j), DT, LG);
        uint32_t lo = o & 0xffffu, hi = o >> 16;
        gt |= (uint32_t)(lo > T) << (2 * j) | (uint32_t)(hi > T) << (2 * j + 1);
        eq |= (uint32_t)(lo == T) << (2 * j) | (uint32_t)(hi == T) << (2 * j + 1);
    }
    uint32_t m = pb_radik_cl_inrow(w, p);
    gt &= m;
    eq &= m;
}

/* Writes the keys of mask m (of pack p) at vals/idx[at], [at + 1], ...,
 * at most `room` of them. */
__device__ __forceinline__ void pb_radik_cl_write(uint32_t *vals, uint32_t *idx, uint32_t at,
                                                  const uint4 &x, uint32_t p, uint32_t head,
                                                  uint32_t m, uint32_t room)
{
    for (uint32_t n = 0; m && n < room; n++) {
        uint32_t e = __ffs(m) - 1;
        m &= m - 1;
        vals[at + n] = pb_radik_cl_half(x, e);
        idx[at + n] = 8 * p + e - head;
    }
}

/* Read 3's output: where this block's keys above T go (vals, idx; slots
 * from *gctr) and its ties (tvals, tidx; slots from *tctr, the first
 * `quota` of them written; quota 0: none), the pivot key T, t2, and the
 * row's head and length. */
struct pb_radik_cl_out {
    uint32_t *vals, *idx, *tvals, *tidx, *gctr, *tctr;
    uint32_t T, t2, head, len, quota;
};

/* The keys of pack p above T, and (o.quota) its ties, written: every lane
 * of the warp calls it (a warp with a lane whose pack may reach T). Out
 * of line, so that read 3's loop stays small. */
template <int DT, int LG>
__device__ __noinline__ void pb_radik_cl_emit(const pb_radik_cl_out &o, uint4 x, uint32_t p,
                                              bool in)
{
    pb_radik_cl_part w;
    w.head = o.head;
    w.len = o.len;
    uint32_t gt, eq;
    pb_radik_cl_masks<DT, LG>(x, p, in, w, o.T, o.t2, gt, eq);
    if (__any_sync(0xffffffffu, gt != 0))
        pb_radik_cl_write(o.vals, o.idx, pb_radik_cl_slots(o.gctr, gt), x, p, o.head, gt, 32);
    if (o.quota > 0 && __any_sync(0xffffffffu, eq != 0)) {
        uint32_t at = pb_radik_cl_slots(o.tctr, eq);
        if (at < o.quota) pb_radik_cl_write(o.tvals, o.tidx, at, x, p, o.head, eq, o.quota - at);
    }
}

/* Candidates: row-relative indices and raw values, in the kernel's
 * dynamic shared memory (PB_RADIK_CL_CAP of each). */
struct pb_radik_cl_cands {
    uint32_t *idx;
    uint16_t *raw;
};

/* The pivot bin from hist[0] of every block of the cluster: thread t <
 * 256 holds order-key bin 255 - t (the histogram's bin r: its raw byte
 * when raw, else itself), so an inclusive scan over threads is a sum over
 * the bins from the top (x: the row's, y: this block's). Leaves B, HB,
 * ABOVE, TOTAL (the row's keys counted) in sel and this block's keys above
 * B in gt1. */
template <int LG>
__device__ __forceinline__ void pb_radik_cl_pivot_bin(pb_radik_cl_smem &s,
                                                      const cooperative_groups::cluster_group &cl,
                                                      uint32_t C, uint32_t take, bool raw)
{
    uint32_t kb = 255 - threadIdx.x, r = raw ? pb_radik_cl_raw_hi<LG>(kb & 0xffu) : kb;
    uint3 v = make_uint3(0, 0, 0), incl;
    if (threadIdx.x < 256) {
        v.x = pb_radik_cl_cluster_sum(cl, &s.hist[0][r], C, 0).x;
        v.y = s.hist[0][r];
    }
    pb_radik_cl_scan3(s.scan.s3).InclusiveScan(v, incl, pb_radik_cl_sum3());
    if (threadIdx.x < 256 && incl.x >= take && incl.x - v.x < take) {
        s.sel[PB_RADIK_CL_B] = kb;
        s.sel[PB_RADIK_CL_HB] = r;
        s.sel[PB_RADIK_CL_ABOVE] = incl.x - v.x;
        s.gt1 = incl.y - v.y;
    }
    if (threadIdx.x == 255) s.sel[PB_RADIK_CL_TOTAL] = incl.x;
    __syncthreads();
}

/* The pivot key from hist[1] (the low digits of B's keys) of every block,
 * and this block's share of the output (x: the row's keys of B with this
 * low digit, y: the blocks' before this one, z: this block's). */
template <int LG>
__device__ __forceinline__ void pb_radik_cl_pivot_key(pb_radik_cl_smem &s,
                                                      const cooperative_groups::cluster_group &cl,
                                                      uint32_t C, uint32_t b, uint32_t take,
                                                      bool raw)
{
    const uint32_t B = s.sel[PB_RADIK_CL_B], hb = s.sel[PB_RADIK_CL_HB];
    const uint32_t above = s.sel[PB_RADIK_CL_ABOVE], need = take - above;
    const uint32_t kl = 255 - threadIdx.x, r = raw ? pb_radik_cl_raw_lo<LG>(kl & 0xffu, hb) : kl;
    uint3 v = make_uint3(0, 0, 0), incl;
    if (threadIdx.x < 256) v = pb_radik_cl_cluster_sum(cl, &s.hist[1][r], C, b);
    pb_radik_cl_scan3(s.scan.s3).InclusiveScan(v, incl, pb_radik_cl_sum3());
    if (threadIdx.x < 256 && incl.x >= need && incl.x - v.x < need) {
        uint32_t G = above + incl.x - v.x;
        s.sel[PB_RADIK_CL_T] = (B << 8) | kl;
        s.sel[PB_RADIK_CL_G] = G;
        s.sel[PB_RADIK_CL_E] = take - G;
        s.sel[PB_RADIK_CL_GT_LOW] = incl.y - v.y;
        s.sel[PB_RADIK_CL_EQ_BASE] = v.y;
        s.sel[PB_RADIK_CL_OWN_EQ] = v.z;
        s.sel[PB_RADIK_CL_OWN_GT] = s.gt1 + incl.z - v.z;
    }
    if (threadIdx.x == 256) {
        s.sel[PB_RADIK_CL_GT_HIGH] = pb_radik_cl_cluster_sum(cl, &s.gt1, C, b).y;
    }
    __syncthreads();
}

/* Where this block writes, once the pivot key is known. */
struct pb_radik_cl_dest {
    uint32_t *vals, *idx;   /* its keys above T, from its first slot */
    uint32_t *tvals, *tidx; /* its ties */
    uint32_t T, quota;      /* the pivot key; the ties this block takes */
    bool ordered;           /* lowest-index, and the quota is part of the block's ties */
};

__device__ __forceinline__ pb_radik_cl_dest pb_radik_cl_dest_of(const pb_radik_cl_smem &s,
                                                                const pb_radik_args<uint32_t> &a,
                                                                uint32_t row)
{
    pb_radik_cl_dest d;
    const uint32_t G = s.sel[PB_RADIK_CL_G], E = s.sel[PB_RADIK_CL_E];
    const uint32_t eq_base = s.sel[PB_RADIK_CL_EQ_BASE], own_eq = s.sel[PB_RADIK_CL_OWN_EQ];
    d.T = s.sel[PB_RADIK_CL_T];
    d.quota = E > eq_base ? (E - eq_base < own_eq ? E - eq_base : own_eq) : 0;
    d.ordered = a.lowest && d.quota > 0 && d.quota < own_eq;
    const uint64_t out = a.out_off[row];
    const uint32_t gt_at = s.sel[PB_RADIK_CL_GT_HIGH] + s.sel[PB_RADIK_CL_GT_LOW];
    d.vals = a.vals + out + gt_at;
    d.idx = a.idx + out + gt_at;
    d.tvals = a.vals + out + G + eq_base;
    d.tidx = a.idx + out + G + eq_base;
    return d;
}

/* Writes this block's nc candidates' keys above T and its quota of ties
 * (lowest-index: the PB_RADIK_CL_TIES ties of the smallest indices, by
 * counting, the candidates being in no order). Returns whether the ties
 * were too many to rank (the caller then takes them in a read). */
template <int DT, int LG>
__device__ __forceinline__ bool pb_radik_cl_write_cands(pb_radik_cl_smem &s,
                                                        const pb_radik_cl_cands &c, uint32_t nc,
                                                        const pb_radik_cl_dest &d)
{
    uint32_t *ctie = s.lane; /* free once the histograms are summed */
    for (uint32_t i0 = 0; i0 < nc; i0 += PB_RADIK_CL_BLOCK) {
        uint32_t i = i0 + threadIdx.x, raw = i < nc ? c.raw[i] : 0;
        uint32_t ok = pb_topk_okey_of(raw, DT, LG);
        bool gt = i < nc && ok > d.T, eq = i < nc && ok == d.T && d.quota > 0;
        if (__any_sync(0xffffffffu, gt)) {
            uint32_t at = pb_radik_cl_slots(&s.ctr[0], gt);
            if (gt) d.vals[at] = raw, d.idx[at] = c.idx[i];
        }
        if (!d.ordered && __any_sync(0xffffffffu, eq)) {
            uint32_t at = pb_radik_cl_slots(&s.ctr[1], eq);
            if (eq && at < d.quota) d.tvals[at] = raw, d.tidx[at] = c.idx[i];
        } else if (d.ordered && eq) {
            uint32_t t = atomicAdd(&s.nties, 1u);
            if (t < PB_RADIK_CL_TIES) ctie[t] = i;
        }
    }
    if (!d.ordered) return false;
    __syncthreads();
    const uint32_t nt = s.nties;
    if (nt > PB_RADIK_CL_TIES) return true;
    /* Each tie's rank by index among the block's ties. */
    for (uint32_t t = threadIdx.x; t < nt; t += PB_RADIK_CL_BLOCK) {
        uint32_t mine = c.idx[ctie[t]], rank = 0;
        for (uint32_t j = 0; j < nt; j++) rank += c.idx[ctie[j]] < mine;
        if (rank < d.quota) d.tvals[rank] = c.raw[ctie[t]], d.tidx[rank] = mine;
    }
    return false;
}

/* Read 3 with writes as it goes, for a block whose candidates did not fit
 * (gt: it writes its keys above T, found by a strict compare where T is
 * not +-0) or whose ties were too many to rank: the ties in index order,
 * a block scan a sub-tile until the quota is full (under ties = any too:
 * index order is one answer, and a row of ties then costs one scan). */
template <int DT, int LG>
__device__ __forceinline__ void pb_radik_cl_write_read(pb_radik_cl_smem &s,
                                                       const pb_radik_cl_part &w,
                                                       const pb_radik_cl_dest &d, bool gt)
{
    const uint32_t t2 = pb_topk_raw_of(d.T, DT, LG) * 0x00010001u;
    const bool strict = (t2 & 0x7fffu) != 0;
    pb_radik_cl_out o = {d.vals, d.idx, d.tvals, d.tidx, &s.ctr[0], &s.ctr[1], d.T, t2, w.head,
                         w.len, 0u};
    uint32_t taken = 0; /* this block's ties met so far: the scans' running total */
    /* Without keys above T to find, the read ends with the quota: a row of
     * ties then costs its first quota keys, not a read. */
    pb_radik_cl_read_until<true, 1>(w, [&](const uint4 &x, uint32_t p, bool in) {
        if (gt && __any_sync(0xffffffffu, in && pb_radik_cl_reach<DT, LG>(x, t2, strict)))
            pb_radik_cl_emit<DT, LG>(o, x, p, in);
        if (taken >= d.quota) return; /* block-uniform */
        uint32_t g, eq, ex, all;
        pb_radik_cl_masks<DT, LG>(x, p, in, w, d.T, t2, g, eq);
        pb_radik_cl_scan1(s.scan.s1).ExclusiveSum(__popc(eq), ex, all);
        uint32_t at = taken + ex;
        if (at < d.quota) pb_radik_cl_write(d.tvals, d.tidx, at, x, p, w.head, eq, d.quota - at);
        taken += all;
        __syncthreads(); /* the scan's storage is used again */
    }, [&] { return !gt && taken >= d.quota; });
}

/* Appends the keys of mask r8 of pack p (row-relative index 8p + e - head)
 * to the candidates, counting past the room, and no more once past it (a
 * row of ties would otherwise keep every pack at the counter). */
__device__ __forceinline__ void pb_radik_cl_append(pb_radik_cl_smem &s, const pb_radik_cl_cands &c,
                                                   const uint4 &x, uint32_t p, uint32_t head,
                                                   uint32_t r8)
{
    if (*(volatile uint32_t *)&s.ncand > PB_RADIK_CL_CAP) return;
    uint32_t at = atomicAdd(&s.ncand, __popc(r8));
    for (; r8; r8 &= r8 - 1, at++)
        if (at < PB_RADIK_CL_CAP) {
            uint32_t e = __ffs(r8) - 1;
            c.idx[at] = 8 * p + e - head;
            c.raw[at] = (uint16_t)pb_radik_cl_half(x, e);
        }
}

/* A read that keeps the keys of the block's part that may reach the key
 * whose raw value t2 holds twice (strict: may pass it) as candidates. */
template <int DT, int LG>
__device__ __forceinline__ void pb_radik_cl_gather(pb_radik_cl_smem &s, const pb_radik_cl_cands &c,
                                                   const pb_radik_cl_part &w, uint32_t t2,
                                                   bool strict)
{
    pb_radik_cl_read<true>(w, [&](const uint4 &x, uint32_t p, bool in) {
        uint32_t r8 = in ? pb_radik_cl_reach8<DT, LG>(x, t2, strict) : 0;
        if (!r8) return;
        if (!pb_radik_cl_full(w, p)) r8 &= pb_radik_cl_edge_mask(p, w.head, w.len);
        if (r8) pb_radik_cl_append(s, c, x, p, w.head, r8);
    });
}

/* The sample's threshold: the order key of rank r (0: the largest) among
 * PB_RADIK_SAMPLE keys of the row, found by every block alike (the same
 * keys, no cluster barrier): two 8-bit digit histograms in the lane
 * counters (at: this lane's counter of digit 0; a digit of logits' keys
 * falls in a few bins, where atomics on one word serialise). *ties: the
 * sample keys equal to it (at least one). The keys are whole packs of
 * eight at random places in the row (radik's sample positions over the
 * packs wholly in it), a pack a thread of the first 256, for the reason
 * radik_cluster_w.cuh's sample gives: eight times fewer random reads. */
template <int DT, int LG>
__device__ __forceinline__ uint32_t pb_radik_cl_sample(pb_radik_cl_smem &s, uint32_t at,
                                                       const pb_radik_cl_part &w, uint32_t row,
                                                       uint32_t salt, uint32_t r, uint32_t *ties)
{
    enum { NP = PB_RADIK_SAMPLE / 8 };
    const uint32_t first = w.head ? 1u : 0u, full = (w.head + w.len) / 8 - first;
    const bool has = threadIdx.x < NP;
    const uint4 x = has ? __ldg(w.packs + first + pb_radik_sample_pos(threadIdx.x, row, salt, full))
                        : make_uint4(0, 0, 0, 0);
    uint32_t key[8];
#pragma unroll
    for (int e = 0; e < 8; e++) key[e] = pb_topk_okey_of(pb_radik_cl_half(x, e), DT, LG);
    /* The sample keys above the digits found so far: a register of every
     * thread, read after the barrier that follows their write. Read from
     * shared memory in the round that writes them, as this once was, the
     * load may be issued in either round, before that barrier: a read that
     * races the write (racecheck reported one in this kernel). */
    uint32_t hi = 0, lo = 0, above = 0;
    for (int digit = 1; digit >= 0; digit--) {
#pragma unroll
        for (int e = 0; e < 8; e++)
            if (has && (digit == 1 || (key[e] >> 8) == hi))
                pb_radik_cl_inc(at + ((digit ? key[e] >> 8 : key[e] & 255) << 7));
        pb_radik_cl_reduce_to(s, s.samp, 256, 0);
        __syncthreads();
        uint32_t bin = 255 - threadIdx.x, n = threadIdx.x < 256 ? s.samp[bin & 255] : 0, incl;
        pb_radik_cl_scan1(s.scan.s1).InclusiveSum(n, incl);
        const uint32_t want = r - above;
        if (threadIdx.x < 256 && incl > want && incl - n <= want) {
            s.sel[PB_RADIK_CL_B] = bin;
            s.sel[PB_RADIK_CL_ABOVE] = above + incl - n;
        }
        __syncthreads();
        (digit ? hi : lo) = s.sel[PB_RADIK_CL_B];
        above = s.sel[PB_RADIK_CL_ABOVE];
        if (!digit) *ties = s.samp[lo];
        __syncthreads();
    }
    return hi << 8 | lo;
}

#endif /* __CUDA_ARCH__ >= 900 */

/* The kernel: grid (C, rows), clusters of C blocks along x (block rank =
 * blockIdx.x), one cluster a row; PB_RADIK_CL_CAP candidates of dynamic
 * shared memory (PB_RADIK_CL_DYN_SMEM). k: the query's k; salt: the
 * sample's (radik's, from the problem's seed); filter: radik's `filter`
 * (pb_radik_filter_mode: off, the three reads; overshoot, the sample's
 * largest key as the threshold, so that most rows fall back).
 * The filter is tried first (see the top of this file); the sample never
 * changes the answer, only which flow finds it. */
template <int DT, int LG>
__global__ void __launch_bounds__(PB_RADIK_CL_BLOCK, 2)
    pb_radik_cluster16(pb_radik_args<uint32_t> a, uint64_t k, uint32_t salt, int filter)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    __shared__ pb_radik_cl_smem s;
    extern __shared__ __align__(16) uint32_t pb_radik_cl_dyn[];
    const pb_radik_cl_cands cand = {pb_radik_cl_dyn,
                                    reinterpret_cast<uint16_t *>(pb_radik_cl_dyn + PB_RADIK_CL_CAP)};
    cg::cluster_group cl = cg::this_cluster();
    const uint32_t C = cl.num_blocks(), b = cl.block_rank(), row = blockIdx.y;
    const uint32_t at = (uint32_t)__cvta_generic_to_shared(s.lane) + (threadIdx.x & 31) * 4;
    const uint64_t rb = a.begin[row];
    const uint32_t len = (uint32_t)(a.end[row] - rb); /* below 2^31: radik.cu */
    const uint32_t take = (uint32_t)(k < len ? k : len);
    if (take == 0) return; /* the whole cluster: the row is its own */
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.lane[i] = 0;
    if (threadIdx.x < 2) s.ctr[threadIdx.x] = 0;
    if (threadIdx.x == 0) s.ncand = s.nties = 0;
    const pb_radik_cl_part w = pb_radik_cl_part_of(a.data16, rb, len, C, b);
    /* The keys outside the row in this block's packs, counted as raw 0. */
    const int64_t k0 = (int64_t)8 * w.pa - w.head, k1 = (int64_t)8 * w.pb - w.head;
    const uint32_t nsub = 8 * (w.pb - w.pa) -
                          (uint32_t)((k1 < 0 ? 0 : k1 > w.len ? w.len : k1) -
                                     (k0 < 0 ? 0 : k0 > w.len ? w.len : k0));
    __syncthreads();

    /* The filter, where the sample's threshold may keep few enough keys:
     * its rank and its ties in the sample, (r + ties) / 2048 of the row,
     * within half the cluster's room (a row of few levels skips it). */
    const uint32_t r = filter == PB_RADIK_FILTER_OVERSHOOT ? 0
                       : take < w.len ? pb_radik_filter_rank(PB_RADIK_SAMPLE, take, w.len)
                                      : PB_RADIK_SAMPLE;
    const uint64_t room = (uint64_t)PB_RADIK_SAMPLE * PB_RADIK_CL_CAP * C / 2;
    bool filtered = false;
    uint32_t thr = 0, ties = 0;
    if (filter != PB_RADIK_FILTER_OFF && w.len >= PB_RADIK_FILTER_MIN && r < PB_RADIK_SAMPLE &&
        (uint64_t)(r + 1) * w.len <= room)
        thr = pb_radik_cl_sample<DT, LG>(s, at, w, row, salt, r, &ties);
    if (ties && (uint64_t)(r + ties) * w.len <= room) {
        const uint32_t thr2 = pb_topk_raw_of(thr, DT, LG) * 0x00010001u;
        pb_radik_cl_gather<DT, LG>(s, cand, w, thr2, false);
        __syncthreads();
        const uint32_t nc = s.ncand < PB_RADIK_CL_CAP ? s.ncand : PB_RADIK_CL_CAP;
        const bool full = s.ncand > PB_RADIK_CL_CAP;
        /* The candidates' high digits (those at or above the threshold). */
        for (uint32_t i = threadIdx.x; i < nc; i += PB_RADIK_CL_BLOCK) {
            uint32_t ok = pb_topk_okey_of(cand.raw[i], DT, LG);
            if (ok >= thr) pb_radik_cl_inc(at + ((ok >> 8) << 7));
        }
        pb_radik_cl_reduce(s, 0, 256, 0);
        if (threadIdx.x == 0) s.ovf = full;
        cl.sync();
        pb_radik_cl_pivot_bin<LG>(s, cl, C, take, false);
        bool over = __syncthreads_or(threadIdx.x < C && *cl.map_shared_rank(&s.ovf, threadIdx.x));
        filtered = !over && s.sel[PB_RADIK_CL_TOTAL] >= take;
        if (filtered) {
            const uint32_t B = s.sel[PB_RADIK_CL_B];
            for (uint32_t i = threadIdx.x; i < nc; i += PB_RADIK_CL_BLOCK) {
                uint32_t ok = pb_topk_okey_of(cand.raw[i], DT, LG);
                if (ok >= thr && (ok >> 8) == B) pb_radik_cl_inc(at + ((ok & 255) << 7));
            }
            pb_radik_cl_reduce(s, 1, 256, 0);
            cl.sync();
            pb_radik_cl_pivot_key<LG>(s, cl, C, b, take, false);
            __cluster_barrier_arrive();
            const pb_radik_cl_dest d = pb_radik_cl_dest_of(s, a, row);
            if (pb_radik_cl_write_cands<DT, LG>(s, cand, nc, d))
                pb_radik_cl_write_read<DT, LG>(s, w, d, false);
        } else {
            /* The sample was wrong, or the row's ties filled the room:
             * the three reads, from counters at zero. */
            cl.sync(); /* every block has read this one's histogram */
            if (threadIdx.x == 0) s.ncand = 0;
            __syncthreads();
        }
    }
    if (!filtered) {
        /* Read 1: raw high bytes. */
        pb_radik_cl_read1<DT, LG, true, PB_RADIK_CL_BATCH>(w, at);
        pb_radik_cl_reduce(s, 0, 0, nsub);
        cl.sync();
        /* A row with keys in a raw bin that may hold NaNs is read again,
         * with order keys (the whole cluster sees the same sums). */
        bool raw = true;
        uint32_t n = 0;
        if (threadIdx.x < 256 && pb_radik_cl_special<DT>(threadIdx.x))
            for (uint32_t c = 0; c < C; c++) n += *cl.map_shared_rank(&s.hist[0][threadIdx.x], c);
        if (__syncthreads_or(n != 0)) {
            raw = false;
            cl.sync(); /* every block has read this histogram */
            pb_radik_cl_read1<DT, LG, false, 2>(w, at);
            pb_radik_cl_reduce(s, 0, (pb_topk_okey16x2(0, DT, LG) & 0xffffu) >> 8, nsub);
            cl.sync();
        }
        pb_radik_cl_pivot_bin<LG>(s, cl, C, take, raw);
        const uint32_t hb = s.sel[PB_RADIK_CL_HB];
        /* Read 2: the low digit of the keys in B. Raw 0, the edge packs'
         * stand-in, is digit word 0 raw, or its order key. */
        const uint32_t sd = raw ? 0 : pb_topk_okey16x2(0, DT, LG) & 0xffffu;
        if (raw)
            pb_radik_cl_read2<DT, LG, true, PB_RADIK_CL_BATCH>(w, at, hb);
        else
            pb_radik_cl_read2<DT, LG, false, 2>(w, at, hb);
        pb_radik_cl_reduce(s, 1, (sd >> 8) == hb ? sd & 0xffu : 256u, nsub);
        cl.sync();
        pb_radik_cl_pivot_key<LG>(s, cl, C, b, take, raw);
        /* This block reads no other's shared memory from here on; it
         * waits for the others' reads of its own before it exits. */
        __cluster_barrier_arrive();
        const pb_radik_cl_dest d = pb_radik_cl_dest_of(s, a, row);
        /* Read 3: most packs hold no key at T or above: a packed compare a
         * word of the raw values with T's finds those, and the keys that
         * may reach T (a thousand or so of a 2^20 row at k = 1024) are kept
         * as candidates, then written after the read, so that the writes'
         * code runs once, not once a pack of the unrolled loop (Nsight
         * Compute named the instruction cache the first stall, and an
         * out-of-line call a pack cost a fifth of the kernel's time:
         * docs/measured.md). A block
         * that takes no ties compares strictly (not at T = +-0, which
         * compares equal to the other zero), so that a row of ties does
         * not fill its room. Past the room, or with too many ties to rank,
         * the block reads its part once more and writes as it goes. */
        if (s.sel[PB_RADIK_CL_OWN_GT] == 0) {
            /* No key of this block is above T (a row whose pivot is its
             * top level: equal, few:L): only its quota of ties, if any,
             * in a read that ends with them, so that such a row costs
             * reads 1 and 2 and its first ties (docs/measured.md). */
            if (d.quota > 0) pb_radik_cl_write_read<DT, LG>(s, w, d, false);
        } else {
            const uint32_t t2 = pb_topk_raw_of(d.T, DT, LG) * 0x00010001u;
            const bool strict = d.quota == 0 && (t2 & 0x7fffu) != 0;
            pb_radik_cl_gather<DT, LG>(s, cand, w, t2, strict);
            __syncthreads();
            const uint32_t nc = s.ncand;
            if (nc > PB_RADIK_CL_CAP)
                pb_radik_cl_write_read<DT, LG>(s, w, d, true);
            else if (pb_radik_cl_write_cands<DT, LG>(s, cand, nc, d))
                pb_radik_cl_write_read<DT, LG>(s, w, d, false);
        }
    }
    __cluster_barrier_wait();
#endif
}

#endif

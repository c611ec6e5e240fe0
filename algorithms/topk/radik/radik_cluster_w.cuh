/* radik's cluster path for word keys: a batch of rows of 32-bit (fp32,
 * u32, i32) or 64-bit (fp64, u64) keys selected by one kernel, one
 * thread-block cluster a row, with no other launch and no host
 * synchronisation (radik_cluster.cuh is the 16-bit keys' kernel, and says
 * why a cluster: its blocks share histograms through distributed shared
 * memory and wait for each other at cluster barriers, not at launches).
 *
 * How. An order key (topk_key.h: larger is better, whatever the dtype and
 * direction) is D = sizeof(K) 8-bit digits, the first the highest. The C
 * blocks of a row's cluster split it into contiguous parts of aligned
 * 16-byte packs (16 / sizeof(K) keys; a pack's keys outside the row are
 * skipped). The pivot T, the take-th largest order key, is found a digit a
 * round: in round j every block histograms digit j of its keys whose
 * higher digits equal T's (found so far), the cluster sums the blocks'
 * histograms (each block reads the others' remotely), and the bin where
 * the count from the top reaches `take` is T's digit j. Each round also
 * adds, for the keys in the bins above it, the row's count, the count of
 * the blocks before this one, and this block's: after the last round those
 * are the keys above T (G in the row; where this block's go in the
 * output), and the last bin's counts are the ties (E = take - G to take,
 * the blocks before this one's first).
 *
 * Where a round's keys come from: shared memory where they fit, else a
 * read of the row.
 *   sample  every block draws the same 2048-key sample and finds the key
 *           at radik's filter rank in it (no barrier: the same keys, the
 *           same answer); one read keeps the keys at or above it as
 *           candidates (an order key and an index each, in shared memory).
 *           If the row kept at least take keys with no block out of room,
 *           every round runs on the candidates: one read of the row.
 *   reads   otherwise (a short row whose sample would keep too much, the
 *           sample was wrong, filter = off), round j reads the row, until
 *           the keys at or above T's digits so far are few enough to be
 *           candidates (at most the room of one block, in the whole row:
 *           then no block can run out): one read keeps them, and the
 *           rounds left run on them. A row of at most that many keys is
 *           kept at once: one read.
 * Writing: from the candidates, keys above T take slots from a block
 * counter (a warp at a time), ties a quota; with ties = lowest-index a
 * block whose quota is part of its ties ranks them by index. Where the
 * ties are too many to rank, or all D rounds ran on reads, one more read
 * writes (ties in index order, a block scan a sub-tile, ending once the
 * quota is full where no key above T is left to write). The answer's
 * contract is the family's: exactly take = min(k, len) keys, every key
 * above the take-th included; values are written from their order keys
 * (pb_topk_raw_of: a NaN as the canonical NaN, as the multi-pass query
 * does). */
#ifndef PB_RADIK_CLUSTER_W_CUH
#define PB_RADIK_CLUSTER_W_CUH

#include "algorithms/topk/radik/radik_cluster_block.cuh"
#include "algorithms/topk/radik/radik_cluster_kernel.cuh"
#include "algorithms/topk/radik/radik_filter_block.cuh"
#include "algorithms/topk/radik/radik_sample.cuh"

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900

/* A block's view of the pivot so far: T's digits found (the rest zero),
 * and for the keys above them, the row's count, the blocks' before this
 * one, this block's; for the keys equal to them, the same three. */
template <class K> struct pb_radik_clw_piv {
    K prefix;
    uint32_t row_above, before_above, own_above;
    uint32_t row_in, before_in, own_in;
};

template <class K> struct pb_radik_clw_smem {
    pb_radik_cl_smem c; /* lanes, histograms, scans, counters (radik_cluster_block.cuh) */
    pb_radik_clw_piv<K> piv;
};

/* Key e of a 16-byte pack: four 32-bit words or two 64-bit ones. */
__device__ __forceinline__ uint32_t pb_radik_clw_key(const uint4 &x, uint32_t *, int e)
{
    return e == 0 ? x.x : e == 1 ? x.y : e == 2 ? x.z : x.w;
}
__device__ __forceinline__ uint64_t pb_radik_clw_key(const uint4 &x, uint64_t *, int e)
{
    return e == 0 ? ((uint64_t)x.y << 32 | x.x) : ((uint64_t)x.w << 32 | x.z);
}

/* Digit j (0: the highest) of an order key, and whether a key's digits
 * above j equal the prefix's. */
template <class K> __device__ __forceinline__ uint32_t pb_radik_clw_digit(K o, int j)
{
    return (uint32_t)(o >> (8 * ((int)sizeof(K) - 1 - j))) & 255u;
}
template <class K> __device__ __forceinline__ bool pb_radik_clw_match(K o, K prefix, int j)
{
    return j == 0 || (o >> (8 * ((int)sizeof(K) - j))) == (prefix >> (8 * ((int)sizeof(K) - j)));
}

/* A block's part of a row: packs [pa, pb) (pack 0 holds the row's first
 * key, at `head` in it: key e of pack p is the row's key P p + e - head,
 * outside the row when that wraps past len). */
template <class K> struct pb_radik_clw_part {
    const uint4 *packs;
    uint32_t pa, pb, head, len;
};

/* Block b's part (of C) of the row of len keys from key rb of data. */
template <class K>
__device__ __forceinline__ pb_radik_clw_part<K> pb_radik_clw_part_of(const K *data, uint64_t rb,
                                                                     uint32_t len, uint32_t C,
                                                                     uint32_t b)
{
    enum { P = 16 / sizeof(K) };
    pb_radik_clw_part<K> w;
    w.len = len;
    w.head = (uint32_t)(rb % P);
    w.packs = reinterpret_cast<const uint4 *>(data + (rb - w.head));
    pb_radik_cl_split((w.head + w.len + P - 1) / P, C, b, &w.pa, &w.pb);
    return w;
}

/* One read of the block's keys (pb_radik_cl_packs): f(okey, index, in)
 * for each key of its packs, called by every thread of the block the same
 * number of times (in: the key is in the row, so that f may hold
 * warp-wide steps). */
template <int DT, int LG, bool LAST, int NB, class K, class F>
__device__ __forceinline__ void pb_radik_clw_read(const pb_radik_clw_part<K> &w, F f)
{
    enum { P = 16 / sizeof(K) };
    pb_radik_cl_packs<LAST, NB>(w.packs, w.pa, w.pb, [&](const uint4 &x, uint32_t p, bool in) {
#pragma unroll
        for (int e = 0; e < P; e++) {
            uint32_t i = P * p + e - w.head;
            f(pb_radik_okey_dt<DT, LG>(pb_radik_clw_key(x, (K *)0, e)), i, in && i < w.len);
        }
    }, [] { return false; });
}

/* Candidates: order keys and row-relative indices in the kernel's
 * dynamic shared memory (cap of each). */
template <class K> struct pb_radik_clw_cands {
    K *key;
    uint32_t *idx;
    uint32_t cap;
};

/* Whether pack p lies wholly in the row, and (out of line: two packs a
 * row at most) the mask of an edge pack's keys that do (bit e: key e). */
template <class K>
__device__ __forceinline__ bool pb_radik_clw_full(const pb_radik_clw_part<K> &w, uint32_t p)
{
    enum { P = 16 / sizeof(K) };
    return P * p >= w.head && P * p + P - w.head <= w.len;
}
template <class K>
__device__ __noinline__ uint32_t pb_radik_clw_edge(uint32_t p, uint32_t head, uint32_t len)
{
    enum { P = 16 / sizeof(K) };
    uint32_t m = 0;
#pragma unroll
    for (uint32_t e = 0; e < P; e++) m |= (uint32_t)(P * p + e - head < len) << e;
    return m;
}

/* A read that keeps the block's keys at or above thr as candidates,
 * counting past the room (s.c.ncand: the block's keys at or above thr;
 * none kept past the room). The one read of most rows, so its loop is
 * lean: a pack's keys converted and compared into a mask, the row's edge
 * tested a pack (not a key), one vote a pack, and the warp's slots taken
 * together only where a lane keeps a key (a few percent of the packs). */
template <int DT, int LG, class K>
__device__ __forceinline__ void pb_radik_clw_gather(pb_radik_clw_smem<K> &s,
                                                    const pb_radik_clw_cands<K> &c,
                                                    const pb_radik_clw_part<K> &w, K thr)
{
    enum { P = 16 / sizeof(K), NB = PB_RADIK_CL_BATCH };
    for (uint32_t base = w.pa; base < w.pb; base += PB_RADIK_CL_BLOCK * NB) {
        uint4 x[NB];
#pragma unroll
        for (int u = 0; u < NB; u++) {
            uint32_t p = base + threadIdx.x + u * PB_RADIK_CL_BLOCK;
            x[u] = p < w.pb ? __ldcs(w.packs + p) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < NB; u++) {
            const uint32_t p = base + threadIdx.x + u * PB_RADIK_CL_BLOCK;
            uint32_t m = 0;
#pragma unroll
            for (int e = 0; e < P; e++)
                m |= (uint32_t)(pb_radik_okey_dt<DT, LG>(pb_radik_clw_key(x[u], (K *)0, e)) >= thr) << e;
            if (p >= w.pb) m = 0;
            else if (m && !pb_radik_clw_full(w, p)) m &= pb_radik_clw_edge<K>(p, w.head, w.len);
            if (!__any_sync(0xffffffffu, m != 0)) continue;
            uint32_t at = pb_radik_cl_slots(&s.c.ncand, m);
            for (; m; m &= m - 1, at++)
                if (at < c.cap) {
                    const int e = __ffs(m) - 1;
                    c.key[at] = pb_radik_okey_dt<DT, LG>(pb_radik_clw_key(x[u], (K *)0, e));
                    c.idx[at] = P * p + e - w.head;
                }
        }
    }
}

/* Round j's pivot digit from hist[h] of every block of the cluster:
 * thread t < 256 holds bin 255 - t, so an inclusive scan over threads is
 * a sum over the bins from the top (x: the row's, y: the blocks' before
 * this one, z: this block's). Updates s.piv. */
template <class K>
__device__ __forceinline__ void pb_radik_clw_pivot(pb_radik_clw_smem<K> &s,
                                                   const cooperative_groups::cluster_group &cl,
                                                   uint32_t C, uint32_t b, uint32_t take, int j,
                                                   int h)
{
    const uint32_t bin = 255 - threadIdx.x, need = take - s.piv.row_above;
    uint3 v = make_uint3(0, 0, 0), incl;
    if (threadIdx.x < 256) v = pb_radik_cl_cluster_sum(cl, &s.c.hist[h][bin], C, b);
    pb_radik_cl_scan3(s.c.scan.s3).InclusiveScan(v, incl, pb_radik_cl_sum3());
    __syncthreads(); /* every thread has read s.piv.row_above */
    if (threadIdx.x < 256 && incl.x >= need && incl.x - v.x < need) {
        s.piv.prefix |= (K)bin << (8 * ((int)sizeof(K) - 1 - j));
        s.piv.row_above += incl.x - v.x;
        s.piv.before_above += incl.y - v.y;
        s.piv.own_above += incl.z - v.z;
        s.piv.row_in = v.x;
        s.piv.before_in = v.y;
        s.piv.own_in = v.z;
    }
    __syncthreads();
}

/* Round j from keys f feeds: digit j of those whose higher digits are the
 * prefix's counted in the lane columns (at: this lane's counter of digit
 * 0), summed into hist[h], the cluster waits, the pivot digit found. */
template <class K, class FEED>
__device__ __forceinline__ void pb_radik_clw_round(pb_radik_clw_smem<K> &s,
                                                   const cooperative_groups::cluster_group &cl,
                                                   uint32_t C, uint32_t b, uint32_t take, int j,
                                                   uint32_t at, FEED feed)
{
    const K prefix = s.piv.prefix;
    feed([&](K o) {
        if (pb_radik_clw_match(o, prefix, j)) pb_radik_cl_inc(at + (pb_radik_clw_digit(o, j) << 7));
    });
    pb_radik_cl_reduce(s.c, j & 1, 256, 0);
    cl.sync();
    pb_radik_clw_pivot(s, cl, C, b, take, j, j & 1);
}

/* Where this block writes, once the pivot key is known. */
template <class K> struct pb_radik_clw_dest {
    K *vals, *tvals;
    uint32_t *idx, *tidx;
    K T;
    uint32_t quota; /* the ties this block takes */
    bool ordered;   /* lowest-index, and the quota is part of the block's ties */
};

template <class K>
__device__ __forceinline__ pb_radik_clw_dest<K> pb_radik_clw_dest_of(const pb_radik_clw_smem<K> &s,
                                                                     const pb_radik_args<K> &a,
                                                                     uint32_t row, uint32_t take)
{
    pb_radik_clw_dest<K> d;
    const pb_radik_clw_piv<K> &v = s.piv;
    const uint32_t E = take - v.row_above;
    d.T = v.prefix;
    d.quota = E > v.before_in ? (E - v.before_in < v.own_in ? E - v.before_in : v.own_in) : 0;
    d.ordered = a.lowest && d.quota > 0 && d.quota < v.own_in;
    const uint64_t out = a.out_off[row];
    d.vals = a.vals + out + v.before_above;
    d.idx = a.idx + out + v.before_above;
    d.tvals = a.vals + out + v.row_above + v.before_in;
    d.tidx = a.idx + out + v.row_above + v.before_in;
    return d;
}

/* Writes the nc candidates' keys above T and the quota of ties
 * (lowest-index: the ties of the smallest indices, ranked by counting).
 * Returns whether the ties were too many to rank (the caller then takes
 * them in a read). */
template <int DT, int LG, class K>
__device__ __forceinline__ bool pb_radik_clw_write_cands(pb_radik_clw_smem<K> &s,
                                                         const pb_radik_clw_cands<K> &c,
                                                         uint32_t nc,
                                                         const pb_radik_clw_dest<K> &d)
{
    uint32_t *ctie = s.c.lane; /* free once the histograms are summed */
    for (uint32_t i0 = 0; i0 < nc; i0 += PB_RADIK_CL_BLOCK) {
        const uint32_t i = i0 + threadIdx.x;
        const K o = i < nc ? c.key[i] : (K)0;
        const bool gt = i < nc && o > d.T, eq = i < nc && o == d.T && d.quota > 0;
        if (__any_sync(0xffffffffu, gt)) {
            uint32_t at = pb_radik_cl_slots(&s.c.ctr[0], gt);
            if (gt) d.vals[at] = pb_radik_raw_dt<DT, LG>(o), d.idx[at] = c.idx[i];
        }
        if (!d.ordered && __any_sync(0xffffffffu, eq)) {
            uint32_t at = pb_radik_cl_slots(&s.c.ctr[1], eq);
            if (eq && at < d.quota) d.tvals[at] = pb_radik_raw_dt<DT, LG>(o), d.tidx[at] = c.idx[i];
        } else if (d.ordered && eq) {
            uint32_t t = atomicAdd(&s.c.nties, 1u);
            if (t < PB_RADIK_CL_TIES) ctie[t] = i;
        }
    }
    if (!d.ordered) return false;
    __syncthreads();
    const uint32_t nt = s.c.nties;
    if (nt > PB_RADIK_CL_TIES) return true;
    const K traw = pb_radik_raw_dt<DT, LG>(d.T);
    for (uint32_t t = threadIdx.x; t < nt; t += PB_RADIK_CL_BLOCK) {
        uint32_t mine = c.idx[ctie[t]], rank = 0;
        for (uint32_t j = 0; j < nt; j++) rank += c.idx[ctie[j]] < mine;
        if (rank < d.quota) d.tvals[rank] = traw, d.tidx[rank] = mine;
    }
    return false;
}

/* A read that writes as it goes: this block's keys above T (gt) from a
 * block counter, and its quota of ties in index order (a block scan a
 * sub-tile; under ties = any too: index order is one answer), ending
 * once the quota is full where no key above T is left to write. */
template <int DT, int LG, class K>
__device__ __forceinline__ void pb_radik_clw_write_read(pb_radik_clw_smem<K> &s,
                                                        const pb_radik_clw_part<K> &w,
                                                        const pb_radik_clw_dest<K> &d, bool gt)
{
    enum { P = 16 / sizeof(K) };
    const K traw = pb_radik_raw_dt<DT, LG>(d.T);
    uint32_t taken = 0; /* this block's ties met so far: the scans' running total */
    for (uint32_t base = w.pa; base < w.pb && (gt || taken < d.quota); base += PB_RADIK_CL_BLOCK) {
        const uint32_t p = base + threadIdx.x;
        const uint4 x = p < w.pb ? __ldcs(w.packs + p) : make_uint4(0, 0, 0, 0);
        uint32_t gm = 0, em = 0;
        K o[P];
#pragma unroll
        for (int e = 0; e < P; e++) {
            uint32_t i = P * p + e - w.head;
            o[e] = pb_radik_okey_dt<DT, LG>(pb_radik_clw_key(x, (K *)0, e));
            bool in = p < w.pb && i < w.len;
            gm |= (uint32_t)(in && o[e] > d.T) << e;
            em |= (uint32_t)(in && o[e] == d.T) << e;
        }
        if (gt && __any_sync(0xffffffffu, gm != 0)) {
            uint32_t at = pb_radik_cl_slots(&s.c.ctr[0], gm);
            for (uint32_t m = gm; m; m &= m - 1, at++) {
                uint32_t e = __ffs(m) - 1;
                d.vals[at] = pb_radik_raw_dt<DT, LG>(o[e]);
                d.idx[at] = P * p + e - w.head;
            }
        }
        if (taken >= d.quota) continue; /* block-uniform */
        uint32_t ex, all;
        pb_radik_cl_scan1(s.c.scan.s1).ExclusiveSum(__popc(em), ex, all);
        uint32_t at = taken + ex;
        for (uint32_t m = em; m && at < d.quota; m &= m - 1, at++) {
            d.tvals[at] = traw;
            d.tidx[at] = P * p + (__ffs(m) - 1) - w.head;
        }
        taken += all;
        __syncthreads(); /* the scan's storage is used again */
    }
}

/* The sample's threshold: the order key of rank r (0: the largest) among
 * PB_RADIK_SAMPLE keys of the row, found by every block alike (the same
 * keys, no cluster barrier), a digit at a time in a block histogram (at:
 * this lane's counter of digit 0). *ties: the sample keys equal to it.
 * The keys are whole 16-byte packs at random places in the row (a pack a
 * thread, two for 64-bit keys; radik's sample positions over the packs
 * wholly in the row): a batch's blocks all sample at once, and random
 * reads of single keys, four times as many, each a DRAM sector of its
 * own, took as long as the row's whole read. Neighbours drawn together
 * make the sample less random where a row's neighbours are alike (a
 * sorted row); that costs only a fallback to the reads, never an answer. */
template <int DT, int LG, class K>
__device__ __forceinline__ K pb_radik_clw_sample(pb_radik_clw_smem<K> &s, uint32_t at,
                                                 const pb_radik_clw_part<K> &w, uint32_t row,
                                                 uint32_t salt, uint32_t r, uint32_t *ties)
{
    enum { P = 16 / sizeof(K), NP = PB_RADIK_SAMPLE / P / PB_RADIK_CL_BLOCK, N = NP * P };
    enum { D = sizeof(K) };
    const uint32_t lo = w.head ? 1u : 0u, full = (w.head + w.len) / P - lo;
    uint4 x[NP];
#pragma unroll
    for (int j = 0; j < NP; j++)
        x[j] = __ldg(w.packs + lo +
                     pb_radik_sample_pos(threadIdx.x + j * PB_RADIK_CL_BLOCK, row, salt, full));
    K key[N];
#pragma unroll
    for (int j = 0; j < NP; j++)
#pragma unroll
        for (int e = 0; e < P; e++)
            key[j * P + e] = pb_radik_okey_dt<DT, LG>(pb_radik_clw_key(x[j], (K *)0, e));
    K prefix = 0;
    uint32_t above = 0;
    for (int d = 0; d < D; d++) {
        /* Lane counters, not atomics on 256 words: a digit of logits'
         * keys falls in a few bins, and a warp's atomics on one word
         * serialise. */
#pragma unroll
        for (int j = 0; j < N; j++)
            if (pb_radik_clw_match(key[j], prefix, d))
                pb_radik_cl_inc(at + (pb_radik_clw_digit(key[j], d) << 7));
        pb_radik_cl_reduce_to(s.c, s.c.samp, 256, 0);
        __syncthreads();
        uint32_t bin = 255 - threadIdx.x, n = threadIdx.x < 256 ? s.c.samp[bin & 255] : 0, incl;
        pb_radik_cl_scan1(s.c.scan.s1).InclusiveSum(n, incl);
        if (threadIdx.x < 256 && incl > r - above && incl - n <= r - above) {
            s.c.sel[0] = bin;
            s.c.sel[1] = above + incl - n;
        }
        __syncthreads();
        prefix |= (K)s.c.sel[0] << (8 * (D - 1 - d));
        above = s.c.sel[1];
        if (d == D - 1) *ties = s.c.samp[s.c.sel[0]];
        __syncthreads();
    }
    return prefix;
}

#endif /* __CUDA_ARCH__ >= 900 */

/* The kernel: grid (C, rows), clusters of C blocks along x (block rank =
 * blockIdx.x), one cluster a row; cap candidates of dynamic shared memory
 * (PB_RADIK_CLW_DYN_SMEM). k: the query's k; salt: the sample's (radik's,
 * from the problem's seed); filter: radik's `filter` (off: no sample;
 * overshoot: the sample's largest key as the threshold, so that most rows
 * fall back to the reads). The sample never changes the answer, only
 * where the rounds find it. */
template <class K, int DT, int LG>
__global__ void __launch_bounds__(PB_RADIK_CL_BLOCK, 2)
    pb_radik_cluster_w(pb_radik_args<K> a, uint64_t k, uint32_t salt, int filter)
{
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
    namespace cg = cooperative_groups;
    enum { P = 16 / sizeof(K), D = sizeof(K) };
    __shared__ pb_radik_clw_smem<K> s;
    extern __shared__ __align__(16) uint32_t pb_radik_clw_dyn[];
    const uint32_t cap = PB_RADIK_CLW_CAP(K);
    const pb_radik_clw_cands<K> cand = {reinterpret_cast<K *>(pb_radik_clw_dyn),
                                        pb_radik_clw_dyn + cap * (sizeof(K) / 4), cap};
    cg::cluster_group cl = cg::this_cluster();
    const uint32_t C = cl.num_blocks(), b = cl.block_rank(), row = blockIdx.y;
    const uint32_t at = (uint32_t)__cvta_generic_to_shared(s.c.lane) + (threadIdx.x & 31) * 4;
    const uint64_t rb = a.begin[row];
    const uint32_t len = (uint32_t)(a.end[row] - rb); /* below 2^31: radik.cu */
    const uint32_t take = (uint32_t)(k < len ? k : len);
    if (take == 0) return; /* the whole cluster: the row is its own */
    for (uint32_t i = threadIdx.x; i < 256 * 32; i += PB_RADIK_CL_BLOCK) s.c.lane[i] = 0;
    if (threadIdx.x < 2) s.c.ctr[threadIdx.x] = 0;
    if (threadIdx.x == 0) {
        s.c.ncand = s.c.nties = 0;
        s.piv = pb_radik_clw_piv<K>{0, 0, 0, 0, 0, 0, 0};
    }
    const pb_radik_clw_part<K> w = pb_radik_clw_part_of(a.data, rb, len, C, b);
    __syncthreads();

    /* The candidates' feed to a round: every one of the nc kept. */
    uint32_t nc = 0;
    auto from_cands = [&](auto inc) {
        for (uint32_t i = threadIdx.x; i < nc; i += PB_RADIK_CL_BLOCK) inc(cand.key[i]);
    };
    auto from_row = [&](auto inc) {
        pb_radik_clw_read<DT, LG, false, PB_RADIK_CL_BATCH>(w, [&](K o, uint32_t, bool in) {
            if (in) inc(o);
        });
    };
    int j = 0;          /* the next round */
    bool kept = false;  /* the rounds left run on candidates */

    /* The sample's threshold, where it may keep few enough keys: its rank
     * and ties in the sample, (r + ties) / 2048 of the row, within half
     * the cluster's room; rows the cluster keeps whole skip it. */
    const uint32_t r = filter == PB_RADIK_FILTER_OVERSHOOT ? 0
                       : take < w.len ? pb_radik_filter_rank(PB_RADIK_SAMPLE, take, w.len)
                                      : PB_RADIK_SAMPLE;
    const uint64_t room = (uint64_t)PB_RADIK_SAMPLE * cap * C / 2;
    if (filter != PB_RADIK_FILTER_OFF && w.len > cap && r < PB_RADIK_SAMPLE &&
        (uint64_t)(r + 1) * w.len <= room) {
        uint32_t ties = 0;
        const K thr = pb_radik_clw_sample<DT, LG>(s, at, w, row, salt, r, &ties);
        if ((uint64_t)(r + ties) * w.len <= room) {
            pb_radik_clw_gather<DT, LG>(s, cand, w, thr);
            cl.sync();
            /* The row's candidates (C <= 32: the first warp holds every
             * block's count), and whether a block ran out of room. */
            uint32_t n = threadIdx.x < C ? *cl.map_shared_rank(&s.c.ncand, threadIdx.x) : 0;
            const bool over = __syncthreads_or(n > cap);
            uint32_t sum = n;
#pragma unroll
            for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
            if (threadIdx.x == 0) s.c.sel[2] = sum;
            __syncthreads();
            kept = !over && s.c.sel[2] >= take;
            if (kept) nc = s.c.ncand;
            cl.sync(); /* every block has read this one's count */
            if (!kept && threadIdx.x == 0) s.c.ncand = 0;
            __syncthreads();
        }
    }
    /* Reads until the keys at or above the digits found fit one block. */
    while (!kept && j < D) {
        const uint32_t left = j == 0 ? w.len : s.piv.row_above + s.piv.row_in;
        if (left <= cap) {
            const K thr = j == 0 ? (K)0 : s.piv.prefix;
            pb_radik_clw_gather<DT, LG>(s, cand, w, thr);
            __syncthreads();
            nc = s.c.ncand;
            kept = true;
            break;
        }
        pb_radik_clw_round(s, cl, C, b, take, j, at, from_row);
        j++;
    }
    if (kept)
        for (; j < D; j++) pb_radik_clw_round(s, cl, C, b, take, j, at, from_cands);
    /* This block reads no other's shared memory from here on; it waits for
     * the others' reads of its own before it exits. */
    __cluster_barrier_arrive();
    const pb_radik_clw_dest<K> d = pb_radik_clw_dest_of(s, a, row, take);
    if (!kept)
        pb_radik_clw_write_read<DT, LG>(s, w, d, s.piv.own_above > 0);
    else if (pb_radik_clw_write_cands<DT, LG>(s, cand, nc, d))
        pb_radik_clw_write_read<DT, LG>(s, w, d, false);
    __cluster_barrier_wait();
#endif
}

#endif

/* gpu-rao-sandelius: the GPU Rao-Sandelius shuffle
 * (docs/gpu-rao-sandelius.md), equal bit for bit to its C model
 * (grs_twin.h, and the CPU module grs-twin). Second version: the
 * multisplits that move the whole array are coalesced passes that draw
 * their labels instead of storing them.
 *
 *   1. the first sort (labels of key_bits <= 8 by item index) and then
 *      `plan` levels of splits by position labels (level_bits <= 8) run
 *      over the whole array while the segments are larger than `target`
 *      items on average: each is one multisplit pass over tiles of 4096
 *      positions (a tile lies in one segment): a count kernel draws the
 *      tile's labels (sixteen a Philox block, nothing read) and counts
 *      them, CUB's scan turns the counts, laid out segment-major,
 *      label-major, tile-minor, into every (tile, label)'s place in the
 *      output, and a move kernel reads the tile, draws its labels again,
 *      orders it by label in shared memory (stable: warp ranks by ballots,
 *      as CUB's) and writes each label's run to its place (coalesced runs);
 *   2. one block a segment (fast_segment): at most `cap` items, split once
 *      in shared memory on 16-bit indices and its parts shuffled by
 *      Fisher-Yates on the indices (four steps a Philox block), the items
 *      written once through them. A larger segment, or one whose split
 *      made a part to split again, takes the general path: every level in
 *      global memory with a scratch buffer (a segment of at least BIG items
 *      split by the whole block, smaller ones a warp each, parts of at most
 *      `small` finished by one thread, the segments still to split in a
 *      list in global memory); the output never depends on the path.
 *
 * A segment of at most `small` items is not split at any level (the
 * model's rule): a pass moves it whole to its first sub-segment.
 * Records: a u32 permutation by the same kernels, then a record gather
 * (the model's output is a function of positions only).
 * Sample permutations (the quality battery) run the same kernels on a
 * batch: every permutation a segment of the first pass.
 *
 * gpu-l2-shuffle (docs/l2-shuffle.md) is the same shuffle in the L2
 * order: the last level's move and the segment kernel run a group of
 * segments at a time (l2s_plan.h), the move into an L2-sized slot and the
 * segment kernel from there, so that DRAM sees two passes, not three; a
 * segment larger than a slot is moved into the output (or the scratch) at
 * its own positions. The same kernels draw the same labels: the output is
 * the model's (cpu-l2-shuffle-twin models the order). */
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "algorithms/shuffle/rao_sandelius/grs_passes.cuh"
#include "algorithms/shuffle/rao_sandelius/grs_segment.cuh"
#include "algorithms/shuffle/rao_sandelius/grs_twin.h"
#include "algorithms/shuffle/rao_sandelius/l2s_plan.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "families/shuffle/gpu_records.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"

namespace {

enum { P_KEY_BITS, P_TARGET, P_LEVEL_BITS, P_SMALL, P_CAP, P_BUCKET_CAP, P_STREAMS };

/* The kernels: grs_kernel_args.cuh, grs_passes.cuh (stage 1) and
 * grs_segment.cuh (stage 2). */

/* ---- the module ---- */

/* Shared capacity in items: `cap`, or (0) 9216: 8192 (the default
 * target) and 12 standard deviations of a segment's size at 2^29, in 99
 * KiB for u64 (an item, an index and a label an item), so that two blocks
 * share an SM. At most 65535 (16-bit indices). */
uint32_t cap_of(const pb_params *p)
{
    return p->v[P_CAP] > 0 ? (uint32_t)p->v[P_CAP] : 9216u;
}

/* The plan for n: the first sort's bits, then levels over the whole array
 * while a segment holds more than max(target, small) items on average
 * (pb_grs_plan_levels). */
struct plan {
    unsigned kb, levels;
};

/* Events a traced run records at most: the start, a pass each, the end. */
constexpr int NEV = 42;

/* Buffers for `total` items in `count` permutations of n. */
struct work {
    uint64_t total, count, n;
    unsigned ib;
    grs_args g;
    plan pl;
    uint64_t nseg_max; /* segments after the last pass */
    uint32_t *ss, *se, *ns, *ne, *tc, *tstart, *H, *vals, *ls0, *le0, *ls1, *le1;
    void *scratch, *temp;
    size_t temp_bytes;
    /* PB_GRS_PHASES=1: events after the start and each pass and the
     * segment kernel, printed after each run (the print waits for the run,
     * so traced samples are not timings). */
    bool trace;
    int nev;
    cudaEvent_t ev[NEV];
    size_t smem; /* the segment kernel's dynamic shared memory */
    /* The L2 order (gpu-l2-shuffle): a slot of `slot` items, and the last
     * level's segments, tiles and groups on the host. */
    bool l2;
    uint64_t slot;
    void *ring;
    uint32_t *h_ss, *h_se, *h_ts;
    pb_l2s_group *groups;
    size_t ngroups, noverflow; /* the last run's, for PB_GRS_PHASES */
    /* streams = 2: group g on side[g & 1] with slot g & 1, so that one
     * group's move overlaps the other's finish; joined to the default
     * stream by events (ready before, done[] after). */
    int nstreams;
    cudaStream_t side[2];
    cudaEvent_t ready, done[2];
};

int mark(work *w, pb_err *err)
{
    if (!w->trace || w->nev >= NEV) return 0;
    if (!w->ev[w->nev]) PB_CUDA_TRY(cudaEventCreate(&w->ev[w->nev]), err);
    PB_CUDA_TRY(cudaEventRecord(w->ev[w->nev++]), err);
    return 0;
}

int print_phases(work *w, pb_err *err)
{
    if (!w->trace || w->nev < 2) return 0;
    PB_CUDA_TRY(cudaEventSynchronize(w->ev[w->nev - 1]), err);
    fprintf(stderr, "grs phases n=%llu item=%u key_bits=%u levels=%u:", (unsigned long long)w->n, w->ib, w->pl.kb,
            w->pl.levels);
    for (int i = 1; i < w->nev; i++) {
        float ms = 0;
        PB_CUDA_TRY(cudaEventElapsedTime(&ms, w->ev[i - 1], w->ev[i]), err);
        const char *what = i == w->nev - 1 ? (w->l2 ? "last level by groups" : "segments")
                           : (i == 1 && w->pl.kb) ? "first sort" : "level";
        fprintf(stderr, " %s %.3f ms%s", what, ms, i == w->nev - 1 ? "" : ",");
    }
    if (w->l2)
        fprintf(stderr, " (%zu groups, %zu overflows, slot %llu items)", w->ngroups, w->noverflow,
                (unsigned long long)w->slot);
    fputc('\n', stderr);
    return 0;
}

void work_free(work *w)
{
    for (int i = 0; i < NEV; i++)
        if (w->ev[i]) cudaEventDestroy(w->ev[i]);
    void *p[] = {w->ss, w->se, w->ns, w->ne, w->tc, w->tstart, w->H, w->vals,
                 w->ls0, w->le0, w->ls1, w->le1, w->scratch, w->temp, w->ring};
    for (void *q : p) cudaFree(q);
    free(w->h_ss), free(w->h_se), free(w->h_ts), free(w->groups);
    for (int i = 0; i < 2; i++) {
        if (w->side[i]) cudaStreamDestroy(w->side[i]);
        if (w->done[i]) cudaEventDestroy(w->done[i]);
    }
    if (w->ready) cudaEventDestroy(w->ready);
    memset(w, 0, sizeof *w);
}

int work_alloc(work *w, const pb_params *p, uint64_t n, uint64_t count, unsigned ib, uint64_t seed, bool identity,
               bool l2, pb_err *err)
{
    pb_grs_shape sh = pb_grs_shape_of(p->v, n);
    w->n = n, w->count = count, w->total = n * count, w->ib = ib;
    w->g.k = pb_grs_key(seed);
    w->g.n = n;
    w->g.lb = sh.level_bits;
    w->g.small = sh.small;
    w->g.cap = cap_of(p);
    const char *tr = getenv("PB_GRS_PHASES");
    w->trace = tr && *tr && strcmp(tr, "0") != 0;
    if (sh.key_bits > 8)
        return pb_err_set(err, "gpu-rao-sandelius: key_bits %u: at most 8 (one pass of the first sort)", sh.key_bits);
    if (w->g.lb > 8) return pb_err_set(err, "gpu-rao-sandelius: level_bits %u: at most 8 (256 parts)", w->g.lb);
    w->pl.kb = sh.key_bits;
    w->pl.levels = pb_grs_plan_levels(&sh, n, (uint64_t)p->v[P_TARGET]);
    const unsigned shift = w->pl.kb + w->pl.levels * w->g.lb;
    if (shift > 30 || (count << shift) > (UINT64_C(1) << 31))
        return pb_err_set(err, "gpu-rao-sandelius: the shape makes %llu x 2^%u segments; raise target or small",
                          (unsigned long long)count, shift);
    w->nseg_max = count << shift;
    /* The largest pass's count cells: (tiles + its segments) << its bits. */
    const uint64_t tiles = (w->total + TILE - 1) / TILE;
    uint64_t nseg_in = count, cells = 1;
    for (unsigned l = 0; l <= w->pl.levels; l++) {
        unsigned bits = l == 0 ? w->pl.kb : w->g.lb;
        if (!bits) continue;
        uint64_t c = (tiles + nseg_in) << bits;
        if (c > cells) cells = c;
        nseg_in <<= bits;
    }
    const size_t t = (size_t)(w->total ? w->total : 1), segs = (size_t)w->nseg_max;
    PB_CUDA_TRY(cudaMalloc(&w->ss, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->se, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ns, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ne, segs * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->tc, (segs + 1) * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->tstart, (segs + 1) * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->H, cells * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ls0, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->le0, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->ls1, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->le1, t * 4), err);
    PB_CUDA_TRY(cudaMalloc(&w->scratch, t * ib), err);
    if (identity) {
        /* The identity the batch (or the records' permutation) starts
         * from, once: the passes never write it. */
        PB_CUDA_TRY(cudaMalloc(&w->vals, t * 4), err);
        if (w->total) { /* no grid of zero blocks: n = 0 has nothing to name */
            batch_identity<<<pb_grid_for(w->total, 256), 256>>>(w->vals, w->n, w->total);
            PB_CUDA_LAUNCHED(err);
        }
    }
    /* The segment kernel's shared memory: the fast path's items, indices
     * and labels, or the general path's counts, whichever is larger. */
    w->smem = ((size_t)w->g.cap * (ib + 3) + 15) & ~(size_t)15;
    if (w->smem < sizeof(block_shared)) w->smem = sizeof(block_shared);
    if (ib == 4)
        PB_CUDA_TRY(cudaFuncSetAttribute(shuffle_segments<uint32_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)w->smem),
                    err);
    else
        PB_CUDA_TRY(cudaFuncSetAttribute(shuffle_segments<uint64_t>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         (int)w->smem),
                    err);
    size_t b1 = 0, b2 = 0;
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, b1, w->tc, w->tstart, segs + 1), err);
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, b2, w->H, w->H, cells), err);
    w->temp_bytes = b1 > b2 ? b1 : b2;
    PB_CUDA_TRY(cudaMalloc(&w->temp, w->temp_bytes ? w->temp_bytes : 16), err);
    /* The L2 order: the slot, and room on the host for the segments of
     * the last level (before its split) and their groups. */
    w->l2 = l2 && w->pl.levels > 0;
    if (w->l2) {
        int dev = 0, l2b = 0;
        PB_CUDA_TRY(cudaGetDevice(&dev), err);
        PB_CUDA_TRY(cudaDeviceGetAttribute(&l2b, cudaDevAttrL2CacheSize, dev), err);
        w->nstreams = (int)p->v[P_STREAMS];
        w->slot = pb_l2s_slot_items(p->v[P_BUCKET_CAP], (uint64_t)l2b, (unsigned)w->nstreams, ib);
        const uint64_t slot_alloc = w->slot < w->total ? w->slot : w->total;
        const size_t lsegs = (size_t)(count << (w->pl.kb + (w->pl.levels - 1) * w->g.lb));
        PB_CUDA_TRY(cudaMalloc(&w->ring, (size_t)(w->nstreams * slot_alloc * ib)), err);
        if (w->nstreams == 2) {
            PB_CUDA_TRY(cudaEventCreateWithFlags(&w->ready, cudaEventDisableTiming), err);
            for (int i = 0; i < 2; i++) {
                PB_CUDA_TRY(cudaStreamCreateWithFlags(&w->side[i], cudaStreamNonBlocking), err);
                PB_CUDA_TRY(cudaEventCreateWithFlags(&w->done[i], cudaEventDisableTiming), err);
            }
        }
        w->h_ss = (uint32_t *)malloc(lsegs * 4);
        w->h_se = (uint32_t *)malloc(lsegs * 4);
        w->h_ts = (uint32_t *)malloc((lsegs + 1) * 4);
        w->groups = (pb_l2s_group *)malloc(lsegs * sizeof *w->groups);
        if (!w->h_ss || !w->h_se || !w->h_ts || !w->groups) return pb_err_set(err, "gpu-l2-shuffle: out of memory");
    }
    return 0;
}

/* The counts of a multisplit pass over the current segments (w->ss,
 * w->se; nseg of them): each segment's first tile (tstart) and, scanned,
 * each (tile, label)'s place in the output (H). Nothing is read: the
 * labels are drawn. */
int count_pass(work *w, const pass_args &a, uint64_t nseg, pb_err *err)
{
    const uint64_t upper = (w->total + TILE - 1) / TILE + nseg;
    const size_t cells = (size_t)upper << a.bits;
    tile_counts<<<pb_grid_for(nseg + 1, 256), 256>>>((uint32_t)nseg, w->ss, w->se, w->tc);
    PB_CUDA_LAUNCHED(err);
    size_t tb = w->temp_bytes;
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(w->temp, tb, w->tc, w->tstart, nseg + 1), err);
    PB_CUDA_TRY(cudaMemsetAsync(w->H, 0, cells * 4), err);
    pass_count<<<(unsigned)upper, PT>>>(a, w->ss, w->se, w->tstart, w->H);
    PB_CUDA_LAUNCHED(err);
    tb = w->temp_bytes;
    /* In place (CUB scans in place when input and output are one): the
     * counts become each (tile, label)'s place. */
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(w->temp, tb, w->H, w->H, cells), err);
    return 0;
}

/* The segments after a counted pass: (s, label) pairs, into w->ns, w->ne. */
int pass_segments(work *w, const pass_args &a, uint64_t nseg, pb_err *err)
{
    next_segments<<<pb_grid_for(nseg << a.bits, 256), 256>>>((uint32_t)nseg, a.bits, w->ss, w->se, w->tstart, w->H,
                                                             w->ns, w->ne);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

void swap_segments(work *w)
{
    uint32_t *x = w->ss;
    w->ss = w->ns, w->ns = x, x = w->se, w->se = w->ne, w->ne = x;
}

/* One multisplit pass over the current segments (w->ss, w->se; nseg of
 * them): src -> dst, then the segments become (s, label) pairs. */
template <typename T>
int run_pass(work *w, uint32_t w1, uint32_t tag, uint32_t bits, uint32_t small, uint64_t nseg, const T *src, T *dst,
             pb_err *err)
{
    const pass_args a = {w->g.k, w->g.first, w->n, w1, tag, bits, small, (uint32_t)nseg, 0, 0};
    const uint64_t upper = (w->total + TILE - 1) / TILE + nseg;
    if (count_pass(w, a, nseg, err)) return -1;
    pass_move<T><<<(unsigned)upper, PT>>>(a, w->ss, w->se, w->tstart, w->H, src, dst);
    PB_CUDA_LAUNCHED(err);
    if (pass_segments(w, a, nseg, err)) return -1;
    swap_segments(w);
    return 0;
}

/* The L2 order's last level, at depth `level` over the nseg current
 * segments of cur (docs/l2-shuffle.md): counted for all of them, the
 * segments and their first tiles copied to the host and cut into groups
 * of at most a slot's items; then a group at a time, its tiles moved into
 * the slot (position P at slot[P - group start]) and its parts shuffled
 * from there into out by the segment kernel. A segment larger than a slot
 * is moved at its own positions into whichever of out and A is not cur,
 * and shuffled from there (in place when that is out: the segment kernel
 * reads a part whole before it writes it). The segment kernel's general
 * path takes A as its scratch: a group's region of A is free once the
 * group has been moved (or, when cur is out, since the level before). */
template <typename T>
int l2_last_level(work *w, uint32_t level, uint64_t nseg, const T *cur, T *out, T *A, pb_err *err)
{
    pass_args a = {w->g.k, w->g.first, w->n, level, PB_GRS_TAG_LEVEL, w->g.lb, w->g.small, (uint32_t)nseg, 0, 0};
    if (count_pass(w, a, nseg, err) || pass_segments(w, a, nseg, err)) return -1;
    PB_CUDA_TRY(cudaMemcpy(w->h_ss, w->ss, nseg * 4, cudaMemcpyDeviceToHost), err);
    PB_CUDA_TRY(cudaMemcpy(w->h_se, w->se, nseg * 4, cudaMemcpyDeviceToHost), err);
    PB_CUDA_TRY(cudaMemcpy(w->h_ts, w->tstart, (nseg + 1) * 4, cudaMemcpyDeviceToHost), err);
    const size_t ng = pb_l2s_plan_groups(w->h_ss, w->h_se, (size_t)nseg, w->slot, w->groups);
    w->ngroups = ng, w->noverflow = 0;
    if (w->trace) /* for print_phases only: nothing more in a timed run */
        for (size_t gi = 0; gi < ng; gi++) w->noverflow += w->groups[gi].overflow != 0;
    const uint64_t slot_alloc = w->slot < w->total ? w->slot : w->total;
    const bool two = w->nstreams == 2;
    if (two) { /* the side streams start after the counts */
        PB_CUDA_TRY(cudaEventRecord(w->ready, 0), err);
        for (int i = 0; i < 2; i++) PB_CUDA_TRY(cudaStreamWaitEvent(w->side[i], w->ready, 0), err);
    }
    for (size_t gi = 0; gi < ng; gi++) {
        const pb_l2s_group &g = w->groups[gi];
        /* Group gi's slot and stream: gi & 1 of two, so that a slot is
         * reused only after the group before it on the same stream. */
        const int si = two ? (int)(gi & 1) : 0;
        const cudaStream_t st = two ? w->side[si] : 0;
        T *dst = g.overflow ? (cur == A ? out : A) : (T *)w->ring + si * slot_alloc;
        const uint32_t base = g.overflow ? 0 : g.start;
        const uint32_t t0 = w->h_ts[g.seg_lo], t1 = w->h_ts[g.seg_hi];
        if (t1 > t0) {
            a.tile0 = t0;
            a.dst_base = base;
            pass_move<T><<<t1 - t0, PT, 0, st>>>(a, w->ss, w->se, w->tstart, w->H, cur, dst);
            PB_CUDA_LAUNCHED(err);
        }
        const uint64_t p0 = (uint64_t)g.seg_lo << w->g.lb, np = (uint64_t)(g.seg_hi - g.seg_lo) << w->g.lb;
        shuffle_segments<T><<<(unsigned)np, BT, w->smem, st>>>(dst, base, out, A, w->ns + p0, w->ne + p0, w->g,
                                                                level + 1, w->ls0, w->le0, w->ls1, w->le1);
        PB_CUDA_LAUNCHED(err);
    }
    if (two) /* and the default stream goes on after both */
        for (int i = 0; i < 2; i++) {
            PB_CUDA_TRY(cudaEventRecord(w->done[i], w->side[i]), err);
            PB_CUDA_TRY(cudaStreamWaitEvent(0, w->done[i], 0), err);
        }
    swap_segments(w);
    return 0;
}

/* The whole shuffle for `first`: in -> out (count == 1; in may be NULL
 * for the identity), or the identity permutations into out. */
template <typename T> int shuffle_typed(work *w, const T *in, T *out, uint64_t first, pb_err *err)
{
    if (w->total == 0) return 0;
    w->g.first = first;
    w->nev = 0;
    if (mark(w, err)) return -1;
    if (!in) in = (const T *)w->vals;
    first_segments<<<pb_grid_for(w->count, 256), 256>>>(w->n, (uint32_t)w->count, w->ss, w->se);
    PB_CUDA_LAUNCHED(err);
    /* Passes alternate between out and scratch; the segment kernel reads
     * the last one's output (or the input) and writes out. */
    T *buf[2] = {out, (T *)w->scratch};
    const T *cur = in;
    uint64_t nseg = w->count;
    int k = 0;
    if (w->pl.kb) {
        if (run_pass<T>(w, 0, PB_GRS_TAG_KEY, w->pl.kb, 0, nseg, cur, buf[k & 1], err)) return -1;
        cur = buf[k++ & 1];
        nseg <<= w->pl.kb;
        if (mark(w, err)) return -1;
    }
    /* The L2 order splits its last level by groups below. */
    const unsigned whole = w->l2 ? w->pl.levels - 1 : w->pl.levels;
    for (unsigned l = 0; l < whole; l++) {
        if (run_pass<T>(w, l, PB_GRS_TAG_LEVEL, w->g.lb, w->g.small, nseg, cur, buf[k & 1], err)) return -1;
        cur = buf[k++ & 1];
        nseg <<= w->g.lb;
        if (mark(w, err)) return -1;
    }
    if (w->l2) {
        if (l2_last_level<T>(w, whole, nseg, cur, out, (T *)w->scratch, err)) return -1;
    } else {
        shuffle_segments<T><<<(unsigned)nseg, BT, w->smem>>>(cur, 0, out, (T *)w->scratch, w->ss, w->se, w->g,
                                                          w->pl.levels, w->ls0, w->le0, w->ls1, w->le1);
        PB_CUDA_LAUNCHED(err);
    }
    if (mark(w, err)) return -1;
    return print_phases(w, err);
}

struct state {
    void *bufs; /* first: the _via helpers */
    work w;
    uint32_t *perm; /* records: the permutation of indices */
    const char *name;
};

/* The two modules' names: the order of the passes (false) and the L2
 * order (true). */
const char *name_of(bool l2) { return l2 ? "gpu-l2-shuffle" : "gpu-rao-sandelius"; }

int prepare_as(bool l2, const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    s->name = name_of(l2);
    if (pt->n >= (UINT64_C(1) << 32))
        return pb_err_set(err, "%s: %llu items, beyond 2^32 - 1", s->name, (unsigned long long)pt->n);
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    const bool rec = pt->item_bytes != 4 && pt->item_bytes != 8;
    if (rec) PB_CUDA_TRY(cudaMalloc(&s->perm, (pt->n ? pt->n : 1) * 4), err);
    return work_alloc(&s->w, pt->params, pt->n, 1, rec ? 4 : pt->item_bytes, pt->seed, rec, l2, err);
}

int prepare(const pb_point *pt, void **out_state, pb_err *err) { return prepare_as(false, pt, out_state, err); }
int l2_prepare(const pb_point *pt, void **out_state, pb_err *err) { return prepare_as(true, pt, out_state, err); }

/* gpu-l2-shuffle's path at a point: "groups" when a level runs by groups
 * through the slot, "passes" when the plan has no level (n at most the
 * target's bucket size: gpu-rao-sandelius's order). */
const char *l2_path(void *st)
{
    const state *s = (const state *)st;
    return s && s->w.l2 ? "groups" : "passes";
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    if (sample >= PB_GRS_MAX_SAMPLE) return pb_err_set(err, "%s: sample beyond 2^62", s->name);
    if (s->perm) {
        if (shuffle_typed<uint32_t>(&s->w, nullptr, s->perm, sample, err)) return -1;
        return pb_gpu_gather_records_u32(b->d_in, b->d_out, s->perm, s->w.n, b->pt.item_bytes, nullptr, err);
    }
    if (s->w.ib == 4) return shuffle_typed<uint32_t>(&s->w, (const uint32_t *)b->d_in, (uint32_t *)b->d_out, sample, err);
    return shuffle_typed<uint64_t>(&s->w, (const uint64_t *)b->d_in, (uint64_t *)b->d_out, sample, err);
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    work_free(&s->w);
    cudaFree(s->perm);
    pb_gpu_shuffle_release(s->bufs);
    free(s);
}

uint64_t footprint(const pb_point *pt)
{
    /* scratch (or, records, the permutation, its scratch and the
     * identity), four list arrays, the pass counts (a word a label a tile)
     * and the segment tables */
    const uint64_t ib = pt->item_bytes == 4 || pt->item_bytes == 8 ? pt->item_bytes : 12;
    return pb_gpu_shuffle_footprint(pt) + pt->n * (ib + 16) + (pt->n / TILE + 2) * 2048 + (64u << 20);
}

/* The L2 order's too, and its ring as work_alloc sizes it: `streams`
 * slots of at most n items, each bucket_cap items or the device's L2
 * shared out (pb_l2s_slot_items); an L2 the runtime does not report is
 * taken as 256 MiB, more than any GPU's. */
uint64_t l2_footprint(const pb_point *pt)
{
    const bool rec = pt->item_bytes != 4 && pt->item_bytes != 8;
    const unsigned ib = rec ? 4 : pt->item_bytes;
    const unsigned streams = (unsigned)pt->params->v[P_STREAMS];
    int dev = 0, l2b = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&l2b, cudaDevAttrL2CacheSize, dev) != cudaSuccess ||
        l2b <= 0) {
        (void)cudaGetLastError();
        l2b = 256 << 20;
    }
    uint64_t slot = pb_l2s_slot_items(pt->params->v[P_BUCKET_CAP], (uint64_t)l2b, streams, ib);
    if (slot > pt->n) slot = pt->n;
    return footprint(pt) + streams * (slot ? slot : 1) * ib;
}

int sample_perms_as(bool l2, const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                    uint32_t *out, pb_err *err)
{
    if (count == 0 || n == 0) return 0;
    if (first + count > PB_GRS_MAX_SAMPLE) return pb_err_set(err, "%s: samples beyond 2^62", name_of(l2));
    /* Batches of at most 2^22 items, and one permutation at least. */
    uint64_t per = (UINT64_C(1) << 22) / n;
    if (per < 1) per = 1;
    int rc = 0;
    for (uint64_t done = 0; !rc && done < count; done += per) {
        uint64_t c = count - done < per ? count - done : per;
        work w;
        memset(&w, 0, sizeof w);
        uint32_t *d = nullptr;
        rc = work_alloc(&w, params, n, c, 4, seed, true, l2, err);
        if (!rc && cudaMalloc(&d, (size_t)c * n * 4) != cudaSuccess) rc = pb_err_set(err, "sample_perms: no device memory");
        if (!rc) rc = shuffle_typed<uint32_t>(&w, nullptr, d, first + done, err);
        if (!rc) {
            cudaError_t e = cudaMemcpy(out + done * n, d, (size_t)c * n * 4, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) rc = pb_err_set(err, "sample_perms: %s", cudaGetErrorString(e));
        }
        cudaFree(d);
        work_free(&w);
    }
    return rc;
}

int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count, uint32_t *out,
                 pb_err *err)
{
    return sample_perms_as(false, params, n, seed, first, count, out, err);
}

int l2_sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                    uint32_t *out, pb_err *err)
{
    return sample_perms_as(true, params, n, seed, first, count, out, err);
}

/* The segment kernel's shared-memory capacity, both modules' last. */
#define GRS_CAP_PARAM                                                                                              \
    {"cap", PB_PARAM_INT, 0, 0, 16384, NULL,                                                                     \
     "items a segment may hold to be worked on in shared memory; larger ones go through global memory "          \
     "(0: 9216; small values force the global path, for tests)"}

const pb_param_spec params[] = {
    PB_GRS_SHAPE_PARAMS(8), /* 256 parts at most: a pass's and a block's label counts */
    GRS_CAP_PARAM,
};

/* gpu-l2-shuffle's: the same, its slot's size (l2s_plan.h) and its
 * streams. */
const pb_param_spec l2_params[] = {
    PB_GRS_SHAPE_PARAMS(8),
    GRS_CAP_PARAM,
    PB_L2S_PARAMS,
    {"streams", PB_PARAM_INT, 1, 1, 2, NULL,
     "1: the groups one after another through one slot; 2: alternate groups on two streams with a slot each, "
     "one group's move overlapping the other's finish (slots of a third of the L2); same output"},
};

} // namespace

PB_SHUFFLE_MODULE(gpu_rao_sandelius, "gpu-rao-sandelius", pb_shuffle_gpu_via_hooks, sample_perms,
    .summary = "GPU Rao-Sandelius: coalesced multisplit passes by drawn random labels, then each segment split by "
               "random labels in shared memory and finished by Fisher-Yates; exactly uniform, equal to cpu-rao-sandelius-twin",
    PB_PARAMS(params), .max_n = (UINT64_C(1) << 32) - 1, .footprint = footprint, .prepare = prepare,
    .run = run, .release = release);

/* Written out rather than by PB_SHUFFLE_MODULE, which puts .ext last:
 * C++ takes designated initializers in declaration order, and .path comes
 * after .ext. */
static const pb_shuffle_hooks gpu_l2_shuffle_ext = {.sample_perms = l2_sample_perms, .links = NULL};
PB_MODULE_DEF(gpu_l2_shuffle, "gpu-l2-shuffle", pb_shuffle_gpu_via_hooks,
    .summary = "GPU Rao-Sandelius in the L2 order: the first split over the array, then the last level and the "
               "finish a group of buckets at a time through an L2-sized slot (two DRAM passes, not three); exactly "
               "uniform, equal to cpu-l2-shuffle-twin and cpu-rao-sandelius-twin",
    PB_PARAMS(l2_params), .max_n = (UINT64_C(1) << 32) - 1, .footprint = l2_footprint, .prepare = l2_prepare,
    .run = run, .release = release, .ext = &gpu_l2_shuffle_ext, .path = l2_path);

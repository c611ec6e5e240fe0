/* dist-shuffle: the exactly uniform shuffle of an array split over G GPUs of
 * one host (docs/distributed.md), and dist-exchange, its
 * exchange alone: the all-to-all ceiling it is measured against.
 *
 * One process drives every GPU (devices 0 .. G-1): the harness is one
 * process, its timer is CUDA events on device 0, and one process can time
 * "first launch to the last device's completion" by making device 0's
 * stream wait on every device's last event. Per sample, device s:
 *   1. draws every item's destination from its Philox counter (global
 *      index, sample: pb_dist_dest) and counts them (G counters);
 *   2. orders its slice by destination, stably (CUB's radix sort on the
 *      destination's bits; records: their indices, then a record gather);
 *   3. the host reads the G x G counts (NCCL needs a send's size on the
 *      host), then one NCCL group sends every block to its device, each
 *      landing after the blocks of lower sources (a device's own block is a
 *      copy on its stream): device d holds its items in global order;
 *   4. shuffles what it received with bijective2's kernels, stream
 *      pb_dist_stream(sample, d).
 * The output is the parts in device order; it equals pb_dist_twin_shuffle
 * bit for bit (tests/test_gpu_dist.c). Without NCCL the module runs on one
 * device and says why it cannot take more.
 *
 * The harness sees the whole output on device 0: the input is made there
 * (the family's items) and each device's slice copied from it, and the
 * other devices' parts are copied back after the run for the check. Both
 * copies are untimed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cub/cub.cuh>

#include "algorithms/shuffle/bijective/gpu_bijective.cuh"
#include "algorithms/shuffle/distributed/dist_comms.h"
#include "algorithms/shuffle/distributed/dist_exchange.h"
#include "algorithms/shuffle/distributed/dist_kernels.cuh"
#include "algorithms/shuffle/distributed/dist_state.cuh"
#include "algorithms/shuffle/distributed/dist_topology.h"
#include "algorithms/shuffle/distributed/dist_twin.h"
#include "algorithms/shuffle/distributed/gpu_dist_shuffle.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "families/shuffle/gpu_records.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"

namespace {

/* The communicators, the exchange and the topology report live in files of
 * their own (dist_comms, dist_exchange, dist_topology). */
using pb_dist::comms_free;
using pb_dist::comms_init;
using pb_dist::exchange;
using pb_dist::plan_from_counts;
using pb_dist::plan_offsets;

enum { P_DEVICES, P_BIJECTION, P_ROUNDS, P_SPLIT, P_CHUNKS };
enum { SPLIT_FUSED, SPLIT_CUB };

/* ---- the module's state and kernels: dist_state.cuh, dist_kernels.cuh ---- */

int host_gpus(void)
{
    int have = 0;
    if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
    cudaGetLastError();
    return have;
}

/* devices = 0: every GPU of this host (at most G_MAX), as threads = 0 is
 * every core; at least 1. */
uint32_t devices_of(const pb_params *params)
{
    long long v = params ? params->v[P_DEVICES] : 0;
    if (v > 0) return (uint32_t)v;
    int have = host_gpus();
    return have < 1 ? 1 : have > G_MAX ? G_MAX : (uint32_t)have;
}

bool available(const pb_params *params, char *why, size_t whylen)
{
    uint32_t G = devices_of(params);
    int have = host_gpus();
    if ((int)G > have) {
        snprintf(why, whylen, "devices = %u, and this host has %d GPU%s", G, have, have == 1 ? "" : "s");
        return false;
    }
#ifndef PB_HAVE_NCCL
    if (G > 1) {
        snprintf(why, whylen, "devices = %u needs NCCL, and this build found none (CMake: PB_NCCL_ROOT)", G);
        return false;
    }
#endif
    return true;
}

/* Receive capacity a device: its expected share plus 32 standard
 * deviations of the binomial part (sd <= sqrt(n) / 2): exceeded with
 * probability below e^-500. A part beyond it fails the run, loudly. */
uint64_t cap_of(uint64_t n, uint32_t G)
{
    if (G == 1) return n;
    double c = (double)n / G + 16.0 * sqrt((double)n) + 1024;
    return c >= (double)n ? n : (uint64_t)c;
}

/* CUB's scratch for the split's sort: 8-byte items as values, or 4-byte
 * ones (u32 items, records' indices). */
cudaError_t sort_temp_bytes(uint64_t len, unsigned ib, uint32_t G, size_t *bytes)
{
    int end = (int)bits_for(G);
    if (ib == 8)
        return cub::DeviceRadixSort::SortPairs(nullptr, *bytes, (const uint8_t *)nullptr, (uint8_t *)nullptr,
                                               (const uint64_t *)nullptr, (uint64_t *)nullptr, len, 0, end);
    return cub::DeviceRadixSort::SortPairs(nullptr, *bytes, (const uint8_t *)nullptr, (uint8_t *)nullptr,
                                           (const uint32_t *)nullptr, (uint32_t *)nullptr, len, 0, end);
}

/* The split's buffers on the current device: the ordered slice, the
 * counts, and the keys and CUB scratch (split = cub, records) or the tile
 * counts and their scan (fused). */
int alloc_split(state *s, dev_state *d, pb_err *err)
{
    const unsigned ib = s->ib;
    size_t slice = (d->len ? d->len : 1) * ib;
    PB_CUDA_TRY(cudaMalloc(&d->sorted, slice), err);
    PB_CUDA_TRY(cudaMalloc(&d->counts, (size_t)pieces(s) * G_MAX * sizeof(unsigned long long)), err);
    if (s->fused) {
        d->tiles = (d->len + (d->lo & 3) + SPLIT_TILE - 1) / SPLIT_TILE;
        size_t cells = (size_t)s->G * (d->tiles ? d->tiles : 1);
        PB_CUDA_TRY(cudaMalloc(&d->tile_counts, cells * 8), err);
        PB_CUDA_TRY(cudaMalloc(&d->tile_offsets, cells * 8), err);
        PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, d->temp_bytes, d->tile_counts, d->tile_offsets, cells),
                    err);
    } else {
        PB_CUDA_TRY(cudaMalloc(&d->keys, d->len + 1), err);
        PB_CUDA_TRY(cudaMalloc(&d->keys_out, d->len + 1), err);
        if (pb_shuffle_is_record(ib)) {
            PB_CUDA_TRY(cudaMalloc(&d->idx, (d->len + 1) * 4), err);
            PB_CUDA_TRY(cudaMalloc(&d->idx_out, (d->len + 1) * 4), err);
        }
        PB_CUDA_TRY(sort_temp_bytes(d->len, ib, s->G, &d->temp_bytes), err);
    }
    PB_CUDA_TRY(cudaMalloc(&d->temp, d->temp_bytes ? d->temp_bytes : 16), err);
    return 0;
}

int refresh(void *st, pb_err *err);

int prepare_common(bool exchange_only, const pb_point *pt, void **out_state, pb_err *err)
{
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    *out_state = s;
    char why[256];
    if (!available(pt->params, why, sizeof why)) return pb_err_set(err, "%s", why);
    s->exchange_only = exchange_only;
    s->G = devices_of(pt->params);
    if (!exchange_only) {
        s->kind = (pb_bij_kind)pt->params->v[P_BIJECTION];
        s->rounds = (int)pt->params->v[P_ROUNDS];
        s->fused = pt->params->v[P_SPLIT] == SPLIT_FUSED && !pb_shuffle_is_record(pt->item_bytes);
        /* auto: pieces of about 2 GiB of items, at most 16. A piece's
         * exchange has a fixed cost, and NCCL's kernels share the SMs with
         * the ordering, so many small pieces lose what the overlap gains
         * and one piece gains nothing (PB_DIST_PHASES' piece timelines;
         * docs/measured.md). */
        uint64_t k = pt->params->v[P_CHUNKS];
        uint64_t per = pb_dist_slice(pt->n, devices_of(pt->params), 1) * pt->item_bytes >> 31;
        if (k == 0) k = per < 1 ? 1 : per > 16 ? 16 : per;
        s->K = s->fused || devices_of(pt->params) < 2 ? 1 : (uint32_t)k;
    }
    s->n = pt->n;
    s->seed = pt->seed;
    s->ib = pt->item_bytes;
    s->cap = cap_of(s->n, s->G);
    s->p.G = s->G;
    const char *tr = getenv("PB_DIST_PHASES");
    s->trace = tr && *tr && strcmp(tr, "0") != 0;
    PB_CUDA_TRY(cudaSetDevice(0), err);
    if (pb_gpu_shuffle_prepare(pt, &s->bufs, err)) return -1;
    if (comms_init(&s->c, s->G, err)) return -1;
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    const unsigned ib = s->ib;
    const uint64_t cap = s->cap ? s->cap : 1;
    for (uint32_t g = 0; g < s->G; g++) {
        dev_state *d = &s->d[g];
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        for (uint32_t h = 0; h < s->G; h++) {
            if (h == g) continue;
            int can = 0;
            PB_CUDA_TRY(cudaDeviceCanAccessPeer(&can, (int)g, (int)h), err);
            if (can) {
                cudaError_t e = cudaDeviceEnablePeerAccess((int)h, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
                    return pb_err_set(err, "peer access %u -> %u: %s", g, h, cudaGetErrorString(e));
                cudaGetLastError();
            }
        }
        PB_CUDA_TRY(cudaEventCreateWithFlags(&d->done, cudaEventDisableTiming), err);
        if (s->G > 1 && !exchange_only) {
            PB_CUDA_TRY(cudaEventCreateWithFlags(&d->counted, cudaEventDisableTiming), err);
            PB_CUDA_TRY(cudaEventCreateWithFlags(&d->xdone, cudaEventDisableTiming), err);
            for (uint32_t c = 0; c < pieces(s); c++) {
                PB_CUDA_TRY(cudaEventCreateWithFlags(&d->piece[c], cudaEventDisableTiming), err);
                if (s->trace)
                    for (int k = 0; k < 3; k++) PB_CUDA_TRY(cudaEventCreate(&d->tp[c][k]), err);
            }
        }
        if (s->trace)
            for (int k = 0; k < 4; k++) PB_CUDA_TRY(cudaEventCreate(&d->phase[k]), err);
        d->lo = pb_dist_slice(s->n, s->G, g);
        d->len = pb_dist_slice(s->n, s->G, g + 1) - d->lo;
        size_t slice = (d->len ? d->len : 1) * ib;
        if (g == 0) {
            d->in = (char *)b->d_in + d->lo * ib;
        } else {
            PB_CUDA_TRY(cudaMalloc(&d->own_in, slice), err);
            d->in = d->own_in;
        }
        if (g == 0) d->out = b->d_out;
        else PB_CUDA_TRY(cudaMalloc(&d->out, cap * ib), err);
        if (exchange_only) continue;
        if (s->G > 1) {
            PB_CUDA_TRY(cudaMalloc(&d->recv, cap * ib), err);
            if (alloc_split(s, d, err)) return -1;
        }
        d->bij_bytes = pb_bijective2_scratch_bytes(cap);
        PB_CUDA_TRY(cudaMalloc(&d->bij, d->bij_bytes), err);
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    PB_CUDA_TRY(cudaEventCreateWithFlags(&s->begin, cudaEventDisableTiming), err);
    PB_CUDA_TRY(cudaMallocHost(&s->h_counts, (size_t)s->G * pieces(s) * s->G * sizeof(unsigned long long)), err);
    return refresh(s, err);
}

/* Untimed: the family's input afresh on device 0 (and its output
 * poisoned), each other device's slice copied from it, their outputs
 * poisoned, every device idle afterwards. */
int refresh(void *st, pb_err *err)
{
    state *s = (state *)st;
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    PB_CUDA_TRY(cudaSetDevice(0), err);
    if (pb_gpu_shuffle_refresh(b, err)) return -1;
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    for (uint32_t g = 1; g < s->G; g++) {
        dev_state *d = &s->d[g];
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        if (d->len) PB_CUDA_TRY(cudaMemcpyPeer(d->own_in, (int)g, (char *)b->d_in + d->lo * s->ib, 0, d->len * s->ib), err);
        PB_CUDA_TRY(cudaMemset(d->out, 0xa5, (s->cap ? s->cap : 1) * s->ib), err);
        PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    s->gathered = false;
    return 0;
}

/* Device g's K x G counts to the host, on its stream; `counted` marks them there. */
int counts_to_host(state *s, uint32_t g, pb_err *err)
{
    const size_t cells = (size_t)pieces(s) * s->G;
    PB_CUDA_TRY(cudaMemcpyAsync(s->h_counts + (size_t)g * cells, s->d[g].counts, cells * sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost, s->c.st[g]),
                err);
    if (s->d[g].counted) PB_CUDA_TRY(cudaEventRecord(s->d[g].counted, s->c.st[g]), err);
    return 0;
}

/* Piece c of device g's slice is ordered: the exchange stream may take it. */
int piece_ordered(dev_state *d, uint32_t c, cudaStream_t st, pb_err *err)
{
    if (d->piece[c]) PB_CUDA_TRY(cudaEventRecord(d->piece[c], st), err);
    if (d->tp[c][0]) PB_CUDA_TRY(cudaEventRecord(d->tp[c][0], st), err);
    return 0;
}

/* Steps 1-2 on device g: destinations, counts, the slice ordered by them,
 * piece by piece (each piece ordered in place, so the pieces' blocks for
 * d, in piece order, are the slice's items for d in global order). The
 * counts go to the host as soon as every destination is drawn, before
 * the pieces are ordered, so the host's wait for them hides behind the
 * ordering; `piece[c]` marks piece c ordered. */
int split(state *s, uint32_t g, uint64_t sample, pb_err *err)
{
    dev_state *d = &s->d[g];
    cudaStream_t st = s->c.st[g];
    const unsigned ib = s->ib;
    const uint32_t K = pieces(s), G = s->G;
    int end = (int)bits_for(G);
    PB_CUDA_TRY(cudaMemsetAsync(d->counts, 0, (size_t)K * G * sizeof(unsigned long long), st), err);
    if (d->len && s->fused) { /* one piece */
        unsigned tiles = (unsigned)d->tiles;
        split_count<<<tiles, THREADS, 0, st>>>(s->seed, sample, d->lo, d->len, G, d->tiles, d->tile_counts,
                                                d->counts);
        PB_CUDA_LAUNCHED(err);
        if (counts_to_host(s, g, err)) return -1;
        PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(d->temp, d->temp_bytes, d->tile_counts, d->tile_offsets,
                                                  (size_t)G * d->tiles, st),
                    err);
        if (ib == 4)
            split_scatter<uint32_t><<<tiles, THREADS, 0, st>>>((const uint32_t *)d->in, (uint32_t *)d->sorted, s->seed,
                                                               sample, d->lo, d->len, G, d->tiles, d->tile_offsets);
        else
            split_scatter<uint64_t><<<tiles, THREADS, 0, st>>>((const uint64_t *)d->in, (uint64_t *)d->sorted, s->seed,
                                                               sample, d->lo, d->len, G, d->tiles, d->tile_offsets);
        PB_CUDA_LAUNCHED(err);
    } else if (d->len) {
        for (uint32_t c = 0; c < K; c++) {
            uint64_t a = piece_lo(d->len, K, c), len = piece_lo(d->len, K, c + 1) - a;
            if (!len) continue;
            draw_dests<<<pb_grid_for(len / 4 + 1, THREADS), THREADS, 0, st>>>(s->seed, sample, d->lo + a, len, G,
                                                                             d->keys + a, d->counts + (size_t)c * G);
            PB_CUDA_LAUNCHED(err);
        }
        if (pb_shuffle_is_record(ib)) {
            pb_iota<<<pb_grid_for(d->len, THREADS), THREADS, 0, st>>>(d->idx, d->len);
            PB_CUDA_LAUNCHED(err);
        }
        if (counts_to_host(s, g, err)) return -1;
        for (uint32_t c = 0; c < K; c++) {
            uint64_t a = piece_lo(d->len, K, c), len = piece_lo(d->len, K, c + 1) - a;
            if (len && ib == 4)
                PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(d->temp, d->temp_bytes, d->keys + a, d->keys_out + a,
                                                            (const uint32_t *)d->in + a, (uint32_t *)d->sorted + a,
                                                            len, 0, end, st),
                            err);
            else if (len && ib == 8)
                PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(d->temp, d->temp_bytes, d->keys + a, d->keys_out + a,
                                                            (const uint64_t *)d->in + a, (uint64_t *)d->sorted + a,
                                                            len, 0, end, st),
                            err);
            else if (len) {
                PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(d->temp, d->temp_bytes, d->keys + a, d->keys_out + a,
                                                            d->idx + a, d->idx_out + a, len, 0, end, st),
                            err);
                if (pb_gpu_gather_records_u32(d->in, (char *)d->sorted + a * ib, d->idx_out + a, len, ib, st, err))
                    return -1;
            }
            if (piece_ordered(d, c, st, err)) return -1;
        }
        return 0;
    } else if (counts_to_host(s, g, err))
        return -1;
    for (uint32_t c = 0; c < K; c++)
        if (piece_ordered(d, c, st, err)) return -1;
    return 0;
}

/* The whole run's plan (the pieces' counts summed) once every device's
 * counts are on the host: the host waits for the draws only. */
int plan_of_run(state *s, pb_err *err)
{
    const uint32_t G = s->G, K = pieces(s);
    for (uint32_t g = 0; g < G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaEventSynchronize(s->d[g].counted), err);
    }
    s->p.G = G;
    for (uint32_t a = 0; a < G; a++)
        for (uint32_t b = 0; b < G; b++) {
            uint64_t k = 0;
            for (uint32_t c = 0; c < K; c++) k += s->h_counts[((size_t)a * K + c) * G + b];
            s->p.cnt[a * G + b] = k;
        }
    plan_offsets(&s->p);
    return 0;
}

/* Piece c's blocks over the exchange streams, each device's stream first
 * waiting for its piece to be ordered: source a's piece-c block for b
 * lands after a's earlier pieces' blocks for b, so every receive buffer
 * ends as one exchange of the whole slices would leave it. */
int exchange_piece(state *s, uint32_t c, void *const *send, void *const *recv, pb_err *err)
{
    const uint32_t G = s->G, K = pieces(s);
    plan *q = &s->pc;
    q->G = G;
    for (uint32_t a = 0; a < G; a++) {
        uint64_t o = piece_lo(s->d[a].len, K, c);
        for (uint32_t b = 0; b < G; b++) {
            uint64_t before = 0;
            for (uint32_t e = 0; e < c; e++) before += s->h_counts[((size_t)a * K + e) * G + b];
            uint64_t k = s->h_counts[((size_t)a * K + c) * G + b];
            q->cnt[a * G + b] = k;
            q->send_off[a * G + b] = o;
            q->recv_off[a * G + b] = s->p.recv_off[a * G + b] + before;
            o += k;
        }
        PB_CUDA_TRY(cudaSetDevice((int)a), err);
        PB_CUDA_TRY(cudaStreamWaitEvent(s->c.xs[a], s->d[a].piece[c], 0), err);
        if (s->d[a].tp[c][1]) PB_CUDA_TRY(cudaEventRecord(s->d[a].tp[c][1], s->c.xs[a]), err);
    }
    if (exchange(&s->c, q, send, recv, s->ib, s->c.xs, err)) return -1;
    for (uint32_t a = 0; a < G; a++)
        if (s->d[a].tp[c][2]) {
            PB_CUDA_TRY(cudaSetDevice((int)a), err);
            PB_CUDA_TRY(cudaEventRecord(s->d[a].tp[c][2], s->c.xs[a]), err);
        }
    return 0;
}

/* Device 0's stream (the harness's timer) waits for every device. */
int join(state *s, pb_err *err)
{
    for (uint32_t g = 0; g < s->G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaEventRecord(s->d[g].done, s->c.st[g]), err);
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    for (uint32_t g = 0; g < s->G; g++) PB_CUDA_TRY(cudaStreamWaitEvent(0, s->d[g].done, 0), err);
    uint64_t at = 0;
    for (uint32_t g = 0; g < s->G; g++) s->start[g] = at, at += s->p.part[g];
    s->start[s->G] = at;
    if (at != s->n) return pb_err_set(err, "distributed shuffle: the parts hold %llu items, not %llu",
                                      (unsigned long long)at, (unsigned long long)s->n);
    return 0;
}

/* Every device's stream starts after what device 0's stream holds (the
 * harness's start event, its refresh). */
int begin(state *s, pb_err *err)
{
    PB_CUDA_TRY(cudaSetDevice(0), err);
    PB_CUDA_TRY(cudaEventRecord(s->begin, 0), err);
    for (uint32_t g = 0; g < s->G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaStreamWaitEvent(s->c.st[g], s->begin, 0), err);
        if (mark(s, g, 0, err)) return -1;
    }
    return 0;
}

int run(void *st, uint64_t sample, pb_err *err)
{
    state *s = (state *)st;
    s->gathered = false;
    if (s->n == 0) return 0;
    if (sample >= PB_DIST_MAX_SAMPLE) return pb_err_set(err, "distributed shuffle: sample beyond 2^58");
    if (begin(s, err)) return -1;
    const uint32_t G = s->G;
    void *send[G_MAX] = {}, *recv[G_MAX] = {};
    if (G == 1) {
        s->p.cnt[0] = s->n;
        plan_offsets(&s->p);
        send[0] = recv[0] = s->d[0].in;
    } else {
        for (uint32_t g = 0; g < G; g++) {
            PB_CUDA_TRY(cudaSetDevice((int)g), err);
            if (split(s, g, sample, err) || mark(s, g, 1, err)) return -1;
        }
        if (plan_of_run(s, err)) return -1;
        for (uint32_t g = 0; g < G; g++) {
            if (s->p.part[g] > s->cap)
                return pb_err_set(err, "distributed shuffle: device %u draws %llu items, beyond its receive buffer of %llu",
                                  g, (unsigned long long)s->p.part[g], (unsigned long long)s->cap);
            send[g] = s->d[g].sorted;
            recv[g] = s->d[g].recv;
        }
        for (uint32_t c = 0; c < pieces(s); c++)
            if (exchange_piece(s, c, send, recv, err)) return -1;
        /* Each device's work stream takes up after its exchange. */
        for (uint32_t g = 0; g < G; g++) {
            PB_CUDA_TRY(cudaSetDevice((int)g), err);
            PB_CUDA_TRY(cudaEventRecord(s->d[g].xdone, s->c.xs[g]), err);
            PB_CUDA_TRY(cudaStreamWaitEvent(s->c.st[g], s->d[g].xdone, 0), err);
        }
    }
    for (uint32_t g = 0; g < G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        if ((G == 1 && mark(s, g, 1, err)) || mark(s, g, 2, err)) return -1; /* G = 1: no split, no exchange */
        if (pb_bijective2_shuffle_async(recv[g], s->d[g].out, s->p.part[g], s->ib, s->kind, s->rounds, s->seed,
                                        pb_dist_stream(sample, g), s->d[g].bij, s->d[g].bij_bytes, s->c.st[g], err) ||
            mark(s, g, 3, err))
            return -1;
    }
    s->traced = s->trace;
    return join(s, err);
}

/* dist-exchange: the same array through the same NCCL group, in equal
 * blocks (source s's slice cut in G), nothing drawn and nothing shuffled:
 * what the exchange alone costs when a shuffle moves every item. */
int run_exchange(void *st, uint64_t sample, pb_err *err)
{
    (void)sample;
    state *s = (state *)st;
    s->gathered = false;
    if (s->n == 0) return 0;
    if (begin(s, err)) return -1;
    const uint32_t G = s->G;
    void *send[G_MAX] = {}, *recv[G_MAX] = {};
    for (uint32_t g = 0; g < G; g++) {
        for (uint32_t d = 0; d < G; d++)
            s->p.cnt[g * G + d] = pb_dist_slice(s->d[g].len, G, d + 1) - pb_dist_slice(s->d[g].len, G, d);
        send[g] = s->d[g].in;
        recv[g] = s->d[g].out;
    }
    plan_offsets(&s->p);
    if (exchange(&s->c, &s->p, send, recv, s->ib, s->c.st, err)) return -1;
    return join(s, err);
}

/* Untimed, before the check: the other devices' parts copied behind
 * device 0's, so the harness's output is whole. */
int gather(state *s, pb_err *err)
{
    if (s->gathered || s->n == 0) return 0;
    auto *b = (pb_gpu_shuffle_buffers *)s->bufs;
    PB_CUDA_TRY(cudaSetDevice(0), err);
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    if (print_phases(s, err)) return -1;
    for (uint32_t g = 1; g < s->G; g++)
        if (s->p.part[g])
            PB_CUDA_TRY(cudaMemcpyPeer((char *)b->d_out + s->start[g] * s->ib, 0, s->d[g].out, (int)g,
                                       s->p.part[g] * s->ib),
                        err);
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    s->gathered = true;
    return 0;
}

int result(void *st, const void **out, pb_err *err)
{
    state *s = (state *)st;
    return gather(s, err) ? -1 : pb_gpu_shuffle_result(s->bufs, out, err);
}

int verify(void *st, pb_err *err)
{
    state *s = (state *)st;
    return gather(s, err) ? -1 : pb_gpu_shuffle_verify(s->bufs, err);
}

int fingerprint(void *st, uint64_t *fp, pb_err *err)
{
    state *s = (state *)st;
    return gather(s, err) ? -1 : pb_gpu_shuffle_fingerprint(s->bufs, fp, err);
}

/* A device's buffers, on the current device; out only if it is its own
 * (device 0's is the harness's). */
void free_dev(dev_state *d, bool own_out)
{
    void *p[] = {d->own_in, own_out ? d->out : nullptr, d->keys, d->keys_out, d->idx, d->idx_out, d->sorted,
                 d->recv, d->counts, d->temp, d->bij, d->tile_counts, d->tile_offsets};
    for (void *q : p) cudaFree(q);
}

void release(void *st)
{
    state *s = (state *)st;
    if (!s) return;
    for (uint32_t g = 0; g < s->G; g++) {
        dev_state *d = &s->d[g];
        cudaSetDevice((int)g);
        free_dev(d, g != 0);
        if (d->done) cudaEventDestroy(d->done);
        for (cudaEvent_t e : d->phase)
            if (e) cudaEventDestroy(e);
        for (cudaEvent_t e : d->piece)
            if (e) cudaEventDestroy(e);
        for (auto &t : d->tp)
            for (cudaEvent_t e : t)
                if (e) cudaEventDestroy(e);
        if (d->counted) cudaEventDestroy(d->counted);
        if (d->xdone) cudaEventDestroy(d->xdone);
    }
    comms_free(&s->c);
    cudaSetDevice(0);
    if (s->begin) cudaEventDestroy(s->begin);
    cudaFreeHost(s->h_counts);
    pb_gpu_shuffle_release(s->bufs);
    cudaGetLastError();
    free(s);
}

/* pb_module.links: the last run's bytes between devices (every block but
 * a device's own) and the topology. */
int links(void *st, pb_link_report *r, pb_err *err)
{
    (void)err;
    state *s = (state *)st;
    double bytes = 0;
    if (s->G > 1 && s->n)
        for (uint32_t a = 0; a < s->G; a++)
            for (uint32_t b = 0; b < s->G; b++)
                if (a != b) bytes += (double)s->p.cnt[a * s->G + b] * s->ib;
    r->bytes = bytes;
    if (!s->topology_done) s->topology_done = pb_dist::topology(s->G, s->topology, sizeof s->topology);
    snprintf(r->topology, sizeof r->topology, "%s", s->topology);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err) { return prepare_common(false, pt, state, err); }
int prepare_exchange(const pb_point *pt, void **state, pb_err *err) { return prepare_common(true, pt, state, err); }

/* Device 0 holds the most: the harness's whole input and output and the
 * check's bitmap, its slice's keys, ordered copy, receive buffer and sort
 * scratch (CUB's about another slice). */
uint64_t footprint(const pb_point *pt)
{
    uint32_t G = devices_of(pt->params);
    uint64_t len = pb_dist_slice(pt->n, G, 1), cap = cap_of(pt->n, G), ib = pt->item_bytes;
    uint64_t local = G > 1 ? len * (2 + ib) + cap * ib + len * (1 + ib) : 0;
    return pb_gpu_shuffle_footprint(pt) + local + 16 * (cap / pb_bijective::TILE + 64) + (16u << 20);
}

uint64_t footprint_exchange(const pb_point *pt) { return pb_gpu_shuffle_footprint(pt) + (16u << 20); }

/* ---- sample permutations: the batch through the same steps ---- */

/* A batch context kept between calls (the quality battery asks for 2^16
 * permutations at a time; communicators take a while to make). */
struct batch_ctx {
    comms c;
    uint64_t items; /* capacity a device, in u64 items */
    uint32_t perms; /* capacity in permutations */
    struct {
        uint8_t *keys, *keys_out;
        uint64_t *vals, *sorted, *recv, *regrouped;
        uint32_t *out, *seg_cnt, *seg_off;
        unsigned long long *counts;
        void *temp;
        size_t temp_bytes;
    } d[G_MAX];
    unsigned long long *h_counts;
};

batch_ctx *batch_for[G_MAX + 1];

void batch_free_buffers(batch_ctx *b)
{
    for (uint32_t g = 0; g < b->c.G; g++) {
        cudaSetDevice((int)g);
        void *p[] = {b->d[g].keys,    b->d[g].keys_out, b->d[g].vals,    b->d[g].sorted,  b->d[g].recv,
                     b->d[g].regrouped, b->d[g].out,    b->d[g].seg_cnt, b->d[g].seg_off, b->d[g].counts,
                     b->d[g].temp};
        for (void *q : p) cudaFree(q);
        memset(&b->d[g], 0, sizeof b->d[g]);
    }
    cudaSetDevice(0);
}

/* Buffers for `items` u64 a device and `perms` permutations. */
int batch_reserve(batch_ctx *b, uint64_t items, uint32_t perms, pb_err *err)
{
    if (items <= b->items && perms <= b->perms) return 0;
    batch_free_buffers(b);
    b->items = items > b->items ? items : b->items;
    b->perms = perms > b->perms ? perms : b->perms;
    for (uint32_t g = 0; g < b->c.G; g++) {
        auto &d = b->d[g];
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaMalloc(&d.keys, b->items), err);
        PB_CUDA_TRY(cudaMalloc(&d.keys_out, b->items), err);
        PB_CUDA_TRY(cudaMalloc(&d.vals, b->items * 8), err);
        PB_CUDA_TRY(cudaMalloc(&d.sorted, b->items * 8), err);
        PB_CUDA_TRY(cudaMalloc(&d.recv, b->items * 8), err);
        PB_CUDA_TRY(cudaMalloc(&d.regrouped, b->items * 8), err);
        PB_CUDA_TRY(cudaMalloc(&d.out, b->items * 4), err);
        PB_CUDA_TRY(cudaMalloc(&d.seg_cnt, (size_t)b->perms * 4), err);
        PB_CUDA_TRY(cudaMalloc(&d.seg_off, (size_t)b->perms * 4), err);
        PB_CUDA_TRY(cudaMalloc(&d.counts, G_MAX * sizeof(unsigned long long)), err);
        size_t t1 = 0, t2 = 0, t3 = 0;
        PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(nullptr, t1, d.keys, d.keys_out, d.vals, d.sorted, b->items, 0,
                                                    (int)bits_for(b->c.G)),
                    err);
        PB_CUDA_TRY(cub::DeviceRadixSort::SortKeys(nullptr, t2, d.recv, d.regrouped, b->items, 32,
                                                   32 + (int)bits_for(b->perms)),
                    err);
        PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, t3, d.seg_cnt, d.seg_off, b->perms), err);
        d.temp_bytes = t1 > t2 ? t1 : t2;
        d.temp_bytes = d.temp_bytes > t3 ? d.temp_bytes : t3;
        PB_CUDA_TRY(cudaMalloc(&d.temp, d.temp_bytes + 16), err);
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    return 0;
}

/* Permutations first .. first + c - 1 of [0, n) into out (c x n). */
int batch_chunk(batch_ctx *b, uint32_t n, pb_bij_kind kind, int rounds, uint64_t seed, uint64_t first, uint32_t c,
                uint32_t *out, uint32_t *host, uint32_t *hcnt, uint32_t *hoff, pb_err *err)
{
    const uint32_t G = b->c.G;
    plan p;
    uint64_t lo[G_MAX], len[G_MAX];
    for (uint32_t g = 0; g < G; g++) {
        lo[g] = pb_dist_slice(n, G, g);
        len[g] = pb_dist_slice(n, G, g + 1) - lo[g];
    }
    /* Steps 1-2 on every device, then the counts. */
    for (uint32_t g = 0; g < G; g++) {
        auto &d = b->d[g];
        cudaStream_t st = b->c.st[g];
        uint64_t total = (uint64_t)c * len[g];
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaMemsetAsync(d.counts, 0, G * sizeof(unsigned long long), st), err);
        if (total) {
            draw_batch_dests<<<pb_grid_for(total, THREADS), THREADS, 0, st>>>(seed, first, lo[g], len[g], total, G,
                                                                             d.keys, d.vals, d.counts);
            PB_CUDA_LAUNCHED(err);
            if (G > 1)
                PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(d.temp, d.temp_bytes, d.keys, d.keys_out, d.vals, d.sorted,
                                                            total, 0, (int)bits_for(G), st),
                            err);
            else
                PB_CUDA_TRY(cudaMemcpyAsync(d.sorted, d.vals, total * 8, cudaMemcpyDeviceToDevice, st), err);
        }
        PB_CUDA_TRY(cudaMemcpyAsync(b->h_counts + (size_t)g * G, d.counts, G * sizeof(unsigned long long),
                                    cudaMemcpyDeviceToHost, st),
                    err);
    }
    if (plan_from_counts(&b->c, b->h_counts, &p, err)) return -1;
    void *send[G_MAX] = {}, *recv[G_MAX] = {};
    for (uint32_t g = 0; g < G; g++) {
        if (p.part[g] > b->items) return pb_err_set(err, "sample_perms: a device's part exceeds its buffer");
        send[g] = b->d[g].sorted;
        recv[g] = b->d[g].recv;
    }
    if (exchange(&b->c, &p, send, recv, 8, b->c.st, err)) return -1;
    /* Device g: regroup by permutation (stable: within one, sources in
     * order, so the indices stay in global order), count, shuffle. */
    for (uint32_t g = 0; g < G; g++) {
        auto &d = b->d[g];
        cudaStream_t st = b->c.st[g];
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaMemsetAsync(d.seg_cnt, 0, (size_t)c * 4, st), err);
        if (p.part[g]) {
            unsigned pb = bits_for(c);
            if (pb)
                PB_CUDA_TRY(cub::DeviceRadixSort::SortKeys(d.temp, d.temp_bytes, d.recv, d.regrouped, p.part[g], 32,
                                                           32 + (int)pb, st),
                            err);
            else
                PB_CUDA_TRY(cudaMemcpyAsync(d.regrouped, d.recv, p.part[g] * 8, cudaMemcpyDeviceToDevice, st), err);
            count_perms<<<pb_grid_for(p.part[g], THREADS), THREADS, 0, st>>>(d.regrouped, p.part[g], d.seg_cnt);
            PB_CUDA_LAUNCHED(err);
        }
        PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(d.temp, d.temp_bytes, d.seg_cnt, d.seg_off, c, st), err);
        if (p.part[g]) {
            if (kind == PB_BIJ_LCG)
                shuffle_perms<PB_BIJ_LCG><<<c, pb_bijective::BLOCK, 0, st>>>(d.regrouped, d.out, d.seg_cnt, d.seg_off,
                                                                             rounds, seed, first, g);
            else
                shuffle_perms<PB_BIJ_VARPHILOX><<<c, pb_bijective::BLOCK, 0, st>>>(d.regrouped, d.out, d.seg_cnt,
                                                                                   d.seg_off, rounds, seed, first, g);
            PB_CUDA_LAUNCHED(err);
        }
    }
    /* The parts back, each permutation's pieces in device order. */
    uint64_t at[G_MAX]; /* at[g]: where device g + 1's part starts in host */
    for (uint32_t g = 0; g < G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaMemcpyAsync(host + (g ? at[g - 1] : 0), b->d[g].out, p.part[g] * 4, cudaMemcpyDeviceToHost,
                                    b->c.st[g]),
                    err);
        PB_CUDA_TRY(cudaMemcpyAsync(hcnt + (size_t)g * c, b->d[g].seg_cnt, (size_t)c * 4, cudaMemcpyDeviceToHost,
                                    b->c.st[g]),
                    err);
        PB_CUDA_TRY(cudaMemcpyAsync(hoff + (size_t)g * c, b->d[g].seg_off, (size_t)c * 4, cudaMemcpyDeviceToHost,
                                    b->c.st[g]),
                    err);
        at[g] = (g ? at[g - 1] : 0) + p.part[g];
    }
    for (uint32_t g = 0; g < G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaStreamSynchronize(b->c.st[g]), err);
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    for (uint32_t j = 0; j < c; j++) {
        uint64_t pos = 0;
        for (uint32_t g = 0; g < G; g++) {
            uint64_t k = hcnt[(size_t)g * c + j];
            if (pos + k > n) return pb_err_set(err, "sample_perms: permutation %u has more than %u items", j, n);
            memcpy(out + (uint64_t)j * n + pos, host + (g ? at[g - 1] : 0) + hoff[(size_t)g * c + j], k * 4);
            pos += k;
        }
        if (pos != n) return pb_err_set(err, "sample_perms: permutation %u has %llu items, not %u", j,
                                        (unsigned long long)pos, n);
    }
    return 0;
}

int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first, uint64_t count, uint32_t *out,
                 pb_err *err)
{
    if (count == 0 || n == 0) return 0;
    if (first + count > PB_DIST_MAX_SAMPLE) return pb_err_set(err, "sample_perms: samples beyond 2^58");
    char why[256];
    if (!available(params, why, sizeof why)) return pb_err_set(err, "%s", why);
    uint32_t G = devices_of(params);
    batch_ctx *&b = batch_for[G];
    if (!b) {
        b = (batch_ctx *)calloc(1, sizeof *b);
        if (!b) return pb_err_set(err, "out of memory");
        PB_CUDA_TRY(cudaMallocHost(&b->h_counts, (size_t)G_MAX * G_MAX * sizeof(unsigned long long)), err);
        if (comms_init(&b->c, G, err)) return -1;
    }
    /* Chunks of at most 2^22 items (and 2^20 permutations), so a device's
     * buffers stay small whatever the battery asks. */
    uint64_t per = (UINT64_C(1) << 22) / n;
    if (per < 1) per = 1;
    if (per > (UINT64_C(1) << 20)) per = UINT64_C(1) << 20;
    if (per > count) per = count;
    uint64_t items = per * (uint64_t)n; /* a device may, rarely, receive everything */
    if (batch_reserve(b, items, (uint32_t)per, err)) return -1;
    uint32_t *host = (uint32_t *)malloc(items * 4);
    uint32_t *hcnt = (uint32_t *)malloc((size_t)G * per * 4), *hoff = (uint32_t *)malloc((size_t)G * per * 4);
    int rc = 0;
    if (!host || !hcnt || !hoff) rc = pb_err_set(err, "out of memory");
    for (uint64_t done = 0; !rc && done < count; done += per) {
        uint32_t c = (uint32_t)(count - done < per ? count - done : per);
        rc = batch_chunk(b, n, (pb_bij_kind)params->v[P_BIJECTION], (int)params->v[P_ROUNDS], seed, first + done, c,
                         out + done * n, host, hcnt, hoff, err);
    }
    free(host), free(hcnt), free(hoff);
    return rc;
}

const pb_param_spec dist_params[] = {
    {"devices", PB_PARAM_INT, 0, 0, G_MAX, NULL,
     "GPUs the array is split over: devices 0 .. G-1 of this host, one process driving all (0: every GPU)"},
    PB_BIJ_PARAMS,
    {"split", PB_PARAM_ENUM, SPLIT_CUB, 0, 1, "fused|cub",
     "ordering a slice by destination: CUB's radix sort of stored keys (the default: faster, measured) or "
     "two fused passes (draw and count; draw again and scatter); records always take CUB's"},
    {"chunks", PB_PARAM_INT, 0, 0, K_MAX, NULL,
     "pieces a slice is ordered and sent in (split = cub), piece c's exchange overlapping piece c+1's ordering "
     "(0: auto, about 2 GiB of items a piece, at most 16; 1: no overlap)"}};

/* The ceiling draws nothing: only the device count. */
const pb_param_spec exchange_params[] = {
    {"devices", PB_PARAM_INT, 0, 0, G_MAX, NULL,
     "GPUs the array is split over: devices 0 .. G-1 of this host, one process driving all (0: every GPU)"}};

/* One device's split alone (the test's view of steps 1-2 for any G on one
 * GPU): in and out on the host, len items of the slice starting at global
 * index lo. The second of two runs is timed. */
int split_once(const void *in, void *out, uint64_t len, unsigned ib, uint64_t lo, uint32_t G, uint64_t seed,
               uint64_t sample, bool use_cub, uint64_t *counts, double *ms, state *s, pb_err *err)
{
    s->G = G;
    s->seed = seed;
    s->ib = ib;
    s->fused = !use_cub && !pb_shuffle_is_record(ib);
    dev_state *d = &s->d[0];
    d->lo = lo;
    d->len = len;
    PB_CUDA_TRY(cudaSetDevice(0), err);
    PB_CUDA_TRY(cudaStreamCreateWithFlags(&s->c.st[0], cudaStreamNonBlocking), err);
    PB_CUDA_TRY(cudaMallocHost(&s->h_counts, (size_t)G_MAX * G_MAX * sizeof(unsigned long long)), err);
    PB_CUDA_TRY(cudaMalloc(&d->own_in, (len ? len : 1) * ib), err);
    d->in = d->own_in;
    if (in) PB_CUDA_TRY(cudaMemcpy(d->own_in, in, len * ib, cudaMemcpyHostToDevice), err);
    else PB_CUDA_TRY(cudaMemset(d->own_in, 0x5a, (len ? len : 1) * ib), err);
    if (alloc_split(s, d, err)) return -1;
    cudaEvent_t e0, e1;
    PB_CUDA_TRY(cudaEventCreate(&e0), err);
    PB_CUDA_TRY(cudaEventCreate(&e1), err);
    int rc = split(s, 0, sample, err);
    if (!rc) rc = cudaEventRecord(e0, s->c.st[0]) != cudaSuccess || split(s, 0, sample, err) ||
                  cudaEventRecord(e1, s->c.st[0]) != cudaSuccess;
    float f = 0;
    if (!rc) rc = cudaEventSynchronize(e1) != cudaSuccess || cudaEventElapsedTime(&f, e0, e1) != cudaSuccess;
    cudaEventDestroy(e0), cudaEventDestroy(e1);
    if (rc) return err->msg[0] ? -1 : pb_err_set(err, "split: %s", cudaGetErrorString(cudaGetLastError()));
    *ms = f;
    if (out) PB_CUDA_TRY(cudaMemcpy(out, d->sorted, len * ib, cudaMemcpyDeviceToHost), err);
    for (uint32_t k = 0; k < G; k++) counts[k] = s->h_counts[k];
    return 0;
}

} // namespace

extern "C" int pb_dist_gpu_split(const void *in, void *out, uint64_t len, unsigned item_bytes, uint64_t lo,
                                 uint32_t devices, uint64_t seed, uint64_t sample, int use_cub, uint64_t *counts,
                                 double *ms, pb_err *err)
{
    if (devices < 1 || devices > G_MAX) return pb_err_set(err, "split: %u devices", devices);
    state *s = (state *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    err->msg[0] = 0;
    int rc = split_once(in, out, len, item_bytes, lo, devices, seed, sample, use_cub != 0, counts, ms, s, err);
    free_dev(&s->d[0], false);
    if (s->c.st[0]) cudaStreamDestroy(s->c.st[0]);
    cudaFreeHost(s->h_counts);
    free(s);
    return rc;
}

/* Both modules keep a dist_state: their result, check, refresh, fingerprint,
 * release and NCCL check are the same, and both report their links. */
static const pb_module_hooks dist_hooks = {
    .family = &pb_family_shuffle, .device = PB_DEVICE_GPU, .flags = PB_MOD_SEEDED, .result = result,
    .verify = verify, .release = release, .refresh = refresh, .fingerprint = fingerprint,
    .items = PB_ITEM_ANY, .available = available,
};
static const pb_shuffle_hooks shuffle_ext = {.sample_perms = sample_perms, .links = links};
static const pb_shuffle_hooks dist_exchange_ext = {.links = links};

PB_MODULE_DEF(dist_shuffle, "gpu-dist-shuffle", dist_hooks,
    .summary = "uniform shuffle over G GPUs: Philox destinations, NCCL exchange, gpu-bijective2 on each",
    PB_PARAMS(dist_params), .footprint = footprint, .prepare = prepare, .run = run, .ext = &shuffle_ext);
PB_MODULE_DEF(dist_exchange, "gpu-dist-exchange", dist_hooks, .flags = PB_MOD_CEILING,
    .summary = "the distributed shuffle's all-to-all alone (equal blocks): its ceiling",
    PB_PARAMS(exchange_params), .footprint = footprint_exchange, .prepare = prepare_exchange,
    .run = run_exchange, .ext = &dist_exchange_ext);

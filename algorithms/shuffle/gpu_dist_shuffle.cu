/* dist-shuffle: the exactly uniform shuffle of an array split over G GPUs of
 * one host (issue 22, docs/distributed.md), and dist-exchange, its
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
 * The output is the parts in device order; it equals pb_dist_model_shuffle
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
#ifdef PB_HAVE_NCCL
#include <nccl.h>
#endif

#include "algorithms/shuffle/dist_model.h"
#include "algorithms/shuffle/gpu_bijective.cuh"
#include "algorithms/shuffle/gpu_dist_shuffle.h"
#include "core/cuda_check.h"
#include "core/gpu_launch.cuh"
#include "families/shuffle/gpu_records.h"
#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_items.h"

#ifdef PB_HAVE_NCCL
#define PB_NCCL_TRY(call, err)                                                                                      \
    do {                                                                                                            \
        ncclResult_t pb_r_ = (call);                                                                                \
        if (pb_r_ != ncclSuccess)                                                                                   \
            return pb_err_set((err), "%s failed: %s (%s:%d)", #call, ncclGetErrorString(pb_r_), __FILE__, __LINE__); \
    } while (0)
#endif

namespace {

enum { P_DEVICES, P_BIJECTION, P_ROUNDS, P_SPLIT, P_CHUNKS };
enum { SPLIT_FUSED, SPLIT_CUB };
constexpr int G_MAX = PB_DIST_MAX_DEVICES;
/* Pieces a slice is split and sent in (split = cub): piece c's exchange
 * runs while piece c + 1 is being split. */
constexpr int K_MAX = 64;
constexpr int THREADS = 256;

unsigned bits_for(uint64_t v) /* ceil(log2(v)), 0 for v <= 1 */
{
    unsigned b = 0;
    while ((UINT64_C(1) << b) < v) b++;
    return b;
}

/* ---- kernels ---- */

/* The destinations of the four slice items at virtual place u (a multiple
 * of 4): virtual places count from vs = lo & ~3, so a group of four is one
 * Philox block (pb_dist_dest4, global index vs + u); places before the
 * slice (the o = lo & 3 first) or past it get G, no destination. */
__device__ __forceinline__ void dests4(uint64_t seed, uint64_t sample, uint64_t lo, uint64_t len, uint64_t u,
                                       uint32_t G, uint32_t (&d)[4])
{
    const uint64_t vs = lo & ~UINT64_C(3), o = lo & 3;
    if (u >= o + len) {
        d[0] = d[1] = d[2] = d[3] = G;
        return;
    }
    pb_dist_dest4(seed, sample, (vs + u) >> 2, G, d);
#pragma unroll
    for (int q = 0; q < 4; q++)
        if (u + q < o || u + q - o >= len) d[q] = G;
}

/* Step 1 (split = cub): keys[t] = dest(lo + t) for the slice, and the G
 * counts; a thread a Philox block. */
__global__ void draw_dests(uint64_t seed, uint64_t sample, uint64_t lo, uint64_t len, uint32_t G, uint8_t *keys,
                           unsigned long long *counts)
{
    __shared__ unsigned hist[G_MAX];
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    const uint64_t o = lo & 3, groups = (len + o + 3) / 4;
    for (uint64_t g = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; g < groups;
         g += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t d[4];
        dests4(seed, sample, lo, len, 4 * g, G, d);
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (d[q] < G) {
                keys[4 * g + q - o] = (uint8_t)d[q];
                atomicAdd(&hist[d[q]], 1u);
            }
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x)
        if (hist[t]) atomicAdd(&counts[t], (unsigned long long)hist[t]);
}

/* The batch of sample permutations: item k of the device's c x len block
 * is permutation j = k / len's index lo + k % len, drawn for sample
 * first + j, and carries j in its top word so the receiver can regroup. */
__global__ void draw_batch_dests(uint64_t seed, uint64_t first, uint64_t lo, uint64_t len, uint64_t total, uint32_t G,
                                 uint8_t *keys, uint64_t *vals, unsigned long long *counts)
{
    __shared__ unsigned hist[G_MAX];
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    for (uint64_t k = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; k < total;
         k += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t j = k / len, i = lo + k % len;
        uint32_t d = pb_dist_dest(seed, first + j, i, G);
        keys[k] = (uint8_t)d;
        vals[k] = j << 32 | i;
        atomicAdd(&hist[d], 1u);
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x)
        if (hist[t]) atomicAdd(&counts[t], (unsigned long long)hist[t]);
}

/* The fused split (split = fused, scalars; not the default: on an H200,
 * 2^29 u64 for G = 2, 8.2 ms against CUB's sort's 6.0 ms, both with four
 * destinations a Philox block; Nsight Compute finds its scatter
 * instruction-bound, 112 registers and 25% occupancy, by the ranking of
 * four items a lane, not memory-bound): two passes over tiles of
 * SPLIT_TILE virtual places (dests4), a warp taking ROUNDS x 128
 * consecutive ones, a lane four at a time (one Philox block). The first
 * pass draws every destination and counts each tile's per destination; a
 * scan of those counts (destination-major) gives every (destination, tile)
 * its place in the ordered slice; the second pass draws the destinations
 * again, ranks each item among the warp's earlier items of its
 * destination (ballots on the destination's bits give, for each slot, the
 * lanes holding the same destination there), adds the earlier warps' and
 * the tile's place, and writes the item there. The order is the stable
 * sort's (CUB's split gives the same), no key is stored, the items are
 * read and written once. */
constexpr int ROUNDS = 2, WARPS = THREADS / 32, SPLIT_TILE = THREADS * 4 * ROUNDS;

__global__ void __launch_bounds__(THREADS)
    split_count(uint64_t seed, uint64_t sample, uint64_t lo, uint64_t len, uint32_t G, uint64_t tiles,
                unsigned long long *tile_counts, unsigned long long *counts)
{
    __shared__ unsigned hist[G_MAX];
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) hist[t] = 0;
    __syncthreads();
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint64_t base = blockIdx.x * (uint64_t)SPLIT_TILE + warp * (uint64_t)(ROUNDS * 128);
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        uint32_t d[4];
        dests4(seed, sample, lo, len, base + k * 128 + lane * 4, G, d);
#pragma unroll
        for (int q = 0; q < 4; q++) {
            unsigned peers = __match_any_sync(0xffffffffu, d[q]);
            if (d[q] < G && lane == (unsigned)(__ffs(peers) - 1)) atomicAdd(&hist[d[q]], (unsigned)__popc(peers));
        }
    }
    __syncthreads();
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) {
        tile_counts[t * tiles + blockIdx.x] = hist[t];
        if (hist[t]) atomicAdd(&counts[t], (unsigned long long)hist[t]);
    }
}

template <typename T>
__global__ void __launch_bounds__(THREADS)
    split_scatter(const T *__restrict__ in, T *__restrict__ out, uint64_t seed, uint64_t sample, uint64_t lo,
                  uint64_t len, uint32_t G, uint64_t tiles, const unsigned long long *__restrict__ offsets)
{
    __shared__ unsigned wcount[WARPS][G_MAX];
    __shared__ unsigned long long place[WARPS][G_MAX];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (unsigned t = lane; t < G; t += 32) wcount[warp][t] = 0;
    __syncwarp();
    const uint64_t o = lo & 3;
    const uint64_t base = blockIdx.x * (uint64_t)SPLIT_TILE + warp * (uint64_t)(ROUNDS * 128);
    const int nb = 32 - __clz((int)G); /* bits of the values 0 .. G (G: none) */
    const unsigned lower = (1u << lane) - 1, higher = ~lower & ~(1u << lane);
    T v[ROUNDS][4];
    uint32_t d[ROUNDS][4], rank[ROUNDS][4];
#pragma unroll
    for (int k = 0; k < ROUNDS; k++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            uint64_t u = base + k * 128 + lane * 4 + q;
            if (u >= o && u - o < len) v[k][q] = in[u - o];
        }
#pragma unroll
    for (int k = 0; k < ROUNDS; k++) {
        dests4(seed, sample, lo, len, base + k * 128 + lane * 4, G, d[k]);
        unsigned bal[4][7];
#pragma unroll
        for (int q = 0; q < 4; q++)
#pragma unroll
            for (int b = 0; b < 7; b++) bal[q][b] = b < nb ? __ballot_sync(0xffffffffu, d[k][q] >> b & 1) : 0;
        bool last[4];
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const uint32_t x = d[k][q];
            unsigned below = 0, above = 0;
#pragma unroll
            for (int p = 0; p < 4; p++) {
                unsigned same = 0xffffffffu;
#pragma unroll
                for (int b = 0; b < 7; b++)
                    if (b < nb) same &= (x >> b & 1) ? bal[p][b] : ~bal[p][b];
                below += (unsigned)__popc(same & lower) + (p < q && d[k][p] == x);
                above += (unsigned)__popc(same & higher) + (p > q && d[k][p] == x);
            }
            rank[k][q] = x < G ? wcount[warp][x] + below : 0;
            last[q] = x < G && above == 0;
        }
        __syncwarp();
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (last[q]) wcount[warp][d[k][q]] = rank[k][q] + 1;
        __syncwarp();
    }
    __syncthreads();
    /* Each destination's place for each warp: the tile's, then the earlier warps'. */
    for (unsigned t = threadIdx.x; t < G; t += blockDim.x) {
        unsigned long long at = offsets[t * tiles + blockIdx.x];
        for (int w = 0; w < WARPS; w++) {
            place[w][t] = at;
            at += wcount[w][t];
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ROUNDS; k++)
#pragma unroll
        for (int q = 0; q < 4; q++)
            if (d[k][q] < G) out[place[warp][d[k][q]] + rank[k][q]] = v[k][q];
}

/* The batch: how many received items belong to each permutation. */
__global__ void count_perms(const uint64_t *__restrict__ v, uint64_t n, uint32_t *counts)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n; i += (uint64_t)gridDim.x * blockDim.x)
        atomicAdd(&counts[v[i] >> 32], 1u);
}

/* The batch's step 4: block j shuffles permutation j's received items
 * (seg_cnt[j] of them at seg_off[j]) with the bijective shuffle of stream
 * pb_dist_stream(first + j, d): out[r] = in[src] for the r-th position x
 * of the padded domain (in order) whose image src is below the count, as
 * bijective_twin and bijective2 do. */
template <int KIND>
__global__ void __launch_bounds__(pb_bijective::BLOCK)
    shuffle_perms(const uint64_t *__restrict__ in, uint32_t *__restrict__ out, const uint32_t *seg_cnt,
                  const uint32_t *seg_off, int rounds, uint64_t seed, uint64_t first, uint32_t d)
{
    using namespace pb_bijective;
    __shared__ typename BlockScan32::TempStorage ts;
    __shared__ bijection<KIND> f;
    const uint32_t m = seg_cnt[blockIdx.x];
    if (m == 0) return;
    const uint64_t *seg = in + seg_off[blockIdx.x];
    uint32_t *o = out + seg_off[blockIdx.x];
    if (threadIdx.x == 0) pb_bij_init(&f.f, (pb_bij_kind)KIND, rounds, m, seed, pb_dist_stream(first + blockIdx.x, d));
    __syncthreads();
    block_shuffle(f, m, ts, [&](uint32_t r, uint32_t src) { o[r] = (uint32_t)seg[src]; });
}

/* ---- the exchange ---- */

/* Where the blocks go: cnt[s * G + d] items from s to d; block (s, d)
 * starts at send_off[s * G + d] in s's send buffer (destinations in order)
 * and at recv_off[s * G + d] in d's receive buffer (sources in order). */
struct plan {
    uint32_t G;
    uint64_t cnt[G_MAX * G_MAX], send_off[G_MAX * G_MAX], recv_off[G_MAX * G_MAX];
    uint64_t part[G_MAX];
};

void plan_offsets(plan *p)
{
    uint32_t G = p->G;
    for (uint32_t d = 0; d < G; d++) p->part[d] = 0;
    for (uint32_t s = 0; s < G; s++) {
        uint64_t o = 0;
        for (uint32_t d = 0; d < G; d++) {
            p->send_off[s * G + d] = o;
            o += p->cnt[s * G + d];
            p->recv_off[s * G + d] = p->part[d];
            p->part[d] += p->cnt[s * G + d];
        }
    }
}

struct comms {
    uint32_t G;
#ifdef PB_HAVE_NCCL
    ncclComm_t c[G_MAX];
#endif
    cudaStream_t st[G_MAX]; /* each device's work */
    cudaStream_t xs[G_MAX]; /* its exchange, at the highest priority: NCCL's blocks go first onto the SMs a split frees */
    bool ready;
};

/* NCCL's own account of the links (its graph search's path type and each
 * connection's transport), from its INFO log: NCCL_DEBUG=INFO into a file
 * of ours, set before the process's first NCCL call unless the caller set
 * NCCL_DEBUG (then: not captured). */
char nccl_log[256];

void nccl_log_remove(void)
{
    if (nccl_log[0]) unlink(nccl_log);
}

void nccl_log_capture(void)
{
    static bool once;
    if (once) return;
    once = true;
    if (getenv("NCCL_DEBUG")) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(nccl_log, sizeof nccl_log, "%s/permbench-nccl-%ld.log", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,P2P", 1);
    setenv("NCCL_DEBUG_FILE", nccl_log, 1);
    atexit(nccl_log_remove);
}

int comms_init(comms *c, uint32_t G, pb_err *err)
{
    c->G = G;
    for (uint32_t d = 0; d < G; d++) {
        PB_CUDA_TRY(cudaSetDevice((int)d), err);
        int lowest = 0, highest = 0;
        PB_CUDA_TRY(cudaDeviceGetStreamPriorityRange(&lowest, &highest), err);
        PB_CUDA_TRY(cudaStreamCreateWithFlags(&c->st[d], cudaStreamNonBlocking), err);
        PB_CUDA_TRY(cudaStreamCreateWithPriority(&c->xs[d], cudaStreamNonBlocking, highest), err);
    }
#ifdef PB_HAVE_NCCL
    if (G > 1) {
        /* NVLink multicast stays off unless the caller says otherwise
         * (the lent nodes require it: their KINDS.md). */
        setenv("NCCL_NVLS_ENABLE", "0", 0);
        nccl_log_capture();
        int devs[G_MAX];
        for (uint32_t d = 0; d < G; d++) devs[d] = (int)d;
        PB_NCCL_TRY(ncclCommInitAll(c->c, (int)G, devs), err);
    }
#endif
    c->ready = true;
    PB_CUDA_TRY(cudaSetDevice(0), err);
    return 0;
}

void comms_free(comms *c)
{
    if (!c->ready) return;
#ifdef PB_HAVE_NCCL
    if (c->G > 1)
        for (uint32_t d = 0; d < c->G; d++) ncclCommDestroy(c->c[d]);
#endif
    for (uint32_t d = 0; d < c->G; d++) {
        cudaSetDevice((int)d);
        cudaStreamDestroy(c->st[d]);
        cudaStreamDestroy(c->xs[d]);
    }
    cudaSetDevice(0);
    c->ready = false;
}

/* The G x G counts the devices' streams are copying to h (row s from
 * device s), once every stream is idle, into p with its offsets: NCCL
 * takes a send's size on the host. */
int plan_from_counts(const comms *c, const unsigned long long *h, plan *p, pb_err *err)
{
    const uint32_t G = c->G;
    for (uint32_t g = 0; g < G; g++) {
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        PB_CUDA_TRY(cudaStreamSynchronize(c->st[g]), err);
    }
    p->G = G;
    for (uint32_t k = 0; k < G * G; k++) p->cnt[k] = h[k];
    plan_offsets(p);
    return 0;
}

/* Step 3: every block of p from send[s] to recv[d], item_bytes each, on
 * the devices' streams; a device's own block is a copy. Queued, not
 * waited for. */
int exchange(comms *c, const plan *p, void *const *send, void *const *recv, unsigned ib, const cudaStream_t *st,
             pb_err *err)
{
    uint32_t G = p->G;
    for (uint32_t s = 0; s < G; s++) {
        uint64_t k = p->cnt[s * G + s];
        if (!k) continue;
        PB_CUDA_TRY(cudaSetDevice((int)s), err);
        PB_CUDA_TRY(cudaMemcpyAsync((char *)recv[s] + p->recv_off[s * G + s] * ib,
                                    (const char *)send[s] + p->send_off[s * G + s] * ib, k * ib,
                                    cudaMemcpyDeviceToDevice, st[s]),
                    err);
    }
    if (G > 1) {
#ifdef PB_HAVE_NCCL
        PB_NCCL_TRY(ncclGroupStart(), err);
        for (uint32_t s = 0; s < G; s++)
            for (uint32_t d = 0; d < G; d++) {
                if (d == s) continue;
                /* s sends its block for d; s receives d's block for s. */
                uint64_t out = p->cnt[s * G + d], in = p->cnt[d * G + s];
                if (out)
                    PB_NCCL_TRY(ncclSend((const char *)send[s] + p->send_off[s * G + d] * ib, out * ib, ncclUint8,
                                         (int)d, c->c[s], st[s]),
                                err);
                if (in)
                    PB_NCCL_TRY(ncclRecv((char *)recv[s] + p->recv_off[d * G + s] * ib, in * ib, ncclUint8, (int)d,
                                         c->c[s], st[s]),
                                err);
            }
        PB_NCCL_TRY(ncclGroupEnd(), err);
#else
        return pb_err_set(err, "distributed shuffle: %u devices need NCCL, and this build has none", G);
#endif
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    return 0;
}

/* ---- the module's state ---- */

struct dev_state {
    uint64_t lo, len; /* the device's slice of the input */
    void *in;         /* the slice: inside the harness's input on device 0 */
    void *own_in, *out;
    uint8_t *keys, *keys_out;
    uint32_t *idx, *idx_out; /* records: slice indices, sorted by destination */
    unsigned long long *tile_counts, *tile_offsets; /* the fused split's, G x tiles */
    uint64_t tiles;
    void *sorted, *recv;
    unsigned long long *counts;
    void *temp, *bij;
    size_t temp_bytes, bij_bytes;
    cudaEvent_t done;
    cudaEvent_t phase[4]; /* PB_DIST_PHASES: start, split, exchange, shuffle done */
    cudaEvent_t counted;  /* the counts are on the host (G > 1) */
    cudaEvent_t xdone;    /* the exchange stream's last piece sent and received */
    cudaEvent_t piece[K_MAX]; /* piece c of the slice is ordered (G > 1) */
    cudaEvent_t tp[K_MAX][3]; /* PB_DIST_PHASES, pieces: ordered, exchange started, exchange done */
};

struct state {
    void *bufs; /* pb_gpu_shuffle_buffers on device 0, first (the _via helpers) */
    bool exchange_only;
    uint32_t G;
    pb_bij_kind kind;
    int rounds;
    bool fused; /* split = fused (scalars) */
    uint32_t K; /* pieces a slice is split and sent in (0 or 1: one) */
    uint64_t n, seed, cap;
    unsigned ib;
    comms c;
    plan p;
    uint64_t start[G_MAX + 1]; /* the parts' places in the output, last run */
    bool gathered;
    unsigned long long *h_counts; /* pinned, G x K x G: device s's piece c's count for d at (s K + c) G + d */
    plan pc;                      /* one piece's blocks */
    char topology[256];           /* pb_link_report's */
    bool topology_done;           /* NCCL's connections are in it (or cannot be) */
    cudaEvent_t begin;            /* device 0 */
    bool trace;                   /* PB_DIST_PHASES set: each run's phases to stderr */
    bool traced;                  /* the last run recorded them */
    dev_state d[G_MAX];
};

uint32_t pieces(const state *s) { return s->K > 1 ? s->K : 1; }

/* Piece c of a slice of len items: [piece_lo(len, K, c), piece_lo(len, K, c + 1)). */
uint64_t piece_lo(uint64_t len, uint32_t K, uint32_t c) { return pb_dist_slice(len, K, c); }

/* PB_DIST_PHASES=1: every device's phases timed by its own events (the
 * where-does-the-time-go view of a sample; events on one device only, as
 * CUDA requires), printed after the run, untimed. */
int mark(state *s, uint32_t g, int k, pb_err *err)
{
    if (!s->trace) return 0;
    PB_CUDA_TRY(cudaEventRecord(s->d[g].phase[k], s->c.st[g]), err);
    return 0;
}

int print_phases(state *s, pb_err *err)
{
    if (!s->traced) return 0;
    s->traced = false;
    for (uint32_t g = 0; g < s->G; g++) {
        float ms[3];
        PB_CUDA_TRY(cudaSetDevice((int)g), err);
        for (int k = 0; k < 3; k++)
            PB_CUDA_TRY(cudaEventElapsedTime(&ms[k], s->d[g].phase[k], s->d[g].phase[k + 1]), err);
        fprintf(stderr, "dist phases n=%llu devices=%u device %u: split %.3f ms, exchange %.3f ms, shuffle %.3f ms "
                        "(part %llu items)\n",
                (unsigned long long)s->n, s->G, g, ms[0], ms[1], ms[2], (unsigned long long)s->p.part[g]);
        /* The pieces' timeline from the sample's start (ms): ordered, and
         * the exchange's start and end on the exchange stream. */
        if (s->G > 1 && s->d[g].tp[0][0]) {
            fprintf(stderr, "dist pieces device %u:", g);
            for (uint32_t c = 0; c < pieces(s); c++) {
                float t[3];
                for (int k = 0; k < 3; k++)
                    PB_CUDA_TRY(cudaEventElapsedTime(&t[k], s->d[g].phase[0], s->d[g].tp[c][k]), err);
                fprintf(stderr, " [%u] %.2f %.2f-%.2f", c, t[0], t[1], t[2]);
            }
            fputc('\n', stderr);
        }
    }
    PB_CUDA_TRY(cudaSetDevice(0), err);
    return 0;
}

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
        /* auto: pieces of about 2 GiB of items, at most 16. Measured on two
         * H200 at 2 x 2^30 u64 (PB_DIST_PHASES' piece timelines): 16
         * pieces of 512 MiB each took 1.2-2.5 ms to exchange against
         * 0.86 ms for a 16th of one whole exchange (a piece's exchange
         * has a fixed cost, and NCCL's kernels share the SMs with the
         * ordering); 4 pieces gave the fastest sample (57.3 ms against
         * 60.7 for 16 and 63.2 for one). */
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

/* A path type of NCCL's topology search, in words. */
const char *path_words(const char *type)
{
    static const struct { const char *code, *words; } w[] = {
        {"NVL", "NVLink"}, {"NVB", "NVLink through another GPU"}, {"C2C", "C2C"}, {"PIX", "PCIe, one switch"},
        {"PXB", "PCIe, several switches"}, {"PXN", "PCIe through another GPU"}, {"PHB", "PCIe through the CPU"},
        {"SYS", "PCIe across CPU sockets"}, {"LOC", "local"}, {"NET", "network"}};
    for (const auto &x : w)
        if (strncmp(type, x.code, 3) == 0) return x.words;
    return "unknown";
}

/* NCCL's path type (the last topology search's "type X/Y": X between the
 * GPUs) and the first connection's transport ("via P2P/..."), from the
 * captured log; false when neither is there yet. */
bool nccl_report(char *type, size_t tl, char *via, size_t vl)
{
    type[0] = via[0] = 0;
    FILE *f = nccl_log[0] ? fopen(nccl_log, "r") : NULL;
    if (!f) return false;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *q;
        if (strstr(line, "Pattern") && (q = strstr(line, "type ")))
            sscanf(q + 5, "%63[^, \n]", type), type[tl - 1] = 0;
        if (!via[0] && (q = strstr(line, " via "))) sscanf(q + 5, "%63[^ \n]", via), via[vl - 1] = 0;
    }
    fclose(f);
    return type[0] || via[0];
}

/* The devices, CUDA's peer access among them and NCCL's account of the
 * links, e.g. "2 GPUs; NCCL 2.28.9: type NVL/PIX (NVLink), via P2P/CUMEM;
 * CUDA peer access 1 of 1 pairs". */
void topology_of(state *s)
{
    char *t = s->topology;
    const size_t n = sizeof s->topology;
    int k = snprintf(t, n, "%u GPU%s", s->G, s->G == 1 ? "" : "s");
    s->topology_done = true;
    if (s->G < 2) {
        snprintf(t + k, n - k, ", no exchange");
        return;
    }
#ifdef PB_HAVE_NCCL
    int v = 0;
    if (ncclGetVersion(&v) == ncclSuccess) k += snprintf(t + k, n - k, "; NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
#endif
    char type[64], via[64];
    if (nccl_report(type, sizeof type, via, sizeof via))
        k += snprintf(t + k, n - k, ": type %s (%s), via %s", type[0] ? type : "?", type[0] ? path_words(type) : "?",
                      via[0] ? via : "?");
    else if (getenv("NCCL_DEBUG") && !nccl_log[0])
        k += snprintf(t + k, n - k, ": links not captured (NCCL_DEBUG set by the caller)");
    else {
        k += snprintf(t + k, n - k, ": links not reported yet");
        s->topology_done = false;
    }
    unsigned pairs = 0, peer = 0;
    for (uint32_t a = 0; a < s->G; a++)
        for (uint32_t b = a + 1; b < s->G; b++) {
            int x = 0;
            pairs++;
            if (cudaDeviceGetP2PAttribute(&x, cudaDevP2PAttrAccessSupported, (int)a, (int)b) == cudaSuccess && x) peer++;
        }
    cudaGetLastError();
    if (k > 0 && (size_t)k < n) snprintf(t + k, n - k, "; CUDA peer access %u of %u pairs", peer, pairs);
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
    if (!s->topology_done) topology_of(s);
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

extern "C" const pb_module pb_module_dist_shuffle = {
    .name = "dist-shuffle",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_SEEDED,
    .summary = "uniform shuffle over G GPUs: Philox destinations, NCCL exchange, bijective2 on each",
    .params = dist_params,
    .nparams = sizeof dist_params / sizeof dist_params[0],
    .footprint = footprint,
    .prepare = prepare,
    .run = run,
    .result = result,
    .verify = verify,
    .release = release,
    .sample_perms = sample_perms,
    .refresh = refresh,
    .fingerprint = fingerprint,
    .bound = PB_BOUND_NONE,
    .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR) | PB_ITEM_CLASSES(PB_ITEM_RECORD),
    .available = available,
    .links = links,
};

extern "C" const pb_module pb_module_dist_exchange = {
    .name = "dist-exchange",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_CEILING,
    .summary = "the distributed shuffle's all-to-all alone (equal blocks): its ceiling",
    .params = exchange_params,
    .nparams = sizeof exchange_params / sizeof exchange_params[0],
    .footprint = footprint_exchange,
    .prepare = prepare_exchange,
    .run = run_exchange,
    .result = result,
    .verify = verify,
    .release = release,
    .refresh = refresh,
    .fingerprint = fingerprint,
    .bound = PB_BOUND_NONE,
    .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR) | PB_ITEM_CLASSES(PB_ITEM_RECORD),
    .available = available,
    .links = links,
};

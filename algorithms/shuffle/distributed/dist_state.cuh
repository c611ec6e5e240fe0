/* The distributed shuffle's state (gpu_dist_shuffle.cu): each device's
 * slice, buffers and events, the run's plan and communicators, and the
 * phase trace (PB_DIST_PHASES). Included by gpu_dist_shuffle.cu alone. */
#ifndef PB_DIST_STATE_CUH
#define PB_DIST_STATE_CUH

#include <stdint.h>
#include <stdio.h>

#include <cuda_runtime.h>

#include "algorithms/shuffle/bijective/bijection.h"
#include "algorithms/shuffle/distributed/dist_comms.h"
#include "algorithms/shuffle/distributed/dist_exchange.h"
#include "algorithms/shuffle/distributed/dist_twin.h"
#include "core/cuda_check.h"

namespace {

using pb_dist::comms;
using pb_dist::G_MAX;
using pb_dist::plan;
/* Pieces a slice is split and sent in (split = cub): piece c's exchange
 * runs while piece c + 1 is being split. */
constexpr int K_MAX = 64;

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

} // namespace

#endif

/* The distributed shuffle's exchange (gpu_dist_shuffle.cu, step 3): the
 * plan of the G x G blocks between devices, and the blocks sent and
 * received in one NCCL group. C++ (CUDA sources) only. */
#ifndef PB_DIST_EXCHANGE_H
#define PB_DIST_EXCHANGE_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "algorithms/shuffle/distributed/dist_comms.h"
#include "core/err.h"

namespace pb_dist {

constexpr int G_MAX = PB_DIST_MAX_DEVICES;

/* Where the blocks go: cnt[s * G + d] items from s to d; block (s, d)
 * starts at send_off[s * G + d] in s's send buffer (destinations in order)
 * and at recv_off[s * G + d] in d's receive buffer (sources in order). */
struct plan {
    uint32_t G;
    uint64_t cnt[G_MAX * G_MAX], send_off[G_MAX * G_MAX], recv_off[G_MAX * G_MAX];
    uint64_t part[G_MAX];
};

/* The offsets of p's blocks from its counts. */
void plan_offsets(plan *p);

/* The G x G counts the devices' streams are copying to h (row s from
 * device s), once every stream is idle, into p with its offsets: NCCL
 * takes a send's size on the host. */
int plan_from_counts(const comms *c, const unsigned long long *h, plan *p, pb_err *err);

/* Step 3: every block of p from send[s] to recv[d], item_bytes each, on
 * the devices' streams; a device's own block is a copy. Queued, not
 * waited for. */
int exchange(comms *c, const plan *p, void *const *send, void *const *recv, unsigned ib, const cudaStream_t *st,
             pb_err *err);

} // namespace pb_dist

#endif

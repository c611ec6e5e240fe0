/* The distributed shuffle's communicators (gpu_dist_shuffle.cu): one
 * process drives devices 0 .. G-1, each with a work stream and an
 * exchange stream, and (G > 1, NCCL) one NCCL communicator a device, made
 * together with ncclCommInitAll. C++ (CUDA sources) only. */
#ifndef PB_DIST_COMMS_H
#define PB_DIST_COMMS_H

#include <stdint.h>

#include <cuda_runtime.h>
#ifdef PB_HAVE_NCCL
#include <nccl.h>
#endif

#include "algorithms/shuffle/distributed/dist_twin.h"
#include "core/err.h"

#ifdef PB_HAVE_NCCL
#define PB_NCCL_TRY(call, err)                                                                                      \
    do {                                                                                                            \
        ncclResult_t pb_r_ = (call);                                                                                \
        if (pb_r_ != ncclSuccess)                                                                                   \
            return pb_err_set((err), "%s failed: %s (%s:%d)", #call, ncclGetErrorString(pb_r_), __FILE__, __LINE__); \
    } while (0)
#endif

namespace pb_dist {

struct comms {
    uint32_t G;
#ifdef PB_HAVE_NCCL
    ncclComm_t c[PB_DIST_MAX_DEVICES];
#endif
    cudaStream_t st[PB_DIST_MAX_DEVICES]; /* each device's work */
    cudaStream_t xs[PB_DIST_MAX_DEVICES]; /* its exchange, at the highest priority: NCCL's blocks go first onto the SMs a split frees */
    bool ready;
};

/* Streams on every device and, for G > 1, the NCCL communicators (NVLink
 * multicast off unless the caller set NCCL_NVLS_ENABLE; NCCL's log
 * captured, dist_nccl_log.h). Leaves device 0 current. */
int comms_init(comms *c, uint32_t G, pb_err *err);
/* Frees what comms_init made; nothing if it did not finish. */
void comms_free(comms *c);

} // namespace pb_dist

#endif

#include "algorithms/shuffle/distributed/dist_comms.h"

#include <stdlib.h>

#include "algorithms/shuffle/distributed/dist_nccl_log.h"
#include "core/cuda_check.h"

namespace pb_dist {

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
        int devs[PB_DIST_MAX_DEVICES];
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

} // namespace pb_dist

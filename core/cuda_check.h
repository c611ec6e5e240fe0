/* Error checks for CUDA sources: every call and every launch is checked, and
 * the failure travels up as a message instead of aborting the sweep. */
#ifndef PB_CUDA_CHECK_H
#define PB_CUDA_CHECK_H

#include <cuda_runtime.h>

#include "core/err.h"

#define PB_CUDA_TRY(call, err)                                                                     \
    do {                                                                                           \
        cudaError_t pb_e_ = (call);                                                                \
        if (pb_e_ != cudaSuccess)                                                                  \
            return pb_err_set((err), "%s failed: %s (%s:%d)", #call, cudaGetErrorString(pb_e_),   \
                              __FILE__, __LINE__);                                                 \
    } while (0)

/* After every kernel launch: catches bad configurations at once. */
#define PB_CUDA_LAUNCHED(err) PB_CUDA_TRY(cudaGetLastError(), err)

#endif

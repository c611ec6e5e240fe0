/* Device buffers for GPU shuffle-family modules: the input (filled on the
 * device with the family's items), an output, and a host copy of the output
 * made on demand for verification. */
#ifndef PB_GPU_SHUFFLE_BUFFERS_H
#define PB_GPU_SHUFFLE_BUFFERS_H

#include "core/module.h"
#include "families/shuffle/shuffle_family.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_gpu_shuffle_buffers {
    pb_point pt; /* pt.params points at `params` */
    pb_params params;
    void *d_in;
    void *d_out;
    void *h_out; /* allocated by the first result() */
} pb_gpu_shuffle_buffers;

int pb_gpu_shuffle_prepare(const pb_point *pt, void **state, pb_err *err);
int pb_gpu_shuffle_result(void *state, const void **out, pb_err *err);
void pb_gpu_shuffle_release(void *state);
uint64_t pb_gpu_shuffle_footprint(const pb_point *pt);

/* result() for modules whose own state struct begins with a pointer to
 * their pb_gpu_shuffle_buffers (the GPU shuffles keep scratch beside it). */
int pb_gpu_shuffle_result_via(void *state, const void **out, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

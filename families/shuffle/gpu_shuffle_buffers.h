/* Device buffers for GPU shuffle-family modules: the input (filled on the
 * device with the family's items), an output, and a host copy of the output
 * made on demand for verification. */
#ifndef PB_GPU_SHUFFLE_BUFFERS_H
#define PB_GPU_SHUFFLE_BUFFERS_H

#include "core/module.h"
#include "families/shuffle/shuffle_family.h"
#include "families/shuffle/shuffle_hooks.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_gpu_shuffle_buffers {
    pb_point pt; /* pt.params points at `params` */
    pb_params params;
    void *d_in;
    void *d_out;
    void *h_out; /* allocated by the first result() */
    void *d_seen; /* the device check's bitmap and verdict, allocated by the first check */
} pb_gpu_shuffle_buffers;

int pb_gpu_shuffle_prepare(const pb_point *pt, void **state, pb_err *err);
int pb_gpu_shuffle_result(void *state, const void **out, pb_err *err);
void pb_gpu_shuffle_release(void *state);
uint64_t pb_gpu_shuffle_footprint(const pb_point *pt);

/* Before every sample: the input written afresh (a fill kernel) and the
 * output poisoned. */
int pb_gpu_shuffle_refresh(void *state, pb_err *err);
/* The output's fingerprint, computed on the device. */
int pb_gpu_shuffle_fingerprint(void *state, uint64_t *fp, pb_err *err);
/* The family contract on the device, exactly: every output item maps back
 * (the item encoding is invertible) to a distinct input index below n, and
 * every record is whole; a bitmap of n bits marks them. The error names
 * the first offending position, as the host check does. */
int pb_gpu_shuffle_verify(void *state, pb_err *err);
/* The copy ceilings' check: the output's fingerprint is the input's. */
int pb_gpu_shuffle_verify_copy(void *state, pb_err *err);

/* The same for modules whose own state struct begins with a pointer to
 * their pb_gpu_shuffle_buffers (the GPU shuffles keep scratch beside it). */
int pb_gpu_shuffle_result_via(void *state, const void **out, pb_err *err);
int pb_gpu_shuffle_refresh_via(void *state, pb_err *err);
int pb_gpu_shuffle_fingerprint_via(void *state, uint64_t *fp, pb_err *err);
int pb_gpu_shuffle_verify_via(void *state, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

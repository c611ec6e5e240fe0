/* The buffers most shuffle-family modules need, so a module file holds its
 * algorithm and little else: the input (filled with the family's items), an
 * output (the input itself for in-place modules), and the module's resolved
 * parameters. Host versions here; device versions in gpu_shuffle_buffers.h. */
#ifndef PB_SHUFFLE_BUFFERS_H
#define PB_SHUFFLE_BUFFERS_H

#include <stdbool.h>

#include "core/module.h"
#include "families/shuffle/shuffle_family.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_shuffle_buffers {
    pb_point pt;       /* pt.params points at `params` below */
    pb_params params;
    void *in;
    void *out;         /* == in for in-place modules */
    void *extra;       /* for the module's own use; freed on release */
} pb_shuffle_buffers;

/* Allocates and fills; `out_of_place` adds a separate output buffer. */
int pb_shuffle_buffers_new(const pb_point *pt, bool out_of_place, pb_shuffle_buffers **bufs,
                           pb_err *err);

/* Ready-made descriptor functions. */
int pb_shuffle_prepare_inplace(const pb_point *pt, void **state, pb_err *err);
int pb_shuffle_prepare_outofplace(const pb_point *pt, void **state, pb_err *err);
int pb_shuffle_result(void *state, const void **out, pb_err *err);
void pb_shuffle_release(void *state);
uint64_t pb_shuffle_footprint_inplace(const pb_point *pt);
uint64_t pb_shuffle_footprint_outofplace(const pb_point *pt);

/* Before every sample: an in-place module's input is written afresh, an
 * out-of-place module's output poisoned (bytes 0xa5, which no run that
 * writes every position can leave behind unnoticed). */
int pb_shuffle_refresh(void *state, pb_err *err);
/* The output's fingerprint (core/fingerprint.h). */
int pb_shuffle_fingerprint(void *state, uint64_t *fp, pb_err *err);
/* The copy ceiling's check: the output equals the input, item for item. */
int pb_shuffle_verify_copy(void *state, pb_err *err);

/* The same for modules whose state begins with a pointer to their
 * pb_shuffle_buffers (they keep scratch beside it). */
int pb_shuffle_result_via(void *state, const void **out, pb_err *err);
int pb_shuffle_refresh_via(void *state, pb_err *err);
int pb_shuffle_fingerprint_via(void *state, uint64_t *fp, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

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

#ifdef __cplusplus
}
#endif

#endif

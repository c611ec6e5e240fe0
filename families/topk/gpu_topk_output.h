/* The whole output of a GPU top-k module, for C callers (the GPU tests).
 *
 * A module's result() hands out one array (the values); the indices, half
 * of the top-k answer, have no place in the descriptor. Every GPU top-k
 * module keeps its state in gpu_topk_state.cuh's pb_gpu_topk, so this reads
 * both from there. Only for the state of such a module, after a run. */
#ifndef PB_GPU_TOPK_OUTPUT_H
#define PB_GPU_TOPK_OUTPUT_H

#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Copies the last run's output back and points *vals and *idx at the host
 * copies (the problem's output layout; valid until the state is released;
 * the values in the dtype's words: uint32_t, or uint64_t for fp64 and u64).
 * *out_off (rows + 1 entries) and *rows describe the layout. */
int pb_gpu_topk_output(void *state, const void **vals, const uint32_t **idx,
                       const uint64_t **out_off, uint64_t *rows, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

/* pb_gpu_topk_output: both halves of a GPU top-k module's answer. */
#include "families/topk/gpu_topk_output.h"

#include "families/topk/gpu_topk_state.cuh"

extern "C" int pb_gpu_topk_output(void *state, const void **vals, const uint32_t **idx,
                                  const uint64_t **out_off, uint64_t *rows, pb_err *err)
{
    const void *out;
    /* result() copies both arrays back; it only hands out the values. */
    if (pb_gpu_topk_result(state, &out, err)) return -1;
    const pb_gpu_topk *g = (const pb_gpu_topk *)state;
    *vals = g->h_vals;
    *idx = g->h_idx;
    *out_off = g->prob.out_off;
    *rows = g->prob.rows;
    return 0;
}

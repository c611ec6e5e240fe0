/* What every GPU tile module keeps: the host problem (input, seed), the
 * input and output on the device, the host copy of the output. The
 * descriptor functions here are shared; a module supplies its launch. */
#ifndef PB_GPU_TILE_STATE_CUH
#define PB_GPU_TILE_STATE_CUH

#include "core/cuda_check.h"
#include "core/module.h"
#include "families/tile/tile_problem.h"

struct pb_gpu_tile {
    pb_params params;
    pb_point pt; /* pt.params points at `params` */
    pb_tile_problem prob;
    uint32_t *d_in, *d_out; /* n items each */
    uint32_t *h_out;        /* made by result() */
};

/* prepare() of a GPU tile module for operation `op`: checks the point,
 * generates the input, copies it to the device, then runs setup(g) (kernel
 * attributes); everything is released if any step fails. */
typedef int (*pb_gpu_tile_setup)(pb_gpu_tile *g, pb_err *err);
int pb_gpu_tile_prepare(const pb_point *pt, pb_tile_op op, pb_gpu_tile_setup setup, void **state,
                        pb_err *err);
int pb_gpu_tile_result(void *state, const void **out, pb_err *err);
/* Before every sample: the output poisoned (the input is never written). */
int pb_gpu_tile_refresh(void *state, pb_err *err);
/* The output's fingerprint, computed on the device: what the harness
 * compares with the C twin's (the module's reference) every sample. */
int pb_gpu_tile_fingerprint(void *state, uint64_t *fp, pb_err *err);
/* The family's contract (pb_tile_check) on the copied-back output: for
 * tests, and for the message when a fingerprint is not the twin's. */
int pb_gpu_tile_verify(void *state, pb_err *err);
void pb_gpu_tile_release(void *state);
/* Device bytes: the input and the output. */
uint64_t pb_gpu_tile_footprint(const pb_point *pt);

#endif

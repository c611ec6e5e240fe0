/* What every GPU top-k module keeps: the host problem (input, twin answer),
 * the batch and its row offsets on the device, the output arrays in the
 * problem's output layout, and module scratch. The descriptor functions here
 * are shared; a module supplies set-up and run(). */
#ifndef PB_GPU_TOPK_STATE_CUH
#define PB_GPU_TOPK_STATE_CUH

#include "core/cuda_check.h"
#include "core/module.h"
#include "families/topk/topk_problem.h"

struct pb_gpu_topk_ranker; /* gpu_topk_rank.cu */

struct pb_gpu_topk {
    pb_params params;
    pb_point pt; /* pt.params points at `params` */
    pb_topk_problem prob;
    uint32_t *d_data;               /* prob.total raw values (rows and padding) at the dtype's
                                       width: 16-bit types are uint16_t values here, fp64 and
                                       u64 uint64_t ones */
    uint64_t *d_begin, *d_end;      /* rows + 1 and rows: CUB's segment form */
    uint64_t *d_out_off;            /* rows + 1 */
    void *d_vals;                   /* out_total result values in the host's words
                                       (pb_topk_word_bytes: uint32_t, uint64_t for 64-bit types) */
    uint32_t *d_idx;                /* out_total result indices */
    void *h_vals;                   /* host copies, made by result() */
    uint32_t *h_idx;
    pb_gpu_topk_ranker *ranker;     /* sorted = yes, modules that rank: scratch */
    void *mod;                      /* module-owned; freed by mod_free */
    void (*mod_free)(void *mod);
};

/* prepare() of a GPU top-k module: builds the problem on the host, copies it
 * to the device, then runs setup(g, ctx) for the module's own scratch;
 * everything is released if either fails. */
typedef int (*pb_gpu_topk_setup)(pb_gpu_topk *g, const void *ctx, pb_err *err);
int pb_gpu_topk_prepare_with(const pb_point *pt, pb_gpu_topk_setup setup, const void *ctx,
                             void **state, pb_err *err);
int pb_gpu_topk_result(void *state, const void **out, pb_err *err);
/* The family check (pb_topk_check) on the copied-back output: exact (every
 * row's key multiset against the twin's, computed once), and cheap, as the
 * output is rows x k values. */
int pb_gpu_topk_verify(void *state, pb_err *err);
/* Before every sample: the results poisoned. */
int pb_gpu_topk_refresh(void *state, pb_err *err);
void pb_gpu_topk_release(void *state);
/* Device bytes for the input, offsets and output (modules add scratch). */
uint64_t pb_gpu_topk_footprint_io(const pb_point *pt);

/* sorted = yes for a module whose selection leaves rows unordered
 * (gpu_topk_rank.cu): setup makes the scratch (nothing without `sorted`),
 * rank enqueues the ranking on stream s after the module's own work. Every
 * dtype (64-bit values take two stable sorts: by index, then by key). */
int pb_gpu_topk_rank_setup(pb_gpu_topk *g, pb_err *err);
int pb_gpu_topk_rank(const pb_gpu_topk *g, cudaStream_t s, pb_err *err);
void pb_gpu_topk_rank_free(pb_gpu_topk_ranker *k);
/* Device bytes of the ranking's scratch at a point (0 without `sorted`). */
uint64_t pb_gpu_topk_rank_footprint(const pb_point *pt);

#endif

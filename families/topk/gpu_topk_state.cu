/* The shared half of the GPU top-k modules: problem set-up on the host,
 * device buffers, the copy back and the family check. */
#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_check.h"

#include <stdlib.h>

/* Padding (misaligned rows) adds at most 4 elements a row. An input value
 * takes 4 bytes at most for the dtypes up to 32 bits (a bound), 8 for the
 * 64-bit ones; a result its value's word and a 4-byte index. */
uint64_t pb_gpu_topk_footprint_io(const pb_point *pt)
{
    uint64_t rows = (uint64_t)pt->params->v[PB_TOPK_P_ROWS];
    uint64_t w = pb_topk_word_bytes((int)pt->params->v[PB_TOPK_P_DTYPE]);
    return w * (pt->n * rows + 4 * rows + 8) + 24 * (rows + 1) + (w + 4) * pb_topk_out_bound(pt) +
           4096;
}

/* 16-bit values (held zero-extended on the host) go to the device at
 * their own width, through a host buffer of that width. */
static int upload16(void *d_data, const uint32_t *data, size_t total, pb_err *err)
{
    uint16_t *h = (uint16_t *)malloc(total * sizeof *h);
    if (!h) return pb_err_set(err, "out of host memory for %zu 16-bit values", total);
    for (size_t i = 0; i < total; i++) h[i] = (uint16_t)data[i];
    cudaError_t e = cudaMemcpy(d_data, h, total * sizeof *h, cudaMemcpyHostToDevice);
    free(h);
    PB_CUDA_TRY(e, err);
    return 0;
}

static int upload(pb_gpu_topk *g, pb_err *err)
{
    pb_topk_problem *p = &g->prob;
    if (pb_topk_problem_init(p, &g->pt, err)) return -1;
    size_t total = (size_t)p->total, rows = (size_t)p->rows, outs = (size_t)p->out_total;
    /* Rounded up to whole packs of four values: a module reading a row's
     * last pack (offset padding) stays inside the allocation. */
    size_t alloc = (total + 3) / 4 * 4 + 4, w = pb_topk_dtype_bytes(p->dtype);
    size_t vw = pb_topk_word_bytes(p->dtype);
    PB_CUDA_TRY(cudaMalloc(&g->d_data, alloc * w), err);
    PB_CUDA_TRY(cudaMemset(g->d_data, 0, alloc * w), err);
    PB_CUDA_TRY(cudaMalloc(&g->d_begin, (rows + 1) * 8), err);
    PB_CUDA_TRY(cudaMalloc(&g->d_end, (rows ? rows : 1) * 8), err);
    PB_CUDA_TRY(cudaMalloc(&g->d_out_off, (rows + 1) * 8), err);
    PB_CUDA_TRY(cudaMalloc(&g->d_vals, (outs ? outs : 1) * vw), err);
    PB_CUDA_TRY(cudaMalloc(&g->d_idx, (outs ? outs : 1) * 4), err);
    /* 32- and 64-bit values go as the host holds them; 16-bit ones are
     * narrowed from their 32-bit words. */
    if (total && w != 2)
        PB_CUDA_TRY(cudaMemcpy(g->d_data, pb_topk_values(p), total * w, cudaMemcpyHostToDevice),
                    err);
    if (total && w == 2 && upload16(g->d_data, p->data, total, err)) return -1;
    PB_CUDA_TRY(cudaMemcpy(g->d_begin, p->begin, (rows + 1) * 8, cudaMemcpyHostToDevice), err);
    if (rows) PB_CUDA_TRY(cudaMemcpy(g->d_end, p->end, rows * 8, cudaMemcpyHostToDevice), err);
    PB_CUDA_TRY(cudaMemcpy(g->d_out_off, p->out_off, (rows + 1) * 8, cudaMemcpyHostToDevice),
                err);
    /* A module that forgets a result leaves a value no row holds at an
     * index outside every row, so the check cannot pass by accident. */
    PB_CUDA_TRY(cudaMemset(g->d_idx, 0xff, (outs ? outs : 1) * 4), err);
    return 0;
}

int pb_gpu_topk_prepare_with(const pb_point *pt, pb_gpu_topk_setup setup, const void *ctx,
                             void **state, pb_err *err)
{
    *state = NULL;
    pb_gpu_topk *g = (pb_gpu_topk *)calloc(1, sizeof *g);
    if (!g) return pb_err_set(err, "out of host memory");
    g->params = *pt->params;
    g->pt = *pt;
    g->pt.params = &g->params;
    if (upload(g, err) || setup(g, ctx, err)) {
        pb_gpu_topk_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

static int fetch(pb_gpu_topk *g, pb_err *err)
{
    size_t outs = (size_t)g->prob.out_total, vw = pb_topk_word_bytes(g->prob.dtype);
    if (!g->h_vals) {
        g->h_vals = malloc((outs ? outs : 1) * vw);
        g->h_idx = (uint32_t *)malloc((outs ? outs : 1) * 4);
        if (!g->h_vals || !g->h_idx)
            return pb_err_set(err, "out of host memory for %zu top-k results", outs);
    }
    if (outs) {
        PB_CUDA_TRY(cudaMemcpy(g->h_vals, g->d_vals, outs * vw, cudaMemcpyDeviceToHost), err);
        PB_CUDA_TRY(cudaMemcpy(g->h_idx, g->d_idx, outs * 4, cudaMemcpyDeviceToHost), err);
    }
    return 0;
}

int pb_gpu_topk_result(void *state, const void **out, pb_err *err)
{
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    if (fetch(g, err)) return -1;
    *out = g->h_vals;
    return 0;
}

int pb_gpu_topk_refresh(void *state, pb_err *err)
{
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    size_t outs = (size_t)g->prob.out_total;
    if (outs) {
        PB_CUDA_TRY(cudaMemsetAsync(g->d_vals, 0xa5, outs * pb_topk_word_bytes(g->prob.dtype)),
                    err);
        PB_CUDA_TRY(cudaMemsetAsync(g->d_idx, 0xa5, outs * 4), err);
    }
    return 0;
}

int pb_gpu_topk_verify(void *state, pb_err *err)
{
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    if (fetch(g, err)) return -1;
    return pb_topk_check(&g->prob, g->h_vals, g->h_idx, err);
}

void pb_gpu_topk_release(void *state)
{
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    if (!g) return;
    if (g->mod_free) g->mod_free(g->mod);
    pb_gpu_topk_rank_free(g->ranker);
    cudaFree(g->d_data);
    cudaFree(g->d_begin);
    cudaFree(g->d_end);
    cudaFree(g->d_out_off);
    cudaFree(g->d_vals);
    cudaFree(g->d_idx);
    free(g->h_vals);
    free(g->h_idx);
    pb_topk_problem_free(&g->prob);
    free(g);
}

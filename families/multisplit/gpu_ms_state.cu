/* The shared half of the GPU multisplit modules: problem set-up on the host,
 * device buffers, the copy back and the check against the C twin. */
#include "families/multisplit/gpu_ms_state.cuh"

#include <stdlib.h>
#include <string.h>

#include "core/fingerprint.h"
#include "core/gpu.h"

uint64_t pb_gpu_ms_footprint_io(const pb_point *pt)
{
    return 2 * pt->n * (uint64_t)pt->item_bytes + 4096;
}

static int setup(pb_gpu_ms *s, pb_err *err)
{
    if (pb_ms_problem_init(&s->prob, &s->pt, err)) return -1;
    size_t bytes = (size_t)s->n * 4;
    size_t nalloc = bytes ? bytes : 4;
    PB_CUDA_TRY(cudaMalloc(&s->d_keys, nalloc), err);
    PB_CUDA_TRY(cudaMalloc(&s->d_okeys, nalloc), err);
    if (s->pairs) {
        PB_CUDA_TRY(cudaMalloc(&s->d_vals, nalloc), err);
        PB_CUDA_TRY(cudaMalloc(&s->d_ovals, nalloc), err);
    }
    PB_CUDA_TRY(cudaMalloc(&s->d_splitters, PB_MS_MAX_BUCKETS * 4), err);
    if (bytes) {
        PB_CUDA_TRY(cudaMemcpy(s->d_keys, s->prob.keys, bytes, cudaMemcpyHostToDevice), err);
        if (s->pairs)
            PB_CUDA_TRY(cudaMemcpy(s->d_vals, s->prob.vals, bytes, cudaMemcpyHostToDevice), err);
    }
    PB_CUDA_TRY(cudaMemcpy(s->d_splitters, s->prob.splitters, PB_MS_MAX_BUCKETS * 4,
                           cudaMemcpyHostToDevice),
                err);
    return 0;
}

int pb_gpu_ms_prepare(const pb_point *pt, pb_gpu_ms **out, pb_err *err)
{
    *out = NULL;
    pb_gpu_ms *s = (pb_gpu_ms *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of host memory");
    s->params = *pt->params;
    s->pt = *pt;
    s->pt.params = &s->params;
    s->n = pt->n;
    s->pairs = pt->item_bytes == 8;
    if (setup(s, err)) {
        pb_gpu_ms_release(s);
        return -1;
    }
    *out = s;
    return 0;
}

int pb_gpu_ms_prepare_with(const pb_point *pt, pb_gpu_ms_setup setup, const void *ctx,
                           void **state, pb_err *err)
{
    pb_gpu_ms *g;
    if (pb_gpu_ms_prepare(pt, &g, err)) return -1;
    if (setup(g, ctx, err)) {
        pb_gpu_ms_release(g);
        return -1;
    }
    *state = g;
    return 0;
}

pb_bucket_fn pb_gpu_ms_bucket_fn(const pb_gpu_ms *s)
{
    pb_bucket_fn f = s->prob.fn;
    f.splitters = s->d_splitters;
    return f;
}

static int fetch_output(pb_gpu_ms *s, pb_err *err)
{
    size_t bytes = (size_t)s->n * 4;
    if (!s->h_okeys) {
        s->h_okeys = (uint32_t *)malloc(bytes ? bytes : 4);
        s->h_ovals = (uint32_t *)malloc(bytes ? bytes : 4);
        if (!s->h_okeys || !s->h_ovals) return pb_err_set(err, "out of host memory");
    }
    if (s->complete && s->complete(s, err)) return -1;
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    if (s->fetch) return s->fetch(s, err);
    if (bytes) {
        PB_CUDA_TRY(cudaMemcpy(s->h_okeys, s->d_okeys, bytes, cudaMemcpyDeviceToHost), err);
        if (s->pairs)
            PB_CUDA_TRY(cudaMemcpy(s->h_ovals, s->d_ovals, bytes, cudaMemcpyDeviceToHost), err);
    }
    return 0;
}

int pb_gpu_ms_result(void *state, const void **out, pb_err *err)
{
    pb_gpu_ms *s = (pb_gpu_ms *)state;
    if (fetch_output(s, err)) return -1;
    *out = s->h_okeys;
    return 0;
}

int pb_gpu_ms_refresh(void *state, pb_err *err)
{
    pb_gpu_ms *s = (pb_gpu_ms *)state;
    size_t bytes = (size_t)s->n * 4;
    if (bytes) {
        PB_CUDA_TRY(cudaMemsetAsync(s->d_okeys, 0xa5, bytes), err);
        if (s->pairs) PB_CUDA_TRY(cudaMemsetAsync(s->d_ovals, 0xa5, bytes), err);
    }
    return s->poison ? s->poison(s, err) : 0;
}

/* The expected output's fingerprint, computed once: the twin's answer for
 * the stable contract, the stable sort's for the sorted one. */
static int expected_fp(pb_gpu_ms *s, pb_err *err)
{
    if (s->have_expected) return 0;
    uint32_t *keys = NULL, *vals = NULL;
    bool own = false;
    if (s->check == PB_MS_CHECK_STABLE) {
        if (pb_ms_twin_answer(&s->prob, err)) return -1;
        keys = s->prob.twin_keys;
        vals = s->prob.twin_vals;
    } else {
        if (pb_ms_sorted_answer(&s->prob, s->end_bit, &keys, &vals, err)) return -1;
        own = true;
    }
    s->expected_fp = pb_fingerprint(keys, s->n, 4);
    if (s->pairs) s->expected_fp = pb_fp_combine(s->expected_fp, pb_fingerprint(vals, s->n, 4));
    if (own) {
        free(keys);
        free(vals);
    }
    s->have_expected = true;
    return 0;
}

static int host_check(pb_gpu_ms *s, pb_err *err)
{
    if (fetch_output(s, err)) return -1;
    const uint32_t *v = s->pairs ? s->h_ovals : NULL;
    switch (s->check) {
    case PB_MS_CHECK_STABLE: return pb_ms_check_stable(&s->prob, s->h_okeys, v, err);
    case PB_MS_CHECK_CONTRACT: return pb_ms_check_contract(&s->prob, s->h_okeys, v, err);
    default: return pb_ms_check_sorted(&s->prob, s->h_okeys, v, s->end_bit, err);
    }
}

int pb_gpu_ms_verify(void *state, pb_err *err)
{
    pb_gpu_ms *s = (pb_gpu_ms *)state;
    if (s->check == PB_MS_CHECK_CONTRACT || s->fetch) return host_check(s, err);
    if (expected_fp(s, err)) return -1;
    if (s->complete && s->complete(s, err)) return -1;
    uint64_t fp;
    if (pb_gpu_fingerprint(s->d_okeys, s->n, 4, &fp, err)) return -1;
    if (s->pairs) {
        uint64_t fv;
        if (pb_gpu_fingerprint(s->d_ovals, s->n, 4, &fv, err)) return -1;
        fp = pb_fp_combine(fp, fv);
    }
    if (fp == s->expected_fp) return 0;
    /* Wrong: the full check on the host says where. */
    if (host_check(s, err)) return -1;
    return pb_err_set(err, "the output's fingerprint is not the expected output's, though the "
                           "host check passed it");
}

void pb_gpu_ms_release(void *state)
{
    pb_gpu_ms *s = (pb_gpu_ms *)state;
    if (!s) return;
    if (s->mod_free) s->mod_free(s->mod);
    cudaFree(s->d_keys);
    cudaFree(s->d_vals);
    cudaFree(s->d_okeys);
    cudaFree(s->d_ovals);
    cudaFree(s->d_splitters);
    free(s->h_okeys);
    free(s->h_ovals);
    pb_ms_problem_free(&s->prob);
    free(s);
}

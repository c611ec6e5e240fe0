/* cub-partition: CUB's DevicePartition::If as a multisplit — two buckets
 * (bucket 0 selected; CUB writes the rejected ones from the back, in reverse,
 * so the split is not stable) and the three-way If for m = 3 (first, second
 * and unselected parts into three arrays, as CUB's interface has it; they
 * are put side by side only when the result is copied back, untimed).
 * Key-value pairs are partitioned as 64-bit items packed before timing. */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_partition.cuh>

#include "algorithms/multisplit/gpu_ms_helpers.cuh"
#include "core/gpu_launch.cuh"
#include "families/multisplit/gpu_ms_state.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {PB_MS_COMMON_PARAMS};

struct cp {
    void *in;          /* d_keys, or the packed pairs (then owned here) */
    bool own_in;
    void *out[3];      /* first, second, unselected */
    int64_t *count;    /* selected counts (CUB writes 1 or 2) */
    void *temp;
    size_t temp_bytes;
};

void cp_free(void *p)
{
    cp *c = (cp *)p;
    if (!c) return;
    if (c->own_in) cudaFree(c->in);
    for (int i = 0; i < 3; i++)
        if (i == 0 || c->out[i] != c->out[0]) cudaFree(c->out[i]);
    cudaFree(c->count);
    cudaFree(c->temp);
    free(c);
}

template <typename T>
cudaError_t partition(pb_gpu_ms *g, cp *c, void *temp, size_t &bytes)
{
    pb_bucket_fn fn = pb_gpu_ms_bucket_fn(g);
    pb_ms_bucket_is b0 = {fn, 0}, b1 = {fn, 1};
    int64_t n = (int64_t)g->n;
    if (g->prob.m == 2)
        return cub::DevicePartition::If(temp, bytes, (const T *)c->in, (T *)c->out[0], c->count, n,
                                        b0);
    return cub::DevicePartition::If(temp, bytes, (const T *)c->in, (T *)c->out[0], (T *)c->out[1],
                                    (T *)c->out[2], c->count, n, b0, b1);
}

int fetch(pb_gpu_ms *g, pb_err *err)
{
    cp *c = (cp *)g->mod;
    uint64_t n = g->n;
    if (!n) return 0;
    int64_t cnt[2] = {0, 0};
    PB_CUDA_TRY(cudaMemcpy(cnt, c->count, g->prob.m == 2 ? 8 : 16, cudaMemcpyDeviceToHost), err);
    uint64_t part[3] = {(uint64_t)cnt[0], g->prob.m == 2 ? n - cnt[0] : (uint64_t)cnt[1], 0};
    if (g->prob.m == 3) part[2] = n - part[0] - part[1];
    size_t w = g->pairs ? 8 : 4;
    unsigned char *all = (unsigned char *)malloc(n * w);
    if (!all) return pb_err_set(err, "out of host memory");
    if (g->prob.m == 2) {
        cudaError_t e = cudaMemcpy(all, c->out[0], n * w, cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) {
            free(all);
            return pb_err_set(err, "copying the partition back: %s", cudaGetErrorString(e));
        }
    } else {
        uint64_t off = 0;
        for (int i = 0; i < 3; i++) {
            cudaError_t e = cudaMemcpy(all + off * w, c->out[i], part[i] * w, cudaMemcpyDeviceToHost);
            if (e != cudaSuccess) {
                free(all);
                return pb_err_set(err, "copying the partition back: %s", cudaGetErrorString(e));
            }
            off += part[i];
        }
    }
    for (uint64_t i = 0; i < n; i++) {
        if (g->pairs) {
            unsigned long long p;
            memcpy(&p, all + i * 8, 8);
            g->h_okeys[i] = (uint32_t)p;
            g->h_ovals[i] = (uint32_t)(p >> 32);
        } else {
            memcpy(&g->h_okeys[i], all + i * 4, 4);
        }
    }
    free(all);
    return 0;
}

/* Before every sample: the partition's own outputs and counts poisoned. */
int poison(pb_gpu_ms *g, pb_err *err)
{
    cp *c = (cp *)g->mod;
    size_t bytes = (size_t)(g->n ? g->n : 1) * (g->pairs ? 8 : 4);
    for (int i = 0; i < 3; i++)
        if (i == 0 || c->out[i] != c->out[0]) PB_CUDA_TRY(cudaMemsetAsync(c->out[i], 0xa5, bytes), err);
    PB_CUDA_TRY(cudaMemsetAsync(c->count, 0xa5, 16), err);
    return 0;
}

int setup(pb_gpu_ms *g, const void *, pb_err *err)
{
    cp *c = (cp *)calloc(1, sizeof *c);
    if (!c) return pb_err_set(err, "out of host memory");
    g->mod = c;
    g->mod_free = cp_free;
    g->check = PB_MS_CHECK_CONTRACT;
    g->fetch = fetch;
    g->poison = poison;
    size_t n = g->n ? g->n : 1, w = g->pairs ? 8 : 4;
    if (g->pairs) {
        PB_CUDA_TRY(cudaMalloc(&c->in, n * w), err);
        c->own_in = true;
        if (g->n) {
            pb_ms_pack<<<pb_grid_for(g->n, 256), 256>>>(g->d_keys, g->d_vals,
                                                         (unsigned long long *)c->in,
                                                         (uint32_t)g->n);
            PB_CUDA_LAUNCHED(err);
        }
    } else {
        c->in = g->d_keys;
    }
    int parts = g->prob.m == 2 ? 1 : 3;
    for (int i = 0; i < 3; i++) {
        if (i < parts) PB_CUDA_TRY(cudaMalloc(&c->out[i], n * w), err);
        else c->out[i] = c->out[0];
    }
    PB_CUDA_TRY(cudaMalloc(&c->count, 16), err);
    cudaError_t e = g->pairs ? partition<unsigned long long>(g, c, nullptr, c->temp_bytes)
                             : partition<uint32_t>(g, c, nullptr, c->temp_bytes);
    PB_CUDA_TRY(e, err);
    PB_CUDA_TRY(cudaMalloc(&c->temp, c->temp_bytes ? c->temp_bytes : 1), err);
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    long long m = pt->params->v[PB_MS_P_BUCKETS];
    if (m != 2 && m != 3)
        return pb_err_set(err, "gpu-cub-partition splits into 2 or 3 buckets; got buckets = %lld", m);
    return pb_gpu_ms_prepare_with(pt, setup, nullptr, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    cp *c = (cp *)g->mod;
    if (!g->n) return 0;
    size_t bytes = c->temp_bytes;
    cudaError_t e = g->pairs ? partition<unsigned long long>(g, c, c->temp, bytes)
                             : partition<uint32_t>(g, c, c->temp, bytes);
    PB_CUDA_TRY(e, err);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

uint64_t footprint(const pb_point *pt)
{
    uint64_t w = pt->item_bytes == 8 ? 8 : 4;
    return pb_gpu_ms_footprint_io(pt) + 4 * pt->n * w + (1 << 20);
}

} // namespace

PB_MODULE_DEF(cub_partition, "gpu-cub-partition", pb_multisplit_gpu_hooks,
    .summary = "CUB DevicePartition::If: two buckets (unstable: rejected keys reversed), or the "
               "three-way If for m = 3",
    /* max_n: 32-bit positions as values. */
    PB_PARAMS(params), .max_n = (UINT64_C(1) << 32) - 1, .footprint = footprint, .prepare = prepare,
    .run = run);

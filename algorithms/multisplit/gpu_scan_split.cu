/* scan-split: the classic split into two buckets with one global scan
 * (Section 3.2, Table 3): flag the keys of bucket 0, CUB exclusive sum of the
 * flags, scatter — flagged keys to their scanned rank, the others after
 * them in input order. Stable; m = 2 only. */
#include <stdlib.h>

#include <cub/device/device_scan.cuh>

#include "core/gpu_launch.cuh"
#include "families/multisplit/gpu_ms_state.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {PB_MS_COMMON_PARAMS};

struct ss {
    uint32_t *flags, *pos;
    void *temp;
    size_t temp_bytes;
};

__global__ void flag(const uint32_t *__restrict__ k, pb_bucket_fn fn, uint32_t *__restrict__ f,
                     uint32_t n)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        f[i] = pb_bucket_of(fn, k[i]) == 0;
}

template <bool PAIRS>
__global__ void scatter(const uint32_t *__restrict__ k, const uint32_t *__restrict__ v,
                        const uint32_t *__restrict__ f, const uint32_t *__restrict__ pos,
                        uint32_t *__restrict__ ok, uint32_t *__restrict__ ov, uint32_t n)
{
    const uint32_t zeros = pos[n - 1] + f[n - 1];
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t p = pos[i];
        uint32_t d = f[i] ? p : zeros + i - p;
        ok[d] = k[i];
        if (PAIRS) ov[d] = v[i];
    }
}

void ss_free(void *p)
{
    ss *s = (ss *)p;
    if (!s) return;
    cudaFree(s->flags);
    cudaFree(s->pos);
    cudaFree(s->temp);
    free(s);
}

int setup(pb_gpu_ms *g, const void *, pb_err *err)
{
    ss *s = (ss *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of host memory");
    g->mod = s;
    g->mod_free = ss_free;
    g->check = PB_MS_CHECK_STABLE;
    size_t n = g->n ? g->n : 1;
    PB_CUDA_TRY(cudaMalloc(&s->flags, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&s->pos, n * 4), err);
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(nullptr, s->temp_bytes, s->flags, s->pos, (int64_t)n),
                err);
    PB_CUDA_TRY(cudaMalloc(&s->temp, s->temp_bytes ? s->temp_bytes : 1), err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pt->params->v[PB_MS_P_BUCKETS] != 2)
        return pb_err_set(err, "gpu-scan-split splits into 2 buckets; got buckets = %lld",
                          pt->params->v[PB_MS_P_BUCKETS]);
    if (pt->n >= (UINT64_C(1) << 32)) return pb_err_set(err, "gpu-scan-split: n exceeds 2^32 - 1");
    return pb_gpu_ms_prepare_with(pt, setup, nullptr, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    ss *s = (ss *)g->mod;
    uint32_t n = (uint32_t)g->n;
    if (!n) return 0;
    unsigned grid = pb_grid_for(n, 256);
    flag<<<grid, 256>>>(g->d_keys, pb_gpu_ms_bucket_fn(g), s->flags, n);
    PB_CUDA_LAUNCHED(err);
    size_t bytes = s->temp_bytes;
    PB_CUDA_TRY(cub::DeviceScan::ExclusiveSum(s->temp, bytes, s->flags, s->pos, (int64_t)n), err);
    if (g->pairs)
        scatter<true><<<grid, 256>>>(g->d_keys, g->d_vals, s->flags, s->pos, g->d_okeys,
                                     g->d_ovals, n);
    else
        scatter<false><<<grid, 256>>>(g->d_keys, g->d_vals, s->flags, s->pos, g->d_okeys,
                                      g->d_ovals, n);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

uint64_t footprint(const pb_point *pt) { return pb_gpu_ms_footprint_io(pt) + 8 * pt->n + (1 << 20); }

} // namespace

PB_MODULE_DEF(scan_split, "gpu-scan-split", pb_multisplit_gpu_hooks,
    .summary = "split into 2 buckets with one global scan: flags, CUB exclusive sum, scatter "
               "(stable)",
    PB_PARAMS(params), .max_n = (UINT64_C(1) << 32) - 1, .footprint = footprint, .prepare = prepare,
    .run = run);

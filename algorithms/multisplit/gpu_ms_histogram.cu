/* Histograms from the multisplit's warp-level counting (Section 7.3, Table
 * 11) against CUB's DeviceHistogram, on n floats uniform over [0, 1024):
 * even bins (m equal widths) or range bins (m - 1 random splitters, a binary
 * search in shared memory per sample).
 *
 * ms-histogram: each warp keeps the counts of the bins its lanes are in
 * charge of in registers, from binary ballots (no shared-memory atomics),
 * over all the tiles its block strides across; blocks add their totals to
 * the global histogram once. Both modules are checked against the host's
 * count. Samples lie on a 1/4 grid and splitters between grid points, so no
 * sample is within rounding distance of a bin edge: every correct
 * histogram agrees exactly. */
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_histogram.cuh>

#include "algorithms/multisplit/gpu_ms_kernels.cuh"
#include "core/cuda_check.h"
#include "core/module.h"
#include "core/rng.h"
#include "families/multisplit/ms_family.h"

namespace {

const pb_param_spec params[] = {
    {"bins", PB_PARAM_INT, 32, 2, 256, NULL, "number of bins m"},
    {"binning", PB_PARAM_ENUM, 0, 0, 0, "even|range", "equal widths, or m - 1 random splitters"},
};

constexpr float HI = 1024.0f;
constexpr int ITEMS = PB_MS_POLICY(HIST_ITEMS); /* gpu_ms_tuning.cuh */

struct hist {
    uint64_t n;
    uint32_t m;
    bool range, cub;
    float *h_x, *d_x;
    float h_levels[PB_MS_MAX_BUCKETS + 1];
    float *d_levels;
    int *d_hist, *h_hist, *want;
    void *temp;
    size_t temp_bytes;
    unsigned grid;
};

/* A sample's bin: the kernel's and the host's count use this one function. */
__host__ __device__ __forceinline__ uint32_t bin_of(float x, uint32_t m, bool range, float scale,
                                                    const float *s_levels)
{
    if (!range) {
        uint32_t b = (uint32_t)(x * scale);
        return b < m ? b : m - 1;
    }
    /* upper bound over the inner levels 1 .. m-1 */
    uint32_t lo = 0, len = m - 1;
    while (len > 0) {
        uint32_t half = len >> 1;
        if (s_levels[1 + lo + half] <= x) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

template <int NBITS>
__global__ void __launch_bounds__(PB_MS_BLOCK)
    ms_hist(const float *__restrict__ x, uint32_t n, uint32_t m, bool range,
            const float *__restrict__ levels, int *__restrict__ out)
{
    constexpr int MAXJ = PB_MS_MAXJ(NBITS);
    __shared__ float s_levels[PB_MS_MAX_BUCKETS + 1];
    __shared__ uint32_t s_hist[PB_MS_WARPS][32 * MAXJ];
    if (range)
        for (uint32_t i = threadIdx.x; i <= m; i += blockDim.x) s_levels[i] = levels[i];
    __syncthreads();
    const float scale = (float)m / HI;
    const uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    uint32_t cnt[MAXJ];
#pragma unroll
    for (int j = 0; j < MAXJ; j++) cnt[j] = 0;
    if (MAXJ > 1) {
#pragma unroll
        for (int j = 0; j < MAXJ; j++) s_hist[warp][lane + 32 * j] = 0;
        __syncwarp();
    }
    const uint32_t tile = PB_MS_BLOCK * ITEMS;
    for (uint32_t start = blockIdx.x * tile; start < n; start += gridDim.x * tile) {
        const uint32_t ws = start + warp * 32 * ITEMS;
        float v[ITEMS];
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t idx = ws + 32u * i + lane;
            v[i] = idx < n ? x[idx] : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < ITEMS; i++) {
            uint32_t unused;
            uint32_t bin = bin_of(v[i], m, range, scale, s_levels);
            bool valid = ws + 32u * i + lane < n;
            if (MAXJ == 1) pb_ms_window<NBITS, MAXJ, false>(bin, valid, cnt, unused);
            else pb_ms_window_smem<NBITS, false>(bin, valid, s_hist[warp], unused);
        }
    }
    if (MAXJ == 1) s_hist[warp][lane] = cnt[0];
    __syncthreads();
    for (uint32_t b = threadIdx.x; b < m; b += PB_MS_BLOCK) {
        uint32_t sum = 0;
#pragma unroll
        for (int w = 0; w < PB_MS_WARPS; w++) sum += s_hist[w][b];
        if (sum) atomicAdd(&out[b], (int)sum);
    }
}

void hist_free(hist *h)
{
    if (!h) return;
    cudaFree(h->d_x);
    cudaFree(h->d_levels);
    cudaFree(h->d_hist);
    cudaFree(h->temp);
    free(h->h_x);
    free(h->h_hist);
    free(h->want);
    free(h);
}

cudaError_t cub_hist(hist *h, void *temp, size_t &bytes)
{
    if (h->range)
        return cub::DeviceHistogram::HistogramRange(temp, bytes, h->d_x, h->d_hist, (int)h->m + 1,
                                                    h->d_levels, (int64_t)h->n);
    return cub::DeviceHistogram::HistogramEven(temp, bytes, h->d_x, h->d_hist, (int)h->m + 1, 0.0f,
                                               HI, (int64_t)h->n);
}

int setup(hist *h, const pb_point *pt, pb_err *err)
{
    size_t n = h->n ? h->n : 1;
    h->h_x = (float *)malloc(n * 4);
    h->h_hist = (int *)calloc(h->m, sizeof(int));
    h->want = (int *)calloc(h->m, sizeof(int));
    if (!h->h_x || !h->h_hist || !h->want) return pb_err_set(err, "out of host memory");
    /* Samples k/4, k < 4096; splitters k/4 + 1/8, distinct and ascending. */
    pb_rng r;
    pb_rng_init(&r, pt->seed, UINT64_C(0x4849535400000000));
    h->h_levels[0] = 0.0f;
    h->h_levels[h->m] = HI;
    if (h->range) {
        uint32_t taken[4096 / 32] = {0}, k, got = 0;
        while (got < h->m - 1) {
            k = pb_rng_below32(&r, 4095);
            if (taken[k / 32] >> (k % 32) & 1) continue;
            taken[k / 32] |= 1u << (k % 32);
            got++;
        }
        uint32_t j = 1;
        for (k = 0; k < 4096; k++)
            if (taken[k / 32] >> (k % 32) & 1) h->h_levels[j++] = (float)k / 4.0f + 0.125f;
    } else {
        for (uint32_t j = 1; j < h->m; j++) h->h_levels[j] = HI * (float)j / (float)h->m;
    }
    pb_rng_init(&r, pt->seed, UINT64_C(0x4849535500000000));
    for (uint64_t i = 0; i < h->n; i++) h->h_x[i] = (float)pb_rng_below32(&r, 4096) / 4.0f;
    /* The host's count, binned as the kernel bins (CUB, checked against the
     * same count, bins on its own). */
    for (uint64_t i = 0; i < h->n; i++)
        h->want[bin_of(h->h_x[i], h->m, h->range, (float)h->m / HI, h->h_levels)]++;
    PB_CUDA_TRY(cudaMalloc(&h->d_x, n * 4), err);
    PB_CUDA_TRY(cudaMalloc(&h->d_levels, sizeof h->h_levels), err);
    PB_CUDA_TRY(cudaMalloc(&h->d_hist, h->m * sizeof(int)), err);
    PB_CUDA_TRY(cudaMemcpy(h->d_x, h->h_x, h->n * 4, cudaMemcpyHostToDevice), err);
    PB_CUDA_TRY(cudaMemcpy(h->d_levels, h->h_levels, sizeof h->h_levels, cudaMemcpyHostToDevice), err);
    if (h->cub) {
        PB_CUDA_TRY(cub_hist(h, nullptr, h->temp_bytes), err);
        PB_CUDA_TRY(cudaMalloc(&h->temp, h->temp_bytes ? h->temp_bytes : 1), err);
    }
    int dev, sms;
    PB_CUDA_TRY(cudaGetDevice(&dev), err);
    PB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
    uint64_t tiles = (h->n + PB_MS_BLOCK * ITEMS - 1) / (PB_MS_BLOCK * ITEMS);
    uint64_t cap = (uint64_t)sms * 8;
    h->grid = (unsigned)(tiles < cap ? (tiles ? tiles : 1) : cap);
    return 0;
}

int prepare_as(bool cub, const pb_point *pt, void **state, pb_err *err)
{
    if (pt->n >= (UINT64_C(1) << 31)) return pb_err_set(err, "histogram: n exceeds 2^31 - 1");
    hist *h = (hist *)calloc(1, sizeof *h);
    if (!h) return pb_err_set(err, "out of host memory");
    h->n = pt->n;
    h->m = (uint32_t)pt->params->v[0];
    h->range = pt->params->v[1] == 1;
    h->cub = cub;
    if (setup(h, pt, err)) {
        hist_free(h);
        return -1;
    }
    *state = h;
    return 0;
}

int prepare_ms(const pb_point *pt, void **state, pb_err *err) { return prepare_as(false, pt, state, err); }
int prepare_cub(const pb_point *pt, void **state, pb_err *err) { return prepare_as(true, pt, state, err); }

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    hist *h = (hist *)state;
    if (h->cub) {
        size_t bytes = h->temp_bytes;
        PB_CUDA_TRY(cub_hist(h, h->temp, bytes), err);
        PB_CUDA_LAUNCHED(err);
        return 0;
    }
    PB_CUDA_TRY(cudaMemsetAsync(h->d_hist, 0, h->m * sizeof(int)), err);
    if (!h->n) return 0;
    uint32_t n = (uint32_t)h->n;
    int nbits = 1;
    while ((1u << nbits) < h->m) nbits++;
#define F(NB) ms_hist<NB><<<h->grid, PB_MS_BLOCK>>>(h->d_x, n, h->m, h->range, h->d_levels, h->d_hist)
    switch (nbits) {
    case 1: F(1); break;
    case 2: F(2); break;
    case 3: F(3); break;
    case 4: F(4); break;
    case 5: F(5); break;
    case 6: F(6); break;
    case 7: F(7); break;
    default: F(8); break;
    }
#undef F
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int result(void *state, const void **out, pb_err *err)
{
    hist *h = (hist *)state;
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    PB_CUDA_TRY(cudaMemcpy(h->h_hist, h->d_hist, h->m * sizeof(int), cudaMemcpyDeviceToHost), err);
    *out = h->h_hist;
    return 0;
}

/* Before every sample: the bins poisoned (a run must write every bin). */
int refresh(void *state, pb_err *err)
{
    hist *h = (hist *)state;
    PB_CUDA_TRY(cudaMemsetAsync(h->d_hist, 0xa5, h->m * sizeof(int)), err);
    return 0;
}

int verify(void *state, pb_err *err)
{
    hist *h = (hist *)state;
    const void *out;
    if (result(state, &out, err)) return -1;
    for (uint32_t b = 0; b < h->m; b++)
        if (h->h_hist[b] != h->want[b])
            return pb_err_set(err, "bin %u holds %d samples; the host counts %d", b, h->h_hist[b],
                              h->want[b]);
    return 0;
}

void release(void *state) { hist_free((hist *)state); }

uint64_t footprint(const pb_point *pt) { return 4 * pt->n + (16 << 20); }

void work(const pb_point *pt, double *items, double *bytes)
{
    *items = (double)pt->n;
    *bytes = 4.0 * (double)pt->n; /* a histogram only reads its samples */
}

} // namespace

/* Both histograms keep the same state: only their prepare differs. */
static const pb_module_hooks histogram_hooks = {
    .family = &pb_family_multisplit, .device = PB_DEVICE_GPU, .max_n = (UINT64_C(1) << 31) - 1,
    .footprint = footprint, .run = run,
    .result = result, .verify = verify, .release = release, .work = work, .refresh = refresh,
};

PB_MODULE_DEF(ms_histogram, "gpu-ms-histogram", histogram_hooks,
    .summary = "histogram of floats from the multisplit's warp-level ballot counts (even or "
               "range bins, m <= 256)",
    PB_PARAMS(params), .prepare = prepare_ms);

PB_MODULE_DEF(cub_histogram, "gpu-cub-histogram", histogram_hooks,
    .summary = "CUB DeviceHistogram::HistogramEven / HistogramRange on the same floats",
    PB_PARAMS(params), .prepare = prepare_cub);

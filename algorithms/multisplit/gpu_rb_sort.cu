/* rb-sort: reduced-bit sort (Ashkiani et al. 2017, Section 3.3): label every
 * key with its bucket id, then CUB's radix sort of (label, key) pairs on
 * ceil(log2 m) bits; key-value pairs travel packed into 64 bits. CUB's sort is
 * stable, so the result is the stable multisplit. Labels are 32-bit as in the
 * paper's code, or 8-bit (label = u8), which moves less. */
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "algorithms/multisplit/gpu_ms_helpers.cuh"
#include "core/gpu_launch.cuh"
#include "families/multisplit/gpu_ms_state.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    {"label", PB_PARAM_ENUM, 0, 0, 0, "u32|u8", "width of the bucket labels sorted on"},
};

struct rb {
    void *lab, *lab_out;
    unsigned long long *pack, *pack_out;
    void *temp;
    size_t temp_bytes;
    bool u8;
    int nbits;
};

template <typename L>
__global__ void label(const uint32_t *__restrict__ k, const uint32_t *__restrict__ v,
                      pb_bucket_fn fn, L *__restrict__ lab, unsigned long long *__restrict__ pack,
                      uint32_t n)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        uint32_t key = k[i];
        lab[i] = (L)pb_bucket_of(fn, key);
        if (pack) pack[i] = (unsigned long long)v[i] << 32 | key;
    }
}

void rb_free(void *p)
{
    rb *r = (rb *)p;
    if (!r) return;
    cudaFree(r->lab);
    cudaFree(r->lab_out);
    cudaFree(r->pack);
    cudaFree(r->pack_out);
    cudaFree(r->temp);
    free(r);
}

template <typename L>
int sort(pb_gpu_ms *g, rb *r, pb_err *err)
{
    int n = (int)g->n;
    size_t bytes = r->temp_bytes;
    if (g->pairs)
        PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(r->temp, bytes, (L *)r->lab, (L *)r->lab_out,
                                                    r->pack, r->pack_out, n, 0, r->nbits),
                    err);
    else
        PB_CUDA_TRY(cub::DeviceRadixSort::SortPairs(r->temp, bytes, (L *)r->lab, (L *)r->lab_out,
                                                    g->d_keys, g->d_okeys, n, 0, r->nbits),
                    err);
    return 0;
}

template <typename L>
size_t temp_for(bool pairs, int n, int nbits)
{
    size_t b = 0;
    if (pairs)
        cub::DeviceRadixSort::SortPairs(nullptr, b, (L *)nullptr, (L *)nullptr,
                                        (unsigned long long *)nullptr,
                                        (unsigned long long *)nullptr, n, 0, nbits);
    else
        cub::DeviceRadixSort::SortPairs(nullptr, b, (L *)nullptr, (L *)nullptr, (uint32_t *)nullptr,
                                        (uint32_t *)nullptr, n, 0, nbits);
    return b;
}

int setup(pb_gpu_ms *g, const void *, pb_err *err)
{
    rb *r = (rb *)calloc(1, sizeof *r);
    if (!r) return pb_err_set(err, "out of host memory");
    g->mod = r;
    g->mod_free = rb_free;
    g->check = PB_MS_CHECK_STABLE;
    r->u8 = g->params.v[PB_MS_NCOMMON] == 1;
    r->nbits = pb_ms_bits(g->prob.m);
    size_t n = g->n ? g->n : 1, lb = r->u8 ? 1 : 4;
    PB_CUDA_TRY(cudaMalloc(&r->lab, n * lb), err);
    PB_CUDA_TRY(cudaMalloc(&r->lab_out, n * lb), err);
    if (g->pairs) {
        PB_CUDA_TRY(cudaMalloc(&r->pack, n * 8), err);
        PB_CUDA_TRY(cudaMalloc(&r->pack_out, n * 8), err);
    }
    r->temp_bytes = r->u8 ? temp_for<uint8_t>(g->pairs, (int)n, r->nbits)
                          : temp_for<uint32_t>(g->pairs, (int)n, r->nbits);
    PB_CUDA_TRY(cudaMalloc(&r->temp, r->temp_bytes ? r->temp_bytes : 1), err);
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pt->n >= (UINT64_C(1) << 31))
        return pb_err_set(err, "gpu-rb-sort: n exceeds CUB's int item count");
    return pb_gpu_ms_prepare_with(pt, setup, nullptr, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    rb *r = (rb *)g->mod;
    uint32_t n = (uint32_t)g->n;
    if (!n) return 0;
    pb_bucket_fn fn = pb_gpu_ms_bucket_fn(g);
    unsigned grid = pb_grid_for(n, 256);
    if (r->u8)
        label<uint8_t><<<grid, 256>>>(g->d_keys, g->d_vals, fn, (uint8_t *)r->lab, r->pack, n);
    else
        label<uint32_t><<<grid, 256>>>(g->d_keys, g->d_vals, fn, (uint32_t *)r->lab, r->pack, n);
    PB_CUDA_LAUNCHED(err);
    if (r->u8 ? sort<uint8_t>(g, r, err) : sort<uint32_t>(g, r, err)) return -1;
    if (g->pairs) {
        pb_ms_unpack<<<grid, 256>>>(r->pack_out, g->d_okeys, g->d_ovals, n);
        PB_CUDA_LAUNCHED(err);
    }
    return 0;
}

uint64_t footprint(const pb_point *pt)
{
    uint64_t n = pt->n;
    return pb_gpu_ms_footprint_io(pt) + 8 * n + (pt->item_bytes == 8 ? 16 * n : 0) + 64 * n / 10 +
           (1 << 20);
}

} // namespace

PB_MODULE_DEF(rb_sort, "gpu-rb-sort", pb_multisplit_gpu_hooks,
    .summary = "reduced-bit sort: bucket labels, CUB radix sort of (label, key) pairs on "
               "ceil(log2 m) bits; pairs packed into 64 bits",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = run);

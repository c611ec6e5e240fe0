/* cub-radix-sort: "just sort it" — CUB's radix sort of the keys (or
 * key-value pairs) on bits [0, bits): the full 32-bit sort every multisplit
 * is compared against (Table 3), and the few-bit sorts of Table 7 that equal
 * a multisplit on identity buckets. Checked as a stable sort. */
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>

#include "families/multisplit/gpu_ms_state.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    {"bits", PB_PARAM_INT, 32, 0, 32, NULL,
     "sort on key bits [0, bits); 0: ceil(log2 buckets), the identity-bucket multisplit"},
};

struct cs {
    void *temp;
    size_t temp_bytes;
};

void cs_free(void *p)
{
    cs *c = (cs *)p;
    if (!c) return;
    cudaFree(c->temp);
    free(c);
}

int sort(pb_gpu_ms *g, void *temp, size_t &bytes, int bits)
{
    int n = (int)g->n;
    cudaError_t e;
    if (g->pairs)
        e = cub::DeviceRadixSort::SortPairs(temp, bytes, g->d_keys, g->d_okeys, g->d_vals,
                                            g->d_ovals, n, 0, bits);
    else
        e = cub::DeviceRadixSort::SortKeys(temp, bytes, g->d_keys, g->d_okeys, n, 0, bits);
    return e == cudaSuccess ? 0 : (int)e;
}

int setup(pb_gpu_ms *g, const void *, pb_err *err);

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pt->n >= (UINT64_C(1) << 31))
        return pb_err_set(err, "gpu-cub-radix-sort: n exceeds CUB's int item count");
    return pb_gpu_ms_prepare_with(pt, setup, nullptr, state, err);
}

int setup(pb_gpu_ms *g, const void *, pb_err *err)
{
    cs *c = (cs *)calloc(1, sizeof *c);
    if (!c) return pb_err_set(err, "out of host memory");
    g->mod = c;
    g->mod_free = cs_free;
    g->check = PB_MS_CHECK_SORTED;
    g->end_bit = (unsigned)g->params.v[PB_MS_NCOMMON];
    if (g->end_bit == 0) g->end_bit = (unsigned)pb_ms_bits(g->prob.m);
    int e = sort(g, nullptr, c->temp_bytes, (int)g->end_bit);
    cudaError_t ae = e ? (cudaError_t)e : cudaMalloc(&c->temp, c->temp_bytes ? c->temp_bytes : 1);
    if (ae != cudaSuccess)
        return pb_err_set(err, "gpu-cub-radix-sort set-up: %s", cudaGetErrorString(ae));
    return 0;
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    cs *c = (cs *)g->mod;
    if (!g->n) return 0;
    size_t bytes = c->temp_bytes;
    int e = sort(g, c->temp, bytes, (int)g->end_bit);
    if (e) return pb_err_set(err, "cub radix sort: %s", cudaGetErrorString((cudaError_t)e));
    PB_CUDA_LAUNCHED(err);
    return 0;
}

uint64_t footprint(const pb_point *pt)
{
    return pb_gpu_ms_footprint_io(pt) + pt->n * (uint64_t)pt->item_bytes / 4 + (8 << 20);
}

} // namespace

PB_MODULE_DEF(cub_radix_sort, "gpu-cub-radix-sort", pb_multisplit_gpu_hooks,
    .summary = "CUB DeviceRadixSort of the keys (or pairs) on bits [0, bits): the sort "
               "reference; a multisplit only for monotone or identity buckets",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = run);

/* ms-sort: an LSD radix sort built from multisplit (Section 7.1, Table 8):
 * ceil(32 / r) stable BMS passes on r-bit radix buckets, low digit first,
 * ping-ponging between the output and a scratch buffer so the last pass
 * lands in the output. Compared against cub-radix-sort on all 32 bits. */
#include <stdlib.h>

#include "algorithms/multisplit/gpu_ms_split.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    {"bits", PB_PARAM_INT, 8, 4, 8, NULL, "bits r per multisplit pass (2^r buckets)"},
};

struct msort {
    uint32_t *tk, *tv; /* the ping-pong partner of the output */
    void *scratch;
    int r;
};

void msort_free(void *p)
{
    msort *s = (msort *)p;
    if (!s) return;
    cudaFree(s->tk);
    cudaFree(s->tv);
    cudaFree(s->scratch);
    free(s);
}

int setup(pb_gpu_ms *g, const void *, pb_err *err);

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pt->n >= (UINT64_C(1) << 31)) return pb_err_set(err, "gpu-ms-sort: n exceeds 2^31 - 1");
    return pb_gpu_ms_prepare_with(pt, setup, nullptr, state, err);
}

int setup(pb_gpu_ms *g, const void *, pb_err *err)
{
    msort *s = (msort *)calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of host memory");
    g->mod = s;
    g->mod_free = msort_free;
    g->check = PB_MS_CHECK_SORTED;
    g->end_bit = 32;
    s->r = (int)g->params.v[PB_MS_NCOMMON];
    size_t n = g->n ? g->n : 1;
    cudaError_t e = cudaMalloc(&s->tk, n * 4);
    if (e == cudaSuccess && g->pairs) e = cudaMalloc(&s->tv, n * 4);
    if (e == cudaSuccess) e = cudaMalloc(&s->scratch, pb_ms_bms_scratch_bytes(n, 1u << s->r, g->pairs));
    if (e != cudaSuccess) return pb_err_set(err, "gpu-ms-sort buffers: %s", cudaGetErrorString(e));
    return 0;
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_ms *g = (pb_gpu_ms *)state;
    msort *s = (msort *)g->mod;
    if (!g->n) return 0;
    int passes = (32 + s->r - 1) / s->r;
    const uint32_t *ik = g->d_keys, *iv = g->pairs ? g->d_vals : nullptr;
    for (int p = 0; p < passes; p++) {
        bool to_out = (passes - 1 - p) % 2 == 0;
        uint32_t *ok = to_out ? g->d_okeys : s->tk, *ov = to_out ? g->d_ovals : s->tv;
        int shift = p * s->r, bits = 32 - shift < s->r ? 32 - shift : s->r;
        pb_bucket_fn fn = {PB_BUCKET_RADIX, 1u << bits, 0, (uint32_t)shift, nullptr};
        if (pb_ms_bms_pass(ik, iv, ok, g->pairs ? ov : nullptr, g->n, fn, s->scratch, err))
            return -1;
        ik = ok;
        iv = ov;
    }
    return 0;
}

uint64_t footprint(const pb_point *pt)
{
    return pb_gpu_ms_footprint_io(pt) + pt->n * (uint64_t)pt->item_bytes +
           pb_ms_bms_scratch_bytes(pt->n, 256, pt->item_bytes == 8);
}

} // namespace

PB_MODULE_DEF(ms_sort, "gpu-ms-sort", pb_multisplit_gpu_hooks,
    .summary = "LSD radix sort of 32-bit keys (or pairs) from ceil(32/r) stable BMS multisplit "
               "passes on r-bit digits",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = run);

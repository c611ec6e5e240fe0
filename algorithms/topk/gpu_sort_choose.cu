/* sort-and-choose: the top-k fallback of inference engines — sort every row
 * by value with CUB, keep the first k. The reference every GPU top-k is
 * timed against ("never slower than gpu-sort-and-choose").
 *
 * A run is three steps on the default stream, no host synchronisation:
 *  1. a kernel writes, for every element of the buffer, its order key
 *     (topk_key.h: larger = to be selected, NaN canonical) and its position
 *     in the buffer as a u32;
 *  2. CUB sorts (order key, position) pairs descending, row by row;
 *  3. a kernel copies each row's first min(k, length) pairs to the output:
 *     the value rebuilt from the order key (NaN comes back as the canonical
 *     NaN, which the check accepts: it compares keys) and the index
 *     position - begin[row].
 * The position is stored modulo 2^32 so that the key kernel needs no row
 * lookup; the subtraction modulo 2^32 still gives the index, which is below
 * the row length and so below 2^32 (the family refuses longer rows).
 *
 * How the rows are sorted depends on the batch's shape, because CUB has no
 * one sort that is good at every shape:
 *  - one row: DeviceRadixSort (onesweep) over the row;
 *  - a few long rows: DeviceRadixSort once per row, each filling the GPU;
 *  - otherwise DeviceSegmentedSort over the begin/end offsets. It gives a
 *    long segment one thread block, so a batch of 16 rows of 2^20 would run
 *    on 16 SMs; a loop of full-device sorts wins there. Each loop iteration
 *    costs a few launches, so the loop is taken only while the
 *    rows are few (at most half the SMs) and long (mean length at least
 *    rows * 2^13: then one row's sort, not its launches, dominates). The
 *    crossover is a model, not a measurement: the Figure 11 configs sweep
 *    row length and batch size with this module in every run.
 * Ties. DeviceRadixSort is stable: equal keys keep their position order,
 * so the first k of a row take the tied keys of the smallest indices, the
 * C twin's answer (`ties = lowest-index`) at no cost. DeviceSegmentedSort's
 * SortPairsDescending is not documented stable, so with lowest-index the
 * segmented path calls StableSortPairsDescending; with `any` it keeps the
 * unstable call. Its output is each row in rank order, so `sorted = yes`
 * costs nothing more (but the stable segmented sort).
 *
 * 64-bit values (fp64, u64): the same steps on 64-bit order keys, read two
 * values (16 bytes) a thread at a time, CUB sorting all 64 key bits, the
 * values rebuilt into 8-byte words. The key type K (uint32_t or uint64_t)
 * is a template parameter of every step after the key kernel.
 *
 * Item counts: DeviceRadixSort takes a 64-bit count (used only for a row
 * of 2^32 values) and DeviceSegmentedSort an int64 count and segment
 * offsets, so every point the family accepts (rows of at most 2^32 values,
 * at most 2^26 rows) is one CUB can sort; nothing more is refused here. */
#include <stdlib.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>

#include "core/gpu_launch.cuh"
#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_family.h"
#include "families/topk/topk_hooks.h"

namespace {

const pb_param_spec params[] = {
    PB_TOPK_COMMON_PARAMS,
};

enum sc_path { SC_ONE_ROW, SC_ROW_LOOP, SC_SEGMENTED };

struct sc {
    sc_path path;
    /* Sort buffers, prob.total each: keys and positions, and the second
     * half of CUB's double buffers (the loop's output arrays). The keys
     * are uint32_t, or uint64_t for 64-bit dtypes. */
    void *okey, *okey_alt;
    uint32_t *pos, *pos_alt;
    void *temp;
    size_t temp_bytes;
    /* The order keys' bits: 32, 16 for fp16 / bf16 (half the passes), 64
     * for fp64 / u64. */
    int bits;
};

void sc_free(void *p)
{
    sc *c = (sc *)p;
    if (!c) return;
    cudaFree(c->okey);
    cudaFree(c->pos);
    cudaFree(c->okey_alt);
    cudaFree(c->pos_alt);
    cudaFree(c->temp);
    free(c);
}

/* Four values from element 4q: one 16-byte load, or an 8-byte one of
 * 16-bit values. */
__device__ __forceinline__ uint4 quad_at(const uint32_t *data, uint64_t q)
{
    return reinterpret_cast<const uint4 *>(data)[q];
}
__device__ __forceinline__ uint4 quad_at(const uint16_t *data, uint64_t q)
{
    uint2 h = reinterpret_cast<const uint2 *>(data)[q];
    return make_uint4(h.x & 0xffffu, h.x >> 16, h.y & 0xffffu, h.y >> 16);
}

/* Step 1 over the whole buffer (padding too: never sorted, and cheaper to
 * include than to skip). Four values a thread at a time: every buffer
 * starts where cudaMalloc put it, 256-byte aligned. T: the values' width
 * (uint16_t for fp16 and bf16). */
template <typename T>
__global__ void key_kernel(const T *__restrict__ data, uint32_t *__restrict__ okey,
                           uint32_t *__restrict__ pos, uint64_t total, int dtype, int largest)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t first = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    uint64_t quads = total / 4;
    for (uint64_t q = first; q < quads; q += stride) {
        uint4 v = quad_at(data, q);
        uint32_t i = (uint32_t)(4 * q);
        reinterpret_cast<uint4 *>(okey)[q] =
            make_uint4(pb_topk_okey_of(v.x, dtype, largest), pb_topk_okey_of(v.y, dtype, largest),
                       pb_topk_okey_of(v.z, dtype, largest), pb_topk_okey_of(v.w, dtype, largest));
        reinterpret_cast<uint4 *>(pos)[q] = make_uint4(i, i + 1, i + 2, i + 3);
    }
    for (uint64_t i = 4 * quads + first; i < total; i += stride) {
        okey[i] = pb_topk_okey_of((uint32_t)data[i], dtype, largest);
        pos[i] = (uint32_t)i;
    }
}

/* Step 1 for 64-bit values: two a thread at a time (one 16-byte load; the
 * buffers start where cudaMalloc put them, 256-byte aligned). */
__global__ void key_kernel64(const uint64_t *__restrict__ data, uint64_t *__restrict__ okey,
                             uint32_t *__restrict__ pos, uint64_t total, int dtype, int largest)
{
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    uint64_t first = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    uint64_t pairs = total / 2;
    for (uint64_t q = first; q < pairs; q += stride) {
        ulonglong2 v = reinterpret_cast<const ulonglong2 *>(data)[q];
        uint32_t i = (uint32_t)(2 * q);
        reinterpret_cast<ulonglong2 *>(okey)[q] = make_ulonglong2(
            pb_topk_okey64_of(v.x, dtype, largest), pb_topk_okey64_of(v.y, dtype, largest));
        reinterpret_cast<uint2 *>(pos)[q] = make_uint2(i, i + 1);
    }
    for (uint64_t i = 2 * pairs + first; i < total; i += stride) {
        okey[i] = pb_topk_okey64_of(data[i], dtype, largest);
        pos[i] = (uint32_t)i;
    }
}

/* Step 3: one thread an output slot. The slot's row is found by binary
 * search over the output offsets (rows + 1 entries; empty rows repeat an
 * offset, and the search lands on the last row starting at or before the
 * slot, which is the non-empty one). The sorted pairs of row r sit where
 * the row sat: from begin[r], best first. */
template <typename K>
__global__ void choose_kernel(const K *__restrict__ skey, const uint32_t *__restrict__ spos,
                              const uint64_t *__restrict__ begin,
                              const uint64_t *__restrict__ out_off, uint64_t rows, uint64_t outs,
                              K *__restrict__ vals, uint32_t *__restrict__ idx, int dtype,
                              int largest)
{
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < outs;
         j += (uint64_t)gridDim.x * blockDim.x) {
        uint64_t lo = 0, hi = rows; /* out_off[lo] <= j < out_off[hi] */
        while (hi - lo > 1) {
            uint64_t mid = lo + (hi - lo) / 2;
            if (out_off[mid] <= j)
                lo = mid;
            else
                hi = mid;
        }
        uint64_t src = begin[lo] + (j - out_off[lo]);
        /* The value in the key's width: a 32-bit word, or 64-bit. */
        vals[j] = (K)pb_topk_raw64_of(skey[src], dtype, largest);
        idx[j] = spos[src] - (uint32_t)begin[lo];
    }
}

/* The onesweep sort with 32-bit offsets where the count allows (faster
 * bookkeeping); the double-buffer form needs no temporary copy of the
 * input, and says on return, on the host, which buffer holds the result. */
template <typename K>
cudaError_t sort_one(void *temp, size_t &bytes, cub::DoubleBuffer<K> &keys,
                     cub::DoubleBuffer<uint32_t> &vals, uint64_t n, int bits)
{
    if (n <= UINT32_MAX)
        return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys, vals, (uint32_t)n, 0,
                                                         bits, 0);
    return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, keys, vals, n, 0, bits, 0);
}

/* One row of the loop: into the output arrays, so every row's result is in
 * the same buffer whatever pass count CUB picked for its length. */
template <typename K>
cudaError_t sort_row(void *temp, size_t &bytes, const sc *c, uint64_t b, uint32_t n)
{
    const K *okey = static_cast<const K *>(c->okey);
    K *okey_alt = static_cast<K *>(c->okey_alt);
    return cub::DeviceRadixSort::SortPairsDescending(temp, bytes, okey + b, okey_alt + b,
                                                     c->pos + b, c->pos_alt + b, n, 0, c->bits, 0);
}

/* ties = lowest-index asks for the stable sort, and so does sorted = yes
 * (equal keys by increasing index): SortPairsDescending is not documented
 * stable (in CCCL 3 it runs the same code as the stable one, so the two
 * should time alike there; the parameter keeps `any` free to take whatever
 * CUB makes fastest). */
template <typename K>
cudaError_t sort_segments(void *temp, size_t &bytes, const pb_gpu_topk *g,
                          cub::DoubleBuffer<K> &keys, cub::DoubleBuffer<uint32_t> &vals)
{
    if (g->prob.ties == PB_TOPK_TIES_LOWEST || g->prob.sorted)
        return cub::DeviceSegmentedSort::StableSortPairsDescending(
            temp, bytes, keys, vals, (int64_t)g->prob.total, (int64_t)g->prob.rows, g->d_begin,
            g->d_end, 0);
    return cub::DeviceSegmentedSort::SortPairsDescending(
        temp, bytes, keys, vals, (int64_t)g->prob.total, (int64_t)g->prob.rows, g->d_begin,
        g->d_end, 0);
}

sc_path choose_path(const pb_topk_problem *p, int sms)
{
    if (p->rows == 1) return SC_ONE_ROW;
    uint64_t mean = p->elems / p->rows;
    if (2 * p->rows <= (uint64_t)sms && mean >= (p->rows << 13) && p->max_len <= UINT32_MAX)
        return SC_ROW_LOOP;
    return SC_SEGMENTED;
}

/* CUB's temporary storage for the largest call a run makes, K the key type. */
template <typename K> cudaError_t temp_bytes(const pb_gpu_topk *g, sc *c)
{
    const pb_topk_problem *p = &g->prob;
    K *okey = static_cast<K *>(c->okey), *okey_alt = static_cast<K *>(c->okey_alt);
    cudaError_t e = cudaSuccess;
    if (c->path == SC_ONE_ROW) {
        cub::DoubleBuffer<K> keys(okey, okey_alt);
        cub::DoubleBuffer<uint32_t> vals(c->pos, c->pos_alt);
        e = sort_one(nullptr, c->temp_bytes, keys, vals, pb_topk_row_len(p, 0), c->bits);
    } else if (c->path == SC_ROW_LOOP) {
        for (uint64_t r = 0; r < p->rows && e == cudaSuccess; r++) {
            size_t bytes = 0;
            e = sort_row<K>(nullptr, bytes, c, p->begin[r], (uint32_t)pb_topk_row_len(p, r));
            if (bytes > c->temp_bytes) c->temp_bytes = bytes;
        }
    } else {
        cub::DoubleBuffer<K> keys(okey, okey_alt);
        cub::DoubleBuffer<uint32_t> vals(c->pos, c->pos_alt);
        e = sort_segments(nullptr, c->temp_bytes, g, keys, vals);
    }
    return e;
}

int setup(pb_gpu_topk *g, const void *, pb_err *err)
{
    sc *c = (sc *)calloc(1, sizeof *c);
    if (!c) return pb_err_set(err, "out of host memory");
    g->mod = c;
    g->mod_free = sc_free;
    const pb_topk_problem *p = &g->prob;
    int dev = 0, sms = 0;
    PB_CUDA_TRY(cudaGetDevice(&dev), err);
    PB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
    c->path = choose_path(p, sms);
    c->bits = (int)pb_topk_key_bits_of(p->dtype);
    bool wide = pb_topk_dtype_is64(p->dtype);

    size_t total = (size_t)(p->total ? p->total : 1), kb = wide ? 8 : 4;
    PB_CUDA_TRY(cudaMalloc(&c->okey, total * kb), err);
    PB_CUDA_TRY(cudaMalloc(&c->pos, total * 4), err);
    PB_CUDA_TRY(cudaMalloc(&c->okey_alt, total * kb), err);
    PB_CUDA_TRY(cudaMalloc(&c->pos_alt, total * 4), err);

    cudaError_t e = wide ? temp_bytes<uint64_t>(g, c) : temp_bytes<uint32_t>(g, c);
    if (e == cudaSuccess) e = cudaMalloc(&c->temp, c->temp_bytes ? c->temp_bytes : 1);
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-sort-and-choose set-up: %s", cudaGetErrorString(e));
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_gpu_topk_prepare_with(pt, setup, nullptr, state, err);
}

/* Steps 2 and 3 on keys of type K (step 1 has written c->okey). */
template <typename K> int sort_and_choose(const pb_gpu_topk *g, sc *c, pb_err *err)
{
    const pb_topk_problem *p = &g->prob;
    const int block = 256;
    int dtype = (int)p->dtype, largest = p->largest ? 1 : 0;
    K *okey = static_cast<K *>(c->okey), *okey_alt = static_cast<K *>(c->okey_alt);
    const K *skey = okey_alt;
    const uint32_t *spos = c->pos_alt;
    size_t bytes = c->temp_bytes;
    cudaError_t e = cudaSuccess;
    if (c->path == SC_ONE_ROW) {
        uint64_t b = p->begin[0];
        cub::DoubleBuffer<K> keys(okey + b, okey_alt + b);
        cub::DoubleBuffer<uint32_t> vals(c->pos + b, c->pos_alt + b);
        e = sort_one(c->temp, bytes, keys, vals, pb_topk_row_len(p, 0), c->bits);
        /* Keys and values take the same passes, so one selector says it. */
        if (keys.selector == 0) skey = okey, spos = c->pos;
    } else if (c->path == SC_ROW_LOOP) {
        for (uint64_t r = 0; r < p->rows && e == cudaSuccess; r++) {
            bytes = c->temp_bytes;
            e = sort_row<K>(c->temp, bytes, c, p->begin[r], (uint32_t)pb_topk_row_len(p, r));
        }
    } else {
        cub::DoubleBuffer<K> keys(okey, okey_alt);
        cub::DoubleBuffer<uint32_t> vals(c->pos, c->pos_alt);
        e = sort_segments(c->temp, bytes, g, keys, vals);
        if (keys.selector == 0) skey = okey, spos = c->pos;
    }
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-sort-and-choose: CUB sort: %s", cudaGetErrorString(e));
    PB_CUDA_LAUNCHED(err);

    choose_kernel<K><<<pb_grid_for(p->out_total, block), block>>>(
        skey, spos, g->d_begin, g->d_out_off, p->rows, p->out_total, static_cast<K *>(g->d_vals),
        g->d_idx, dtype, largest);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample; /* the input is only read: every repeat sorts the same rows */
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    sc *c = (sc *)g->mod;
    const pb_topk_problem *p = &g->prob;
    if (!p->out_total) return 0; /* rows of length 0: nothing to select */
    const int block = 256;
    int dtype = (int)p->dtype, largest = p->largest ? 1 : 0;

    if (pb_topk_dtype_is64(dtype)) {
        key_kernel64<<<pb_grid_for((p->total + 1) / 2, block), block>>>(
            reinterpret_cast<const uint64_t *>(g->d_data), static_cast<uint64_t *>(c->okey), c->pos,
            p->total, dtype, largest);
        PB_CUDA_LAUNCHED(err);
        return sort_and_choose<uint64_t>(g, c, err);
    }
    uint32_t *okey = static_cast<uint32_t *>(c->okey);
    if (pb_topk_dtype_is16(dtype))
        key_kernel<<<pb_grid_for((p->total + 3) / 4, block), block>>>(
            reinterpret_cast<const uint16_t *>(g->d_data), okey, c->pos, p->total, dtype, largest);
    else
        key_kernel<<<pb_grid_for((p->total + 3) / 4, block), block>>>(g->d_data, okey, c->pos,
                                                                      p->total, dtype, largest);
    PB_CUDA_LAUNCHED(err);
    return sort_and_choose<uint32_t>(g, c, err);
}

uint64_t footprint(const pb_point *pt)
{
    uint64_t rows = (uint64_t)pt->params->v[PB_TOPK_P_ROWS];
    uint64_t max_len = pt->n + (pt->params->v[PB_TOPK_P_RAGGED] ? pt->n / 2 : 0);
    uint64_t total = pt->n * rows + 4 * rows + 4;
    /* A pair: an order key (4 bytes, 8 for 64-bit dtypes) and a position. */
    uint64_t pair = (pb_topk_dtype_is64((int)pt->params->v[PB_TOPK_P_DTYPE]) ? 8 : 4) + 4;
    /* Four sort buffers (two pairs a value); the row loop's temporary
     * storage holds CUB's copy of the longest row (a pair a value);
     * segment bookkeeping; slack for CUB's histograms and the partition of
     * segments by size. */
    uint64_t scratch = 2 * pair * total + (rows > 1 ? pair * max_len : 0) + 16 * rows + (16 << 20);
    return pb_gpu_topk_footprint_io(pt) + scratch;
}

} // namespace

PB_MODULE_DEF(sort_and_choose, "gpu-sort-and-choose", pb_topk_gpu_hooks,
    .summary = "CUB sort of each row by order key (radix sort per row, or segmented sort for "
               "many short rows), then the first k: the inference engines' fallback",
    /* max_n: the family's limit, indices within a row are u32. */
    PB_PARAMS(params), .max_n = UINT64_C(1) << 32, .footprint = footprint, .prepare = prepare, .run = run);

/* cub-topk: CUB's own top-k (cub::DeviceTopK, AIR top-k, for one row;
 * cub::DeviceBatchedTopK for a batch of rows), a peer the top-k modules are
 * timed against as sort-and-choose is.
 *
 * Which entry point runs (the module's `path`):
 *   one-row   rows = 1, ties = any: DeviceTopK::MaxPairs over the row;
 *   batched   rows of at most 2^21 values (the longest row; the batch API's
 *             limit, checked by CUB at compile time from the segment-size
 *             bound given here; `batched-short` where every row has at most
 *             2^12, a tighter bound): DeviceBatchedTopK::MaxPairs, every row a
 *             segment named by its own start, so ragged and misaligned rows
 *             are taken as they are; ties = lowest-index asks it for
 *             determinism::gpu_to_gpu with tie_break::prefer_smaller_index
 *             (served only on compute capability 9.0 and later: elsewhere
 *             CUB answers cudaErrorNotSupported and set-up says so);
 *   uniform   (`uniform-short` at most 2^12) a batch whose rows have one
 *             length and one stride (not ragged; misaligned rows keep one
 *             stride): DeviceBatchedTopK given what CUB's own benchmark
 *             gives it, the keys of segment r a strided step from the
 *             first, the results likewise, the size one host value under
 *             the bound, so that the kernel reads no per-row arrays;
 *   row-loop  a batch with a longer row, ties = any: DeviceTopK once a row
 *             from the host, what a caller of the single-row API does.
 * Refused, with one line: ties = lowest-index on a row longer than 2^21
 * (DeviceTopK takes only determinism::not_guaranteed, which returns any of
 * the tied keys), and rows of 2^32 values or more (indices are u32).
 *
 * Keys: CUB is given the family's order keys (topk_key.h), computed in its
 * loads by a transform iterator over the raw values, not the raw values as
 * float / __half / ...: CUB's own float order puts a negative NaN below
 * -inf, where the family ranks every NaN above +inf (the `nan`
 * distribution has both signs). Order keys are u16 for fp16 and bf16 (so
 * CUB makes the 16-bit passes it makes on __half), u32 for fp32 / u32 /
 * i32, u64 for fp64 / u64, and larger is always better (smallest is the
 * complement), so only MaxPairs is instantiated. The values CUB carries are
 * the positions in the row (a counting iterator); the selected order keys
 * are turned back into raw values by a small kernel after it.
 *
 * Order: both entry points return each row's k in no order (CUB implements
 * only output_ordering::unsorted), so sorted = yes ranks them afterwards
 * with the family's ranker (gpu_topk_rank.cu), as radik does.
 *
 * Building: this file needs CCCL 3.3 or later (cub/device/device_topk.cuh;
 * the batch API is 3.5's). CMake (cmake/cccl_topk.cmake) looks in
 * PB_CCCL_ROOT, then the toolkit, and compiles this file alone with those
 * headers first on its include path (PB_HAVE_CUB_TOPK); the rest of the
 * program keeps the toolkit's CCCL. Two CCCL versions in one program:
 *  - CUB's and Thrust's symbols live in inline namespaces named by their
 *    version and target list (CUB_NAMESPACE_BEGIN opens
 *    cub::_V_<CUB_VERSION>_SM_<archs>, cub/util_namespace.cuh; Thrust's
 *    THRUST_DETAIL_ABI_NS_BEGIN likewise), so this file's kernels and
 *    dispatch code never share a name with sort-and-choose's;
 *  - libcu++ (cuda::, cuda::std::) is in inline namespace
 *    _LIBCUDACXX_ABI_NAMESPACE, which is only its ABI version (__4 in the
 *    toolkit's 3.0 and in 3.6 alike), and cannot be renamed for one file
 *    (CUB 3.6 spells cuda::std::__4:: out in thread_load.cuh). A host-side
 *    inline function of libcu++ that both versions instantiated under one
 *    name would be merged by the linker into one of the two bodies; device
 *    code cannot mix, as every .cu is compiled whole (no -rdc). Checked
 *    with nm on a build with CCCL 3.6: the weak symbols this file shares
 *    with the rest are libcu++'s empty tag and customisation-point objects
 *    (nullopt, in_place, ranges::begin, ...) and NVTX v3's injection
 *    globals (one ABI by design), no function.
 * Nothing of CCCL crosses this file's boundary (plain pointers and C types
 * do). Without the headers the module is still listed, unavailable, saying
 * what it needs. */
#include <stdio.h>
#include <stdlib.h>

#include "core/gpu.h"
#include "core/gpu_launch.cuh"
#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_family.h"
#include "families/topk/topk_hooks.h"

#ifdef PB_HAVE_CUB_TOPK
#include <cub/device/device_topk.cuh>
#include <cub/version.cuh>
#include <cuda/iterator>
#if __has_include(<cub/device/device_batched_topk.cuh>)
#include <cub/device/device_batched_topk.cuh>
#define PB_CUB_BATCHED 1
#else
#define PB_CUB_BATCHED 0
#endif
#endif

namespace {

const pb_param_spec params[] = {
    PB_TOPK_COMMON_PARAMS,
};

#ifdef PB_HAVE_CUB_TOPK

/* The longest segment DeviceBatchedTopK takes (its compile-time limit),
 * and the bound given for batches of short rows: CUB picks its backend at
 * compile time from the bound (a 2^21 one rules out the single-block
 * baseline, leaving the SM 9.0+ cluster backend, and sizes its scratch), so
 * short rows get a bound of their own. */
constexpr int64_t BATCH_MAX_LEN = int64_t{1} << 21;
constexpr int64_t BATCH_SHORT_LEN = int64_t{1} << 12;

enum ct_path { CT_ONE_ROW, CT_BATCHED_SHORT, CT_BATCHED, CT_ROW_LOOP, CT_UNIFORM_SHORT, CT_UNIFORM };
const char *const path_names[] = {"one-row", "batched-short", "batched", "row-loop", "uniform-short",
                                  "uniform"};

/* A raw value's order key, in the width K CUB selects on. */
template <typename K, typename T> struct okey_fn {
    int dtype, largest;
    __host__ __device__ K operator()(T raw) const
    {
        if (sizeof(K) == 8) return (K)pb_topk_okey64_of((uint64_t)raw, dtype, largest);
        return (K)pb_topk_okey_of((uint32_t)raw, dtype, largest);
    }
};

template <typename K, typename T> using key_it = cuda::transform_iterator<okey_fn<K, T>, const T *>;

struct ct {
    ct_path path;
    void *okey_out;      /* out_total order keys CUB selected (K each) */
    void *temp;
    size_t temp_bytes;
    /* batched: per row, its keys' iterator, where its keys and indices go,
     * and its length */
    void *d_kin, *d_kout;
    uint32_t **d_vout;
    uint32_t *d_len;
};

void ct_free(void *p)
{
    ct *c = (ct *)p;
    if (!c) return;
    void *bufs[] = {c->okey_out, c->temp, c->d_kin, c->d_kout, c->d_vout, c->d_len};
    for (void *b : bufs) cudaFree(b);
    free(c);
}

/* DeviceTopK's requirement: the only one it implements. */
auto single_env()
{
    return cuda::std::execution::env{cuda::execution::require(
        cuda::execution::determinism::not_guaranteed, cuda::execution::output_ordering::unsorted)};
}

template <typename K, typename T>
cudaError_t one_row(void *temp, size_t &bytes, const pb_gpu_topk *g, const ct *c, uint64_t r)
{
    const pb_topk_problem *p = &g->prob;
    okey_fn<K, T> fn{(int)p->dtype, p->largest ? 1 : 0};
    key_it<K, T> in(reinterpret_cast<const T *>(g->d_data) + p->begin[r], fn);
    uint32_t n = (uint32_t)pb_topk_row_len(p, r);
    uint32_t k = (uint32_t)(p->out_off[r + 1] - p->out_off[r]);
    return cub::DeviceTopK::MaxPairs(temp, bytes, in, static_cast<K *>(c->okey_out) + p->out_off[r],
                                     cuda::counting_iterator<uint32_t>(0), g->d_idx + p->out_off[r],
                                     n, k, single_env());
}

#if PB_CUB_BATCHED
/* DeviceBatchedTopK::MaxPairs on segments' keys and results however given
 * (per-row arrays or strided iterators), each value its index in the row,
 * under the requirement of the tie policy: lowest-index the deterministic
 * smaller-index tie break, any the one that guarantees nothing. */
template <class KIn, class KOut, class VOut, class Sizes, class Kk, class Rows>
cudaError_t batched_max_pairs(void *temp, size_t &bytes, bool lowest, KIn kin, KOut kout, VOut vout,
                              Sizes sizes, Kk k, Rows rows)
{
    auto vin = cuda::constant_iterator<cuda::counting_iterator<uint32_t>>(cuda::counting_iterator<uint32_t>(0));
    if (lowest) {
        auto env = cuda::std::execution::env{cuda::execution::require(
            cuda::execution::determinism::gpu_to_gpu, cuda::execution::tie_break::prefer_smaller_index,
            cuda::execution::output_ordering::unsorted)};
        return cub::DeviceBatchedTopK::MaxPairs(temp, bytes, kin, kout, vin, vout, sizes, k, rows, env);
    }
    auto env = cuda::std::execution::env{cuda::execution::require(
        cuda::execution::determinism::not_guaranteed, cuda::execution::tie_break::unspecified,
        cuda::execution::output_ordering::unsorted)};
    return cub::DeviceBatchedTopK::MaxPairs(temp, bytes, kin, kout, vin, vout, sizes, k, rows, env);
}

/* k is given as min(k, longest row), the same selection, within the rows'
 * bound. */
template <typename K, typename T, int64_t MAXLEN>
cudaError_t batched(void *temp, size_t &bytes, const pb_gpu_topk *g, const ct *c)
{
    const pb_topk_problem *p = &g->prob;
    auto sizes = cuda::args::deferred_sequence{c->d_len, cuda::args::bounds<int64_t{0}, MAXLEN>()};
    int64_t k_row = (int64_t)(p->k < p->max_len ? p->k : p->max_len);
    auto k = cuda::args::immediate{k_row < 1 ? int64_t{1} : k_row, cuda::args::bounds<int64_t{1}, MAXLEN>()};
    auto rows = cuda::args::immediate{(int64_t)p->rows};
    const key_it<K, T> *kin = static_cast<const key_it<K, T> *>(c->d_kin);
    K *const *kout = static_cast<K *const *>(c->d_kout);
    return batched_max_pairs(temp, bytes, p->ties == PB_TOPK_TIES_LOWEST, kin, kout, c->d_vout, sizes, k,
                             rows);
}

/* A batch of rows of one length at one stride, their results at one
 * stride too: the form CUB's own benchmark gives DeviceBatchedTopK (every
 * segment's keys a strided step from the first, sizes one host value
 * under the compile-time bound), with no per-row arrays for the kernel to
 * read. */
template <typename K, typename T, int64_t MAXLEN>
cudaError_t uniform(void *temp, size_t &bytes, const pb_gpu_topk *g, const ct *c)
{
    const pb_topk_problem *p = &g->prob;
    const int64_t n = (int64_t)pb_topk_row_len(p, 0);
    const int64_t stride = p->rows > 1 ? (int64_t)(p->begin[1] - p->begin[0]) : n;
    const int64_t k_row = (int64_t)(p->out_off[1] - p->out_off[0]);
    okey_fn<K, T> fn{(int)p->dtype, p->largest ? 1 : 0};
    key_it<K, T> first(reinterpret_cast<const T *>(g->d_data) + p->begin[0], fn);
    auto kin = cuda::make_strided_iterator(cuda::make_counting_iterator(first), stride);
    auto kout = cuda::make_strided_iterator(cuda::make_counting_iterator(static_cast<K *>(c->okey_out)), k_row);
    auto vout = cuda::make_strided_iterator(cuda::make_counting_iterator(g->d_idx), k_row);
    auto sizes = cuda::args::immediate{n, cuda::args::bounds<int64_t{1}, MAXLEN>()};
    auto k = cuda::args::immediate{k_row < 1 ? int64_t{1} : k_row, cuda::args::bounds<int64_t{1}, MAXLEN>()};
    auto rows = cuda::args::immediate{(int64_t)p->rows};
    return batched_max_pairs(temp, bytes, p->ties == PB_TOPK_TIES_LOWEST, kin, kout, vout, sizes, k, rows);
}

/* The per-row arrays the batch API reads on the device. */
template <typename K, typename T> int batch_arrays(const pb_gpu_topk *g, ct *c, pb_err *err)
{
    const pb_topk_problem *p = &g->prob;
    okey_fn<K, T> fn{(int)p->dtype, p->largest ? 1 : 0};
    size_t rows = (size_t)p->rows;
    key_it<K, T> *kin = (key_it<K, T> *)malloc(rows * sizeof *kin);
    K **kout = (K **)malloc(rows * sizeof *kout);
    uint32_t **vout = (uint32_t **)malloc(rows * sizeof *vout);
    uint32_t *len = (uint32_t *)malloc(rows * sizeof *len);
    int rc = 0;
    if (!kin || !kout || !vout || !len) {
        rc = pb_err_set(err, "out of host memory");
    } else {
        for (size_t r = 0; r < rows; r++) {
            new (&kin[r]) key_it<K, T>(reinterpret_cast<const T *>(g->d_data) + p->begin[r], fn);
            kout[r] = static_cast<K *>(c->okey_out) + p->out_off[r];
            vout[r] = g->d_idx + p->out_off[r];
            len[r] = (uint32_t)pb_topk_row_len(p, r);
        }
        cudaError_t e = cudaMalloc(&c->d_kin, rows * sizeof *kin);
        if (e == cudaSuccess) e = cudaMalloc(&c->d_kout, rows * sizeof *kout);
        if (e == cudaSuccess) e = cudaMalloc((void **)&c->d_vout, rows * sizeof *vout);
        if (e == cudaSuccess) e = cudaMalloc((void **)&c->d_len, rows * sizeof *len);
        if (e == cudaSuccess) e = cudaMemcpy(c->d_kin, kin, rows * sizeof *kin, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemcpy(c->d_kout, kout, rows * sizeof *kout, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemcpy(c->d_vout, vout, rows * sizeof *vout, cudaMemcpyHostToDevice);
        if (e == cudaSuccess) e = cudaMemcpy(c->d_len, len, rows * sizeof *len, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) rc = pb_err_set(err, "gpu-cub-topk: batch arrays: %s", cudaGetErrorString(e));
    }
    free(kin);
    free(kout);
    free(vout);
    free(len);
    return rc;
}
#endif

/* The whole query on the default stream. temp NULL: nothing runs, and
 * c->temp_bytes becomes the temporary storage of its largest call. */
template <typename K, typename T> cudaError_t query(void *temp, const pb_gpu_topk *g, ct *c)
{
    const pb_topk_problem *p = &g->prob;
    size_t bytes = temp ? c->temp_bytes : 0;
    cudaError_t e = cudaSuccess;
    if (c->path == CT_ONE_ROW) {
        e = one_row<K, T>(temp, bytes, g, c, 0);
#if PB_CUB_BATCHED
    } else if (c->path == CT_BATCHED_SHORT) {
        e = batched<K, T, BATCH_SHORT_LEN>(temp, bytes, g, c);
    } else if (c->path == CT_BATCHED) {
        e = batched<K, T, BATCH_MAX_LEN>(temp, bytes, g, c);
    } else if (c->path == CT_UNIFORM_SHORT) {
        e = uniform<K, T, BATCH_SHORT_LEN>(temp, bytes, g, c);
    } else if (c->path == CT_UNIFORM) {
        e = uniform<K, T, BATCH_MAX_LEN>(temp, bytes, g, c);
#endif
    } else {
        size_t most = 0;
        for (uint64_t r = 0; r < p->rows && e == cudaSuccess; r++) {
            if (pb_topk_row_len(p, r) == 0) continue; /* nothing to select */
            bytes = temp ? c->temp_bytes : 0;
            e = one_row<K, T>(temp, bytes, g, c, r);
            if (bytes > most) most = bytes;
        }
        bytes = most;
    }
    if (!temp) c->temp_bytes = bytes;
    return e;
}

/* The selected order keys back to raw values, in the output's words W
 * (a NaN's order key gives the canonical NaN). */
template <typename K, typename W>
__global__ void raw_kernel(const K *__restrict__ okey, W *__restrict__ vals, uint64_t n, int dtype,
                           int largest)
{
    for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < n;
         j += (uint64_t)gridDim.x * blockDim.x)
        vals[j] = (W)pb_topk_raw64_of((uint64_t)okey[j], dtype, largest);
}

/* F<K, T>(args...) for the dtype's order-key width K and value width T
 * (the same: 16, 32 or 64 bits). */
#define CT_BY_DTYPE(dtype, F, ...)                                                                 \
    (pb_topk_dtype_is64(dtype)   ? F<uint64_t, uint64_t>(__VA_ARGS__)                              \
     : pb_topk_dtype_is16(dtype) ? F<uint16_t, uint16_t>(__VA_ARGS__)                              \
                                 : F<uint32_t, uint32_t>(__VA_ARGS__))

/* Whether the batch is uniform: every row of one length (at least 1), the
 * rows at one stride, the results at one stride. */
bool uniform_batch(const pb_topk_problem *p)
{
    if (p->rows < 2 || p->ragged) return false;
    const uint64_t n = pb_topk_row_len(p, 0), stride = p->begin[1] - p->begin[0];
    const uint64_t k_row = p->out_off[1] - p->out_off[0];
    if (n == 0) return false;
    for (uint64_t r = 0; r < p->rows; r++)
        if (pb_topk_row_len(p, r) != n || p->begin[r] != p->begin[0] + r * stride ||
            p->out_off[r] != r * k_row)
            return false;
    return true;
}

int setup(pb_gpu_topk *g, const void *, pb_err *err)
{
    ct *c = (ct *)calloc(1, sizeof *c);
    if (!c) return pb_err_set(err, "out of host memory");
    g->mod = c;
    g->mod_free = ct_free;
    const pb_topk_problem *p = &g->prob;
    if (p->max_len > UINT32_MAX)
        return pb_err_set(err, "gpu-cub-topk: rows of 2^32 values or more are not supported (got %llu)",
                          (unsigned long long)p->max_len);
    bool short_rows = PB_CUB_BATCHED && (int64_t)p->max_len <= BATCH_MAX_LEN;
    if (p->rows == 1 && p->ties == PB_TOPK_TIES_ANY)
        c->path = CT_ONE_ROW;
    else if (short_rows && uniform_batch(p))
        c->path = (int64_t)p->max_len <= BATCH_SHORT_LEN ? CT_UNIFORM_SHORT : CT_UNIFORM;
    else if (short_rows)
        c->path = (int64_t)p->max_len <= BATCH_SHORT_LEN ? CT_BATCHED_SHORT : CT_BATCHED;
    else if (p->ties == PB_TOPK_TIES_ANY)
        c->path = CT_ROW_LOOP;
    else
        return pb_err_set(err,
                          "gpu-cub-topk: ties = lowest-index needs rows of at most 2^21 values "
                          "(DeviceBatchedTopK%s); DeviceTopK returns any of the tied keys",
                          PB_CUB_BATCHED ? "" : ", CCCL 3.5 or later");
    int dtype = (int)p->dtype;
    size_t kb = pb_topk_dtype_bytes(dtype);
    PB_CUDA_TRY(cudaMalloc(&c->okey_out, (size_t)(p->out_total ? p->out_total : 1) * kb), err);
#if PB_CUB_BATCHED
    if ((c->path == CT_BATCHED || c->path == CT_BATCHED_SHORT) &&
        CT_BY_DTYPE(dtype, batch_arrays, g, c, err))
        return -1;
#endif
    cudaError_t e = p->out_total ? CT_BY_DTYPE(dtype, query, nullptr, g, c) : cudaSuccess;
    if (e == cudaSuccess) e = cudaMalloc(&c->temp, c->temp_bytes ? c->temp_bytes : 1);
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-cub-topk set-up (%s): %s", path_names[c->path], cudaGetErrorString(e));
    return pb_gpu_topk_rank_setup(g, err) ? -1 : 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    *state = NULL;
    return pb_gpu_topk_prepare_with(pt, setup, nullptr, state, err);
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample; /* the input is only read: every repeat selects from the same rows */
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    ct *c = (ct *)g->mod;
    const pb_topk_problem *p = &g->prob;
    if (!p->out_total) return 0; /* rows of length 0: nothing to select */
    int dtype = (int)p->dtype, largest = p->largest ? 1 : 0;
    cudaError_t e = CT_BY_DTYPE(dtype, query, c->temp, g, c);
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-cub-topk (%s): %s", path_names[c->path], cudaGetErrorString(e));
    PB_CUDA_LAUNCHED(err);
    const int block = 256;
    unsigned grid = pb_grid_for(p->out_total, block);
    if (pb_topk_dtype_is64(dtype))
        raw_kernel<<<grid, block>>>(static_cast<const uint64_t *>(c->okey_out),
                                    static_cast<uint64_t *>(g->d_vals), p->out_total, dtype, largest);
    else if (pb_topk_dtype_is16(dtype))
        raw_kernel<<<grid, block>>>(static_cast<const uint16_t *>(c->okey_out),
                                    static_cast<uint32_t *>(g->d_vals), p->out_total, dtype, largest);
    else
        raw_kernel<<<grid, block>>>(static_cast<const uint32_t *>(c->okey_out),
                                    static_cast<uint32_t *>(g->d_vals), p->out_total, dtype, largest);
    PB_CUDA_LAUNCHED(err);
    return p->sorted ? pb_gpu_topk_rank(g, 0, err) : 0;
}

const char *path(void *state)
{
    const pb_gpu_topk *g = (const pb_gpu_topk *)state;
    const ct *c = g ? (const ct *)g->mod : NULL;
    return c ? path_names[c->path] : "none";
}

uint64_t footprint(const pb_point *pt)
{
    uint64_t rows = (uint64_t)pt->params->v[PB_TOPK_P_ROWS];
    uint64_t k = (uint64_t)pt->params->v[PB_TOPK_P_K];
    uint64_t outs = rows * (k < pt->n ? k : pt->n);
    /* The selected order keys (8 bytes at most), the batch's per-row
     * arrays, and CUB's scratch: AIR top-k keeps candidate buffers of up to
     * a row's keys and positions, taken as two of each a value. */
    uint64_t scratch = 8 * outs + 40 * rows + 2 * 12 * pt->n * rows + (16 << 20);
    return pb_gpu_topk_footprint_io(pt) + scratch + pb_gpu_topk_rank_footprint(pt);
}

#define CT_HOOKS .footprint = footprint, .prepare = prepare, .run = run
#define CT_PATH , .path = path

#else /* !PB_HAVE_CUB_TOPK */

#ifndef PB_CUB_TOPK_WHY /* CMake says which CCCL it found */
#define PB_CUB_TOPK_WHY "needs CCCL 3.3+ headers with cub/device/device_topk.cuh; set PB_CCCL_ROOT"
#endif

int prepare(const pb_point *, void **state, pb_err *err)
{
    *state = NULL;
    return pb_err_set(err, "gpu-cub-topk: not in this build (no CCCL with cub/device/device_topk.cuh)");
}

int run(void *, uint64_t, pb_err *err) { return pb_err_set(err, "gpu-cub-topk: not in this build"); }

uint64_t footprint(const pb_point *) { return 0; }

#define CT_HOOKS .footprint = footprint, .prepare = prepare, .run = run
#define CT_PATH

#endif /* PB_HAVE_CUB_TOPK */

/* What this build can do: the CCCL it was compiled with has DeviceTopK, or
 * the reason it has none (CMake's, PB_CUB_TOPK_WHY). */
bool available(const pb_params *params, char *why, size_t whylen)
{
#ifdef PB_HAVE_CUB_TOPK
    /* A batch, or ties = lowest-index, goes to DeviceBatchedTopK, which
     * serves rows past its one-block baseline's reach and deterministic
     * ties with its cluster backend alone: on code older than compute
     * capability 9.0 (a Turing or Ampere GPU, or a build that reaches a
     * newer one through compute_80 PTX) it answers cudaErrorNotSupported
     * when the query runs, so the module says so before a point does. */
    bool batch = params && params->v[PB_TOPK_P_ROWS] > 1;
    bool lowest = params && params->v[PB_TOPK_P_TIES] == PB_TOPK_TIES_LOWEST;
    char r[200];
    if ((!batch && !lowest) ||
        pb_gpu_code_at_least((const void *)raw_kernel<uint32_t, uint32_t>, 90, r, sizeof r))
        return true;
    snprintf(why, whylen, "%s (CUB's DeviceBatchedTopK, its cluster backend) %s",
             batch ? "a batch" : "ties = lowest-index", r);
    return false;
#else
    snprintf(why, whylen, "%s", PB_CUB_TOPK_WHY);
    return false;
#endif
}

#ifdef PB_HAVE_CUB_TOPK
#define CT_STR2(x) #x
#define CT_STR(x) CT_STR2(x)
/* CCCL's version as CUB spells it (CUB_VERSION: major * 100000 + minor *
 * 100 + patch), in the summary `permbench list` and every run's module
 * list show. */
#define CT_CCCL " (CUB " CT_STR(CUB_VERSION) ")"
#else
#define CT_CCCL ""
#endif

} // namespace

PB_MODULE_DEF(cub_topk, "gpu-cub-topk", pb_topk_gpu_hooks, .flags = PB_MOD_NONDETERMINISTIC,
    .summary = "CUB's top-k: DeviceTopK (AIR top-k) for one row, DeviceBatchedTopK for batches of "
               "rows up to 2^21, on the family's order keys" CT_CCCL,
    /* max_n: indices within a row are u32, and CUB is given u32 counts. */
    PB_PARAMS(params), .max_n = UINT32_MAX, CT_HOOKS, .available = available CT_PATH);

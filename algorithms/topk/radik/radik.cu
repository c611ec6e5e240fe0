/* radik: MSD radix top-k on the GPU (Li et al., RadiK), one query or a
 * batch of rows in one call, with the paper's optimisations each behind a
 * parameter for the ablation (radik_args.cuh says what each does) and
 * the adaptive scaling of Section 4.3 done exactly in the key domain
 * (radik_digit.h). The paper's query reads its input twice: once to
 * histogram the first 13-bit digit, once to output the keys above the
 * pivot's bin and keep the bin's keys as candidates; two more passes over
 * the candidates find the pivot and its ties. With the sampled pre-filter
 * (`filter`, our addition) a long row with a small k is read once: the
 * keys above a threshold drawn from a sample become the candidates, and a
 * row whose sample was wrong falls back to the two reads. No host
 * synchronisation inside a query. With `ties = lowest-index` the final
 * pass leaves the keys equal to the pivot alone and a tie pass over the
 * input (radik_ties.cuh: count, scan, write in index order) fills the rest
 * of the row with the tied keys of the smallest indices. Ties at the
 * sample's threshold (`tie_aware`, radik_digit.h) keep an all-equal or
 * few-level row on the one-read path. fp64 and u64 run the same kernels
 * on 64-bit order keys (instantiated for them only: radik_args.cuh),
 * with more candidate passes in the graph (enqueue says how many). */
#include <stdio.h>
#include <stdlib.h>

#include <cub/device/device_scan.cuh>

#include "algorithms/topk/radik/radik_blocks.h"
#include "algorithms/topk/radik/radik_cluster_kernel.cuh"
#include "algorithms/topk/radik/radik_filter.cuh"
#include "algorithms/topk/radik/radik_pass.cuh"
#include "algorithms/topk/radik/radik_select.cuh"
#include "algorithms/topk/radik/radik_start.cuh"
#include "algorithms/topk/radik/radik_ties.cuh"
#include "core/gpu.h"
#include "core/gpu_launch.cuh"
#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_family.h"
#include "families/topk/topk_hooks.h"

namespace {

enum { P_HIER = PB_TOPK_NCOMMON, P_WBUF, P_RESCHED, P_PAD, P_SCALE, P_FILTER, P_TIE_AWARE, P_QUICK, P_PREFETCH,
       P_REFINE, P_CLUSTER, P_L2_PREFETCH, P_TIE_LEVEL, P_CLUSTER_BLOCKS };

enum { CLUSTER_OFF, CLUSTER_ON, CLUSTER_AUTO };

const pb_param_spec params[] = {
    PB_TOPK_COMMON_PARAMS,
    {"hier", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "hierarchical atomics: warp-aggregated shared-memory histograms and counters (no: a global "
     "atomic per key)"},
    {"wbuf", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "flush-efficient shared-memory write buffer for candidates and results"},
    {"resched", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "task rescheduling: one grid over the live partitions of all rows (no: a fold of blocks a "
     "row)"},
    {"pad", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "offset padding: misaligned rows read as aligned packs of four values (16 bytes, 8 for "
     "fp16 / bf16, 32 for fp64 / u64; no: element by element)"},
    {"scale", PB_PARAM_ENUM, PB_RADIK_SCALE_PIVOT, 0, 0, "off|random|pivot",
     "adaptive scaling of the first digit around a reference key: off; always, around a random "
     "element (the paper); or around the sample's pivot estimate when the sample shows the "
     "plain digit would not split the row"},
    {"filter", PB_PARAM_ENUM, PB_RADIK_FILTER_ON, 0, 0, "off|on|overshoot",
     "sampled pre-filter (not in the paper): rows of 2^16 or more whose 2048-key sample gives a "
     "threshold keeping at most 1/16 of them are read once, keeping the keys above it; a row "
     "with fewer than k such keys falls back to the two reads (overshoot: the sample's maximum "
     "as the threshold, to exercise the fallback)"},
    {"tie_aware", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "ties at the threshold (not in the paper): a sampled threshold shared by many keys filters "
     "strictly, keeping the keys above it and at most k of those equal (lowest-index: counting "
     "them), and a block stops claiming ties at the pivot once k are taken (no: such rows take "
     "the two reads and every tie claims a slot, as before)"},
    {"quick", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "the filter pass compares raw values with the threshold's value first and converts keys "
     "only in the slots where a lane's value may pass (not in the paper; no: every key converted "
     "and compared)"},
    {"prefetch", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "the filter pass loads each block's next partition of a row before processing the current "
     "one, in a single row or a batch (not in the paper; no: load, then process)"},
    {"refine", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "rows of 2^25 or more of 32- or 16-bit keys take the filter's threshold from a 16384-key "
     "sample (the 2048-key sample's threshold screens the extra keys), so it keeps about an "
     "eighth as many candidates (not in the paper; no: the 2048-key sample's)"},
    {"cluster", PB_PARAM_ENUM, CLUSTER_AUTO, 0, 0, "off|on|auto",
     "rows selected by one kernel, one thread-block cluster a row, its blocks sharing histograms "
     "in distributed shared memory (not in the paper; radik_cluster.cuh for fp16 / bf16, "
     "radik_cluster_w.cuh for 32- and 64-bit keys; `filter` reads a row once from a sample's "
     "threshold); auto, with the other switches at their defaults (their ablations time the "
     "multi-pass query): 16-bit rows of at most 2^20 keys (2^22 in batches of four or more), "
     "2^25 in all, k at most 4096; wider keys in rows of at most 2^20 keys, k at most 4096; on: "
     "every query (sm_90 and later)"},
    {"l2_prefetch", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "the filter pass over fp16 / bf16 rows asks L2 for a block's partitions two beyond the one "
     "it loads ahead, one bulk prefetch each (not in the paper; sm_90 and later, elsewhere "
     "nothing; other dtypes never; no: only the loads themselves)"},
    {"tie_level", PB_PARAM_ENUM, PB_RADIK_TIE_LEVEL_UP, 0, 0, "off|strict|up",
     "a refined threshold (`refine`) of fp16 / bf16 values that two or more sample keys share, "
     "whose ties the sample puts past twice k (ties = any and tie_aware; not in the paper; "
     "other dtypes never): strict filters it strictly (the keys "
     "above it, and k of those equal); up also moves it to the next sample key above it where "
     "enough sample keys lie above it (off: only ties past 1/64 of the sample filter "
     "strictly)"},
    {"cluster_blocks", PB_PARAM_INT, 0, 0, PB_RADIK_CL_MAXC, NULL,
     "the cluster path's blocks a row (0: chosen at set-up from the clusters the GPU holds at "
     "once, the rows' length and the room the filter's candidates need; past 8 where the GPU "
     "holds such clusters)"},
};

struct radik {
    void *rows;     /* pb_radik_row, or pb_radik_row64 for 64-bit keys */
    uint32_t *hist;
    void *cand[2];  /* candidates: uint2 {key, index}, or ulonglong2 for 64-bit keys */
    bool wide;      /* 64-bit order keys (fp64, u64) */
    uint32_t *parts, *work, *arrivals;
    /* Rows that refine: their slots (rslot, -1 for none), the rows in slot
     * order (rrows) and the samples pb_radik_presample gathers (samp). */
    int32_t *rslot;
    uint32_t *rrows, *samp;
    uint32_t nslots;
    unsigned grid, grid_buf, grid_filter; /* rescheduled grids: resident blocks */
    unsigned foldx; /* one fold a row: blocks a row */
    size_t smem_plain, smem_buf;
    /* ties = lowest-index (radik_ties.cuh): the rows' tie-partition prefix,
     * each partition's tie count and its exclusive scan, CUB's scratch. */
    uint32_t *tbase, *tcounts, *tranks;
    void *scan_temp;
    size_t scan_bytes;
    uint32_t tparts;
    bool wbuf, resched, lowest;
    int scale, filter;
    /* The cluster path (radik_cluster.cuh, radik_cluster_w.cuh; at k = 1
     * radik_best.cuh, `best`): taken, its blocks a row, and the dynamic
     * shared memory its kernel asks for. */
    bool cluster, best;
    unsigned cl_blocks;
    size_t cl_smem;
    /* The whole query as one CUDA graph: its ten small launches cost the
     * host more than the GPU takes for a short row, so run() launches the
     * graph once. */
    cudaStream_t stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
};

void radik_free(void *p)
{
    radik *r = (radik *)p;
    if (!r) return;
    cudaFree(r->rows);
    cudaFree(r->hist);
    cudaFree(r->cand[0]);
    cudaFree(r->cand[1]);
    cudaFree(r->parts);
    cudaFree(r->work);
    cudaFree(r->arrivals);
    cudaFree(r->rslot);
    cudaFree(r->rrows);
    cudaFree(r->samp);
    cudaFree(r->tbase);
    cudaFree(r->tcounts);
    cudaFree(r->tranks);
    cudaFree(r->scan_temp);
    if (r->exec) cudaGraphExecDestroy(r->exec);
    if (r->graph) cudaGraphDestroy(r->graph);
    if (r->stream) cudaStreamDestroy(r->stream);
    free(r);
}

/* The row state and candidate types at key width K. */
template <class K> using row_t = typename pb_radik_kt<K>::row;
template <class K> using cand_t = typename pb_radik_kt<K>::cand;

/* K: uint32_t for the dtypes up to 32 bits, uint64_t for fp64 and u64 (the
 * values and results are then 8-byte words: gpu_topk_state.cuh). */
template <class K> pb_radik_args<K> args_of(const pb_gpu_topk *g, const radik *r)
{
    pb_radik_args<K> a;
    a.data = reinterpret_cast<const K *>(g->d_data);
    a.data16 = sizeof(K) == 4 && pb_topk_dtype_is16(g->prob.dtype)
                   ? reinterpret_cast<const uint16_t *>(g->d_data)
                   : nullptr;
    a.begin = g->d_begin;
    a.end = g->d_end;
    a.out_off = g->d_out_off;
    a.vals = static_cast<K *>(g->d_vals); /* the dtype's words */
    a.idx = g->d_idx;
    a.rows = static_cast<row_t<K> *>(r->rows);
    a.hist = r->hist;
    a.cin = static_cast<cand_t<K> *>(r->cand[1]);
    a.cout = static_cast<cand_t<K> *>(r->cand[0]);
    a.work = NULL;
    a.nrows = (uint32_t)g->prob.rows;
    a.dtype = (int)g->prob.dtype;
    a.largest = g->prob.largest ? 1 : 0;
    a.hier = (int)g->params.v[P_HIER];
    a.pad = (int)g->params.v[P_PAD];
    a.lowest = r->lowest ? 1 : 0;
    a.tie_aware = (int)g->params.v[P_TIE_AWARE];
    a.quick = (int)g->params.v[P_QUICK];
    a.prefetch = (int)g->params.v[P_PREFETCH];
    /* 16-bit values only: the other kernels are built without it (PB_RADIK_L2_AHEAD). */
    a.l2ahead = g->params.v[P_L2_PREFETCH] && a.data16 ? PB_RADIK_L2_AHEAD : 0;
    /* 16-bit values only: their few values are the levels it is for (wider
     * keys keep the query they had, as with l2_prefetch). */
    a.tie_level = a.data16 ? (int)g->params.v[P_TIE_LEVEL] : PB_RADIK_TIE_LEVEL_OFF;
    a.rslot = r->nslots ? r->rslot : NULL;
    a.samp = NULL;
    if constexpr (sizeof(K) == 4) a.samp = r->nslots ? r->samp : NULL;
    return a;
}

/* Allows the pass its shared memory; with `blocks`, also says how many
 * blocks of it an SM holds. */
template <class K, bool INPUT, bool BUF> int set_smem(size_t bytes, int *blocks, pb_err *err)
{
    PB_CUDA_TRY(cudaFuncSetAttribute(pb_radik_pass<K, INPUT, BUF>,
                                     cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
                err);
    if (blocks)
        PB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                        blocks, pb_radik_pass<K, INPUT, BUF>, PB_RADIK_BLOCK, bytes),
                    err);
    return 0;
}

/* The filter kernel for a problem's key conversion (K: its key width). */
template <class K> using filter_fn = void (*)(pb_radik_args<K>);
template <class K> filter_fn<K> filter_kernel(const pb_topk_problem &p);

template <> filter_fn<uint64_t> filter_kernel<uint64_t>(const pb_topk_problem &p)
{
    if (p.dtype == PB_TOPK_F64)
        return p.largest ? pb_radik_filter<PB_TOPK_F64, 1> : pb_radik_filter<PB_TOPK_F64, 0>;
    return p.largest ? pb_radik_filter<PB_TOPK_U64, 1> : pb_radik_filter<PB_TOPK_U64, 0>;
}

template <> filter_fn<uint32_t> filter_kernel<uint32_t>(const pb_topk_problem &p)
{
    if (p.dtype == PB_TOPK_I32)
        return p.largest ? pb_radik_filter<PB_TOPK_I32, 1> : pb_radik_filter<PB_TOPK_I32, 0>;
    if (p.dtype == PB_TOPK_F16)
        return p.largest ? pb_radik_filter<PB_TOPK_F16, 1> : pb_radik_filter<PB_TOPK_F16, 0>;
    if (p.dtype == PB_TOPK_BF16)
        return p.largest ? pb_radik_filter<PB_TOPK_BF16, 1> : pb_radik_filter<PB_TOPK_BF16, 0>;
    bool f32 = p.dtype == PB_TOPK_F32;
    if (p.largest)
        return f32 ? pb_radik_filter<PB_TOPK_F32, 1> : pb_radik_filter<PB_TOPK_U32, 1>;
    return f32 ? pb_radik_filter<PB_TOPK_F32, 0> : pb_radik_filter<PB_TOPK_U32, 0>;
}

int capture(const pb_gpu_topk *g, radik *r, pb_err *err);

/* Whether any row of the problem may filter (start decides the rest). */
bool may_filter(const pb_topk_problem &p, int filter)
{
    if (filter == PB_RADIK_FILTER_OFF) return false;
    for (uint64_t i = 0; i < p.rows; i++) {
        uint64_t len = pb_topk_row_len(&p, i), take = p.k < len ? p.k : len;
        if (pb_radik_filterable(len, take, filter == PB_RADIK_FILTER_OVERSHOOT)) return true;
    }
    return false;
}

/* The rows that refine (32-bit words, `refine`, the filter on, long rows
 * that may filter: the start kernel's own test), each given a slot of
 * PB_RADIK_REFINE_SAMPLE words for pb_radik_presample. At most one a
 * 2^25 keys of the batch. */
int setup_presample(const pb_gpu_topk *g, radik *r, pb_err *err)
{
    const pb_topk_problem &p = g->prob;
    if (r->wide || !g->params.v[P_REFINE] || r->filter != PB_RADIK_FILTER_ON) return 0;
    size_t rows = (size_t)p.rows;
    int32_t *slot = (int32_t *)malloc(rows * sizeof *slot);
    uint32_t *list = (uint32_t *)malloc(rows * sizeof *list);
    if (!slot || !list) {
        free(slot);
        free(list);
        return pb_err_set(err, "out of host memory");
    }
    uint32_t n = 0;
    for (size_t i = 0; i < rows; i++) {
        uint64_t len = pb_topk_row_len(&p, i), take = p.k < len ? p.k : len;
        bool on = len >= PB_RADIK_REFINE_MIN && pb_radik_filterable(len, take, 0);
        slot[i] = on ? (int32_t)n : -1;
        if (on) list[n++] = (uint32_t)i;
    }
    cudaError_t e = cudaSuccess;
    if (n) {
        e = cudaMalloc(&r->rslot, rows * sizeof *slot);
        if (e == cudaSuccess) e = cudaMalloc(&r->rrows, n * sizeof *list);
        if (e == cudaSuccess)
            e = cudaMalloc(&r->samp, (size_t)n * PB_RADIK_REFINE_SAMPLE * sizeof(uint32_t));
        if (e == cudaSuccess)
            e = cudaMemcpy(r->rslot, slot, rows * sizeof *slot, cudaMemcpyHostToDevice);
        if (e == cudaSuccess)
            e = cudaMemcpy(r->rrows, list, n * sizeof *list, cudaMemcpyHostToDevice);
    }
    free(slot);
    free(list);
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-radik: refine's sample buffers: %s", cudaGetErrorString(e));
    r->nslots = n;
    return 0;
}

/* The cluster kernel for a problem's dtype and direction, at key width K;
 * with best, the k = 1 kernel (radik_best.cuh) in its place. */
template <class K> pb_radik_cluster_fn_t<K> cluster_kernel(const pb_topk_problem &p, bool best);
template <>
pb_radik_cluster_fn_t<uint32_t> cluster_kernel<uint32_t>(const pb_topk_problem &p, bool best)
{
    return best ? pb_radik_best_kernel(p.dtype, p.largest != 0)
                : pb_radik_cluster_kernel(p.dtype, p.largest != 0);
}
template <>
pb_radik_cluster_fn_t<uint64_t> cluster_kernel<uint64_t>(const pb_topk_problem &p, bool best)
{
    return best ? pb_radik_best_kernel64(p.dtype, p.largest != 0)
                : pb_radik_cluster_kernel64(p.dtype, p.largest != 0);
}
/* The one of the problem's width, as an address (attributes, occupancy). */
const void *cluster_kernel_any(const pb_topk_problem &p, bool best)
{
    return pb_topk_dtype_is64(p.dtype) ? (const void *)cluster_kernel<uint64_t>(p, best)
                                       : (const void *)cluster_kernel<uint32_t>(p, best);
}

/* The cluster kernel's launch: grid (blocks a row, rows), one cluster a
 * row. */
cudaLaunchConfig_t cluster_config(const radik *r, uint32_t rows, cudaLaunchAttribute *at)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(r->cl_blocks, rows);
    cfg.blockDim = dim3(PB_RADIK_CL_BLOCK);
    cfg.dynamicSmemBytes = r->cl_smem;
    cfg.stream = r->stream;
    at->id = cudaLaunchAttributeClusterDimension;
    at->val.clusterDim.x = r->cl_blocks;
    at->val.clusterDim.y = 1;
    at->val.clusterDim.z = 1;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    return cfg;
}

/* Whether `cluster = auto` takes the cluster path where it measured
 * faster (docs/topk-radik.md, docs/measured.md), with the other switches
 * at their defaults, so that each switch's ablation still times the query
 * it belongs to. 16-bit keys (radik_cluster.cuh): rows of at most 2^20
 * keys (2^22 in batches of four or more), 2^25 in all, k at most 4096;
 * every shape measured but a single row of 2^22. A k past 1/64 of a row
 * used to take the multi-pass query, until the cluster's blocks a row were
 * chosen by the waves: then the path was faster at such rows too
 * (docs/topk-radik.md). */
bool auto16(const pb_topk_problem &p)
{
    return p.max_len <= PB_RADIK_CL_MAXLEN && (p.rows >= 4 || p.max_len <= PB_RADIK_CL_ONE_MAX) &&
           p.total <= (UINT64_C(1) << 25) && p.k <= 4096;
}

/* Word keys (radik_cluster_w.cuh): rows up to 2^20 keys, single ones too,
 * k at most 4096, where it was faster than the multi-pass query at every
 * shape measured (docs/topk-radik.md has the numbers). */
bool auto_word(const pb_topk_problem &p)
{
    return p.max_len <= PB_RADIK_CLW_MAXLEN && p.k <= 4096;
}

/* The clusters of c blocks the GPU holds at once (0: none, or c past
 * what the GPU allows). */
int active_clusters(radik *r, const void *kern, unsigned c, int *clusters, pb_err *err)
{
    cudaLaunchAttribute at;
    r->cl_blocks = c;
    cudaLaunchConfig_t cfg = cluster_config(r, 1, &at);
    cudaError_t e = cudaOccupancyMaxActiveClusters(clusters, kern, &cfg);
    if (e == cudaSuccess) return 0;
    (void)cudaGetLastError(); /* a size the GPU refuses: not an error of the query */
    if (c > 8) return *clusters = 0;
    return pb_err_set(err, "gpu-radik: cudaOccupancyMaxActiveClusters: %s", cudaGetErrorString(e));
}

/* The blocks a row for `cluster_blocks = 0`: the GPU's count of clusters
 * it holds at once for every size, and radik_blocks.h's choice from them. */
int pick_blocks(const pb_topk_problem &p, radik *r, const void *kern, int sms, unsigned *best,
                pb_err *err)
{
    const bool is16 = pb_topk_dtype_is16(p.dtype);
    const uint32_t cap = is16 ? PB_RADIK_CL_CAP
                              : pb_topk_dtype_is64(p.dtype) ? PB_RADIK_CLW_CAP(uint64_t)
                                                            : PB_RADIK_CLW_CAP(uint32_t);
    const unsigned cmin =
        pb_radik_blocks_min(p.max_len, p.k, cap, r->filter == PB_RADIK_FILTER_ON, is16);
    int clusters[PB_RADIK_CL_MAXC + 1] = {0};
    for (unsigned c = cmin; c <= PB_RADIK_CL_MAXC; c++)
        if (active_clusters(r, kern, c, &clusters[c], err)) return -1;
    *best = pb_radik_blocks_pick(clusters, sms, p.rows,
                                 p.max_len * (uint64_t)pb_topk_dtype_bytes(p.dtype), cmin,
                                 pb_radik_blocks_per_block(p.k));
    return 0;
}

/* Whether the query takes the cluster path, and with how many blocks a
 * row (`cluster_blocks`, or pick_blocks). `filter` reaches the cluster
 * path too (off: no sample; overshoot: its fallback). */
int setup_cluster(const pb_gpu_topk *g, radik *r, int sms, pb_err *err)
{
    const pb_topk_problem &p = g->prob;
    int mode = (int)g->params.v[P_CLUSTER];
    bool is16 = pb_topk_dtype_is16(p.dtype);
    if (mode == CLUSTER_ON && p.rows > 65535)
        return pb_err_set(err, "gpu-radik: cluster = on takes at most 65535 rows (got %llu)",
                          (unsigned long long)p.rows);
    if (mode == CLUSTER_AUTO) {
        bool defaults = true;
        for (int i = P_HIER; i <= P_REFINE; i++) defaults &= g->params.v[i] == params[i].def;
        if (!defaults || p.rows > 65535 || !(is16 ? auto16(p) : auto_word(p))) return 0;
    } else if (mode == CLUSTER_OFF)
        return 0;
    /* Clusters need sm_90 code on an sm_90 device: below, auto takes the
     * multi-pass query and `on` is refused (also by `available`, before a
     * sweep starts). */
    char why[200];
    if (!pb_radik_cluster_runs(why, sizeof why)) {
        if (mode == CLUSTER_ON) return pb_err_set(err, "gpu-radik: cluster = on %s", why);
        return 0;
    }
    r->best = p.k == 1;
    const void *kern = cluster_kernel_any(p, r->best);
    /* The k = 1 kernel asks for the cluster kernel's shared memory, its
     * static and its dynamic: the GPU then holds as many of its clusters
     * at once as of the cluster kernel's, the counts that the blocks-a-row
     * cost at k = 1 (PB_RADIK_CL_BEST_BLOCK_BYTES) was fitted to. */
    r->cl_smem = pb_radik_cluster_smem(p.dtype);
    if (r->best) {
        cudaFuncAttributes fa;
        PB_CUDA_TRY(cudaFuncGetAttributes(&fa, cluster_kernel_any(p, false)), err);
        r->cl_smem += fa.sharedSizeBytes;
    }
    /* Past the portable eight, clusters of up to sixteen where the GPU
     * holds them (Hopper does; elsewhere the counts past eight fit none:
     * active_clusters). */
    if (cudaFuncSetAttribute(kern, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
        (void)cudaGetLastError();
    PB_CUDA_TRY(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)r->cl_smem),
                err);
    /* `cluster_blocks`, where the GPU holds such a cluster; else the pick
     * (0 where no count fits). */
    const unsigned want = (unsigned)g->params.v[P_CLUSTER_BLOCKS];
    unsigned c = want;
    if (want) {
        int clusters = 0;
        if (active_clusters(r, kern, want, &clusters, err)) return -1;
        if (clusters < 1) c = 0;
    } else if (pick_blocks(p, r, kern, sms, &c, err)) {
        return -1;
    }
    if (!c) {
        if (mode == CLUSTER_ON)
            return pb_err_set(err, "gpu-radik: cluster = on: this GPU holds no cluster of %u blocks "
                                   "of %d threads",
                              want ? want : 1, PB_RADIK_CL_BLOCK);
        return 0;
    }
    r->cl_blocks = c;
    r->cluster = true;
    return 0;
}

/* The tie pass's buffers (ties = lowest-index): tbase from the layout on
 * the host, and the scan's scratch for the batch's partition count. */
int setup_ties(const pb_topk_problem &p, radik *r, pb_err *err)
{
    size_t rows = (size_t)p.rows;
    uint32_t *h = (uint32_t *)malloc((rows + 1) * sizeof *h);
    if (!h) return pb_err_set(err, "out of host memory");
    uint64_t at = 0;
    for (size_t i = 0; i < rows; i++) {
        h[i] = (uint32_t)at;
        at += pb_radik_nparts(pb_topk_row_len(&p, i));
    }
    h[rows] = (uint32_t)at;
    if (at > UINT32_MAX) {
        free(h);
        return pb_err_set(err, "gpu-radik: ties = lowest-index: %llu tie partitions, beyond 2^32",
                          (unsigned long long)at);
    }
    r->tparts = (uint32_t)at;
    cudaError_t e = cudaMalloc(&r->tbase, (rows + 1) * sizeof *h);
    if (e == cudaSuccess)
        e = cudaMemcpy(r->tbase, h, (rows + 1) * sizeof *h, cudaMemcpyHostToDevice);
    free(h);
    size_t parts = r->tparts ? r->tparts : 1;
    if (e == cudaSuccess) e = cudaMalloc(&r->tcounts, parts * 4);
    if (e == cudaSuccess) e = cudaMalloc(&r->tranks, parts * 4);
    if (e == cudaSuccess)
        e = cub::DeviceScan::ExclusiveSum(nullptr, r->scan_bytes, r->tcounts, r->tranks,
                                          (int64_t)parts);
    if (e == cudaSuccess) e = cudaMalloc(&r->scan_temp, r->scan_bytes ? r->scan_bytes : 1);
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-radik: tie pass set-up: %s", cudaGetErrorString(e));
    return 0;
}

/* The passes' shared memory at key width K, and how many blocks of the
 * input passes and of the filter pass an SM holds. */
template <class K>
int setup_kernels(const pb_topk_problem &p, radik *r, int *b_in, int *b_in_buf, int *b_filter,
                  pb_err *err)
{
    r->smem_plain = sizeof(pb_radik_pass_smem<K, false>);
    r->smem_buf = sizeof(pb_radik_pass_smem<K, true>);
    /* The candidate passes use the input passes' grids. */
    if (set_smem<K, true, false>(r->smem_plain, b_in, err) ||
        set_smem<K, true, true>(r->smem_buf, b_in_buf, err) ||
        set_smem<K, false, false>(r->smem_plain, NULL, err) ||
        set_smem<K, false, true>(r->smem_buf, NULL, err))
        return -1;
    PB_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(b_filter, filter_kernel<K>(p),
                                                              PB_RADIK_BLOCK, 0),
                err);
    return 0;
}

int setup(pb_gpu_topk *g, const void *, pb_err *err)
{
    radik *r = (radik *)calloc(1, sizeof *r);
    if (!r) return pb_err_set(err, "out of host memory");
    g->mod = r;
    g->mod_free = radik_free;
    const pb_topk_problem &p = g->prob;
    r->wbuf = g->params.v[P_WBUF] != 0;
    r->resched = g->params.v[P_RESCHED] != 0;
    r->scale = (int)g->params.v[P_SCALE];
    r->filter = (int)g->params.v[P_FILTER];
    r->lowest = p.ties == PB_TOPK_TIES_LOWEST;
    if (p.max_len >= (UINT64_C(1) << 31))
        return pb_err_set(err, "gpu-radik: rows of 2^31 values or more are not supported (got %llu)",
                          (unsigned long long)p.max_len);
    if (!r->resched && p.rows > 65535)
        return pb_err_set(err, "gpu-radik: resched=0 launches a fold of blocks a row, at most 65535 "
                               "rows (got %llu)",
                          (unsigned long long)p.rows);
    size_t rows = (size_t)p.rows, total = (size_t)(p.total ? p.total : 1);
    r->wide = pb_topk_dtype_is64(p.dtype);
    size_t row_bytes = r->wide ? sizeof(pb_radik_row64) : sizeof(pb_radik_row);
    PB_CUDA_TRY(cudaMalloc(&r->rows, rows * row_bytes), err);
    PB_CUDA_TRY(cudaMalloc(&r->hist, rows * PB_RADIK_BINS * 4), err);
    /* Every select leaves its histogram zeroed, so this holds for every run. */
    PB_CUDA_TRY(cudaMemset(r->hist, 0, rows * PB_RADIK_BINS * 4), err);
    size_t cand_bytes = r->wide ? sizeof(ulonglong2) : sizeof(uint2);
    for (int i = 0; i < 2; i++) PB_CUDA_TRY(cudaMalloc(&r->cand[i], total * cand_bytes), err);
    PB_CUDA_TRY(cudaMalloc(&r->parts, rows * 4), err);
    PB_CUDA_TRY(cudaMalloc(&r->work, (rows + 1) * 4), err);
    PB_CUDA_TRY(cudaMalloc(&r->arrivals, 4), err);
    PB_CUDA_TRY(cudaMemset(r->arrivals, 0, 4), err); /* the last block leaves it at 0 */
    int dev = 0, sms = 0;
    PB_CUDA_TRY(cudaGetDevice(&dev), err);
    PB_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), err);
    /* The cluster path is the whole query: no tie pass, no presample. */
    if (setup_cluster(g, r, sms, err)) return -1;
    if (r->lowest && rows && !r->cluster && setup_ties(p, r, err)) return -1;
    if (rows && !r->cluster && setup_presample(g, r, err)) return -1;

    int b_in = 0, b_in_buf = 0, b_filter = 0;
    if (r->wide ? setup_kernels<uint64_t>(p, r, &b_in, &b_in_buf, &b_filter, err)
                : setup_kernels<uint32_t>(p, r, &b_in, &b_in_buf, &b_filter, err))
        return -1;
    /* One grid size for every pass: what the most demanding pass keeps
     * resident (a larger grid only queues blocks). */
    r->grid = (unsigned)(sms * (b_in > 0 ? b_in : 1));
    r->grid_buf = (unsigned)(sms * (b_in_buf > 0 ? b_in_buf : 1));
    r->grid_filter = (unsigned)(sms * (b_filter > 0 ? b_filter : 1));
    uint64_t max_parts = pb_radik_nparts(p.max_len + 4);
    uint64_t fold = (r->grid + rows - 1) / (rows ? rows : 1);
    if (fold > max_parts) fold = max_parts;
    r->foldx = (unsigned)(fold ? fold : 1);
    if (pb_gpu_topk_rank_setup(g, err)) return -1;
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    return rows ? capture(g, r, err) : 0;
}

/* Every dtype is radik's (fp64 and u64 on the 64-bit kernels); what it
 * refuses before a point runs is `cluster = on` where clusters do not run
 * (a device, or this binary's code for it, older than sm_90). */
bool available(const pb_params *params, char *why, size_t whylen)
{
    if (!params || params->v[P_CLUSTER] != CLUSTER_ON) return true;
    char r[200];
    if (pb_radik_cluster_runs(r, sizeof r)) return true;
    snprintf(why, whylen, "cluster = on %s", r);
    return false;
}


int prepare(const pb_point *pt, void **state, pb_err *err)
{
    *state = NULL;
    return pb_gpu_topk_prepare_with(pt, setup, nullptr, state, err);
}

/* A pass's grid: `resident` blocks walking the work prefix of all rows
 * (a single row: its partitions, no prefix), or one fold of blocks a row.
 * Sets a.work to match. */
template <class K> dim3 grid_of(const radik *r, pb_radik_args<K> &a, unsigned resident)
{
    if (a.nrows == 1 || r->resched) {
        a.work = a.nrows == 1 ? NULL : r->work;
        return dim3(resident);
    }
    a.work = NULL;
    return dim3(r->foldx, a.nrows);
}

template <class K, bool INPUT, bool BUF>
int launch_pass(const radik *r, pb_radik_args<K> a, pb_err *err)
{
    dim3 grid = grid_of(r, a, BUF ? r->grid_buf : r->grid);
    pb_radik_pass<K, INPUT, BUF>
        <<<grid, PB_RADIK_BLOCK, BUF ? r->smem_buf : r->smem_plain, r->stream>>>(a);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

template <bool INPUT, class K>
int pass(const radik *r, const pb_radik_args<K> &a, bool buf, pb_err *err)
{
    return buf ? launch_pass<K, INPUT, true>(r, a, err) : launch_pass<K, INPUT, false>(r, a, err);
}

/* Whether the passes walk a work prefix (else one row, or a fold a row). */
template <class K> bool planned(const radik *r, const pb_radik_args<K> &a)
{
    return r->resched && a.nrows > 1;
}

/* Where start and select leave the next pass's plan (none: no plan). */
template <class K> pb_radik_plan plan_of(const radik *r, const pb_radik_args<K> &a)
{
    pb_radik_plan pl = {NULL, NULL, NULL};
    if (planned(r, a)) pl = {r->parts, r->work, r->arrivals};
    return pl;
}

/* Select after the pass that read `ran` (the filter pass if `filtered`);
 * the next pass reads `next`. */
template <class K>
int select(const radik *r, const pb_radik_args<K> &a, int ran, bool filtered, int next,
           pb_err *err)
{
    pb_radik_select<K><<<a.nrows, PB_RADIK_BLOCK, 0, r->stream>>>(a, plan_of(r, a), ran,
                                                               filtered ? 1 : 0, next);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

template <class K>
int filter_pass(const pb_gpu_topk *g, const radik *r, pb_radik_args<K> a, pb_err *err)
{
    dim3 grid = grid_of(r, a, r->grid_filter);
    filter_kernel<K>(g->prob)<<<grid, PB_RADIK_BLOCK, 0, r->stream>>>(a);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

/* ties = lowest-index: the rows whose final pass had ties to choose get
 * the `need` of the smallest indices (radik_ties.cuh): count, scan, write,
 * over the tie partitions of all rows with one resident grid. */
template <class K> int tie_pass(const radik *r, const pb_radik_args<K> &a, pb_err *err)
{
    if (!r->tparts) return 0;
    unsigned grid = r->grid < r->tparts ? r->grid : r->tparts;
    pb_radik_tie_count<K><<<grid, PB_RADIK_BLOCK, 0, r->stream>>>(a, r->tbase, r->tcounts);
    PB_CUDA_LAUNCHED(err);
    size_t bytes = r->scan_bytes;
    cudaError_t e = cub::DeviceScan::ExclusiveSum(r->scan_temp, bytes, r->tcounts, r->tranks,
                                                  (int64_t)r->tparts, r->stream);
    if (e != cudaSuccess) return pb_err_set(err, "gpu-radik: tie scan: %s", cudaGetErrorString(e));
    pb_radik_tie_write<K><<<grid, PB_RADIK_BLOCK, 0, r->stream>>>(a, r->tbase, r->tranks);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

/* The candidate passes after pass 1 that finish every row: the splits
 * that take its interval to one key, and the final pass (TAKE, FINAL:
 * output only). 13-bit digits; a plain first digit leaves kbits - 13 bits,
 * a scaled one (a filter's, or pass 0's) 24 (32-bit keys) or 57 (64-bit
 * keys: radik_digit.h), and pass 1 takes 13 more off a row that did not
 * filter. 32-bit keys: 2 (19 -> 6 -> 0, or 24 -> 11 -> 0 scaled), 3 after
 * a filter (24: 11, 0, final). 64-bit keys: 4 plain (51 -> 38: 25, 12, 0,
 * final), 5 scaled (57 -> 44: 31, 18, 5, 0, final), 6 after a filter (57:
 * 44, 31, 18, 5, 0, final). 16-bit keys (fp16, bf16: 16 bits): 1, 2
 * after a filter (a plain first digit leaves 3 bits, a scaled bin at most
 * 256 keys: one split to a single key, then the final pass). A row that
 * finishes sooner is DONE, and the passes left are no-ops for it. */
int candidate_passes(bool wide, bool is16, bool filtered, bool may_scale)
{
    if (is16) return filtered ? 2 : 1;
    if (!wide) return filtered ? 3 : 2;
    return filtered ? 6 : may_scale ? 5 : 4;
}

/* The query's launches, in stream order on r->stream. */
template <class K> int enqueue(const pb_gpu_topk *g, const radik *r, pb_err *err)
{
    const int IN = PB_RADIK_SRC_INPUT, CAND = PB_RADIK_SRC_CAND;
    pb_radik_args<K> a = args_of<K>(g, r);
    /* Where no row may filter, the query is the paper's: neither the
     * filter pass nor a third candidate pass is launched. */
    int filter = may_filter(g->prob, r->filter) ? r->filter : PB_RADIK_FILTER_OFF;
    bool filt = filter != PB_RADIK_FILTER_OFF;
    /* The sample depends on the problem's seed only: every repeat of a
     * query does the same work. */
    uint32_t salt = (uint32_t)(g->pt.seed ^ (g->pt.seed >> 32));
    /* The cluster path is the whole query (ties chosen in it). */
    if (r->cluster) {
        cudaLaunchAttribute at;
        cudaLaunchConfig_t cfg = cluster_config(r, a.nrows, &at);
        PB_CUDA_TRY(cudaLaunchKernelEx(&cfg, cluster_kernel<K>(g->prob, r->best), a,
                                       (uint64_t)g->prob.k, salt, r->filter),
                    err);
        PB_CUDA_LAUNCHED(err);
        return g->prob.sorted ? pb_gpu_topk_rank(g, r->stream, err) : 0;
    }
    if constexpr (sizeof(K) == 4) {
        if (r->nslots && filt) {
            dim3 grid(PB_RADIK_REFINE_SAMPLE / PB_RADIK_PRESAMPLE_PART, r->nslots);
            pb_radik_presample<K><<<grid, PB_RADIK_BLOCK, 0, r->stream>>>(a, r->rrows, salt);
            PB_CUDA_LAUNCHED(err);
        }
    }
    pb_radik_start<K><<<a.nrows, PB_RADIK_BLOCK, 0, r->stream>>>(a, g->prob.k, r->scale, filter,
                                                                 salt, plan_of(r, a));
    PB_CUDA_LAUNCHED(err);
    /* The filter pass writes its candidates to cand[0], where pass 1 of
     * the rows that fall back writes theirs. */
    a.cout = static_cast<cand_t<K> *>(r->cand[0]);
    if (filt && (filter_pass(g, r, a, err) || select(r, a, IN, true, IN, err))) return -1;
    /* Pass 0 histograms the input (and outputs rows that take it whole). */
    if (pass<true>(r, a, false, err) || select(r, a, IN, false, IN, err)) return -1;
    /* Pass 1 reads the input again and writes candidates to cand[0]. */
    if (pass<true>(r, a, r->wbuf, err) || select(r, a, IN, false, CAND, err)) return -1;
    /* Candidate passes, alternating buffers. Two finish a 32-bit row after
     * pass 1 (the last only outputs: TAKE, FINAL); a filtered row, whose
     * first digit leaves an interval of up to 2^24 keys, needs three;
     * 64-bit keys need up to six, 16-bit ones two (candidate_passes). Rows are scaled only
     * from PB_RADIK_SCALE_MIN keys. */
    bool may_scale = r->scale != PB_RADIK_SCALE_OFF && g->prob.max_len >= PB_RADIK_SCALE_MIN;
    int left = candidate_passes(sizeof(K) == 8, pb_topk_dtype_is16(g->prob.dtype), filt, may_scale);
    for (int i = 0; i < left; i++) {
        a.cin = static_cast<const cand_t<K> *>(r->cand[i & 1]);
        a.cout = static_cast<cand_t<K> *>(r->cand[(i + 1) & 1]);
        if (pass<false>(r, a, r->wbuf, err)) return -1;
        if (i + 1 < left && select(r, a, CAND, false, CAND, err)) return -1;
    }
    if (r->lowest && tie_pass(r, a, err)) return -1;
    /* sorted = yes: the rows put in rank order (gpu_topk_rank.cu). */
    return g->prob.sorted ? pb_gpu_topk_rank(g, r->stream, err) : 0;
}

int capture(const pb_gpu_topk *g, radik *r, pb_err *err)
{
    PB_CUDA_TRY(cudaStreamCreateWithFlags(&r->stream, cudaStreamNonBlocking), err);
    PB_CUDA_TRY(cudaStreamBeginCapture(r->stream, cudaStreamCaptureModeThreadLocal), err);
    int rc = r->wide ? enqueue<uint64_t>(g, r, err) : enqueue<uint32_t>(g, r, err);
    cudaError_t e = cudaStreamEndCapture(r->stream, &r->graph);
    if (rc) return -1;
    if (e != cudaSuccess)
        return pb_err_set(err, "gpu-radik: capturing the query: %s", cudaGetErrorString(e));
    PB_CUDA_TRY(cudaGraphInstantiate(&r->exec, r->graph, 0), err);
    return 0;
}

int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
    pb_gpu_topk *g = (pb_gpu_topk *)state;
    radik *r = (radik *)g->mod;
    if (!g->prob.rows) return 0;
    PB_CUDA_TRY(cudaGraphLaunch(r->exec, 0), err);
    return 0;
}

/* The path a prepared point takes (docs/architectures.md). */
const char *path(void *state)
{
    const pb_gpu_topk *g = (const pb_gpu_topk *)state;
    const radik *r = g ? (const radik *)g->mod : NULL;
    return r && r->cluster ? "cluster" : "multi-pass";
}

uint64_t footprint(const pb_point *pt)
{
    uint64_t rows = (uint64_t)pt->params->v[PB_TOPK_P_ROWS];
    uint64_t total = pt->n * rows + 4 * rows + 4;
    /* 64-bit keys: candidates of 16 bytes, a larger row state. */
    bool wide = pb_topk_dtype_is64((int)pt->params->v[PB_TOPK_P_DTYPE]);
    uint64_t cand = wide ? sizeof(ulonglong2) : sizeof(uint2);
    uint64_t row_bytes = wide ? sizeof(pb_radik_row64) : sizeof(pb_radik_row);
    /* ties = lowest-index: tbase, and two words a tie partition (CUB's scan
     * scratch is in the slack). */
    uint64_t ties = pt->params->v[PB_TOPK_P_TIES] == PB_TOPK_TIES_LOWEST
                        ? 4 * (rows + 1) + 8 * (total / PB_RADIK_PART + rows + 1)
                        : 0;
    /* `refine`'s samples: a slot a row of 2^25 keys or more (and the rows'
     * slots: 4 bytes a row). */
    uint64_t presample = (total / PB_RADIK_REFINE_MIN) * PB_RADIK_REFINE_SAMPLE * 4;
    return pb_gpu_topk_footprint_io(pt) + rows * (PB_RADIK_BINS * 4 + row_bytes + 16) +
           2 * cand * total + ties + presample + (1 << 20) + pb_gpu_topk_rank_footprint(pt);
}

} // namespace

PB_MODULE_DEF(radik, "gpu-radik", pb_topk_gpu_hooks, .flags = PB_MOD_NONDETERMINISTIC,
    .summary = "RadiK radix top-k: hierarchical atomics, flush-efficient write buffer, task "
               "rescheduling, offset padding, adaptive scaling; two reads of the input",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = run,
    .available = available, .path = path);

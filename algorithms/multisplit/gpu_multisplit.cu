/* multisplit: the stable multisplit to call when you just want one — it
 * picks dms, wms or bms (matrix scan) by m and item width, from the H200
 * measurements in results/reference/nvidia-h200/multisplit/table5 and perf
 * (all three give the same, stable, output, so the choice is only about
 * speed):
 *
 *   keys:  m <= 4  dms (a few write streams coalesce well enough without
 *                       reordering),  m > 4  bms (at m = 8 since the key-only
 *                       postscans were compiled for 4 resident blocks)
 *   pairs: m <= 2  dms,  m <= 16  wms,  m > 16  bms */
#include "algorithms/multisplit/gpu_ms_split.cuh"

namespace {

const pb_param_spec params[] = {PB_MS_COMMON_PARAMS};

pb_ms_variant choose(uint32_t m, bool pairs)
{
    if (!pairs) return m <= 4 ? PB_MS_DMS : PB_MS_BMS;
    return m <= 2 ? PB_MS_DMS : m <= 16 ? PB_MS_WMS : PB_MS_BMS;
}

/* The chosen module's parameters: ours, then each of its own at its first
 * (fastest) choice: stage = all, count = lanes, scan = matrix. */
pb_params expand(const pb_point *pt)
{
    pb_params p = *pt->params;
    p.v[PB_MS_SPLIT_P_STAGE] = 0;
    p.v[PB_MS_SPLIT_P_COUNT] = 0;
    p.v[PB_MS_SPLIT_P_SCAN] = 0;
    return p;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    pb_params p = expand(pt);
    pb_point q = *pt;
    q.params = &p;
    return pb_ms_split_prepare(choose((uint32_t)p.v[PB_MS_P_BUCKETS], pt->item_bytes == 8), &q,
                               state, err);
}

uint64_t footprint(const pb_point *pt)
{
    pb_params p = expand(pt);
    pb_point q = *pt;
    q.params = &p;
    return pb_ms_split_footprint(choose((uint32_t)p.v[PB_MS_P_BUCKETS], pt->item_bytes == 8), &q);
}

} // namespace

extern "C" const pb_module pb_module_multisplit = {
    .name = "multisplit",
    .family = PB_FAMILY_MULTISPLIT,
    .device = PB_DEVICE_GPU,
    .flags = 0,
    .summary = "stable multisplit, m <= 256: dms, wms or bms chosen by m and item width "
               "(measured on an H200)",
    .params = PB_PARAMS(params),
    .max_n = (UINT64_C(1) << 31) - 1,
    .footprint = footprint,
    .prepare = prepare,
    .run = pb_ms_split_run,
    .result = pb_gpu_ms_result,
    .verify = pb_gpu_ms_verify,
    .release = pb_gpu_ms_release,
    .work = NULL,
    .sample_perms = NULL,
};

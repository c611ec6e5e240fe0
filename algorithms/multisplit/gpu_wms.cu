/* wms: the paper's Warp-level multisplit (Section 5.6.1): as dms, with each
 * warp's keys reordered by bucket in shared memory before the write. m <= 32.
 * Stages in gpu_ms_split.cu. */
#include "algorithms/multisplit/gpu_ms_split.cuh"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    PB_MS_SPLIT_STAGE_PARAM,
    PB_MS_SPLIT_COUNT_PARAM,
};

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_ms_split_prepare(PB_MS_WMS, pt, state, err);
}

uint64_t footprint(const pb_point *pt) { return pb_ms_split_footprint(PB_MS_WMS, pt); }

} // namespace

extern "C" const pb_module pb_module_wms = {
    .name = "wms",
    .family = &pb_family_multisplit,
    .device = PB_DEVICE_GPU,
    .summary = "Warp-level multisplit: as dms, keys reordered by bucket within each warp in shared memory before the write; m <= 32",
    .params = PB_PARAMS(params),
    .max_n = (UINT64_C(1) << 31) - 1,
    .footprint = footprint,
    .prepare = prepare,
    .run = pb_ms_split_run,
    .result = pb_gpu_ms_result,
    .verify = pb_gpu_ms_verify,
    .release = pb_gpu_ms_release,
    .refresh = pb_gpu_ms_refresh,
};

/* dms: the paper's Direct multisplit (Section 5.4-5.5): warp-level ballot
 * histograms and offsets, CUB's scan over the m x warps matrix, every key
 * written straight to its final place. m <= 32. Stages in gpu_ms_split.cu. */
#include "algorithms/multisplit/gpu_ms_split.cuh"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    PB_MS_SPLIT_STAGE_PARAM,
    PB_MS_SPLIT_COUNT_PARAM,
};

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_ms_split_prepare(PB_MS_DMS, pt, state, err);
}

uint64_t footprint(const pb_point *pt) { return pb_ms_split_footprint(PB_MS_DMS, pt); }

} // namespace

extern "C" const pb_module pb_module_dms = {
    .name = "dms",
    .family = &pb_family_multisplit,
    .device = PB_DEVICE_GPU,
    .summary = "Direct multisplit (Ashkiani et al. 2017): warp-level ballot histograms, CUB scan over the m x warps matrix, each key written straight to its place; m <= 32",
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

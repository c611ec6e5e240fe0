/* bms: the paper's Block-level multisplit (Section 5.6.2): block tiles
 * ranked per warp, combined across warps and reordered over the whole tile;
 * global bases from CUB's scan over the m x tiles matrix (the paper's and
 * the default, measured faster) or a decoupled look-back (scan = lookback).
 * m <= 256. */
#include "algorithms/multisplit/gpu_ms_split.cuh"

namespace {

const pb_param_spec params[] = {
    PB_MS_COMMON_PARAMS,
    PB_MS_SPLIT_STAGE_PARAM,
    PB_MS_SPLIT_COUNT_PARAM,
    PB_MS_SPLIT_SCAN_PARAM,
};

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_ms_split_prepare(PB_MS_BMS, pt, state, err);
}

uint64_t footprint(const pb_point *pt) { return pb_ms_split_footprint(PB_MS_BMS, pt); }

} // namespace

extern "C" const pb_module pb_module_bms = {
    .name = "bms",
    .family = &pb_family_multisplit,
    .device = PB_DEVICE_GPU,
    .summary = "Block-level multisplit: block tiles ranked by warps, reordered over the whole tile, bases by the matrix scan (or a decoupled look-back); m <= 256",
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

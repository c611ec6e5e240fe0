/* bijective1: the GPU bijective shuffle, bijection, compaction and gather fused into a two-pass scan (per-tile counts, a scan of them, then scan and gather)
 * (Mitchell et al. 2024, section 6). Kernels in gpu_bijective.cuh. */
#include "algorithms/shuffle/bijective/gpu_bijective.cuh"

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_bijective_prepare(PB_BIJECTIVE1, pt, state, err);
}

extern "C" const pb_module pb_module_bijective1 = {
    .name = "bijective1",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_GPU,
    .flags = PB_MOD_SEEDED,
    .summary = "bijective shuffle fused into a two-pass scan",
    .params = pb_bijective_params,
    .nparams = 2,
    .footprint = pb_bijective_footprint1,
    .prepare = prepare,
    .run = pb_bijective_run,
    .result = pb_gpu_shuffle_result_via,
    .verify = pb_gpu_shuffle_verify_via,
    .release = pb_bijective_release,
    .sample_perms = pb_bijective_sample_perms,
    .refresh = pb_gpu_shuffle_refresh_via,
    .fingerprint = pb_gpu_shuffle_fingerprint_via,
    .reference = "bijective0",
    .bound = PB_BOUND_NONE,
    /* Records: a thread group a record in the gather (gpu_bijective.cuh). */
    .items = PB_ITEM_CLASSES(PB_ITEM_SCALAR) | PB_ITEM_CLASSES(PB_ITEM_RECORD),
};

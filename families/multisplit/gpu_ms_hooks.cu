#include "families/multisplit/gpu_ms_state.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

extern "C" const pb_module_hooks pb_multisplit_gpu_hooks = {
    .family = &pb_family_multisplit, .device = PB_DEVICE_GPU,
    /* Most of its modules index or count with 32-bit signed integers. */
    .max_n = (UINT64_C(1) << 31) - 1, .result = pb_gpu_ms_result,
    .verify = pb_gpu_ms_verify, .release = pb_gpu_ms_release, .refresh = pb_gpu_ms_refresh,
};

#include "families/topk/gpu_topk_state.cuh"
#include "families/topk/topk_family.h"
#include "families/topk/topk_hooks.h"
#include "families/topk/topk_problem.h"

extern "C" const pb_module_hooks pb_topk_gpu_hooks = {
    .family = &pb_family_topk, .device = PB_DEVICE_GPU, .result = pb_gpu_topk_result,
    .verify = pb_gpu_topk_verify, .release = pb_gpu_topk_release, .work = pb_topk_work,
    .refresh = pb_gpu_topk_refresh,
};

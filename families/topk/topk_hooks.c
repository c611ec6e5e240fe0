#include "families/topk/topk_hooks.h"

#include "families/topk/topk_family.h"
#include "families/topk/topk_problem.h"

const pb_module_hooks pb_topk_cpu_hooks = {
    .family = &pb_family_topk, .device = PB_DEVICE_CPU, .work = pb_topk_work,
};

#include "families/shuffle/gpu_shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

/* Both take records: the family's device buffers and checks move any item
 * whole, and a module that cannot says so in its own `items`. */
extern "C" const pb_module_hooks pb_shuffle_gpu_hooks = {
    .family = &pb_family_shuffle, .device = PB_DEVICE_GPU, .flags = PB_MOD_SEEDED,
    .footprint = pb_gpu_shuffle_footprint,
    .prepare = pb_gpu_shuffle_prepare, .result = pb_gpu_shuffle_result,
    .verify = pb_gpu_shuffle_verify, .release = pb_gpu_shuffle_release,
    .refresh = pb_gpu_shuffle_refresh, .fingerprint = pb_gpu_shuffle_fingerprint,
    .items = PB_ITEM_ANY,
};

extern "C" const pb_module_hooks pb_shuffle_gpu_via_hooks = {
    .family = &pb_family_shuffle, .device = PB_DEVICE_GPU, .flags = PB_MOD_SEEDED,
    .result = pb_gpu_shuffle_result_via,
    .verify = pb_gpu_shuffle_verify_via, .refresh = pb_gpu_shuffle_refresh_via,
    .fingerprint = pb_gpu_shuffle_fingerprint_via,
    .items = PB_ITEM_ANY,
};

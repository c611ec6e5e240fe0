#include "families/shuffle/shuffle_hooks.h"

#include "families/shuffle/shuffle_buffers.h"

const pb_module_hooks pb_shuffle_cpu_inplace_hooks = {
    .family = &pb_family_shuffle, .device = PB_DEVICE_CPU, .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .footprint = pb_shuffle_footprint_inplace, .prepare = pb_shuffle_prepare_inplace,
    .result = pb_shuffle_result, .release = pb_shuffle_release, .refresh = pb_shuffle_refresh,
    .fingerprint = pb_shuffle_fingerprint,
};

const pb_module_hooks pb_shuffle_cpu_outofplace_hooks = {
    .family = &pb_family_shuffle, .device = PB_DEVICE_CPU, .flags = PB_MOD_SEEDED,
    .footprint = pb_shuffle_footprint_outofplace, .prepare = pb_shuffle_prepare_outofplace,
    .result = pb_shuffle_result, .release = pb_shuffle_release, .refresh = pb_shuffle_refresh,
    .fingerprint = pb_shuffle_fingerprint,
};

const pb_module_hooks pb_shuffle_cpu_via_hooks = {
    .family = &pb_family_shuffle, .device = PB_DEVICE_CPU, .flags = PB_MOD_SEEDED,
    .footprint = pb_shuffle_footprint_outofplace, .result = pb_shuffle_result_via,
    .refresh = pb_shuffle_refresh_via, .fingerprint = pb_shuffle_fingerprint_via,
};

#include "families/tile/gpu_tile_state.cuh"
#include "families/tile/tile_family.h"
#include "families/tile/tile_hooks.h"

extern "C" const pb_module_hooks pb_tile_gpu_hooks = {
    .family = &pb_family_tile, .device = PB_DEVICE_GPU, .max_n = UINT32_MAX,
    .footprint = pb_gpu_tile_footprint,
    .result = pb_gpu_tile_result, .verify = pb_gpu_tile_verify, .release = pb_gpu_tile_release,
    .refresh = pb_gpu_tile_refresh, .fingerprint = pb_gpu_tile_fingerprint,
};

/* The tile family's hook set: GPU modules keep a pb_gpu_tile
 * (gpu_tile_state.cuh), whose footprint, result, check, refresh,
 * fingerprint and release are the family's; a module brings prepare (its
 * operation and set-up) and run. */
#ifndef PB_TILE_HOOKS_H
#define PB_TILE_HOOKS_H

#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_module_hooks pb_tile_gpu_hooks; /* gpu_tile_hooks.cu */

#ifdef __cplusplus
}
#endif

#endif

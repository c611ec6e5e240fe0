/* The multisplit family's hook set: GPU modules keep a pb_gpu_ms
 * (gpu_ms_state.cuh), whose result, check, refresh and release are the
 * family's; a module brings footprint, prepare and run. */
#ifndef PB_MS_HOOKS_H
#define PB_MS_HOOKS_H

#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_module_hooks pb_multisplit_gpu_hooks; /* gpu_ms_hooks.cu */

#ifdef __cplusplus
}
#endif

#endif

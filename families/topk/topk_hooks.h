/* The top-k family's hook sets: every module reports its work as the batch
 * of rows (pb_topk_work); GPU modules keep a pb_gpu_topk
 * (gpu_topk_state.cuh), whose result, check, refresh and release are the
 * family's, and bring footprint, prepare and run. */
#ifndef PB_TOPK_HOOKS_H
#define PB_TOPK_HOOKS_H

#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const pb_module_hooks pb_topk_cpu_hooks; /* topk_hooks.c */
extern const pb_module_hooks pb_topk_gpu_hooks; /* gpu_topk_hooks.cu */

#ifdef __cplusplus
}
#endif

#endif

/* The GPU multisplits' tuning: every size their kernels are built with, in
 * one place, as per-architecture policies in the shape of CUB's
 * tuning_*.cuh: PB_MS_<ARCH>_<NAME> for Hopper (900: measured on H100 and
 * H200, docs/measured.md), Ampere and Ada (800) and Turing (750), each
 * taking an older one's value unless it says otherwise, and
 * PB_MS_POLICY(NAME) the policy of the architecture the code is compiled
 * for (__CUDA_ARCH__; host code: see the check at the end). */
#ifndef PB_GPU_MS_TUNING_CUH
#define PB_GPU_MS_TUNING_CUH

#include "core/arch_policy.h"

/* ---- Hopper ---- */

/* DMS, WMS and BMS (gpu_ms_kernels.cuh, gpu_ms_split.cu): warps a block;
 * windows a warp for DMS and WMS (16: 512 keys); a BMS tile's keys a thread,
 * 16 for keys (4096 a tile) and 12 for pairs (3072: keys and values fit in
 * 48 KB of static shared memory). */
#define PB_MS_900_WARPS 8
#define PB_MS_900_WARP_ITEMS 16
#define PB_MS_900_BMS_ITEMS_KEYS 16
#define PB_MS_900_BMS_ITEMS_PAIRS 12
/* gpu-histogram (gpu_ms_histogram.cu): values a thread. */
#define PB_MS_900_HIST_ITEMS 16
/* onesweep-ms (gpu_os_kernels.cuh, gpu_onesweep_ms.cu): the histogram
 * kernel's block, and each `tile`'s pass shape (pb_os_shape: block, items
 * a thread, blocks an SM, PERM). Keys at 384 x 28 beat CUB's sort, at
 * 384 x 20 matched it; 384 x 24 lies between; 512 x 24 at one block an
 * SM, and 256 x 16, 384 x 12, 512 x 12, were slower than 384 x 20. Pairs
 * at 384 x 28 take the PERM form (gpu_os_kernels.cuh): 3 x 43 KB of shared
 * memory would leave one block an SM. Pairs came just short of CUB at
 * every shape (384 x 23, 384 x 28, and 384 x 24, where the PERM kernels
 * spill no registers). `tile = cub` is CUB's sm90 onesweep tuning. */
#define PB_MS_900_OS_HBLOCK 512
#define PB_MS_900_OS_LARGE_KEYS 384, 28, 2
#define PB_MS_900_OS_CUB_KEYS 384, 20, 2
#define PB_MS_900_OS_LARGE_PAIRS 384, 28, 2, true
#define PB_MS_900_OS_CUB_PAIRS 384, 23, 2

/* ---- Ampere and Ada ---- */

/* Hopper's, not yet measured there (docs/architectures.md). The pass
 * shapes of onesweep-ms pairs ask for 108 KB of shared memory a block:
 * an A100 (sm_80) has 163 KB, an RTX 30/40, L4 or L40S (sm_86, sm_89)
 * 99 KB, where onesweep-ms says so at set-up. */
#define PB_MS_800_WARPS PB_MS_900_WARPS
#define PB_MS_800_WARP_ITEMS PB_MS_900_WARP_ITEMS
#define PB_MS_800_BMS_ITEMS_KEYS PB_MS_900_BMS_ITEMS_KEYS
#define PB_MS_800_BMS_ITEMS_PAIRS PB_MS_900_BMS_ITEMS_PAIRS
#define PB_MS_800_HIST_ITEMS PB_MS_900_HIST_ITEMS
#define PB_MS_800_OS_HBLOCK PB_MS_900_OS_HBLOCK
#define PB_MS_800_OS_LARGE_KEYS PB_MS_900_OS_LARGE_KEYS
#define PB_MS_800_OS_CUB_KEYS PB_MS_900_OS_CUB_KEYS
#define PB_MS_800_OS_LARGE_PAIRS PB_MS_900_OS_LARGE_PAIRS
#define PB_MS_800_OS_CUB_PAIRS PB_MS_900_OS_CUB_PAIRS

/* ---- Turing ---- */

/* Ampere's; its 64 KB of shared memory a block fits no onesweep-ms pairs
 * shape (set-up says so). */
#define PB_MS_750_WARPS PB_MS_800_WARPS
#define PB_MS_750_WARP_ITEMS PB_MS_800_WARP_ITEMS
#define PB_MS_750_BMS_ITEMS_KEYS PB_MS_800_BMS_ITEMS_KEYS
#define PB_MS_750_BMS_ITEMS_PAIRS PB_MS_800_BMS_ITEMS_PAIRS
#define PB_MS_750_HIST_ITEMS PB_MS_800_HIST_ITEMS
#define PB_MS_750_OS_HBLOCK PB_MS_800_OS_HBLOCK
#define PB_MS_750_OS_LARGE_KEYS PB_MS_800_OS_LARGE_KEYS
#define PB_MS_750_OS_CUB_KEYS PB_MS_800_OS_CUB_KEYS
#define PB_MS_750_OS_LARGE_PAIRS PB_MS_800_OS_LARGE_PAIRS
#define PB_MS_750_OS_CUB_PAIRS PB_MS_800_OS_CUB_PAIRS

/* ---- the policy of the code being compiled ---- */

#define PB_MS_POLICY(name) PB_ARCH_POLICY(PB_MS, name)

/* Every value here sizes a launch or a tile the host computes, so host
 * code (compiled once) must see the policy its kernels were compiled with:
 * today the policies agree, which this checks. A policy that differs needs
 * the module's set-up to choose its launch by the PTX version the kernels
 * run (pb_gpu_code_of), as CUB's dispatch does. */
#define PB_MS_SAME_POLICY(a, b)                                                                    \
    (PB_MS_##a##_WARPS == PB_MS_##b##_WARPS && PB_MS_##a##_WARP_ITEMS == PB_MS_##b##_WARP_ITEMS && \
     PB_MS_##a##_BMS_ITEMS_KEYS == PB_MS_##b##_BMS_ITEMS_KEYS &&                                   \
     PB_MS_##a##_BMS_ITEMS_PAIRS == PB_MS_##b##_BMS_ITEMS_PAIRS &&                                 \
     PB_MS_##a##_HIST_ITEMS == PB_MS_##b##_HIST_ITEMS && PB_MS_##a##_OS_HBLOCK == PB_MS_##b##_OS_HBLOCK)
#if !PB_MS_SAME_POLICY(900, 800) || !PB_MS_SAME_POLICY(900, 750)
#error "the multisplits' policies differ: their host code must dispatch on the code's PTX version first"
#endif

#endif

/* The cluster path as radik.cu sees it: the kernels live in
 * radik_cluster.cu alone, so that the one source whose code needs sm_90
 * (thread-block clusters, distributed shared memory) is small, and is the
 * only one compiled differently below it (an empty shell there). */
#ifndef PB_RADIK_CLUSTER_KERNEL_CUH
#define PB_RADIK_CLUSTER_KERNEL_CUH

#include <stddef.h>
#include <stdint.h>

#include "algorithms/topk/radik/radik_args.cuh"

/* The kernel's dynamic shared memory: PB_RADIK_CL_CAP candidates, an index
 * and a raw 16-bit value each. */
#define PB_RADIK_CL_DYN_SMEM ((size_t)PB_RADIK_CL_CAP * 6)

typedef void (*pb_radik_cluster_fn)(pb_radik_args<uint32_t>, uint64_t, uint32_t, int);

/* The kernel for a 16-bit dtype (PB_TOPK_F16, PB_TOPK_BF16) and direction. */
pb_radik_cluster_fn pb_radik_cluster_kernel(int dtype, bool largest);

/* Whether the cluster kernel runs on the current device: compute
 * capability 9.0 or later, and the binary's code for it compiled for 9.0
 * or later (a build that reaches this device through older PTX holds only
 * the empty shell); false with the reason. */
bool pb_radik_cluster_runs(char *why, size_t whylen);

#endif

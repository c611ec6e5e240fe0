/* The cluster path as radik.cu sees it: the kernels live in
 * radik_cluster.cu alone, so that the one source whose code needs sm_90
 * (thread-block clusters, distributed shared memory) is small, and is the
 * only one compiled differently below it (an empty shell there). */
#ifndef PB_RADIK_CLUSTER_KERNEL_CUH
#define PB_RADIK_CLUSTER_KERNEL_CUH

#include <stddef.h>
#include <stdint.h>

#include "algorithms/topk/radik/radik_args.cuh"

/* The 16-bit kernel's dynamic shared memory: PB_RADIK_CL_CAP candidates,
 * an index and a raw 16-bit value each. */
#define PB_RADIK_CL_DYN_SMEM ((size_t)PB_RADIK_CL_CAP * 6)

template <class K> using pb_radik_cluster_fn_t = void (*)(pb_radik_args<K>, uint64_t, uint32_t, int);
typedef pb_radik_cluster_fn_t<uint32_t> pb_radik_cluster_fn;

/* The kernel for a dtype of at most 32 bits (fp16, bf16: radik_cluster.cuh;
 * fp32, u32, i32: radik_cluster_w.cuh) and direction; for a 64-bit one
 * (fp64, u64: radik_cluster_w.cuh). */
pb_radik_cluster_fn pb_radik_cluster_kernel(int dtype, bool largest);
pb_radik_cluster_fn_t<uint64_t> pb_radik_cluster_kernel64(int dtype, bool largest);
/* The same at k = 1 (radik_best.cuh): the arguments are the cluster
 * kernels', the launch theirs. */
pb_radik_cluster_fn pb_radik_best_kernel(int dtype, bool largest);
pb_radik_cluster_fn_t<uint64_t> pb_radik_best_kernel64(int dtype, bool largest);

/* The dynamic shared memory of a dtype's kernel: its candidates. */
size_t pb_radik_cluster_smem(int dtype);

/* Whether the cluster kernel runs on the current device: compute
 * capability 9.0 or later, and the binary's code for it compiled for 9.0
 * or later (a build that reaches this device through older PTX holds only
 * the empty shell); false with the reason. */
bool pb_radik_cluster_runs(char *why, size_t whylen);

#endif

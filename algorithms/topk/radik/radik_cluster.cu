/* radik's cluster path (radik_cluster.cuh): its kernels, and whether they
 * run on this device. The only radik source whose code needs sm_90. */
#include "algorithms/topk/radik/radik_cluster.cuh"

#include "core/gpu.h"

pb_radik_cluster_fn pb_radik_cluster_kernel(int dtype, bool largest)
{
    if (dtype == PB_TOPK_F16)
        return largest ? pb_radik_cluster16<PB_TOPK_F16, 1> : pb_radik_cluster16<PB_TOPK_F16, 0>;
    return largest ? pb_radik_cluster16<PB_TOPK_BF16, 1> : pb_radik_cluster16<PB_TOPK_BF16, 0>;
}

bool pb_radik_cluster_runs(char *why, size_t whylen)
{
    /* Every instantiation is compiled for the same architectures: one
     * answers for all four. */
    return pb_gpu_code_at_least((const void *)pb_radik_cluster16<PB_TOPK_F16, 1>, 90, why, whylen);
}

/* radik's cluster path at k = 1 (radik_best.cuh): its kernels' table.
 * Code for sm_90 and later, an empty shell below (pb_radik_cluster_runs,
 * radik_cluster.cu, says where it runs). */
#include "algorithms/topk/radik/radik_best.cuh"

#include "algorithms/topk/radik/radik_cluster_kernel.cuh"

namespace {

template <class K, int DT> pb_radik_cluster_fn_t<K> best_kernel(bool largest)
{
    return largest ? pb_radik_best<K, DT, 1> : pb_radik_best<K, DT, 0>;
}

} // namespace

pb_radik_cluster_fn pb_radik_best_kernel(int dtype, bool largest)
{
    switch (dtype) {
    case PB_TOPK_F16: return best_kernel<uint32_t, PB_TOPK_F16>(largest);
    case PB_TOPK_BF16: return best_kernel<uint32_t, PB_TOPK_BF16>(largest);
    case PB_TOPK_U32: return best_kernel<uint32_t, PB_TOPK_U32>(largest);
    case PB_TOPK_I32: return best_kernel<uint32_t, PB_TOPK_I32>(largest);
    default: return best_kernel<uint32_t, PB_TOPK_F32>(largest);
    }
}

pb_radik_cluster_fn_t<uint64_t> pb_radik_best_kernel64(int dtype, bool largest)
{
    return dtype == PB_TOPK_U64 ? best_kernel<uint64_t, PB_TOPK_U64>(largest)
                                : best_kernel<uint64_t, PB_TOPK_F64>(largest);
}

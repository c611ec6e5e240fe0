/* radik's cluster path (radik_cluster.cuh for 16-bit keys,
 * radik_cluster_w.cuh for 32- and 64-bit ones): its kernels, and whether
 * they run on this device. With radik_best.cu (k = 1), the only radik
 * sources whose code needs sm_90. */
#include "algorithms/topk/radik/radik_cluster.cuh"
#include "algorithms/topk/radik/radik_cluster_w.cuh"

#include "core/gpu.h"

namespace {

template <class K, int DT> pb_radik_cluster_fn_t<K> word_kernel(bool largest)
{
    return largest ? pb_radik_cluster_w<K, DT, 1> : pb_radik_cluster_w<K, DT, 0>;
}

} // namespace

pb_radik_cluster_fn pb_radik_cluster_kernel(int dtype, bool largest)
{
    switch (dtype) {
    case PB_TOPK_F16:
        return largest ? pb_radik_cluster16<PB_TOPK_F16, 1> : pb_radik_cluster16<PB_TOPK_F16, 0>;
    case PB_TOPK_BF16:
        return largest ? pb_radik_cluster16<PB_TOPK_BF16, 1> : pb_radik_cluster16<PB_TOPK_BF16, 0>;
    case PB_TOPK_U32: return word_kernel<uint32_t, PB_TOPK_U32>(largest);
    case PB_TOPK_I32: return word_kernel<uint32_t, PB_TOPK_I32>(largest);
    default: return word_kernel<uint32_t, PB_TOPK_F32>(largest);
    }
}

pb_radik_cluster_fn_t<uint64_t> pb_radik_cluster_kernel64(int dtype, bool largest)
{
    return dtype == PB_TOPK_U64 ? word_kernel<uint64_t, PB_TOPK_U64>(largest)
                                : word_kernel<uint64_t, PB_TOPK_F64>(largest);
}

size_t pb_radik_cluster_smem(int dtype)
{
    if (pb_topk_dtype_is16(dtype)) return PB_RADIK_CL_DYN_SMEM;
    return pb_topk_dtype_is64(dtype) ? PB_RADIK_CLW_DYN_SMEM(uint64_t)
                                     : PB_RADIK_CLW_DYN_SMEM(uint32_t);
}

bool pb_radik_cluster_runs(char *why, size_t whylen)
{
    /* Every instantiation is compiled for the same architectures: one
     * answers for all. */
    return pb_gpu_code_at_least((const void *)pb_radik_cluster16<PB_TOPK_F16, 1>, 90, why, whylen);
}

/* The GPU bijective shuffle (Mitchell et al. 2024, section 6) at its three
 * fusion levels, one module each over the kernels of gpu_bijective.cuh,
 * differing only in the level they pass, their footprint and the module
 * they are checked against bit for bit:
 *   bijective0  separate passes: evaluate the bijection over the padded
 *               domain, compact with CUB DeviceSelect, gather;
 *   bijective1  bijection, compaction and gather fused into a two-pass scan
 *               (per-tile counts, a scan of them, then scan and gather);
 *   bijective2  bijection, compaction and gather fused into one pass with
 *               decoupled look-back: one global read and one write per item.
 * Records: a thread group a record in the gather (gpu_bijective.cuh). */
#include "algorithms/shuffle/bijective/gpu_bijective.cuh"
#include "families/shuffle/shuffle_hooks.h"

#define PB_BIJECTIVE(k, ref, text)                                                                 \
    static int prepare##k(const pb_point *pt, void **state, pb_err *err)                           \
    {                                                                                              \
        return pb_bijective_prepare(PB_BIJECTIVE##k, pt, state, err);                              \
    }                                                                                              \
    PB_SHUFFLE_MODULE(bijective##k, "gpu-bijective" #k, pb_shuffle_gpu_via_hooks,                  \
        pb_bijective_sample_perms, .summary = text, PB_PARAMS(pb_bijective_params),                \
        .footprint = pb_bijective_footprint##k, .prepare = prepare##k, .run = pb_bijective_run,    \
        .release = pb_bijective_release, .reference = ref)

PB_BIJECTIVE(0, "gpu-bijective1", "bijective shuffle, separate passes (evaluate, CUB compaction, gather)");
PB_BIJECTIVE(1, "gpu-bijective0", "bijective shuffle fused into a two-pass scan");
PB_BIJECTIVE(2, "gpu-bijective0", "bijective shuffle fused into one pass with decoupled look-back");

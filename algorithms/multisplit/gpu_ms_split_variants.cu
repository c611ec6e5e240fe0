/* The paper's three multisplits (Ashkiani et al. 2017), one module each over
 * the stages of gpu_ms_split.cu, differing only in the variant they pass:
 *   dms  Direct (Section 5.4-5.5): warp-level ballot histograms and offsets,
 *        CUB's scan over the m x warps matrix, every key written straight to
 *        its final place. m <= 32.
 *   wms  Warp-level (Section 5.6.1): as dms, with each warp's keys reordered
 *        by bucket in shared memory before the write. m <= 32.
 *   bms  Block-level (Section 5.6.2): block tiles ranked per warp, combined
 *        across warps and reordered over the whole tile; global bases from
 *        CUB's scan over the m x tiles matrix (the paper's and the default,
 *        measured faster) or a decoupled look-back (scan = lookback).
 *        m <= 256.
 * A fourth variant is one more PB_MS_SPLIT_VARIANT line (and its stages). */
#include "algorithms/multisplit/gpu_ms_split.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec warp_params[] = {
    PB_MS_COMMON_PARAMS,
    PB_MS_SPLIT_STAGE_PARAM,
    PB_MS_SPLIT_COUNT_PARAM,
};

const pb_param_spec block_params[] = {
    PB_MS_COMMON_PARAMS,
    PB_MS_SPLIT_STAGE_PARAM,
    PB_MS_SPLIT_COUNT_PARAM,
    PB_MS_SPLIT_SCAN_PARAM,
};

} // namespace

/* One variant: prepare and footprint pass its pb_ms_variant; the result,
 * check, refresh and release are the family's set. */
#define PB_MS_SPLIT_VARIANT(id, variant, specs, text)                                              \
    static int prepare_##id(const pb_point *pt, void **state, pb_err *err)                         \
    {                                                                                              \
        return pb_ms_split_prepare(variant, pt, state, err);                                       \
    }                                                                                              \
    static uint64_t footprint_##id(const pb_point *pt) { return pb_ms_split_footprint(variant, pt); } \
    PB_MODULE_DEF(id, "gpu-" #id, pb_multisplit_gpu_hooks, .summary = text, PB_PARAMS(specs),      \
        .footprint = footprint_##id, .prepare = prepare_##id, .run = pb_ms_split_run)

PB_MS_SPLIT_VARIANT(dms, PB_MS_DMS, warp_params,
                    "Direct multisplit (Ashkiani et al. 2017): warp-level ballot histograms, CUB "
                    "scan over the m x warps matrix, each key written straight to its place; m <= 32");
PB_MS_SPLIT_VARIANT(wms, PB_MS_WMS, warp_params,
                    "Warp-level multisplit: as gpu-dms, keys reordered by bucket within each warp in "
                    "shared memory before the write; m <= 32");
PB_MS_SPLIT_VARIANT(bms, PB_MS_BMS, block_params,
                    "Block-level multisplit: block tiles ranked by warps, reordered over the whole "
                    "tile, bases by the matrix scan (or a decoupled look-back); m <= 256");

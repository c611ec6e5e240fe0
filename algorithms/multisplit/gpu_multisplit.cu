/* multisplit: the stable multisplit to call when you just want one. It is
 * bms with the matrix scan and lane counters. The paper found dms and wms
 * faster for few buckets; with the lane-counting prescan and the
 * branch-free full-tile postscan, bms is as fast or faster at every m
 * measured (docs/measured.md). dms and wms remain as modules for the
 * paper's tables. */
#include "algorithms/multisplit/gpu_ms_split.cuh"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_hooks.h"

namespace {

const pb_param_spec params[] = {PB_MS_COMMON_PARAMS};

/* The point as bms sees it: our parameters, then each of bms's own at its
 * first (fastest) choice: stage = all, count = lanes, scan = matrix. */
pb_point as_bms(const pb_point *pt, pb_params *p)
{
    *p = *pt->params;
    p->v[PB_MS_SPLIT_P_STAGE] = 0;
    p->v[PB_MS_SPLIT_P_COUNT] = 0;
    p->v[PB_MS_SPLIT_P_SCAN] = 0;
    pb_point q = *pt;
    q.params = p;
    return q;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    pb_params p;
    pb_point q = as_bms(pt, &p);
    return pb_ms_split_prepare(PB_MS_BMS, &q, state, err);
}

uint64_t footprint(const pb_point *pt)
{
    pb_params p;
    pb_point q = as_bms(pt, &p);
    return pb_ms_split_footprint(PB_MS_BMS, &q);
}

} // namespace

PB_MODULE_DEF(multisplit, "gpu-multisplit", pb_multisplit_gpu_hooks,
    .summary = "stable multisplit, m <= 256: gpu-bms with its fastest settings (measured on an H200)",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = pb_ms_split_run);

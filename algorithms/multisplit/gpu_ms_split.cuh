/* The driver shared by the dms, wms and bms modules: one descriptor each,
 * the stages here. */
#ifndef PB_GPU_MS_SPLIT_CUH
#define PB_GPU_MS_SPLIT_CUH

#include "families/multisplit/gpu_ms_state.cuh"

typedef enum pb_ms_variant { PB_MS_DMS, PB_MS_WMS, PB_MS_BMS } pb_ms_variant;

/* Module parameters after the common ones: dms and wms declare stage and
 * count, bms all three, at these indices. */
enum {
    PB_MS_SPLIT_P_STAGE = PB_MS_NCOMMON,
    PB_MS_SPLIT_P_COUNT,
    PB_MS_SPLIT_P_SCAN,
};
#define PB_MS_SPLIT_STAGE_PARAM                                                                    \
    {"stage", PB_PARAM_ENUM, 0, 0, 0, "all|prescan|scan|postscan",                                \
     "the stage run() times (Table 4); the others run untimed in prepare"}
#define PB_MS_SPLIT_SCAN_PARAM                                                                     \
    {"scan", PB_PARAM_ENUM, 0, 0, 0, "matrix|lookback",                                           \
     "global offsets: CUB's scan over the m x tiles matrix (the paper's; measured faster), "       \
     "or a decoupled look-back over the tiles"}
#define PB_MS_SPLIT_COUNT_PARAM                                                                    \
    {"count", PB_PARAM_ENUM, 0, 0, 0, "lanes|ballots",                                             \
     "prescan histograms for m <= 32: 8-bit counters per lane summed by redux.sync, or the "      \
     "paper's warp ballots per bucket-id bit (m > 32 always uses ballots)"}

int pb_ms_split_prepare(pb_ms_variant v, const pb_point *pt, void **state, pb_err *err);
int pb_ms_split_run(void *state, uint64_t sample, pb_err *err);
uint64_t pb_ms_split_footprint(pb_ms_variant v, const pb_point *pt);

/* For other modules built from BMS passes (multisplit sort): one stable
 * block-level multisplit (matrix scan) of keys (and values) from `in` to
 * `out` with `fn`, using scratch from pb_ms_bms_scratch_bytes. */
size_t pb_ms_bms_scratch_bytes(uint64_t n, uint32_t m, bool pairs);
int pb_ms_bms_pass(const uint32_t *keys, const uint32_t *vals, uint32_t *okeys, uint32_t *ovals,
                   uint64_t n, pb_bucket_fn fn, void *scratch, pb_err *err);

#endif

/* The distributed shuffle's split on one GPU, for tests (gpu_dist_shuffle.cu):
 * out = the len items of in (a slice starting at global index lo) ordered
 * stably by their destinations among `devices` (pb_dist_dest, dist_twin.h),
 * by the fused split or (use_cub) CUB's radix sort of stored keys, as
 * dist-shuffle's step 2 does; counts[d] the items bound for d; ms the time
 * of a second, identical split (CUDA events). in = NULL: a filler input;
 * out = NULL: nothing copied back (timing alone). CUDA builds only. */
#ifndef PB_GPU_DIST_SHUFFLE_H
#define PB_GPU_DIST_SHUFFLE_H

#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

int pb_dist_gpu_split(const void *in, void *out, uint64_t len, unsigned item_bytes, uint64_t lo, uint32_t devices,
                      uint64_t seed, uint64_t sample, int use_cub, uint64_t *counts, double *ms, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

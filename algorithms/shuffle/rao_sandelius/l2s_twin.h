/* The GPU Rao-Sandelius shuffle in the L2 order (docs/l2-shuffle.md), as a
 * C model of what gpu-l2-shuffle does, in its buffers: the first split
 * into the output, whole-array levels while the plan has more than one
 * (pb_grs_plan_levels), alternating between the output and A (the
 * module's scratch of n items), then the last level a group of segments
 * at a time (l2s_plan.h): each group split into a slot of the ring (at
 * position minus the group's start), its parts read from there and
 * finished into the output, as the GPU's segment kernel does; an overflow
 * group (one segment larger than a slot) split at its own positions into
 * whichever of the output and A is not the level's input, and finished
 * from there (in place when that is the output). A part's splits use A's
 * region of the part as their scratch, as the kernel's global path does.
 *
 * Every split and every Fisher-Yates is grs_twin.h's, with the same draws,
 * so the output equals pb_grs_twin_shuffle's bit for bit whatever the slot
 * size: the order, and which buffer holds a segment, change nothing (the
 * tests check it, and that no draw repeats). */
#ifndef PB_L2S_TWIN_H
#define PB_L2S_TWIN_H

#include <stdint.h>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"
#include "algorithms/shuffle/rao_sandelius/l2s_plan.h"
#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Positions are 32-bit words, as on the GPU. */
#define PB_L2S_MAX_ITEMS ((UINT64_C(1) << 32) - 1)

typedef struct pb_l2s_stats {
    pb_grs_stats grs;   /* the model's: buckets, splits, Fisher-Yates */
    unsigned levels;    /* levels after the first split, the last by groups */
    uint64_t groups;    /* groups of the last level */
    uint64_t overflows; /* of them, segments larger than a slot */
} pb_l2s_stats;

/* Shuffles n items of ib bytes from in to out (distinct buffers) with the
 * model's shape; `target` plans the levels as the GPU modules do, `slot`
 * is the items a slot of the ring holds (>= 1). 0, or -1 with err set.
 * trace and stats may be NULL. */
int pb_l2s_twin_shuffle(const void *in, void *out, uint64_t n, unsigned ib, const pb_grs_shape *shape,
                        uint64_t target, uint64_t slot, uint64_t seed, uint64_t sample, const pb_grs_trace *trace,
                        pb_l2s_stats *stats, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

/* The GPU tile kernels (algorithms/tile/) as simulator programs: every
 * shared-memory instruction a warp of the kernel issues is one step of a
 * 32-bank machine, with the addresses the kernel computes and the data it
 * moves. So the simulator predicts the kernels' shared-memory instructions
 * and bank conflicts (what Nsight Compute counts on the hardware), and the
 * models double as C twins: their outputs are checked against the
 * references, and the paper's partition, whose order within a label is its
 * own, is the twin its kernel is compared with bit for bit.
 *
 * Methods:
 *   scatter  rank the tile (warp ballots), store each item at its
 *            destination (partition: bucket start + rank; permute: its
 *            destination; sort: a 5-bit LSD radix sort, one such pass a
 *            digit): one store an item, as many ways as the banks collide;
 *   pad      scatter into a buffer with a word of padding every 32 (CUB's
 *            BlockExchange layout): destination d at d + d / 32;
 *   split    conflict-free for every input: one pass a key bit, zeros
 *            stored forward from the tile's start and ones backward from
 *            its end (dmm_tile.h); partition 6 passes, sort 32, permute
 *            log2(32 m);
 *   paper    the paper's algorithms with one warp a tile, lane = processor
 *            = bank: partition and sort by Theorem 1 (generalised, see
 *            dmm_sort.h) and a final row-major to column-major conversion;
 *            permute by the colouring rounds of Section 3 (dmm_permute.h);
 *   cub      CUB's BlockRadixSort / BlockExchange (GPU only: no model). */
#ifndef PB_DMM_TILE_MODEL_H
#define PB_DMM_TILE_MODEL_H

#include "core/err.h"
#include "dmm/dmm.h"
#include "dmm/dmm_tile_input.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_tile_method {
    PB_TILE_SCATTER,
    PB_TILE_PAD,
    PB_TILE_SPLIT,
    PB_TILE_PAPER,
    PB_TILE_CUB,
    PB_TILE_NMETHODS
} pb_tile_method;

#define PB_TILE_METHOD_CHOICES "scatter|pad|split|paper|cub"

const char *pb_tile_method_name(pb_tile_method m);
/* Sorting has no pad method (its passes are scatters of digits). */
bool pb_tile_method_applies(pb_tile_op op, pb_tile_method method);
/* Whether the simulator has a model of it (all but cub). */
bool pb_tile_method_modelled(pb_tile_method method);
/* Whether its output is the reference exactly: all but the paper's
 * partition, whose order within a label is its own (pb_tile_compare). */
static inline bool pb_tile_method_exact(pb_tile_op op, pb_tile_method method)
{
    return !(op == PB_TILE_PARTITION && method == PB_TILE_PAPER);
}

/* Runs the model of (op, method) on one tile: in -> out, adding its
 * shared-memory steps and conflicts to *st. For permute/paper, hash_seed
 * seeds the colouring (pb_tile_paper_seed) and *rounds receives its rounds
 * (may be NULL). Returns 0, or -1 with the reason. */
int pb_tile_model_tile(pb_tile_op op, pb_tile_method method, unsigned m, const uint32_t *in,
                       uint32_t *out, uint32_t hash_seed, pb_dmm_stats *st, unsigned *rounds,
                       pb_err *err);

typedef struct pb_tile_prediction {
    pb_dmm_stats st;      /* summed over the tiles */
    uint64_t tiles;
    unsigned max_rounds;  /* permute/paper */
    bool correct;         /* every tile's output equals the reference */
} pb_tile_prediction;

/* The model over tiles first .. first + tiles - 1 of a point's input. */
int pb_tile_predict(pb_tile_op op, pb_tile_method method, pb_tile_pattern pat, unsigned m,
                    uint64_t seed, uint64_t first, uint64_t tiles, pb_tile_prediction *pr,
                    pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

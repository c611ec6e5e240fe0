/* The GPU tile problems (dmm_tile.h's encoding): inputs by pattern and the
 * C reference of each operation. The tile family generates its inputs here
 * and checks against these references, and the simulator's models of the
 * tile kernels (dmm_tile_model.h) run on the very same tiles.
 *
 * Item i of a tile is line i / 32, lane (bank) i % 32. Label patterns:
 *   uniform  labels uniform over [0, 32);
 *   skewed   label b with probability 2^-(b+1) (half the items label 0);
 *   onebank  item (line j, lane l) has label l: every label m times, and a
 *            naive scatter sends a line's 32 items to one bank (label l's
 *            rank j item goes to l * m + j: bank j % 32, for every lane);
 *   strided  label l / 4: 8 labels, a naive scatter's stores 8-way.
 * partition: item = label << 27 | 27 random bits; sort: the same keys;
 * permute: item = destination << 19 | 19 random bits, the destination a
 * uniformly random permutation for uniform, otherwise the destination a
 * stable partition by the pattern's labels gives (onebank: the transpose).
 */
#ifndef PB_DMM_TILE_INPUT_H
#define PB_DMM_TILE_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_tile_op { PB_TILE_PARTITION, PB_TILE_SORT, PB_TILE_PERMUTE, PB_TILE_NOPS } pb_tile_op;

typedef enum pb_tile_pattern {
    PB_TILE_UNIFORM,
    PB_TILE_SKEWED,
    PB_TILE_ONEBANK,
    PB_TILE_STRIDED,
    PB_TILE_NPATTERNS
} pb_tile_pattern;

#define PB_TILE_PATTERN_CHOICES "uniform|skewed|onebank|strided"

const char *pb_tile_op_name(pb_tile_op op);
const char *pb_tile_pattern_name(pb_tile_pattern p);

/* m is a power of two in [32, 256]. */
static inline bool pb_tile_m_ok(unsigned m) { return m >= 32 && m <= 256 && !(m & (m - 1)); }

/* Tile `tile` (32 * m items) of the input of (op, pattern, seed). */
void pb_tile_gen(pb_tile_op op, pb_tile_pattern pat, unsigned m, uint64_t seed, uint64_t tile,
                 uint32_t *items);

/* The operation on one tile: partition, a stable grouping by label in
 * ascending order; sort, ascending; permute, out[dest(item)] = item. */
void pb_tile_reference(pb_tile_op op, unsigned m, const uint32_t *in, uint32_t *out);

/* Whether `out` is the answer for tile `in`: the reference exactly, or
 * (exact false, for the paper's partition, whose order within a label is
 * its own) the reference's label at every position and each label's items.
 * Returns -1 when right, else the first wrong position; -2 when out of
 * memory. */
long pb_tile_compare(pb_tile_op op, unsigned m, const uint32_t *in, const uint32_t *out,
                     bool exact);

#ifdef __cplusplus
}
#endif

#endif

/* Layout conversions and column sorts without bank conflicts.
 *
 * The paper's "convert row-major to column-major": inside every group of g
 * consecutive rows (banks), the g x nb block of columns [b*nb, (b+1)*nb)
 * holds a sequence in row-major order (element k at row k / nb, column
 * k % nb); afterwards in column-major order (row k % g, column k / g). With
 * g = nb it is the transposition of each g x g block. g and nb are powers of
 * two; either may be the larger (wide: g <= nb; tall: g >= nb).
 *
 * Two ways, both conflict-free:
 *  - diagonal (out of place, 2 nb steps a block): processor r moves its
 *    words in the order that rotates by r, so each step's stores land in g
 *    distinct banks of the group;
 *  - in place by Catanzaro, Keller and Garland's decomposition (PPoPP'14):
 *    a rotation inside every bank, a rotation inside every column (line),
 *    a permutation inside every bank (6 nb steps a block). A permutation
 *    inside a bank only touches that bank, one inside a line touches each
 *    bank once, so neither can conflict. For nb a multiple of g this is
 *    their C2R/R2C with gcd = g, where the pre-rotation vanishes. */
#ifndef PB_DMM_LAYOUT_H
#define PB_DMM_LAYOUT_H

#include "dmm/dmm_rowsort.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_dmm_conv { PB_DMM_R2C, PB_DMM_C2R } pb_dmm_conv;

/* Diagonal conversion of every g-row group's blocks of nb columns (n
 * columns in all), from a->cur into a->other, then swapped. */
void pb_dmm_convert(pb_dmm *d, pb_dmm_pair *a, size_t n, unsigned g, size_t nb, pb_dmm_conv dir);

/* The same in place in the array at `base`, by the three-phase
 * decomposition. Returns 0, or -1 when out of memory. */
int pb_dmm_convert_inplace(pb_dmm *d, size_t base, size_t n, unsigned g, size_t nb,
                           pb_dmm_conv dir);

/* Where (row r, column c) of a g x nb block goes: the conversion's map, for
 * tests and references. */
void pb_dmm_convert_map(unsigned g, size_t nb, pb_dmm_conv dir, unsigned r, size_t c, unsigned *r2,
                        size_t *c2);

/* Sorts every column of every group of h rows (h divides w), ascending
 * under the order, descending for the groups whose rows have desc set.
 * h <= n: by transposing h x h blocks, sorting row segments of h, and
 * transposing back. h > n: a bitonic network across the processors, column
 * by column (the paper's Theorem 2 uses Cole's EREW merge sort here, O(log
 * h) steps a column; bitonic takes O(log^2 h)). */
void pb_dmm_colsort(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, unsigned h,
                    const bool *desc);

#ifdef __cplusplus
}
#endif

#endif

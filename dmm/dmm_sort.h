/* The paper's sorting and partition algorithms (Section 2), built from
 * conflict-free row sorts (dmm_rowsort.h) and conversions (dmm_layout.h).
 * Each sorts groups of consecutive rows into row-major order (row by row,
 * each row left to right), ascending under the order, or descending for a
 * group whose rows have desc set. With a label order they solve the
 * partition problem (rows sorted by label only, a stable counting sort in
 * O(row) steps); with the word order they sort.
 *
 * Correctness rests on the 0-1 principle (the paper re-proves it: the
 * algorithms only ever compare, so an input sorts if every threshold of it
 * does). The tests check the outputs on every pattern, adversarial and
 * random. */
#ifndef PB_DMM_SORT_H
#define PB_DMM_SORT_H

#include "dmm/dmm_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lemma 1 on every group of g rows (g divides w, g * g <= n): twice {sort
 * rows alternating (even rows of the group ascending, odd descending);
 * row-major to column-major; sort rows ascending; back}; then sort rows.
 * O(n log n) steps with merge sorts, O(n) with counting sorts
 * (Corollary 1). */
void pb_dmm_lemma1(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, unsigned g,
                   const bool *desc);

/* Theorem 1 on every group of h rows (h divides w, h <= n; the paper's case
 * is h = w = n). Its super-rows have g rows: the largest power of two with
 * g * g <= n and g <= h (the paper's sqrt(m) when m is a square). Steps:
 * Lemma 1 on each super-row; R times {sort columns; Lemma 1 on super-rows
 * in alternating order}; sort columns; sort rows. The paper has R = 1,
 * which needs g * g >= h (the dirty rows left by the first column sort fit
 * in two super-rows); for a non-square size (w = n = 32: g = 4) more rounds
 * shrink them to two: pb_dmm_thm1_rounds. */
unsigned pb_dmm_thm1_superrow(unsigned h, size_t n);
unsigned pb_dmm_thm1_rounds(unsigned h, unsigned g);
void pb_dmm_thm1(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, unsigned h,
                 const bool *desc);

/* Theorem 2 on the whole w x n matrix, w >= n, n divides w: sort rows;
 * sort columns (bitonic across processors, see pb_dmm_colsort); convert
 * column-major to row-major; sort columns; Theorem 1 on each n x n
 * sub-matrix in alternating order; sort columns; sort rows. */
void pb_dmm_thm2(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n);

#ifdef __cplusplus
}
#endif

#endif

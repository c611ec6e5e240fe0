/* The share-of-one-read figure (plot kind `share-one-read`,
 * plots/share-one-read.gp): per shape — rows x n x dtype, from each
 * instance's `rows` and `dtype` parameters where it has them (1 row, and
 * the item width, where not) — the median time of every module and axis
 * value, and its share of one read at the copy's rate:
 *
 *   share = (bytes the row must read) / time / (copy GB/s)
 *         = pct_of_copy
 *
 * A copy of S bytes moves 2 S (S read, S written) in its time T, and its
 * GB/s counts both; one read of S at that rate takes T / 2, which is what
 * a kernel that only reads its input could approach. The copy is the one
 * the row's pct_of_copy is against: the same device's, in the same run, at
 * as many items as the row works on (a batch's rows x n). 100% is a row
 * that takes T / 2, half the copy of its input: the "share of one read"
 * docs/topk-radik.md quotes. Rows of the copies themselves, and rows not
 * ok, are left out. */
#ifndef PB_PLOT_SHARE_H
#define PB_PLOT_SHARE_H

#include <jansson.h>
#include <stddef.h>

#include "core/err.h"

/* Writes DIR/share-one-read.csv from the run's results.json document: one
 * block per line (module and axis value; gnuplot's `index`), each point
 * `shape index, median_ms, share %` (NaN where the row has no copy to
 * compare with), blocks two blank lines apart; and names, space-separated,
 * the shapes in x order (by rows, then n, then bytes read) and the lines
 * in the blocks' order. Refuses a run with no row to draw. */
int pb_plot_share_data(json_t *root, const char *dir, char *shapes, size_t shapes_len, char *lines,
                       size_t lines_len, pb_err *err);

#endif

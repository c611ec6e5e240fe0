/* The top-k family's contract check, and the C twin's answer it compares
 * against (kept in the problem once computed). */
#ifndef PB_TOPK_CHECK_H
#define PB_TOPK_CHECK_H

#include "families/topk/topk_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The C twin's answer, computed once (all threads) and kept in the problem. */
int pb_topk_twin_answer(pb_topk_problem *p, pb_err *err);

/* Puts every row of (vals, idx) in rank order, best key first, equal keys
 * by increasing index (sorted = yes; the twin's own order). vals: in the
 * dtype's words (pb_topk_word_bytes). c and tmp: scratch of out_total
 * candidates each (pb_topk_cand_bytes: 8 bytes, 16 for 64-bit dtypes).
 * Rows in parallel on `threads` (0: all) where they are many. */
void pb_topk_rank_rows(const pb_topk_problem *p, void *vals, uint32_t *idx, void *c, void *tmp,
                       int threads);

/* The family contract, for any module's output (vals, idx in the output
 * layout, vals in the dtype's words): for every row, each index is inside the row, no index
 * repeats, the value's key equals that of data at the index, and the sorted keys equal the twin's;
 * with `ties = lowest-index`, also the index set equals the twin's (the output order within a row
 * stays free). The error names the first failing row and its first problem. Computes the twin if it
 * was not yet. */
int pb_topk_check(pb_topk_problem *p, const void *vals, const uint32_t *idx, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

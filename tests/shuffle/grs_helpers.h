/* What the Rao-Sandelius model tests share (test_grs_model.c,
 * test_l2s_model.c): every draw of a shuffle listed through the model's
 * trace, sorted, checked for repeats and counted by tag; the chi-square
 * over all orders of 4 and 5 items; the model's known answer. */
#ifndef PB_TEST_GRS_HELPERS_H
#define PB_TEST_GRS_HELPERS_H

#include <stddef.h>
#include <stdint.h>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"

typedef struct grs_words {
    uint64_t *w; /* tag << 62 | w1 << 36 | p */
    size_t n, cap;
} grs_words;

/* A trace that lists every draw into *g (start it zeroed; free g->w). */
pb_grs_trace grs_words_trace(grs_words *g);

/* Sorts the list; 0 when no draw repeats, with the draws of each tag
 * counted (key labels, level labels, Fisher-Yates words); -1 at a repeat. */
int grs_words_tally(grs_words *g, size_t *keys, size_t *levels, size_t *fy);

/* One permutation of in[0, n) into out at `sample`: 0, or -1. */
typedef int (*grs_perm_fn)(const void *ctx, const uint32_t *in, uint32_t *out, unsigned n, uint64_t sample);

/* Every one of the 24 orders of 4 items, then of the 120 of 5, equally
 * often (chi-square, 250 draws a cell, samples 0, 1, ...): 0, else 1 with
 * the statistic under `what`. */
int grs_orders_uniform(const char *what, grs_perm_fn f, const void *ctx);

/* The model's known answer: 12 items, 4 buckets, 1-bit splits,
 * Fisher-Yates at 2 (shape {2, 1, 2}), seed 2026, sample 5. */
extern const uint32_t grs_known_answer[12];

#endif

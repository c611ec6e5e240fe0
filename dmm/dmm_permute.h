/* Sending items to their destinations: the naive way (each processor stores
 * its items straight where they go, one a step) for the partition and
 * permutation problems, and the paper's randomized permutation (Section 3,
 * its practical core: hashed colouring and communication rounds).
 *
 * Destinations are read from the words: dest = (word >> shift) & mask, a
 * row-major index (row dest / n, column dest % n: the paper's label (i, j))
 * or, with colmajor, a linear address (row dest % w, column dest / w: a GPU
 * tile's item index). Partition labels are dmm_rowsort.h's pb_dmm_order. */
#ifndef PB_DMM_PERMUTE_H
#define PB_DMM_PERMUTE_H

#include "dmm/dmm_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_dmm_dest {
    unsigned shift;
    uint64_t mask;
    bool colmajor;
} pb_dmm_dest;

static inline void pb_dmm_dest_of(const pb_dmm_dest *ds, unsigned w, size_t n, uint64_t word,
                                  unsigned *row, size_t *col)
{
    uint64_t k = (word >> ds->shift) & ds->mask;
    if (ds->colmajor) {
        *row = (unsigned)(k % w);
        *col = (size_t)(k / w);
    } else {
        *row = (unsigned)(k / n);
        *col = (size_t)(k % n);
    }
}

/* Naive partition: column by column, every processor loads its word and
 * stores it in the row of its label, at the next free column of that row
 * (the ranks are known beforehand, as the naive method assumes). Exactly n
 * words of each label. 2n steps; a step's stores conflict as many ways as
 * there are words of one label in the column. */
void pb_dmm_naive_partition(pb_dmm *d, const pb_dmm_order *o, size_t src, size_t dst, size_t n);

/* Naive permutation: the same with each word's own destination. */
void pb_dmm_naive_permute(pb_dmm *d, const pb_dmm_dest *ds, size_t src, size_t dst, size_t n);

/* The paper's permutation (Section 3). Optional preprocessing (n divides w):
 * every row rotated by a random amount, then every n x n group of rows
 * transposed. Then rounds until every word is delivered: a random hash h of
 * the destination rows into [n] colours word (i, j) with (j - h(i)) mod n;
 * each processor files its pending words in a slot per colour (the first
 * word of a colour wins the slot, the others wait for a later round); in
 * communication step k each processor sends the word in its slot k to its
 * destination. Two words of one colour bound for one row would have the
 * same column, i.e. be the same word, so each step is conflict-free.
 * Arrays: a (the input and a scratch of its shape), slot (n lines), out.
 * count_sync adds the paper's synchronisation (a tree sum of the words
 * left, 2 log2 w + 2 steps a round; a GPU warp votes instead), which needs
 * one more line at sync_line. Returns the rounds. After max_rounds, with
 * fallback the words left are stored straight to their destinations (one
 * more round, conflicts possible; the GPU kernel does the same), without it
 * the call gives up and returns 0. */
typedef struct pb_dmm_colors {
    uint64_t seed;
    bool preprocess;
    bool count_sync;
    size_t sync_line;
    unsigned max_rounds;
    bool fallback;
} pb_dmm_colors;

unsigned pb_dmm_permute_colors(pb_dmm *d, const pb_dmm_dest *ds, pb_dmm_pair *a, size_t slot,
                               size_t out, size_t n, const pb_dmm_colors *cfg);

#ifdef __cplusplus
}
#endif

#endif

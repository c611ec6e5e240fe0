/* Sorting every processor's own row (bank) at once: the paper's "sort rows"
 * step. A processor only touches its own bank, so these steps are free of
 * conflicts by construction; they are simulated word by word anyway, so
 * their steps are counted as a GPU lane running the same loop would issue
 * them (the tile kernels do exactly this).
 *
 * Two orders: whole words (sorting: a bottom-up merge sort, O(len log len)
 * steps a segment) or a label field (partition: the paper's radix sort of a
 * row, a stable counting sort by label, O(len + labels) steps a segment, its
 * counters in the processor's own bank). */
#ifndef PB_DMM_ROWSORT_H
#define PB_DMM_ROWSORT_H

#include "dmm/dmm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_dmm_order {
    bool by_label;    /* partition: order by label only (stable counting sort) */
    unsigned shift;   /* label = (word >> shift) % nlabels */
    unsigned nlabels;
    size_t cnt;       /* base line of nlabels lines of counters (by_label only) */
} pb_dmm_order;

static inline unsigned pb_dmm_label(const pb_dmm_order *o, uint64_t word)
{
    return (unsigned)((word >> o->shift) % o->nlabels);
}

/* word a before word b in the order, descending when desc (ties: false). */
static inline bool pb_dmm_before(const pb_dmm_order *o, uint64_t a, uint64_t b, bool desc)
{
    if (o->by_label) {
        unsigned la = pb_dmm_label(o, a), lb = pb_dmm_label(o, b);
        return desc ? la > lb : la < lb;
    }
    return desc ? a > b : a < b;
}

/* Two arrays of the same shape (w x n): the one holding the data (*cur) and
 * a scratch one (*other). Operations that move data from one to the other
 * swap them, so *cur always names the data. */
typedef struct pb_dmm_pair {
    size_t cur, other;
} pb_dmm_pair;

static inline void pb_dmm_swap(pb_dmm_pair *a)
{
    size_t t = a->cur;
    a->cur = a->other;
    a->other = t;
}

/* Every processor p sorts each segment [s, s + len) of its row (columns
 * 0..n-1, len divides n), descending when desc[p]. */
void pb_dmm_rowsort(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, size_t len,
                    const bool *desc);

#ifdef __cplusplus
}
#endif

#endif

/* The shuffle family's record widths, read from its item table, so a new
 * rec* kind is tested (on the host and on a GPU) without an edit in the
 * tests. */
#ifndef PB_TESTS_RECORD_WIDTHS_H
#define PB_TESTS_RECORD_WIDTHS_H

#include <stddef.h>

#include "families/shuffle/shuffle_family.h"

/* Writes at most `most` widths (bytes) to w; returns how many. */
static inline size_t record_widths(unsigned *w, size_t most)
{
    size_t k = 0;
    for (size_t i = 0; i < pb_family_shuffle.nitems && k < most; i++)
        if (pb_family_shuffle.items[i].cls == PB_ITEM_RECORD) w[k++] = pb_family_shuffle.items[i].bytes;
    return k;
}

#endif

/* The Fisher-Yates leaf every CPU shuffle ends in, written once: the
 * sequential shuffle itself, Rao-Sandelius's leaves and MergeShuffle's
 * blocks. Durstenfeld's in-place form swaps position i - 1 with a uniform
 * j in [0, i); the inside-out form builds a shuffle of src in out. Both draw
 * j by Lemire's unbiased method (core/rng.h), so a given stream gives one
 * permutation whoever calls them, whatever the items' width. */
#ifndef PB_SHUFFLE_LEAF_H
#define PB_SHUFFLE_LEAF_H

#include <stdint.h>
#include <string.h>

#include "core/rng.h"

#define PB_SHUFFLE_LEAF(T, SUFFIX)                                                                 \
    static inline void pb_fisher_yates_##SUFFIX(T *a, uint64_t n, pb_rng *r)                       \
    {                                                                                              \
        for (uint64_t i = n; i > 1; i--) {                                                         \
            uint64_t j = pb_rng_below64(r, i);                                                     \
            T t = a[i - 1];                                                                        \
            a[i - 1] = a[j];                                                                       \
            a[j] = t;                                                                              \
        }                                                                                          \
    }                                                                                              \
    static inline void pb_fisher_yates_inside_out_##SUFFIX(const T *__restrict src,               \
                                                           T *__restrict out, uint64_t n,          \
                                                           pb_rng *r)                              \
    {                                                                                              \
        if (n) out[0] = src[0];                                                                    \
        for (uint64_t i = 1; i < n; i++) {                                                         \
            uint64_t j = pb_rng_below64(r, i + 1);                                                 \
            out[i] = out[j];                                                                       \
            out[j] = src[i];                                                                       \
        }                                                                                          \
    }
PB_SHUFFLE_LEAF(uint32_t, u32)
PB_SHUFFLE_LEAF(uint64_t, u64)
#undef PB_SHUFFLE_LEAF

/* Records of R bytes (a multiple of 8): the same draws, each swap moving
 * the R bytes of both records through a small buffer, so a record's bytes
 * travel together and the permutation is the one pb_fisher_yates_u64 makes
 * of the same stream. Inlined with a constant R by pb_fisher_yates, so the
 * copies are straight loads and stores. */
/* Swaps the rec bytes at x and y (x != y) through a small buffer, in
 * pieces of its size: straight loads and stores when rec is a constant. */
static inline void pb_swap_bytes(unsigned char *x, unsigned char *y, size_t rec)
{
    unsigned char t[256];
    for (size_t o = 0; o < rec; o += sizeof t) {
        size_t c = rec - o < sizeof t ? rec - o : sizeof t;
        memcpy(t, x + o, c);
        memcpy(x + o, y + o, c);
        memcpy(y + o, t, c);
    }
}

static inline void pb_fisher_yates_rec(unsigned char *a, uint64_t n, size_t rec, pb_rng *r)
{
    for (uint64_t i = n; i > 1; i--) {
        uint64_t j = pb_rng_below64(r, i);
        unsigned char *x = a + (i - 1) * rec, *y = a + j * rec;
        if (x != y) pb_swap_bytes(x, y, rec);
    }
}

/* Any width, by the item's size in bytes (4 or 8, or a record's R). */
static inline void pb_fisher_yates(void *a, uint64_t n, unsigned item_bytes, pb_rng *r)
{
    switch (item_bytes) {
    case 4: pb_fisher_yates_u32((uint32_t *)a, n, r); break;
    case 8: pb_fisher_yates_u64((uint64_t *)a, n, r); break;
    case 16: pb_fisher_yates_rec((unsigned char *)a, n, 16, r); break;
    case 64: pb_fisher_yates_rec((unsigned char *)a, n, 64, r); break;
    case 256: pb_fisher_yates_rec((unsigned char *)a, n, 256, r); break;
    default: pb_fisher_yates_rec((unsigned char *)a, n, item_bytes, r); break;
    }
}

#endif

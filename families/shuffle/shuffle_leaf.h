/* The Fisher-Yates leaf every CPU shuffle ends in, written once: the
 * sequential shuffle itself, Rao-Sandelius's leaves and MergeShuffle's
 * blocks. Durstenfeld's in-place form swaps position i - 1 with a uniform
 * j in [0, i); the inside-out form builds a shuffle of src in out. Both draw
 * j by Lemire's unbiased method (core/rng.h), so a given stream gives one
 * permutation whoever calls them. */
#ifndef PB_SHUFFLE_LEAF_H
#define PB_SHUFFLE_LEAF_H

#include <stdint.h>

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

/* Either width, by the item's size in bytes (4 or 8). */
static inline void pb_fisher_yates(void *a, uint64_t n, unsigned item_bytes, pb_rng *r)
{
    if (item_bytes == 4) pb_fisher_yates_u32((uint32_t *)a, n, r);
    else pb_fisher_yates_u64((uint64_t *)a, n, r);
}

#endif

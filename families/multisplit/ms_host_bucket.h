/* Bucket ids on the host, fast: range buckets by a branchless search and a
 * slice table (the CPU modules and the twin find every key's bucket this
 * way), and the bucket kinds' names. */
#ifndef PB_MS_HOST_BUCKET_H
#define PB_MS_HOST_BUCKET_H

#include <stdint.h>

#include "families/multisplit/ms_bucket.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Range buckets on the host: upper_bound over the m - 1 splitters, like
 * pb_bucket_range_search, but with the comparison feeding a conditional
 * move rather than a branch. Random keys make that branch a coin flip, and
 * its mispredictions made range splits on the CPU 5-10x slower than delta
 * ones. The same answer for every key (tests compare both with a linear
 * count). */
static inline uint32_t pb_ms_range_search_host(const uint32_t *s, uint32_t m, uint32_t key)
{
    uint32_t lo = 0, len = m - 1; /* the answer lies in [lo, lo + len] */
    while (len > 1) {
        uint32_t half = len >> 1;
        /* A mask, not a ternary: GCC turned the ternary back into a branch. */
        lo += half & (0u - (uint32_t)(s[lo + half - 1] <= key));
        len -= half;
    }
    return lo + (s[lo] <= key);
}

/* Range buckets through a table over the key's top PB_MS_RT_BITS bits: for
 * each slice of the key space, the buckets of its first and its last key.
 * Most slices hold no splitter (at most 255 splitters over 4096 slices), so
 * most keys take their bucket from one load in L1; the others search only
 * among the splitters of their slice. The slice bounds pin the answer:
 * splitters below the slice's first bucket are <= every key of the slice,
 * those from its last bucket on are above all of them. */
#define PB_MS_RT_BITS 12
typedef struct pb_ms_range_table {
    uint8_t lo[1u << PB_MS_RT_BITS], hi[1u << PB_MS_RT_BITS]; /* buckets < 256 */
} pb_ms_range_table;

/* Inputs this large use the table (building it costs 8192 searches). */
#define PB_MS_RT_MIN (UINT64_C(1) << 12)

void pb_ms_range_table_build(const pb_bucket_fn *f, pb_ms_range_table *t);

static inline uint32_t pb_ms_range_table_bucket(const pb_ms_range_table *t, const uint32_t *s,
                                                uint32_t key)
{
    uint32_t slice = key >> (32 - PB_MS_RT_BITS), lo = t->lo[slice], hi = t->hi[slice];
    if (lo == hi) return lo;
    return lo + pb_ms_range_search_host(s + lo, hi - lo + 1, key);
}

/* pb_bucket_of on the host: range buckets by the table when there is one
 * (else the branchless search), the others by pb_bucket_of itself. */
static inline uint32_t pb_ms_bucket_host(pb_bucket_fn f, const pb_ms_range_table *rt, uint32_t key)
{
    if (f.kind == PB_BUCKET_RANGE)
        return rt ? pb_ms_range_table_bucket(rt, f.splitters, key)
                  : pb_ms_range_search_host(f.splitters, f.m, key);
    return pb_bucket_of(f, key);
}

/* "delta", "identity", "radix", "range". */
const char *pb_ms_kind_name(pb_bucket_kind kind);

#ifdef __cplusplus
}
#endif

#endif

/* The shuffle family's contract: the input every shuffle module starts from,
 * and the check that an output is a permutation of it. */
#ifndef PB_SHUFFLE_ITEMS_H
#define PB_SHUFFLE_ITEMS_H

#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define PB_HD __host__ __device__
#else
#define PB_HD
#endif

/* Item i of the input. Items are distinct, and not equal to their index, so
 * a module that writes indices, or leaves the output untouched or zeroed,
 * fails the check; the encoding is a bijection (i -> i*K ^ X modulo 2^w, K
 * odd), so the check can map every output item back to its index. */
PB_HD static inline uint64_t pb_shuffle_item(uint64_t i, unsigned item_bytes)
{
    if (item_bytes == 4) return (uint32_t)((uint32_t)i * UINT32_C(0x9e3779b9)) ^ UINT32_C(0x4c957f2d);
    return (i * UINT64_C(0x9e3779b97f4a7c15)) ^ UINT64_C(0x5851f42d4c957f2d);
}
/* Multiplicative inverse of an odd number modulo 2^64 by Newton's
 * iteration, each step doubling the correct low bits (3 -> 6 -> ... -> 96). */
PB_HD static inline uint64_t pb_shuffle_inverse64(uint64_t k)
{
    uint64_t x = k;
    for (int i = 0; i < 5; i++) x *= 2 - k * x;
    return x;
}

/* The inverse: the input index an item came from (>= n if none). */
PB_HD static inline uint64_t pb_shuffle_item_index(uint64_t item, unsigned item_bytes)
{
    if (item_bytes == 4)
        return (uint32_t)(((uint32_t)item ^ UINT32_C(0x4c957f2d)) *
                          (uint32_t)pb_shuffle_inverse64(UINT32_C(0x9e3779b9)));
    return (item ^ UINT64_C(0x5851f42d4c957f2d)) * pb_shuffle_inverse64(UINT64_C(0x9e3779b97f4a7c15));
}

/* Records: items of R bytes (R a multiple of 8, above 8: the rec* kinds of
 * shuffle_family.c), R / 8 little 64-bit words. Word 0 of record i is the
 * 8-byte item i, so the check finds i from it; word k is that item XOR k
 * times an odd constant, so every word of a record names its record and
 * its place in it: a record whose tail (any byte of it) belongs to another
 * record, or whose words changed places, fails the check. */
#define PB_SHUFFLE_RECORD_MIN 16
PB_HD static inline uint64_t pb_shuffle_record_word(uint64_t i, uint64_t k)
{
    return pb_shuffle_item(i, 8) ^ (k * UINT64_C(0xd1b54a32d192ed03));
}
/* Whether item_bytes is a record's width (else a scalar's: 4 or 8). */
PB_HD static inline int pb_shuffle_is_record(unsigned item_bytes)
{
    return item_bytes >= PB_SHUFFLE_RECORD_MIN && item_bytes % 8 == 0;
}

/* Writes the n input items (4 or 8 bytes each, or records) on the host.
 * Parallel. */
void pb_shuffle_fill(void *buf, uint64_t n, unsigned item_bytes);

/* Whether out[0..n) holds every input item exactly once (every record
 * whole); the error names the first offending position. */
int pb_shuffle_check(const void *out, uint64_t n, unsigned item_bytes, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

/* Fingerprints of outputs: a 64-bit digest of an array that depends on every
 * value and on its position, so comparing two outputs costs one read of
 * each and no copy. It is the sum mod 2^64 of a mixed (index, value) word
 * per element: any order of summation gives it (threads, blocks, a GPU
 * reduction), host and device compute the same number, and an output that
 * differs from another in any element, or holds the same values in another
 * order, has a different fingerprint except with probability about 2^-64
 * for differences that do not depend on the mix. Not a cryptographic hash:
 * it guards against broken modules, not adversaries. */
#ifndef PB_FINGERPRINT_H
#define PB_FINGERPRINT_H

#include <stdint.h>

#include "core/hd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SplitMix64's finaliser: spreads related inputs apart. */
PB_HDI uint64_t pb_mix64(uint64_t x)
{
    x += UINT64_C(0x9e3779b97f4a7c15);
    x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

/* One element's term: its value (zero-extended) and its index. */
PB_HDI uint64_t pb_fp_term(uint64_t index, uint64_t value)
{
    return pb_mix64(value ^ pb_mix64(index));
}

/* The fingerprint of n items of item_bytes (1, 2, 4 or 8, or a record: a
 * multiple of 8 above 8) on the host (OpenMP). A record of R bytes counts
 * as its R / 8 64-bit words, each an element of its own (word k of record
 * i has index i * R / 8 + k), so every byte of a record is covered and
 * n records fingerprint as the n * R / 8 words they hold; the values of 1-
 * to 8-byte items are unchanged. */
uint64_t pb_fingerprint(const void *buf, uint64_t n, unsigned item_bytes);

/* The host's and the device's fingerprints see a record of R bytes as R / 8
 * items of 8 bytes: n and item_bytes turned into those. */
PB_HDI void pb_fp_as_words(uint64_t *n, unsigned *item_bytes)
{
    if (*item_bytes > 8 && *item_bytes % 8 == 0) *n *= *item_bytes / 8, *item_bytes = 8;
}

/* Two fingerprints into one (of a pair of arrays, say keys and values). */
PB_HDI uint64_t pb_fp_combine(uint64_t a, uint64_t b) { return pb_mix64(a ^ pb_mix64(b + 0x51ed)); }

#ifdef __cplusplus
}
#endif

#endif

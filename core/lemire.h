/* Lemire's bounded integer from one 32-bit word (Lemire 2019, "Fast random
 * integer generation in an interval"), for counter-based draws whose
 * retries come from a further counter rather than a running stream: host
 * and device. */
#ifndef PB_LEMIRE_H
#define PB_LEMIRE_H

#include <stdint.h>

#include "core/hd.h"

/* 1 and *j in [0, range) if `word` is accepted (range >= 1; a word is
 * rejected with probability below range / 2^32, which keeps j unbiased). */
PB_HDI int pb_lemire_pick(uint32_t word, uint32_t range, uint32_t *j)
{
    uint64_t m = (uint64_t)word * range;
    uint32_t low = (uint32_t)m;
    *j = (uint32_t)(m >> 32);
    return low >= range || low >= (uint32_t)(0u - range) % range;
}

#endif

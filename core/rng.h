/* Counter-based randomness for CPU modules: Random123's Philox4x32-10 as a
 * stream, and unbiased bounded integers by Lemire's method.
 *
 * A stream is (seed, stream id): the seed is Philox's 64-bit key, the stream
 * id the upper half of its counter, the position the lower half. Two streams
 * never share a counter, so no two users of a seed draw the same bits. */
#ifndef PB_RNG_H
#define PB_RNG_H

#include <stdint.h>

#include <Random123/philox.h>

/* pb_mix64, SplitMix64's finaliser, spreads related inputs (seed, sample)
 * apart for deriving the seeds of generators that take a single integer. */
#include "core/fingerprint.h"

typedef struct pb_rng {
    philox4x32_key_t key;
    philox4x32_ctr_t ctr;
    philox4x32_ctr_t out;
    int left; /* words of `out` not yet handed out */
} pb_rng;

static inline void pb_rng_init(pb_rng *r, uint64_t seed, uint64_t stream)
{
    r->key.v[0] = (uint32_t)seed;
    r->key.v[1] = (uint32_t)(seed >> 32);
    r->ctr.v[0] = 0;
    r->ctr.v[1] = 0;
    r->ctr.v[2] = (uint32_t)stream;
    r->ctr.v[3] = (uint32_t)(stream >> 32);
    r->left = 0;
}

static inline uint32_t pb_rng_u32(pb_rng *r)
{
    if (r->left == 0) {
        r->out = philox4x32(r->ctr, r->key);
        if (++r->ctr.v[0] == 0) ++r->ctr.v[1];
        r->left = 4;
    }
    return r->out.v[4 - r->left--];
}

static inline uint64_t pb_rng_u64(pb_rng *r)
{
    uint64_t hi = pb_rng_u32(r);
    return hi << 32 | pb_rng_u32(r);
}

/* Uniform in [0, range), range >= 1, without modulo bias (Lemire 2019:
 * "Fast random integer generation in an interval"). The rejection threshold
 * (2^32 mod range) needs a division only in the rare case it can matter. */
static inline uint32_t pb_rng_below32(pb_rng *r, uint32_t range)
{
    uint64_t m = (uint64_t)pb_rng_u32(r) * range;
    uint32_t low = (uint32_t)m;
    if (low < range) {
        uint32_t threshold = (uint32_t)(-range) % range;
        while (low < threshold) {
            m = (uint64_t)pb_rng_u32(r) * range;
            low = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Lemire's draw from one 64-bit word per try, for any range >= 1 (a
 * rejection is then at most range / 2^64 likely). */
static inline uint64_t pb_rng_below64_wide(pb_rng *r, uint64_t range)
{
    __extension__ typedef unsigned __int128 u128;
    u128 m = (u128)pb_rng_u64(r) * range;
    uint64_t low = (uint64_t)m;
    if (low < range) {
        uint64_t threshold = (0 - range) % range;
        while (low < threshold) {
            m = (u128)pb_rng_u64(r) * range;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

/* Uniform in [0, range): one 32-bit word per try while the range fits. */
static inline uint64_t pb_rng_below64(pb_rng *r, uint64_t range)
{
    if (range <= UINT32_MAX) return pb_rng_below32(r, (uint32_t)range);
    return pb_rng_below64_wide(r, range);
}


#endif

/* The on-the-fly bijection of the gather ceilings: i -> (a*i + c) mod n with
 * a coprime to n. Its cost is two adds per item when stepped, so the gather
 * it drives measures the memory system, not arithmetic. The multiplier sits
 * near n/phi, whose multiples spread most evenly modulo n (the three-distance
 * theorem): consecutive outputs read items about n/phi apart, so every read
 * lands in a different cache line and page, as in a random gather. */
#ifndef PB_AFFINE_H
#define PB_AFFINE_H

#include <stdint.h>

#include "core/rng.h"

#ifdef __CUDACC__
#define PB_AFFINE_HD __host__ __device__
#else
#define PB_AFFINE_HD
#endif

typedef struct pb_affine {
    uint64_t n, a, c;
} pb_affine;

PB_AFFINE_HD static inline uint64_t pb_mulmod(uint64_t x, uint64_t y, uint64_t n)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)((u128)x * y % n);
}

PB_AFFINE_HD static inline uint64_t pb_affine_apply(const pb_affine *f, uint64_t i)
{
    uint64_t p = pb_mulmod(f->a, i, f->n) + f->c;
    return p >= f->n ? p - f->n : p;
}

static inline uint64_t pb_gcd(uint64_t x, uint64_t y)
{
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return x;
}

/* A fresh bijection on [0, n) for (seed, sample); n >= 1. Consecutive
 * samples never share one (for n >= 2): the offset steps by a seed's
 * nonzero stride, c = c0 + sample * stride mod n. An offset drawn afresh
 * a sample repeated the one before with probability 1/n when the jitter
 * of a is nil (n < 1024), and the check that a module's samples differ
 * failed the ceiling itself at n = 16. */
static inline pb_affine pb_affine_make(uint64_t n, uint64_t seed, uint64_t sample)
{
    pb_rng r;
    pb_rng_init(&r, seed, sample);
    pb_affine f = {n, 0, 0};
    if (n <= 1) return f;
    /* n/phi plus a seed-dependent jitter of up to n/1024. */
    uint64_t a = (uint64_t)((double)n * 0.6180339887498949);
    a += pb_rng_below64(&r, n / 1024 + 1);
    a %= n;
    while (a == 0 || pb_gcd(a, n) != 1) a = a + 1 == n ? 1 : a + 1;
    f.a = a;
    pb_rng per_seed;
    pb_rng_init(&per_seed, seed, UINT64_MAX);
    uint64_t c0 = pb_rng_below64(&per_seed, n);
    uint64_t stride = 1 + pb_rng_below64(&per_seed, n - 1);
    f.c = (c0 + pb_mulmod(sample % n, stride, n)) % n;
    return f;
}

#endif

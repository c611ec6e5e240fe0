/* Bucket identifiers of the multisplit family, the same inline code on the
 * host (C twin, CPU modules) and on the device (kernels), so a GPU module and
 * its twin can never disagree about which bucket a key belongs to.
 *
 * delta     floor(key / delta) with delta = 2^32 / m exactly: m equal slices of
 *           the key space (the paper's default, Section 6), computed as the
 *           high word of key * m — one multiply, where a division by a
 *           run-time delta would cost the kernels about 20 instructions a key
 * identity  the key itself; keys >= m are counted in the last bucket so that
 *           no input can index outside [0, m)
 * radix     (key >> shift) & (m - 1); m a power of two (Section 7.1)
 * range     the number of splitters <= key, over m - 1 ascending splitters:
 *           a binary search (Section 7.3) */
#ifndef PB_MS_BUCKET_H
#define PB_MS_BUCKET_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PB_HD __host__ __device__ __forceinline__
#else
#define PB_HD static inline
#endif

#define PB_MS_MAX_BUCKETS 256

typedef enum pb_bucket_kind {
    PB_BUCKET_DELTA,
    PB_BUCKET_IDENTITY,
    PB_BUCKET_RADIX,
    PB_BUCKET_RANGE,
} pb_bucket_kind;

#define PB_BUCKET_CHOICES "delta|identity|radix|range"

/* Passed by value into kernels: everything a bucket id needs. For range
 * buckets `splitters` points at m - 1 ascending values in the memory of
 * whoever evaluates it (host array for the twin, device or shared memory in a
 * kernel). */
typedef struct pb_bucket_fn {
    int kind;
    uint32_t m;
    uint32_t delta; /* delta buckets */
    uint32_t shift; /* radix buckets */
    const uint32_t *splitters;
} pb_bucket_fn;

PB_HD uint32_t pb_bucket_range_search(const uint32_t *s, uint32_t m, uint32_t key)
{
    /* upper_bound over s[0 .. m-2]: a fixed number of steps per key. */
    uint32_t lo = 0, len = m - 1;
    while (len > 0) {
        uint32_t half = len >> 1;
        if (s[lo + half] <= key) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
    return lo;
}

PB_HD uint32_t pb_bucket_of(pb_bucket_fn f, uint32_t key)
{
    switch (f.kind) {
    case PB_BUCKET_DELTA: return (uint32_t)(((uint64_t)key * f.m) >> 32);
    case PB_BUCKET_IDENTITY: return key < f.m ? key : f.m - 1;
    case PB_BUCKET_RADIX: return (key >> f.shift) & (f.m - 1);
    default: return pb_bucket_range_search(f.splitters, f.m, key);
    }
}

/* ceil(2^32 / m): the width of a delta bucket, rounded up. */
PB_HD uint32_t pb_bucket_delta(uint32_t m)
{
    return (uint32_t)(((UINT64_C(1) << 32) + m - 1) / m);
}

/* The smallest key of delta bucket b (b <= m; b = m gives 2^32). */
PB_HD uint64_t pb_bucket_delta_lo(uint32_t m, uint32_t b)
{
    return (((uint64_t)b << 32) + m - 1) / m;
}

#endif

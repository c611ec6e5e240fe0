/* The distributed shuffle (docs/distributed.md) as a C model: the
 * algorithm a shuffle over G GPUs runs, on one host, so its output can be
 * compared bit for bit with the GPUs' at small sizes.
 *
 * The array of n items starts split over G devices, device s holding the
 * slice [n s / G, n (s + 1) / G). Every item i draws its destination device
 * dest(i) uniformly in [0, G) from its own Philox counter (the global index,
 * the sample), so where an item goes depends on neither the split nor the
 * order the devices run in. Device d receives, source by source in device
 * order, each source's items bound for it in their order: the items with
 * dest d in global index order, whatever the split. It then shuffles what
 * it received with the bijective shuffle (Mitchell et al. 2024; its C twin,
 * algorithms/shuffle/bijective/bijective_twin.h), stream (sample, d). The output is
 * the devices' parts concatenated in device order.
 *
 * Uniform if the per-device shuffles are: the first level of Rao-Sandelius
 * (docs/distributed.md). */
#ifndef PB_DIST_TWIN_H
#define PB_DIST_TWIN_H

#include <stdint.h>

#include <Random123/philox.h>

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "core/err.h"
#include "core/hd.h"
#include "core/lemire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Devices at most (the stream of device d of a sample is sample << 6 | d). */
#define PB_DIST_MAX_DEVICES 64
/* Samples below 2^58, so the streams of two samples never meet. */
#define PB_DIST_MAX_SAMPLE (UINT64_C(1) << 58)

/* The destinations' Philox key: the seed, its low word tweaked so that no
 * other user of the seed (the bijections' keys) draws from the same key. */
PB_HDI philox4x32_key_t pb_dist_key(uint64_t seed)
{
    philox4x32_key_t k = {{(uint32_t)seed ^ 0x9e3779b9u, (uint32_t)(seed >> 32)}};
    return k;
}

/* dest(i) in [0, G): Lemire's method on word i & 3 of the block at counter
 * (i >> 2, sample, retry 0), so one Philox block serves four consecutive
 * items (pb_dist_dest4) and no word serves two; a rejected word
 * (probability below G / 2^32) gives way to the same word of the next
 * retry's block. */
PB_HDI uint32_t pb_dist_dest(uint64_t seed, uint64_t sample, uint64_t i, uint32_t devices)
{
    philox4x32_key_t k = pb_dist_key(seed);
    for (uint32_t retry = 0; retry < 64; retry++) {
        philox4x32_ctr_t c = {{(uint32_t)(i >> 2), (uint32_t)(i >> 34), (uint32_t)sample,
                               (uint32_t)(sample >> 32) | retry << 26}};
        philox4x32_ctr_t w = philox4x32(c, k);
        uint32_t d;
        if (pb_lemire_pick(w.v[i & 3], devices, &d)) return d;
    }
    return 0; /* 64 rejections in a row: never, to 2^-1500 */
}

/* The destinations of items 4b .. 4b + 3 from one block (a rejected
 * word, rarely, from its retries). */
PB_HDI void pb_dist_dest4(uint64_t seed, uint64_t sample, uint64_t b, uint32_t devices, uint32_t d[4])
{
    philox4x32_key_t k = pb_dist_key(seed);
    philox4x32_ctr_t c = {{(uint32_t)b, (uint32_t)(b >> 32), (uint32_t)sample, (uint32_t)(sample >> 32)}};
    philox4x32_ctr_t w = philox4x32(c, k);
    for (int q = 0; q < 4; q++)
        if (!pb_lemire_pick(w.v[q], devices, &d[q])) d[q] = pb_dist_dest(seed, sample, 4 * b + (uint64_t)q, devices);
}

/* The first item of device s's slice (s = G: n). */
PB_HDI uint64_t pb_dist_slice(uint64_t n, uint32_t devices, uint32_t s)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)((u128)n * s / devices);
}

/* Device d's shuffle stream for a sample. */
PB_HDI uint64_t pb_dist_stream(uint64_t sample, uint32_t d) { return sample << 6 | d; }

/* What the model did besides the output: counts[s * G + d] items sent from
 * device s to device d, and each device's part. */
typedef struct pb_dist_counts {
    uint32_t devices;
    uint64_t counts[PB_DIST_MAX_DEVICES * PB_DIST_MAX_DEVICES];
    uint64_t part[PB_DIST_MAX_DEVICES]; /* items device d received */
} pb_dist_counts;

/* out = the distributed shuffle of in (n items of item_bytes: 4, 8 or
 * records) over `devices` devices, bijections of `kind` and `rounds`.
 * counts: optional. -1 (err set) on bad arguments or no memory. */
int pb_dist_twin_shuffle(const void *in, void *out, uint64_t n, unsigned item_bytes, uint32_t devices,
                          pb_bij_kind kind, int rounds, uint64_t seed, uint64_t sample, pb_dist_counts *counts,
                          pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

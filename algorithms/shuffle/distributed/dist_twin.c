#include "algorithms/shuffle/distributed/dist_twin.h"

#include <stdlib.h>
#include <string.h>

int pb_dist_twin_shuffle(const void *in, void *out, uint64_t n, unsigned item_bytes, uint32_t devices,
                          pb_bij_kind kind, int rounds, uint64_t seed, uint64_t sample, pb_dist_counts *counts,
                          pb_err *err)
{
    if (devices < 1 || devices > PB_DIST_MAX_DEVICES)
        return pb_err_set(err, "distributed shuffle: %u devices: 1 .. %d", devices, PB_DIST_MAX_DEVICES);
    if (sample >= PB_DIST_MAX_SAMPLE) return pb_err_set(err, "distributed shuffle: sample beyond 2^58");
    pb_dist_counts local;
    pb_dist_counts *c = counts ? counts : &local;
    memset(c, 0, sizeof *c);
    c->devices = devices;
    uint32_t *dest = malloc((n ? n : 1) * sizeof *dest);
    char *recv = malloc((n ? n : 1) * (size_t)item_bytes);
    if (!dest || !recv) {
        free(dest), free(recv);
        return pb_err_set(err, "distributed shuffle model: out of memory for %llu items", (unsigned long long)n);
    }
    /* Destinations, and the counts each source sends each device. */
    for (uint32_t s = 0; s < devices; s++)
        for (uint64_t i = pb_dist_slice(n, devices, s); i < pb_dist_slice(n, devices, s + 1); i++) {
            dest[i] = pb_dist_dest(seed, sample, i, devices);
            c->counts[(size_t)s * devices + dest[i]]++;
            c->part[dest[i]]++;
        }
    /* The exchange: device d's part starts after the parts of devices < d
     * and holds, source by source, each source's items bound for d in
     * order (so its items with dest d in global order). */
    uint64_t at[PB_DIST_MAX_DEVICES], start[PB_DIST_MAX_DEVICES + 1];
    start[0] = 0;
    for (uint32_t d = 0; d < devices; d++) start[d + 1] = start[d] + c->part[d], at[d] = start[d];
    for (uint64_t i = 0; i < n; i++)
        memcpy(recv + at[dest[i]]++ * item_bytes, (const char *)in + i * item_bytes, item_bytes);
    /* Each device's exact shuffle of its part, into the output. */
    for (uint32_t d = 0; d < devices; d++)
        pb_bijective_twin_shuffle(recv + start[d] * item_bytes, (char *)out + start[d] * item_bytes, c->part[d],
                                  item_bytes, kind, rounds, seed, pb_dist_stream(sample, d));
    free(dest), free(recv);
    return 0;
}

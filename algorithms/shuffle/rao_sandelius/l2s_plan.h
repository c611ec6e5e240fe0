/* The L2 order of the GPU Rao-Sandelius shuffle (docs/l2-shuffle.md): the
 * segments a level splits, cut in order into groups whose items fit one
 * slot of an L2-resident ring, so that a group's split output is still in
 * L2 when the kernel that finishes its parts reads it. A segment larger
 * than a slot is a group of its own, an overflow: split at its own
 * positions into a buffer of the whole array and finished from there.
 * Shared by the C model of the order (l2s_twin.h) and gpu-l2-shuffle, so
 * both cut the same groups. */
#ifndef PB_L2S_PLAN_H
#define PB_L2S_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Slots of the ring on one stream. One: the GPU's launches run one after
 * the other on the stream, so the next group's split overwrites the
 * slot's lines while they are still dirty in L2, and they are never
 * written back to DRAM (with two, a slot's lines would wait dirty through
 * a whole group of other traffic). gpu-l2-shuffle's streams = 2 takes two,
 * a stream each, for overlap instead. */
#define PB_L2S_RING 1

/* The L2 a model without a device plans for (50 MiB, an H100's): the
 * output does not depend on it. */
#define PB_L2S_MODEL_L2_BYTES (UINT64_C(50) << 20)

/* The parameter of the L2 order that both modules take (gpu-l2-shuffle,
 * cpu-l2-shuffle-twin), as a pb_param_spec initialiser. */
#define PB_L2S_PARAMS                                                                                              \
    {"bucket_cap", PB_PARAM_INT, 0, 0, (1LL << 32) - 1, NULL,                                                     \
     "items a slot of the L2 ring holds (0: half the L2, a third with two streams, in items); a bucket larger "   \
     "than this takes the overflow path (split into the output and finished in place), same output: small "      \
     "values force it, for tests"}

/* Segments [seg_lo, seg_hi) of a level, positions [start, end). */
typedef struct pb_l2s_group {
    uint32_t seg_lo, seg_hi;
    uint32_t start, end;
    int overflow; /* one segment larger than a slot */
} pb_l2s_group;

/* Items a slot holds when `slots` of them are live at once: bucket_cap if
 * positive, else l2_bytes (the device's L2) / (slots + 1) in items of ib
 * bytes, at least 1: one share more than the slots takes the streams of
 * the split's reads and the finish's writes. One slot gets half the L2,
 * not less: the first split makes at most 256 buckets, so at 2^29 u64 a
 * bucket is 16 MiB, and a quarter of a 50 MiB L2 would make every bucket
 * an overflow; two get a third each (16.7 MiB, still a bucket). */
uint64_t pb_l2s_slot_items(long long bucket_cap, uint64_t l2_bytes, unsigned slots, unsigned ib);

/* Cuts the nseg segments [ss[i], se[i]) (consecutive: se[i] == ss[i + 1])
 * into groups of consecutive segments holding at most `slot` items, in
 * order; a segment of more than `slot` items is a group alone, marked
 * overflow. Empty segments join the group at hand. Writes at most nseg
 * groups to out (NULL: only counts) and returns how many. */
size_t pb_l2s_plan_groups(const uint32_t *ss, const uint32_t *se, size_t nseg, uint64_t slot,
                          pb_l2s_group *out);

#ifdef __cplusplus
}
#endif

#endif

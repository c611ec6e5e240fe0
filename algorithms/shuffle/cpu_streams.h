/* Where the CPU shuffles take their random bits: one layout of Philox's
 * counter, so that no two uses of a seed ever draw the same bits.
 *
 * Philox4x32-10 with key = the sweep's seed (as core/rng.h). Its 128-bit
 * counter is split as
 *
 *     v[3]:v[2]  the sample (the whole 64 bits, as pb_rng's stream id), so
 *                no two run() calls or sample permutations share a block;
 *     v[1]:v[0]  a position: role (4 bits) | level (6 bits) | index (54 bits).
 *
 * The role says what the bits decide (the digits of a Rao-Sandelius split,
 * the Fisher-Yates of a leaf or block, a merge, a dart, a sort key); the
 * level is the recursion or merge level; the index is the block number
 * within that (role, level). Every user owns a range of indices that no
 * other user of the same (role, level) can reach:
 *
 *  - digits of the node [lo, hi) of a level: blocks lo + t / (digits per
 *    block) for its t-th element, inside [lo, hi) since a block holds at
 *    least one digit, and nodes of one level are disjoint;
 *  - a sequential stream (leaf or block Fisher-Yates, merge) over [lo, hi)
 *    of a level: blocks from lo << PB_CS_SPAN_BITS, a budget of 2^14 blocks
 *    (2^16 words) per element, of which Fisher-Yates uses at most 2 words
 *    (and a merge less) unless Lemire's draw rejects thousands of times in
 *    a row; n < 2^40 keeps lo << 14 inside the 54 index bits;
 *  - the keys of a sort and the darts of item i: indices derived from i, see
 *    the modules.
 *
 * Role 0 is left to the plain streams of core/rng.h and the bijections'
 * parameters (position 0, 1, ... of the sample's stream).
 *
 * Tests see every block a module consumes through pb_cs_trace (pb_cs_block
 * reports each block, pb_cs_close the range a stream's counter went
 * through): ranges of one sample must never overlap, which is the check that a recursion
 * level, a merge, a thread or a call never re-draws bits another drew (the
 * copied generator state bug). */
#ifndef PB_CPU_STREAMS_H
#define PB_CPU_STREAMS_H

#include <stdint.h>

#include "core/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_cs_role {
    PB_CS_PLAIN = 0,  /* core/rng.h streams, bijection parameters */
    PB_CS_DIGITS = 1, /* Rao-Sandelius: the digit of each element at a level */
    PB_CS_LEAF = 2,   /* Rao-Sandelius: Fisher-Yates of a leaf */
    PB_CS_BLOCK = 3,  /* MergeShuffle: Fisher-Yates of a block */
    PB_CS_MERGE = 4,  /* MergeShuffle: the bits and insertions of a merge */
    PB_CS_DART = 5,   /* dart throwing: the darts of each item */
    PB_CS_KEYS = 6,   /* sort shuffle: the 64-bit keys */
};

#define PB_CS_LEVEL_BITS 6
#define PB_CS_INDEX_BITS 54
#define PB_CS_MAX_LEVEL ((1u << PB_CS_LEVEL_BITS) - 1)
#define PB_CS_SPAN_BITS 14
/* The largest n the layout numbers distinctly. */
#define PB_CS_MAX_N (UINT64_C(1) << (PB_CS_INDEX_BITS - PB_CS_SPAN_BITS))

static inline uint64_t pb_cs_pos(unsigned role, unsigned level, uint64_t index)
{
    return (uint64_t)role << 60 | (uint64_t)level << PB_CS_INDEX_BITS | index;
}

/* Test hook: when set, every module reports each range [first, end) of
 * block positions it consumed for `sample`. NULL in normal runs; the tests
 * set it around a run. Called from any thread. */
typedef void (*pb_cs_trace_fn)(uint64_t sample, uint64_t first, uint64_t end);
extern pb_cs_trace_fn pb_cs_trace;

static inline void pb_cs_note(uint64_t sample, uint64_t first, uint64_t end)
{
    pb_cs_trace_fn f = pb_cs_trace;
    if (f && end > first) f(sample, first, end);
}

/* One block: 128 random bits at `pos` of `sample`'s stream, not reported:
 * for a hot loop that reports the range it draws once (pb_cs_note). */
static inline philox4x32_ctr_t pb_cs_block_quiet(uint64_t seed, uint64_t sample, uint64_t pos)
{
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t c = {{(uint32_t)pos, (uint32_t)(pos >> 32), (uint32_t)sample,
                           (uint32_t)(sample >> 32)}};
    return philox4x32(c, k);
}

/* The same, reported to the trace as it is drawn. */
static inline philox4x32_ctr_t pb_cs_block(uint64_t seed, uint64_t sample, uint64_t pos)
{
    pb_cs_note(sample, pos, pos + 1);
    return pb_cs_block_quiet(seed, sample, pos);
}

/* A sequential stream starting at block `pos` (pb_rng's draws work on it). */
static inline void pb_cs_open(pb_rng *r, uint64_t seed, uint64_t sample, uint64_t pos)
{
    pb_rng_init(r, seed, sample);
    r->ctr.v[0] = (uint32_t)pos;
    r->ctr.v[1] = (uint32_t)(pos >> 32);
}

/* The next block position the stream would draw. */
static inline uint64_t pb_cs_tell(const pb_rng *r) { return (uint64_t)r->ctr.v[1] << 32 | r->ctr.v[0]; }

/* Reports the blocks a stream opened at `pos` consumed (its counter says
 * how far it went, so the report is what was drawn, not what was meant). */
static inline void pb_cs_close(const pb_rng *r, uint64_t sample, uint64_t pos)
{
    pb_cs_note(sample, pos, pb_cs_tell(r));
}

/* Threads for a `threads` parameter value: 0 means all cores. */
int pb_cs_threads(long long param);

/* Below this many items the OpenMP shuffles run on the calling thread: a
 * team's wake-up (tens of microseconds, milliseconds on a busy host) costs
 * more than it saves. Their output does not depend on the thread count, so
 * this changes only the time. */
#define PB_CS_PAR_MIN (UINT64_C(1) << 15)

static inline int pb_cs_team(int threads, uint64_t n) { return n < PB_CS_PAR_MIN ? 1 : threads; }

#ifdef __cplusplus
}
#endif

#endif

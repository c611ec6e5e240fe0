/* The POV-shuffle (Parallel Offset Virtual-block shuffle, the pov-shuffle
 * package's README; docs/pov.md), the parts the C twin and the CUDA kernel
 * share: its layout and its randomness, so both give one permutation for a
 * seed, sample and parameters.
 *
 * n items in physical blocks of `block` items: P = ceil(n / block) of them,
 * the last one short when block does not divide n. Each of `iterations`
 * iterations:
 *
 *   1. draws an offset, uniform among the positions of [0, n) that are not
 *      multiples of `block` (0 when there are none: n <= 1 or block = 1), so
 *      that every block start moves; physical block b is then the circular
 *      range of positions off + b block + t (mod n), t < its length;
 *   2. draws a uniform permutation sigma of the P blocks (the blocks sorted
 *      by random 64-bit keys, pb_pov_block_key) and makes virtual block v of blocks sigma[v vblock .. v vblock + vblock)
 *      (the last may have fewer): every virtual block is contiguous by parts;
 *   3. shuffles each virtual block exactly, by Fisher-Yates over its items
 *      in block order, independently of the others (in parallel).
 *
 * Randomness is Philox4x32-10 keyed by the 64-bit seed, with one counter a
 * four draws: (step >> 2, iteration << 26 | stream, retry << 24 | sample >>
 * 32, sample), where stream is the virtual block (or PB_POV_HOST_STREAM for
 * the iteration's offset, step 0, or PB_POV_KEY_STREAM for the blocks' sort
 * keys, which make sigma), step is the
 * Fisher-Yates step (draw j in [0, step)) and the draw is the counter's word
 * step & 3. Every draw is a function of its own words, never of a running
 * stream, so the permutation does not depend on how the work is split
 * between threads, and a GPU block can make all its virtual block's draws
 * in parallel before the swaps. Lemire's method accepts or rejects the word
 * (rejected with probability below range / 2^32); a rejected draw takes its
 * word of the next `retry` counter: unbiased, and no word serves two draws.
 * Limits that keep counters apart: sample < 2^56, iterations <= 63, fewer than 2^26 - 2 virtual
 * blocks, n < 2^32. */
#ifndef PB_POV_H
#define PB_POV_H

#include <stdint.h>

#include <Random123/philox.h>

#include "core/hd.h"
#include "core/lemire.h"

#define PB_POV_MAX_ITERATIONS 63
#define PB_POV_STREAM_BITS 26
#define PB_POV_HOST_STREAM ((UINT32_C(1) << PB_POV_STREAM_BITS) - 1)
/* The blocks' sort keys (pb_pov_block_key): a stream no virtual block has. */
#define PB_POV_KEY_STREAM (PB_POV_HOST_STREAM - 1)
#define PB_POV_MAX_VBLOCKS PB_POV_KEY_STREAM
#define PB_POV_MAX_N UINT64_C(0xffffffff)
/* Items in a virtual block, at most: what a GPU block holds in 48 KiB of
 * shared memory (an 8-byte item and a 4-byte draw each). */
#define PB_POV_MAX_VBLOCK_ITEMS 4096

/* The defaults and why: docs/pov.md. */
#define PB_POV_DEFAULT_ITERATIONS 4
#define PB_POV_DEFAULT_BLOCK 64
#define PB_POV_DEFAULT_VBLOCK 4

typedef struct pb_pov_params {
    uint32_t iterations;
    uint32_t block;  /* items a physical block */
    uint32_t vblock; /* physical blocks a virtual block */
} pb_pov_params;

/* The four words of counter (group, retry) of a stream: word `step & 3`
 * of group `step >> 2` is step's first try, so four consecutive steps
 * share one Philox call. */
PB_HDI philox4x32_ctr_t pb_pov_words(uint64_t seed, uint64_t sample, uint32_t it, uint32_t stream, uint32_t group,
                                     uint32_t retry)
{
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t c = {{group, it << PB_POV_STREAM_BITS | stream,
                           retry << 24 | ((uint32_t)(sample >> 32) & 0xffffffu), (uint32_t)sample}};
    return philox4x32(c, k);
}

/* The draw of `step` in [0, range), range >= 1: its word of each retry in
 * turn until one is accepted (each is rejected with probability below
 * range / 2^32). */
PB_HDI uint32_t pb_pov_draw(uint64_t seed, uint64_t sample, uint32_t it, uint32_t stream, uint32_t step,
                            uint32_t range)
{
    uint32_t j = 0;
    for (uint32_t retry = 0; retry < 256; retry++) {
        philox4x32_ctr_t w = pb_pov_words(seed, sample, it, stream, step >> 2, retry);
        if (pb_lemire_pick(w.v[step & 3], range, &j)) return j;
    }
    return j; /* 256 rejections in a row: never, to 2^-5000 */
}

PB_HDI uint64_t pb_pov_blocks(uint64_t n, uint32_t block) { return (n + block - 1) / block; }

PB_HDI uint64_t pb_pov_vblocks(uint64_t n, const pb_pov_params *p)
{
    return (pb_pov_blocks(n, p->block) + p->vblock - 1) / p->vblock;
}

/* The iteration's offset: the r-th position of [0, n) that is not a
 * multiple of block (there are n - P of them). */
PB_HDI uint64_t pb_pov_offset(uint64_t n, uint32_t block, uint64_t seed, uint64_t sample, uint32_t it)
{
    uint64_t choices = n - pb_pov_blocks(n, block);
    if (n < 2 || block < 2 || choices == 0) return 0;
    uint64_t r = pb_pov_draw(seed, sample, it, PB_POV_HOST_STREAM, 0, (uint32_t)choices);
    return r / (block - 1) * block + r % (block - 1) + 1;
}

/* Physical block b's sort key for the iteration: 64 bits of its own
 * counter (two keys a Philox call, on the key stream). sigma is the blocks
 * in order of (key, b): a uniform permutation but for ties of two 64-bit
 * keys (P^2 / 2^65: 2^-29 at P = 2^18), which fall to the lower block.
 * A sort rather than a Fisher-Yates over the blocks so the GPU makes sigma
 * itself (a key a thread and a radix sort) instead of waiting for P
 * sequential host swaps (docs/pov.md); pov_twin.c sorts the same keys. */
PB_HDI uint64_t pb_pov_block_key(uint64_t seed, uint64_t sample, uint32_t it, uint64_t b)
{
    philox4x32_ctr_t w = pb_pov_words(seed, sample, it, PB_POV_KEY_STREAM, (uint32_t)(b >> 1), 0);
    unsigned q = 2 * (unsigned)(b & 1);
    return (uint64_t)w.v[q] << 32 | w.v[q + 1];
}

/* The array position of item t of physical block b (t < its length). */
PB_HDI uint64_t pb_pov_position(uint64_t n, uint32_t block, uint64_t off, uint64_t b, uint64_t t)
{
    uint64_t p = off + b * block + t;
    return p >= n ? p - n : p;
}

PB_HDI uint32_t pb_pov_block_len(uint64_t n, uint32_t block, uint64_t b)
{
    uint64_t start = b * block;
    return (uint32_t)(n - start < block ? n - start : block);
}

#endif

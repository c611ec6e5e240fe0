/* radik's cluster path: how many blocks a row (`cluster_blocks = 0`).
 * radik.cu asks the GPU how many clusters of each size it holds at once
 * (cudaOccupancyMaxActiveClusters); the choice from those counts is here,
 * pure host C, so that a known-answer test (tests/topk/test_radik_blocks.c)
 * holds it in CI to the counts a sweep measured best (docs/topk-radik.md).
 * Why a cost, and its constants: radik_tuning.h. */
#ifndef PB_RADIK_BLOCKS_H
#define PB_RADIK_BLOCKS_H

#include <stdint.h>

#include "algorithms/topk/radik/radik_digit.h"
#include "algorithms/topk/radik/radik_tuning.h"

/* The fewest blocks a row whose candidates' room (cap a block) holds what
 * the sample's threshold keeps of a row of len keys at top-k (the kernels'
 * own test: (r + 1) len at most PB_RADIK_SAMPLE cap c / 2), where the row
 * would filter (filter_on, and a row the kernel samples: 16-bit rows of
 * PB_RADIK_FILTER_MIN keys or more, word-key rows longer than cap). With
 * fewer, a row the sample would filter in one read takes the reads
 * instead, a read of the row a digit, which costs more than the waves the
 * extra blocks may add. 1 where no count up to PB_RADIK_CL_MAXC holds it
 * (the reads whatever the count). */
static inline unsigned pb_radik_blocks_min(uint64_t len, uint64_t k, uint32_t cap, int filter_on,
                                           int is16)
{
    const uint64_t take = k < len ? k : len;
    if (!filter_on || take >= len || (is16 ? len < PB_RADIK_FILTER_MIN : len <= cap)) return 1;
    const uint64_t rank = pb_radik_filter_rank(PB_RADIK_SAMPLE, (uint32_t)take, (uint32_t)len);
    const uint64_t per = (uint64_t)PB_RADIK_SAMPLE * cap / 2;
    const uint64_t c = ((rank + 1) * len + per - 1) / per;
    return c > PB_RADIK_CL_MAXC ? 1u : (unsigned)c;
}

/* A block's cost for each block of its cluster: a round of the pivot's
 * search reads every block's histogram (PB_RADIK_CL_BLOCK_BYTES); at k = 1
 * there are no rounds, only block 0's read of each block's best
 * (PB_RADIK_CL_BEST_BLOCK_BYTES), so more blocks a row pay. */
static inline uint32_t pb_radik_blocks_per_block(uint64_t k)
{
    return k == 1 ? PB_RADIK_CL_BEST_BLOCK_BYTES : PB_RADIK_CL_BLOCK_BYTES;
}

/* The count of cmin to PB_RADIK_CL_MAXC whose waves of clusters times a
 * block's cost is least, the smaller on a tie: clusters[c] is how many
 * clusters of c blocks the GPU holds at once (0: none; clusters[0] is not
 * read), sms its SMs, rows the batch, row_bytes the longest row. A block's
 * cost: PB_RADIK_CL_FIXED_BYTES, its part of the row (twice where a wave
 * has more blocks than SMs: two blocks that share an SM each read at half
 * its rate), and block_bytes for each block of the cluster
 * (pb_radik_blocks_per_block). 0 where no count fits. */
static inline unsigned pb_radik_blocks_pick(const int *clusters, int sms, uint64_t rows,
                                            uint64_t row_bytes, unsigned cmin, uint32_t block_bytes)
{
    unsigned best = 0;
    double best_cost = 0;
    for (unsigned c = cmin ? cmin : 1; c <= PB_RADIK_CL_MAXC; c++) {
        if (clusters[c] < 1) continue;
        const uint64_t fit = (uint64_t)clusters[c];
        const uint64_t waves = (rows + fit - 1) / fit;
        const uint64_t wave = (rows < fit ? rows : fit) * c;
        const uint64_t share = (wave + (uint64_t)sms - 1) / (uint64_t)sms;
        const double cost = (double)waves * ((double)PB_RADIK_CL_FIXED_BYTES +
                                             (double)share * (double)row_bytes / c +
                                             (double)block_bytes * c);
        if (best == 0 || cost < best_cost) best = c, best_cost = cost;
    }
    return best;
}

#endif

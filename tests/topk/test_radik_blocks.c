/* radik's choice of blocks a row for the cluster path (radik_blocks.h),
 * known answers on a measured GPU's cluster counts, so that a change of its
 * cost or constants that moves a measured shape off its best count fails
 * in CI, not first on a GPU.
 *
 * The counts: how many clusters of c blocks (two 512-thread blocks an SM)
 * a GPU of 132 SMs held at once where a phase trace saw them
 * (docs/topk-radik.md, "Where a block's time went"): 62 of four (not 66: a
 * GPC holds whole clusters only), 14 of sixteen, at least 16 of twelve, 64
 * of three, 256 of one; elsewhere 264 / c. The answers: the best count of
 * the sweep of every count at the target shapes, or the fewest that hold
 * the filter's candidates. */
#include <stdint.h>

#include "algorithms/topk/radik/radik_blocks.h"
#include "tests/test.h"

static void h200_counts(int *clusters)
{
    for (int c = 1; c <= PB_RADIK_CL_MAXC; c++) clusters[c] = 264 / c;
    clusters[4] = 62;
    clusters[12] = 16;
    clusters[16] = 14;
}

TEST_IMPL(radik_blocks_pick)
{
    int h[PB_RADIK_CL_MAXC + 1] = {0};
    h200_counts(h);
    const uint32_t R = pb_radik_blocks_per_block(1024); /* a query with rounds */
    /* The five target shapes (rows, bytes a row): two blocks a row at 64 x
     * 2^17 fp32 (three and four were slower: four spill two rows into a
     * second wave, three put two blocks on some SMs) and 64 x 2^17 bf16; one
     * at 256 x 2^17 bf16 and 256 x 2^19 fp32 (more blocks take a second
     * wave); eight at 16 x 2^20 fp32 (sixteen take a second wave). */
    ASSERT(pb_radik_blocks_pick(h, 132, 64, 4u << 17, 1, R) == 2);
    ASSERT(pb_radik_blocks_pick(h, 132, 64, 2u << 17, 1, R) == 2);
    ASSERT(pb_radik_blocks_pick(h, 132, 256, 2u << 17, 1, R) == 1);
    ASSERT(pb_radik_blocks_pick(h, 132, 256, 4u << 19, 1, R) == 1);
    ASSERT(pb_radik_blocks_pick(h, 132, 16, 4u << 20, 1, R) == 8);
    /* Many rows: one block a row, four waves of 264, beat two a row in
     * eight waves (1024 x 2^17 fp32, measured). */
    ASSERT(pb_radik_blocks_pick(h, 132, 1024, 4u << 17, 1, R) == 1);
    /* A single long row spreads over many blocks. */
    ASSERT(pb_radik_blocks_pick(h, 132, 1, 4u << 20, 1, R) == 16);
    ASSERT(pb_radik_blocks_pick(h, 132, 1, 4u << 17, 1, R) >= 4);
    /* A count the GPU holds none of is never taken, nor one below cmin. */
    int none[PB_RADIK_CL_MAXC + 1] = {0};
    ASSERT(pb_radik_blocks_pick(none, 132, 1, 1024, 1, R) == 0);
    none[5] = 1;
    ASSERT(pb_radik_blocks_pick(none, 132, 1, 1024, 1, R) == 5);
    ASSERT(pb_radik_blocks_pick(h, 132, 256, 4u << 19, 2, R) == 2);

    /* k = 1 (no rounds: a block's cluster work is block 0's read of its
     * best), measured best in a sweep of every count: sixteen blocks for
     * one row of 2^19 fp32 or bf16, eight to sixteen for one of 2^17 fp32
     * (sixteen measured best, eight within 8% of it); two a row at 64 x
     * 2^17 and one at 256 rows, as at larger k. */
    const uint32_t B = pb_radik_blocks_per_block(1);
    ASSERT(B < R);
    ASSERT(pb_radik_blocks_pick(h, 132, 1, 4u << 19, 1, B) == 16);
    ASSERT(pb_radik_blocks_pick(h, 132, 1, 2u << 19, 1, B) == 16);
    ASSERT(pb_radik_blocks_pick(h, 132, 1, 4u << 17, 1, B) >= 8);
    ASSERT(pb_radik_blocks_pick(h, 132, 64, 4u << 17, 1, B) == 2);
    ASSERT(pb_radik_blocks_pick(h, 132, 64, 2u << 19, 1, B) == 2);
    ASSERT(pb_radik_blocks_pick(h, 132, 256, 4u << 19, 1, B) == 1);
    ASSERT(pb_radik_blocks_pick(h, 132, 256, 2u << 17, 1, B) == 1);

    /* The fewest blocks whose room holds the filter's candidates: 256 x 2^19
     * fp32 at k = 1024 needs two (it took the reads on one), 2^19 at k =
     * 4096 three, 16-bit rows too; k = 256 and the target shapes one (8192
     * candidates a block of 32-bit keys, 4096 of 64-bit ones). */
    ASSERT(pb_radik_blocks_min(1u << 19, 1024, 8192, 1, 0) == 2);
    ASSERT(pb_radik_blocks_min(1u << 19, 4096, 8192, 1, 0) == 3);
    ASSERT(pb_radik_blocks_min(1u << 19, 4096, PB_RADIK_CL_CAP, 1, 1) == 3);
    ASSERT(pb_radik_blocks_min(1u << 19, 256, 8192, 1, 0) == 1);
    ASSERT(pb_radik_blocks_min(1u << 17, 1024, 8192, 1, 0) == 1);
    ASSERT(pb_radik_blocks_min(1u << 17, 1024, 4096, 1, 0) == 2);
    /* No filter, a take of the whole row, a row the kernel does not sample,
     * or a room no count reaches: no bound. */
    ASSERT(pb_radik_blocks_min(1u << 19, 4096, 8192, 0, 0) == 1);
    ASSERT(pb_radik_blocks_min(5000, 8192, 8192, 1, 0) == 1);
    ASSERT(pb_radik_blocks_min(8192, 50, 8192, 1, 0) == 1);
    ASSERT(pb_radik_blocks_min(60000, 50, PB_RADIK_CL_CAP, 1, 1) == 1);
    ASSERT(pb_radik_blocks_min(1u << 20, 1u << 16, 8192, 1, 0) == 1);
    return 0;
}

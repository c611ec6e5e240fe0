/* The tile family: n items cut into tiles of 32 x m, each tile partitioned
 * by 32 labels, sorted, or permuted by one block in shared memory
 * (tile_problem.h). Every module verifies its own output against the C
 * reference, so the family has no generic check. */
#include "families/tile/tile_family.h"

static const pb_item_kind items[] = {
    {"u32", 4, "32-bit items (a label, a destination or a key in their bits)", PB_ITEM_SCALAR},
};

/* A tile is read from global memory once and written once. */
static double bound_bytes(uint64_t n, unsigned item_bytes)
{
    (void)item_bytes;
    return 8.0 * (double)n;
}

const pb_family pb_family_tile = {
    .name = "tile",
    .summary = "tiles of 32 x m words partitioned by 32 labels, sorted or permuted in shared memory",
    .input = "tiles whose labels, keys or destinations follow a pattern: uniform, skewed, onebank, "
             "strided",
    .items = PB_ITEMS(items),
    .bounds = PB_BOUNDS(PB_BOUND_COPY),
    .bound_bytes = bound_bytes,
};

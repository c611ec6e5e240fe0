/* The shuffle family: n items of 4 or 8 bytes, or records of R bytes, in,
 * a permutation of them out, in place or into a second buffer. Measured
 * against a contiguous copy and a random gather on the same device;
 * checked as a permutation of the input, every record whole
 * (shuffle_items.h). */
#include "families/shuffle/shuffle_family.h"

#include "core/module.h"
#include "families/shuffle/shuffle_items.h"

/* Records of R bytes move as wholes (shuffle_items.h says what they hold);
 * only modules that set .items = PB_ITEM_CLASSES(PB_ITEM_RECORD) | ... take
 * them. rec256 is the POV-shuffle README's row of 128 fp16 values. */
static const pb_item_kind items[] = {
    {"u64", 8, "64-bit items (the papers' shuffles move 8-byte items)", PB_ITEM_SCALAR},
    {"u32", 4, "32-bit items", PB_ITEM_SCALAR},
    {"rec16", 16, "16-byte records", PB_ITEM_RECORD},
    {"rec64", 64, "64-byte records (a cache line)", PB_ITEM_RECORD},
    {"rec256", 256, "256-byte records (128 x fp16, the POV-shuffle README's rows)", PB_ITEM_RECORD},
    {"rec1024", 1024, "1024-byte records", PB_ITEM_RECORD},
};

/* Read once, written once. */
static double bound_bytes(uint64_t n, unsigned item_bytes) { return 2.0 * (double)n * item_bytes; }

static int check(const pb_module *m, void *state, const pb_point *pt, pb_err *err)
{
    const void *out;
    if (m->result(state, &out, err)) return -1;
    return pb_shuffle_check(out, pt->n, pt->item_bytes, err);
}

const pb_family pb_family_shuffle = {
    .name = "shuffle",
    .summary = "a uniformly random permutation of n items, in place or into a second buffer",
    .input = "item i is a bijective scramble of i (distinct, never equal to its index)",
    .items = PB_ITEMS(items),
    .bounds = PB_BOUNDS(PB_BOUND_COPY) | PB_BOUNDS(PB_BOUND_GATHER),
    .permutes = true,
    .bound_bytes = bound_bytes,
    .check = check,
};

/* The multisplit family: n 32-bit keys (optionally with 32-bit values)
 * grouped by bucket id in ascending order, with the m bucket offsets
 * (ms_problem.h). Every module verifies its own output against the C twin
 * or the family's weaker contracts, so the family has no generic check. */
#include "families/multisplit/ms_family.h"

#include "families/multisplit/ms_problem.h"

static const pb_item_kind items[] = {
    {"keys", 4, "32-bit keys alone", PB_ITEM_SCALAR},
    {"pairs", 8, "32-bit key + 32-bit value (the value is the key's input position)", PB_ITEM_SCALAR},
    {"u32", 4, "= keys", PB_ITEM_SCALAR},
    {"u64", 8, "= pairs", PB_ITEM_SCALAR},
};

/* The multisplit paper's speed of light (Section 6.2.2): keys are read
 * twice (once to count, once to move) and written once; values of
 * key-value pairs are read and written once. */
static double bound_bytes(uint64_t n, unsigned item_bytes)
{
    return (double)n * (item_bytes == 8 ? 20.0 : 12.0);
}

const pb_family pb_family_multisplit = {
    .name = "multisplit",
    .summary = "keys (and values) grouped by bucket id, ascending, plus the m bucket offsets",
    .input = "keys drawn over m buckets (uniform, binomial or alpha-uniform) or read from a file; "
             "values are positions",
    .items = PB_ITEMS(items),
    .bounds = PB_BOUNDS(PB_BOUND_COPY),
    .bound_bytes = bound_bytes,
    .check_point = pb_ms_check_point,
};

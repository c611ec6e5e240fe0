/* The top-k family: per row of a batch of values, the k largest (or
 * smallest) values and their indices (topk_problem.h). Every module
 * verifies its own output against the C twin's key multiset, so the family
 * has no generic check. */
#include "families/topk/topk_family.h"

#include "families/topk/topk_problem.h"

static const pb_item_kind items[] = {
    {"u32", 4, "values of the dtype parameter's type (fp32, u32, i32, fp16, bf16, fp64, u64)",
     PB_ITEM_SCALAR},
};

/* The input read once. */
static double bound_bytes(uint64_t n, unsigned item_bytes)
{
    (void)item_bytes;
    return 4.0 * (double)n;
}

const pb_family pb_family_topk = {
    .name = "topk",
    .summary = "per row of a batch, the k largest (or smallest) values and their indices",
    .input =
        "rows of values of the dtype from a named distribution or a file, ragged or misaligned",
    .items = PB_ITEMS(items),
    .bounds = PB_BOUNDS(PB_BOUND_COPY),
    .bound_bytes = bound_bytes,
    .check_point = pb_topk_check_point,
};

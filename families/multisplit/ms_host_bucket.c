#include "families/multisplit/ms_host_bucket.h"

static const char *const kind_names[] = {"delta", "identity", "radix", "range"};

const char *pb_ms_kind_name(pb_bucket_kind kind)
{
    return (unsigned)kind < sizeof kind_names / sizeof kind_names[0] ? kind_names[kind] : "?";
}

void pb_ms_range_table_build(const pb_bucket_fn *f, pb_ms_range_table *t)
{
    const unsigned low = 32 - PB_MS_RT_BITS;
    for (uint32_t slice = 0; slice < (1u << PB_MS_RT_BITS); slice++) {
        uint32_t first = slice << low, last = first | ((1u << low) - 1);
        t->lo[slice] = (uint8_t)pb_bucket_range_search(f->splitters, f->m, first);
        t->hi[slice] = (uint8_t)pb_bucket_range_search(f->splitters, f->m, last);
    }
}

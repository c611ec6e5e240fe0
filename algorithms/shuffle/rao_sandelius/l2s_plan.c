#include "algorithms/shuffle/rao_sandelius/l2s_plan.h"

uint64_t pb_l2s_slot_items(long long bucket_cap, uint64_t l2_bytes, unsigned slots, unsigned ib)
{
    if (bucket_cap > 0) return (uint64_t)bucket_cap;
    uint64_t s = ib ? l2_bytes / (slots + 1) / ib : 0;
    return s ? s : 1;
}

size_t pb_l2s_plan_groups(const uint32_t *ss, const uint32_t *se, size_t nseg, uint64_t slot,
                          pb_l2s_group *out)
{
    size_t ng = 0;
    size_t i = 0;
    while (i < nseg) {
        pb_l2s_group g = {(uint32_t)i, (uint32_t)i, ss[i], ss[i], 0};
        uint64_t len = (uint64_t)se[i] - ss[i];
        if (len > slot) {
            g.seg_hi = (uint32_t)++i;
            g.end = se[i - 1];
            g.overflow = 1;
        } else {
            while (i < nseg && (uint64_t)se[i] - g.start <= slot) i++;
            g.seg_hi = (uint32_t)i;
            g.end = se[i - 1];
        }
        if (out) out[ng] = g;
        ng++;
    }
    return ng;
}

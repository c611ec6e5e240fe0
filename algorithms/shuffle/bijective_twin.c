#include "algorithms/shuffle/bijective_twin.h"

void pb_bijective_twin_shuffle(const void *in, void *out, uint64_t m, unsigned item_bytes,
                               pb_bij_kind kind, int rounds, uint64_t seed, uint64_t stream)
{
    if (m == 0) return;
    pb_bij f;
    pb_bij_init(&f, kind, rounds, m, seed, stream);
    uint64_t domain = UINT64_C(1) << f.bits, o = 0;
    for (uint64_t x = 0; x < domain && o < m; x++) {
        uint64_t src = pb_bij_apply(&f, x);
        if (src >= m) continue;
        if (item_bytes == 4) ((uint32_t *)out)[o++] = ((const uint32_t *)in)[src];
        else ((uint64_t *)out)[o++] = ((const uint64_t *)in)[src];
    }
}

void pb_bijective_twin_indices(uint32_t *out, uint32_t m, pb_bij_kind kind, int rounds,
                               uint64_t seed, uint64_t stream)
{
    if (m == 0) return;
    pb_bij f;
    pb_bij_init(&f, kind, rounds, m, seed, stream);
    uint64_t domain = UINT64_C(1) << f.bits;
    uint32_t o = 0;
    for (uint64_t x = 0; x < domain && o < m; x++) {
        uint64_t src = pb_bij_apply(&f, x);
        if (src < m) out[o++] = (uint32_t)src;
    }
}

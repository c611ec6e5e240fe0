#include "algorithms/shuffle/bijective/bijective_twin.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Two passes over the padded domain, split into one slice per thread: count
 * the kept values of each slice, then each slice writes from the sum of the
 * counts before it. The order, and so the result, is that of a sequential
 * walk whatever the thread count. */
void pb_bijective_twin_shuffle(const void *in, void *out, uint64_t m, unsigned item_bytes,
                               pb_bij_kind kind, int rounds, uint64_t seed, uint64_t stream)
{
    if (m == 0) return;
    pb_bij f;
    pb_bij_init(&f, kind, rounds, m, seed, stream);
    uint64_t domain = UINT64_C(1) << f.bits;
    int slices = domain >= (1u << 16) ? omp_get_max_threads() : 1;
    uint64_t *start = calloc((size_t)slices + 1, sizeof *start);
    if (!start) slices = 1;
#pragma omp parallel num_threads(slices) if (slices > 1)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        uint64_t lo = domain * (uint64_t)t / (uint64_t)nt, hi = domain * (uint64_t)(t + 1) / (uint64_t)nt;
        uint64_t o = 0;
        if (nt > 1) {
            for (uint64_t x = lo; x < hi; x++) o += pb_bij_apply(&f, x) < m;
            start[t + 1] = o;
#pragma omp barrier
#pragma omp single
            for (int k = 0; k < nt; k++) start[k + 1] += start[k];
            o = start[t];
        }
        for (uint64_t x = lo; x < hi; x++) {
            uint64_t src = pb_bij_apply(&f, x);
            if (src >= m) continue;
            if (item_bytes == 4) ((uint32_t *)out)[o++] = ((const uint32_t *)in)[src];
            else if (item_bytes == 8) ((uint64_t *)out)[o++] = ((const uint64_t *)in)[src];
            else memcpy((char *)out + o++ * item_bytes, (const char *)in + src * item_bytes, item_bytes);
        }
    }
    free(start);
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

#include "bench/row_seeds.h"

#include "core/rng.h"
#include <math.h>

uint64_t pb_seed_of(uint64_t seed, int i)
{
    if (i == 0) return seed;
    philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t ctr = {{(uint32_t)i, 0, 0x73656564u /* "seed" */, 0}};
    philox4x32_ctr_t out = philox4x32(ctr, key);
    return (uint64_t)out.v[0] << 32 | out.v[1];
}

int pb_row_summarise(pb_row *row)
{
    if (row->nsamples == 0) return 0;
    row->ms = pb_summarise(row->samples_ms, row->nsamples);
    row->wall = pb_summarise(row->wall_ms, row->nsamples);
    if (row->nseeds <= 1) return 0;
    double wall_med[PB_MAX_SEEDS];
    size_t at = 0;
    for (int i = 0; i < row->nseeds; i++) {
        size_t n = row->seed_nsamples[i];
        if (n == 0 || at + n > row->nsamples) return -1;
        row->seed_median_ms[i] = pb_summarise(row->samples_ms + at, n).median;
        wall_med[i] = pb_summarise(row->wall_ms + at, n).median;
        at += n;
    }
    if (at != row->nsamples) return -1;
    pb_summary s = pb_summarise(row->seed_median_ms, (size_t)row->nseeds);
    row->ms.median = s.median;
    row->wall.median = pb_summarise(wall_med, (size_t)row->nseeds).median;
    row->seed_min_ms = s.min;
    row->seed_max_ms = s.max;
    row->seed_spread = s.median > 0 ? (s.max - s.min) / s.median : NAN;
    return 0;
}

#include "tests/multisplit/ms_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pb_params ms_params(uint32_t m, pb_bucket_kind kind, uint32_t shift, pb_ms_dist dist,
               uint32_t alpha)
{
    pb_params p;
    memset(&p, 0, sizeof p);
    p.v[PB_MS_P_BUCKETS] = m;
    p.v[PB_MS_P_BUCKET] = kind;
    p.v[PB_MS_P_SHIFT] = shift;
    p.v[PB_MS_P_DIST] = dist;
    p.v[PB_MS_P_ALPHA] = alpha;
    return p;
}

int ms_init(pb_ms_problem *p, uint64_t n, unsigned item, uint64_t seed, const pb_params *par)
{
    pb_point pt = {n, item, seed, par, 1};
    pb_err err;
    if (pb_ms_problem_init(p, &pt, &err) == 0) return 0;
    fprintf(stderr, "pb_ms_problem_init: %s\n", err.msg);
    return -1;
}

uint32_t *xalloc(uint64_t n)
{
    return malloc(n ? n * sizeof(uint32_t) : 4);
}

#include "families/tile/tile_problem.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

int pb_tile_point_check(pb_tile_op op, pb_tile_method method, const pb_point *pt, pb_err *err)
{
    long long m = pt->params->v[PB_TILE_P_M];
    if (!pb_tile_m_ok((unsigned)m))
        return pb_err_set(err, "tile: m = %lld; it must be 32, 64, 128 or 256", m);
    if (pt->item_bytes != 4)
        return pb_err_set(err, "tile: items are 4 bytes (item = u32), not %u", pt->item_bytes);
    uint64_t tile = 32 * (uint64_t)m;
    if (pt->n == 0 || pt->n % tile || pt->n > UINT32_MAX)
        return pb_err_set(err, "tile: n = %llu must be a positive multiple of 32 m = %llu below 2^32",
                          (unsigned long long)pt->n, (unsigned long long)tile);
    if (!pb_tile_method_applies(op, method))
        return pb_err_set(err, "tile: %s has no method '%s' (its passes are scatters already)",
                          pb_tile_op_name(op), pb_tile_method_name(method));
    return 0;
}

int pb_tile_problem_init(pb_tile_problem *p, pb_tile_op op, pb_tile_method method,
                         const pb_point *pt, pb_err *err)
{
    memset(p, 0, sizeof *p);
    if (pb_tile_point_check(op, method, pt, err)) return -1;
    p->op = op;
    p->method = method;
    p->pattern = (pb_tile_pattern)pt->params->v[PB_TILE_P_PATTERN];
    p->m = (unsigned)pt->params->v[PB_TILE_P_M];
    p->n = pt->n;
    p->tiles = pt->n / (32 * (uint64_t)p->m);
    p->seed = pt->seed;
    p->in = malloc(p->n * sizeof *p->in);
    if (!p->in) return pb_err_set(err, "tile: out of host memory for %llu items", (unsigned long long)p->n);
    const int64_t tiles = (int64_t)p->tiles;
    const uint64_t N = 32 * (uint64_t)p->m;
#pragma omp parallel for schedule(static) if (tiles > 16)
    for (int64_t t = 0; t < tiles; t++)
        pb_tile_gen(op, p->pattern, p->m, p->seed, (uint64_t)t, p->in + (uint64_t)t * N);
    return 0;
}

void pb_tile_problem_free(pb_tile_problem *p)
{
    free(p->in);
    memset(p, 0, sizeof *p);
}

int pb_tile_check(const pb_tile_problem *p, const uint32_t *out, pb_err *err)
{
    const int64_t tiles = (int64_t)p->tiles;
    const uint64_t N = 32 * (uint64_t)p->m;
    const bool exact = pb_tile_method_exact(p->op, p->method);
    int64_t first = -1;
    long where = -1;
#pragma omp parallel for schedule(static) if (tiles > 16)
    for (int64_t t = 0; t < tiles; t++) {
        long bad = pb_tile_compare(p->op, p->m, p->in + (uint64_t)t * N, out + (uint64_t)t * N,
                                   exact);
        if (bad != -1) {
#pragma omp critical(pb_tile_check)
            if (first < 0 || t < first) first = t, where = bad;
        }
    }
    if (first < 0) return 0;
    if (where == -2) return pb_err_set(err, "tile: out of host memory while checking");
    const uint64_t i = (uint64_t)first * N + (uint64_t)where;
    return pb_err_set(err, "%s/%s, tile %lld of %llu: item %ld (line %ld, lane %ld) is %08x, %s",
                      pb_tile_op_name(p->op), pb_tile_method_name(p->method), (long long)first,
                      (unsigned long long)p->tiles, where, where / 32, where % 32, out[i],
                      exact ? "not the reference's" : "not of the reference's label group");
}

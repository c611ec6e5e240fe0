#include "tests/topk/topk_helpers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_select.h"
#include "registry/registry.h"

const char *const tk_dist_values[NDV] = {
    "uniform", "narrow", "narrow128", "zipf",  "normal",     "equal",  "inf",     "nan",
    "relu",    "few:2",  "few:16",    "few:256", "int8", "masked:0.5", "sorted", "reversed",
    "masked:0", "masked:1", "few:1", "masked:0.001"};
const char *const tk_dtype_names[7] = {"f32", "u32", "i32", "f16", "bf16", "f64", "u64"};

void tk_params(const tk_cfg *c, pb_params *params)
{
    pb_params_defaults(pb_module_find("cpu-topk"), params);
    params->v[PB_TOPK_P_K] = (long long)c->k;
    params->v[PB_TOPK_P_ROWS] = (long long)c->rows;
    params->v[PB_TOPK_P_RAGGED] = c->ragged;
    params->v[PB_TOPK_P_MISALIGN] = c->misalign;
    params->v[PB_TOPK_P_LARGEST] = c->largest;
    pb_err err;
    if (pb_params_set(pb_module_find("cpu-topk"), params, "dist", tk_dist_values[c->dist], &err))
        fprintf(stderr, "dist=%s: %s\n", tk_dist_values[c->dist], err.msg);
    params->v[PB_TOPK_P_DTYPE] = c->dtype;
    params->v[PB_TOPK_P_TIES] = c->ties;
}

/* The problem of c, with sorted = yes if `sorted`. */
int tk_init_sorted(pb_topk_problem *p, const tk_cfg *c, int sorted)
{
    pb_params params;
    tk_params(c, &params);
    params.v[PB_TOPK_P_SORTED] = sorted;
    pb_point pt = {c->n, 4, c->seed, &params, 0};
    pb_err err;
    if (pb_topk_problem_init(p, &pt, &err)) {
        fprintf(stderr, "init n=%llu k=%llu rows=%llu: %s\n", (unsigned long long)c->n,
                (unsigned long long)c->k, (unsigned long long)c->rows, err.msg);
        return -1;
    }
    return 0;
}

int tk_init(pb_topk_problem *p, const tk_cfg *c) { return tk_init_sorted(p, c, 0); }

void tk_describe(const tk_cfg *c)
{
    fprintf(stderr,
            "  at n=%llu k=%llu rows=%llu ragged=%d misalign=%d largest=%d dist=%s dtype=%s\n",
            (unsigned long long)c->n, (unsigned long long)c->k, (unsigned long long)c->rows,
            c->ragged, c->misalign, c->largest, tk_dist_values[c->dist], tk_dtype_names[c->dtype]);
}

uint32_t tk_fbits(float f)
{
    return pb_topk_float_bits(f);
}

float tk_as_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

/* The value of a 16-bit float's bits (fp16 or bf16), exactly, as a double. */
double tk_half_value(uint32_t b, int dtype)
{
    int bf = dtype == PB_TOPK_BF16;
    unsigned mbits = bf ? 7 : 10, ebits = bf ? 8 : 5;
    unsigned e = (b >> mbits) & ((1u << ebits) - 1), m = b & ((1u << mbits) - 1);
    int bias = (1 << (ebits - 1)) - 1;
    double s = (b & 0x8000u) ? -1.0 : 1.0;
    if (e == (1u << ebits) - 1) return m ? NAN : s * INFINITY;
    if (e == 0) return s * ldexp((double)m, 1 - bias - (int)mbits);
    return s * ldexp((double)(m | (1u << mbits)), (int)e - bias - (int)mbits);
}

int tk_cmp_u64_desc(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a < b) - (a > b);
}

/* Every row's order keys (any dtype, widened to 64 bits) sorted best first
 * by qsort: the naive reference. */
uint64_t *tk_naive_sorted(const pb_topk_problem *p)
{
    uint64_t elems = 0;
    for (uint64_t r = 0; r < p->rows; r++) elems += pb_topk_row_len(p, r);
    uint64_t *s = malloc((elems ? elems : 1) * sizeof *s);
    uint64_t at = 0;
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r);
        for (uint64_t i = 0; i < len; i++)
            s[at + i] = pb_topk_problem_okey64(p, pb_topk_value_at(p, p->begin[r] + i));
        qsort(s + at, len, sizeof *s, tk_cmp_u64_desc);
        at += len;
    }
    return s;
}

/* The twin against the naive sort: row r's twin keys are the first
 * min(k, len) of its sorted keys, in order (the twin is in rank order), and
 * its indices point at its values. */
int tk_twin_matches(pb_topk_problem *p, const uint64_t *sorted)
{
    pb_err err;
    if (pb_topk_twin_answer(p, &err)) {
        fprintf(stderr, "twin: %s\n", err.msg);
        return 1;
    }
    uint64_t at = 0;
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r), o = p->out_off[r], m = p->out_off[r + 1] - o;
        if (m != (p->k < len ? p->k : len)) {
            fprintf(stderr, "row %llu: %llu results for k=%llu of %llu\n", (unsigned long long)r,
                    (unsigned long long)m, (unsigned long long)p->k, (unsigned long long)len);
            return 1;
        }
        for (uint64_t j = 0; j < m; j++) {
            uint32_t i = p->twin_idx[o + j];
            uint64_t v = pb_topk_out_value(p, pb_topk_twin_values(p), o + j);
            if (i >= len || pb_topk_value_at(p, p->begin[r] + i) != v ||
                pb_topk_problem_okey64(p, v) != sorted[at + j]) {
                fprintf(stderr, "row %llu result %llu: index %u value 0x%llx, sorted key 0x%llx\n",
                        (unsigned long long)r, (unsigned long long)j, i, (unsigned long long)v,
                        (unsigned long long)sorted[at + j]);
                return 1;
            }
        }
        at += len;
    }
    /* And the check accepts the twin's own answer (distinct indices). */
    if (pb_topk_check(p, pb_topk_twin_values(p), p->twin_idx, &err)) {
        fprintf(stderr, "check of the twin: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* k values to try at row length n: the family's list where valid, and
 * beyond n (the whole row). Returns how many. */
int tk_k_list(uint64_t n, uint64_t *ks)
{
    const uint64_t fixed[] = {1, 2, 31, 32, 33, 1000};
    int c = 0;
    for (int i = 0; i < 6; i++)
        if (fixed[i] <= n) ks[c++] = fixed[i];
    if (n >= 2) ks[c++] = n / 2;
    if (n >= 2) ks[c++] = n - 1;
    if (n >= 1) ks[c++] = n;
    ks[c++] = n + 3;
    return c;
}

int tk_dist_index(const char *v)
{
    for (int d = 0; d < NDV; d++)
        if (strcmp(tk_dist_values[d], v) == 0) return d;
    return -1;
}

double tk_as_f64(uint64_t b)
{
    double d;
    memcpy(&d, &b, 8);
    return d;
}

uint64_t tk_dbits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

/* omp-topk through its descriptor with `threads`, as the harness drives it:
 * two runs, then its verify (the family check). */
int tk_run_module_sorted(const tk_cfg *c, int threads, int sorted)
{
    const pb_module *m = pb_module_find("cpu-topk");
    pb_params params;
    tk_params(c, &params);
    params.v[PB_TOPK_P_SORTED] = sorted;
    params.v[pb_module_param_index(m, "threads")] = threads;
    pb_point pt = {c->n, 4, c->seed, &params, threads};
    void *state = NULL;
    pb_err err;
    const void *res;
    int rc = m->prepare(&pt, &state, &err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = m->run(state, s, &err);
    rc = rc || m->result(state, &res, &err) || m->verify(state, &err);
    if (rc) {
        fprintf(stderr, "cpu-topk threads=%d: %s\n", threads, err.msg);
        tk_describe(c);
    }
    if (state) m->release(state);
    return rc;
}

int tk_run_module(const tk_cfg *c, int threads) { return tk_run_module_sorted(c, threads, 0); }

/* Copies of the twin's answer to corrupt. */
void tk_twin_copy(const pb_topk_problem *p, uint32_t **v, uint32_t **ix)
{
    *v = malloc(p->out_total * 4);
    *ix = malloc(p->out_total * 4);
    memcpy(*v, p->twin_vals, p->out_total * 4);
    memcpy(*ix, p->twin_idx, p->out_total * 4);
}

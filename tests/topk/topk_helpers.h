/* What the top-k tests share (tests/topk/test_topk_*.c): a problem's
 * settings, the problem made from them, and the naive references. */
#ifndef PB_TESTS_TOPK_HELPERS_H
#define PB_TESTS_TOPK_HELPERS_H

#include <stdint.h>

#include "config/params.h"
#include "families/topk/topk_problem.h"

typedef struct tk_cfg {
    uint64_t n, k, rows;
    int ragged, misalign, largest, dist, dtype;
    uint64_t seed;
    int ties; /* pb_topk_ties; 0 (any) where a config leaves it out */
} tk_cfg;

/* Every distribution as a config writes it; the first 8 in enum order (so
 * PB_TOPK_UNIFORM .. PB_TOPK_NAN index them), then the parameterised and
 * ordered ones. A tk_cfg's dist indexes this list. */
enum { NDV = 20, NDV_SWEEP = 16 };
extern const char *const tk_dist_values[NDV];
extern const char *const tk_dtype_names[7];

void tk_params(const tk_cfg *c, pb_params *params);

/* The problem of c, with sorted = yes if `sorted`. */
int tk_init_sorted(pb_topk_problem *p, const tk_cfg *c, int sorted);

void tk_describe(const tk_cfg *c);

uint32_t tk_fbits(float f);

float tk_as_f32(uint32_t b);

/* The value of a 16-bit float's bits (fp16 or bf16), exactly, as a double. */
double tk_half_value(uint32_t b, int dtype);

int tk_cmp_u64_desc(const void *x, const void *y);

/* Every row's order keys (any dtype, widened to 64 bits) sorted best first
 * by qsort: the naive reference. */
uint64_t *tk_naive_sorted(const pb_topk_problem *p);

/* The twin against the naive sort: row r's twin keys are the first
 * min(k, len) of its sorted keys, in order (the twin is in rank order), and
 * its indices point at its values. */
int tk_twin_matches(pb_topk_problem *p, const uint64_t *sorted);

/* k values to try at row length n: the family's list where valid, and
 * beyond n (the whole row). Returns how many. */
int tk_k_list(uint64_t n, uint64_t *ks);

int tk_init(pb_topk_problem *p, const tk_cfg *c);

int tk_dist_index(const char *v);

double tk_as_f64(uint64_t b);

uint64_t tk_dbits(double d);

/* omp-topk through its descriptor with `threads`, as the harness drives it:
 * two runs, then its verify (the family check). */
int tk_run_module_sorted(const tk_cfg *c, int threads, int sorted);

int tk_run_module(const tk_cfg *c, int threads);

/* Copies of the twin's answer to corrupt. */
void tk_twin_copy(const pb_topk_problem *p, uint32_t **v, uint32_t **ix);

#endif

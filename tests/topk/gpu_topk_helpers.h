/* What the GPU top-k tests share (tests/topk/test_gpu_topk*.c): the
 * module cases, the points of a sweep, and one module run at one point as
 * the harness drives it. */
#ifndef PB_TESTS_GPU_TOPK_HELPERS_H
#define PB_TESTS_GPU_TOPK_HELPERS_H

#include <stdbool.h>
#include <stdint.h>

#include "config/params.h"
#include "core/module.h"

/* A module and one parameter set apart from the defaults (name = value as
 * a config would write it). */
typedef struct tk_case {
    const char *module;
    const char *param, *value;
} tk_case;

typedef struct tk_shape {
    uint64_t rows;
    int ragged, misalign;
} tk_shape;

/* One point of a sweep: everything but the module. */
typedef struct tk_point {
    uint64_t n, k;
    tk_shape shape;
    int dist, largest, dtype;
} tk_point;

typedef struct tk_tally {
    long runs;
    int failures;
} tk_tally;

/* gpu_topk_twin runs in TWIN_PARTS tests, part p taking the cases ci with
 * ci % TWIN_PARTS == p, so that each part fits one 600 s call on a lent
 * GPU. Every other test takes every case. */
enum { NCASES = 16, TWIN_PARTS = 3, NSHAPES = 4, NDISTS = 16, MAX_FAILURES = 20 };

extern const tk_case gtk_cases[NCASES];
extern int gtk_twin_part; /* -1: every case */
/* Shapes 0-1 are single rows, 2-3 batches. */
extern const tk_shape gtk_shapes[NSHAPES];
extern const char *const gtk_dist_names[NDISTS];
extern const char *const gtk_dtype_names[7];
/* One more parameter every run takes (name = value), or none: the
 * cluster test's way to run a case with two parameters set. */
extern const char *gtk_extra_name, *gtk_extra_value;

int gtk_need_gpu(void);

double gtk_now_s(void);

/* PB_TOPK_CASES=LIST (comma-separated `module` or `module:param=value`)
 * runs only the twin cases named, in whichever part holds them: a focused
 * run on a lent GPU, whose minutes are few. */
bool gtk_case_wanted(const tk_case *c);

bool gtk_in_part(int ci);

int gtk_dist_named(const char *name);

/* The value type a hashed point takes from three bits: u32, i32, fp16 and
 * bf16 an eighth of the points each, fp32 the rest. */
int gtk_dtype(uint32_t bits);

/* The value type of case c's hashed point: tk_dtype's, and for
 * sort-and-choose fp64 and u64 in place of a quarter of fp32's points
 * each, from the two bits above tk_dtype's. radik's 64-bit keys have
 * their own sweeps (gpu_topk_wide, gpu_topk_wide_switches), so that the
 * twin parts keep their time. */
int gtk_dtype_of(const tk_case *c, uint32_t bits);

/* A fixed scramble of a point's coordinates (lowbias32), for the tiers that
 * pick some dimensions instead of running the full product. */
uint32_t gtk_hash(uint32_t x);

uint32_t gtk_coords(uint32_t salt, int ci, int dist, int ki, int si);

/* k values at row length n: the family's list where >= 1, without repeats
 * (values beyond n stay: they select whole rows). Returns how many. */
int gtk_k_list(uint64_t n, uint64_t *ks);

void gtk_describe(const pb_module *mod, const tk_case *c, const tk_point *q, const char *what,
                     const char *msg);

int gtk_set_params(const pb_module *mod, const tk_case *c, const tk_point *q, pb_params *p,
                      pb_err *err);

uint64_t gtk_seed(const tk_point *q);

/* One module at one point, as the harness drives it: prepare, two runs,
 * verify, release. Returns 1 on failure (printed). */
int gtk_one(const pb_module *mod, const tk_case *c, const tk_point *q);

int gtk_find_cases(const pb_module **mods);

/* Runs one point for one case; false once there are too many failures. */
bool gtk_tally(tk_tally *t, const pb_module *mod, const tk_case *c, const tk_point *q);

#ifdef PB_HAVE_CUDA
int gtk_cmp_u32(const void *x, const void *y);

/* A module's output after a point: st (release it), the values, indices and
 * row offsets pb_gpu_topk_output gives. */
typedef struct tk_output {
    void *st;
    const void *v; /* in the dtype's words */
    const uint32_t *ix;
    const uint64_t *off;
    uint64_t rows;
} tk_output;

/* Case c at point q with one more parameter (name = value): prepared, run
 * twice (two samples), verified, its output fetched and its length checked
 * against outs. Nonzero with err set on failure; o->st is set whenever
 * prepare made a state, failed or not. */
int gtk_run_output(const pb_module *mod, const tk_case *c, const tk_point *q, const char *name,
                   const char *value, uint64_t outs, tk_output *o, pb_err *err);
#endif

#endif

/* The paper's three problems on a w x n matrix, their input patterns and
 * their checks, and every algorithm of the simulator behind one table, so
 * the tests and the growth table (dmm_growth.h) run them alike.
 *
 * Words: sorting, the key; partition, label << 32 | input position (label
 * in [w], exactly n words of each); permutation, (i * n + j) << 32 | input
 * position for destination (row i, column j). Conversion: the word's own
 * row-major index, which R2C must move to its column-major place. */
#ifndef PB_DMM_PROBLEM_H
#define PB_DMM_PROBLEM_H

#include "core/err.h"
#include "dmm/dmm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_dmm_problem {
    PB_DMM_SORT,
    PB_DMM_PARTITION,
    PB_DMM_PERMUTE,
    PB_DMM_CONVERT,
} pb_dmm_problem;

/* Input patterns. For partition and permutation the adversarial ones are
 * those of the naive method (each processor storing its word of column c
 * straight to its destination row in step c):
 *   uniform  random (sorting: random 32-bit keys; partition: a random
 *            arrangement of the labels; permutation: a random one);
 *   onebank  every column bound for as few rows as possible: the words in
 *            column-major order are in row-major destination order, so a
 *            step's w stores go to one row when n >= w (n-way when w > n);
 *            sorting: a sorted input in column-major order;
 *   strided  each column bound for w/4 rows, 4 stores a row (needs 4 | n);
 *   sorted   already in place (no conflicts for the naive method);
 *   zeroone  sorting: random 0/1 keys (the 0-1 principle's inputs);
 *            otherwise like uniform;
 *   reversed sorting: descending in row-major order; otherwise uniform. */
typedef enum pb_dmm_pattern {
    PB_DMM_UNIFORM,
    PB_DMM_ONEBANK,
    PB_DMM_STRIDED,
    PB_DMM_SORTED,
    PB_DMM_ZEROONE,
    PB_DMM_REVERSED,
    PB_DMM_NPATTERNS
} pb_dmm_pattern;

const char *pb_dmm_pattern_name(pb_dmm_pattern p);

typedef struct pb_dmm_result {
    pb_dmm_stats st;
    bool correct;
    unsigned rounds; /* the colouring permutation's rounds; 0 otherwise */
} pb_dmm_result;

typedef struct pb_dmm_algo {
    const char *name;
    pb_dmm_problem problem;
    bool conflict_free; /* what the paper claims; the tests hold it to it */
    const char *bound;  /* the paper's step bound, for the table */
    /* NULL when the algorithm applies at (w, n), else why not. */
    const char *(*applies)(unsigned w, size_t n);
    /* The bound's value at (w, n) (constants dropped), for fitting. */
    double (*bound_fn)(unsigned w, size_t n);
} pb_dmm_algo;

size_t pb_dmm_algo_count(void);
const pb_dmm_algo *pb_dmm_algo_at(size_t i);
const pb_dmm_algo *pb_dmm_algo_find(const char *name);

/* The input of (problem, pattern, seed): in[r * n + c] is the word at
 * (row r, column c). */
void pb_dmm_make_input(pb_dmm_problem prob, pb_dmm_pattern pat, unsigned w, size_t n,
                       uint64_t seed, uint64_t *in);
/* Whether the array at line `base` of d holds the problem's answer for
 * input `in` (sorting: row-major sorted; partition: row i holds the words
 * labelled i; permutation: every word at its destination; conversion: in
 * column-major order). */
bool pb_dmm_check(pb_dmm_problem prob, unsigned w, size_t n, const uint64_t *in, pb_dmm *d,
                  size_t base);

/* Builds a machine, fills the input (pattern, seed), runs the algorithm,
 * checks the output. Returns 0 (res filled, res->correct telling whether
 * the output was right), or -1 with the reason (not applicable, out of
 * memory). */
int pb_dmm_run(const pb_dmm_algo *a, unsigned w, size_t n, pb_dmm_pattern pat, uint64_t seed,
               pb_dmm_result *res, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

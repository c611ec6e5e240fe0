/* N-gram TVD: which items follow which. Each sample permutation of N items
 * shows N - n + 1 windows of n consecutive items (n = 2: bigrams); the
 * metric is the TVD between the empirical distribution of these windows
 * over all S samples and the uniform one over the K = N!/(N-n)! ordered
 * n-tuples of distinct items, every tuple counting, unseen ones included:
 *
 *   T = 1/2 sum_t |C_t / M - 1/K|,  M = S (N - n + 1)
 *
 * These are the cells of stats/tvd_null.h with q = (N - n + 1) / K: a
 * tuple shows at most once in a permutation, so C_t is Binomial(S, q).
 * Under a uniform shuffle two windows of one permutation either overlap
 * as a shift (the later one's first n - s items are the earlier one's
 * last) or share no item, so the cells correlated with a given tuple t are
 * of three kinds: for each shift s = 1 .. n-1 and side, falling(N-n, s)
 * tuples that continue t into one run of n + s (probability
 * (N-n-s+1)!/N!), falling(N-n, n) tuples disjoint from t (two blocks:
 * (N-2n+2)!/N!), and every other tuple, which cannot show with t. These
 * give the exact mean and noise of T (tvd_null.h).
 *
 * Counts live in a hash table of the tuples seen (at most min(K, M) of
 * them), each tuple a mixed-radix key in base N. Where M is much smaller
 * than K almost every count is 0 or 1 and T is 1 - (tuples seen) / K: the
 * metric then counts repeated windows, a birthday test on n-grams. */
#ifndef PB_STATS_NGRAM_H
#define PB_STATS_NGRAM_H

#include <stdint.h>

#include "core/err.h"
#include "stats/tvd_null.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_NGRAM_MIN_ORDER 2
#define PB_NGRAM_MAX_ORDER 4
/* Distinct tuples a run may need to hold (12 bytes each, at most half the
 * table full): 384 MiB at most. */
#define PB_NGRAM_MAX_CELLS (UINT64_C(1) << 24)

typedef struct pb_ngram {
    uint32_t n;     /* items */
    unsigned order; /* window length */
    uint64_t *keys; /* key + 1; 0: empty slot */
    uint32_t *counts;
    uint64_t capacity, used;
    uint64_t samples, invalid;
    unsigned char *seen;
} pb_ngram;

/* Whether the order-`order` metric holds at n with `samples` samples (the
 * tuples fit in a key and the distinct ones in PB_NGRAM_MAX_CELLS). */
int pb_ngram_applicable(uint32_t n, unsigned order, uint64_t samples, pb_err *err);
/* K = N!/(N-order)!, as a long double (it may exceed 2^64). */
long double pb_ngram_cells(uint32_t n, unsigned order);
/* The pair types of a tuple (tvd_null.h): at most 2 (order - 1) + 2. */
size_t pb_ngram_pair_types(uint32_t n, unsigned order, pb_pair_type *types);
pb_tvd_null pb_ngram_null(uint32_t n, unsigned order, uint64_t samples);

int pb_ngram_init(pb_ngram *g, uint32_t n, unsigned order, uint64_t samples, pb_err *err);
int pb_ngram_add(pb_ngram *g, const uint32_t *perms, uint64_t count, pb_err *err);
double pb_ngram_tvd(const pb_ngram *g);
void pb_ngram_result(const pb_ngram *g, double alpha, pb_test_result *r);
void pb_ngram_free(pb_ngram *g);

#ifdef __cplusplus
}
#endif

#endif

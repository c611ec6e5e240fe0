/* The outcome of one statistical test over sample permutations, and the
 * verdict the quality gate draws from it.
 *
 *   FAIL     p < 1e-6, or the statistic is outside the acceptance region at
 *            the configured alpha (for a level-alpha test: p < alpha)
 *   SUSPECT  otherwise, p < 0.001 (only possible when alpha < 0.001)
 *   PASS     otherwise */
#ifndef PB_STATS_VERDICT_H
#define PB_STATS_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_SUSPECT_P 1e-3
#define PB_FAIL_P 1e-6

typedef enum pb_verdict { PB_VERDICT_PASS, PB_VERDICT_SUSPECT, PB_VERDICT_FAIL } pb_verdict;

typedef struct pb_test_result {
    uint64_t samples;   /* permutations the test saw */
    uint64_t invalid;   /* of them, not permutations of [0, n) (any makes it FAIL) */
    double statistic;   /* chi-square; |MMD^2|; repeated permutations */
    double threshold;   /* the acceptance region is statistic < threshold
                           (duplicates: statistic < threshold, an integer) */
    double p_value;     /* P(statistic at least this extreme | uniform) */
    double expected;    /* chi-square: count per cell; MMD: E[K]; duplicates: E[repeats] */
    double aux;         /* chi-square: degrees of freedom; MMD: Var[K]; duplicates: cells (n!) */
    bool reject;        /* outside the acceptance region at alpha */
    pb_verdict verdict;
} pb_test_result;

pb_verdict pb_verdict_of(double p_value, bool reject);
/* Records `invalid` in r; any invalid sample (not a permutation of [0, n))
 * rejects and fails the test whatever its statistic says. */
void pb_verdict_invalid(pb_test_result *r, uint64_t invalid);
const char *pb_verdict_name(pb_verdict v);

#ifdef __cplusplus
}
#endif

#endif

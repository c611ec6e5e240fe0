/* Predictability: how well the next item of a shuffled sequence is
 * predicted from the one before it. This stands in for the POV-shuffle
 * README's LSTM (permbench has no deep-learning stack in C; docs/pov.md
 * says why this is a fair stand-in and where it is weaker).
 *
 * The first floor(S/2) samples are training episodes: a transition table
 * counts how often the item with original index b follows the one with
 * original index a. The predictor g(a) is the most frequent successor of
 * a (ties and unseen rows: the smallest b != a, never a itself). On every
 * adjacent pair of the remaining S_h held-out episodes it predicts the
 * successor; the statistic is the accuracy H / (S_h (N - 1)).
 *
 * Null distribution: under a uniform shuffle the held-out episodes are
 * independent of the training ones, so g is a fixed map with g(a) != a,
 * and in any permutation P(next of position p is g(prev)) = 1/(N - 1)
 * exactly: the expected accuracy is 1/(N - 1) (not 1/N: an item never
 * follows itself). Per episode, H_pi counts which of the N "g-edges"
 * (a, g(a)) are adjacent, with the bigram covariances of stats/ngram.h:
 * Var X_e = (1/N)(1 - 1/N), Cov = -1/N^2 for edges that cannot both hold
 * (g(a) = g(b), or a 2-cycle g(g(a)) = a), 1/(N^2 (N-1)) for all others.
 * So Var H = S_h [N v + sum over ordered pairs of edges of Cov], exactly,
 * and H (a sum of S_h independent episodes) is taken as normal; one-sided:
 * a biased shuffle is more predictable. */
#ifndef PB_STATS_PREDICTOR_H
#define PB_STATS_PREDICTOR_H

#include <stdint.h>

#include "core/err.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_PREDICTOR_MIN_N 3
/* The N^2 table of 4-byte counts: 64 MiB at the largest N. */
#define PB_PREDICTOR_MAX_N 4096

typedef struct pb_predictor {
    uint32_t n;
    uint64_t train;    /* episodes that train: the first floor(samples / 2) */
    uint64_t seen_all; /* samples added so far */
    uint32_t *table;   /* [prev * n + next] */
    uint32_t *g;       /* the prediction of each item, once trained */
    uint64_t held, hits, invalid;
    double var_episode; /* Var H_pi under the null, for this g */
    unsigned char *seen;
} pb_predictor;

int pb_predictor_applicable(uint32_t n, uint64_t samples, pb_err *err);
int pb_predictor_init(pb_predictor *t, uint32_t n, uint64_t samples, pb_err *err);
int pb_predictor_add(pb_predictor *t, const uint32_t *perms, uint64_t count, pb_err *err);
/* The null variance of one held-out episode's hits for a prediction map
 * g (g[a] != a), from its conflicting edge pairs. */
double pb_predictor_episode_var(const uint32_t *g, uint32_t n);
void pb_predictor_result(const pb_predictor *t, double alpha, pb_test_result *r);
void pb_predictor_free(pb_predictor *t);

#ifdef __cplusplus
}
#endif

#endif

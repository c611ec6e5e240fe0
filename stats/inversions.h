/* Inversions of a permutation, inv(p) = #{i < j : p[i] > p[j]}, the
 * Kendall distance from the identity that the Mallows kernel measures. */
#ifndef PB_STATS_INVERSIONS_H
#define PB_STATS_INVERSIONS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_INVERSIONS_INVALID UINT64_MAX

/* Scratch bytes pb_inversions needs for permutations of length n. */
uint64_t pb_inversions_scratch_bytes(uint32_t n);

/* inv(perm[0..n)) in O(n log n) (a Fenwick tree over the values; plain
 * O(n^2) counting below 32 items), or PB_INVERSIONS_INVALID when perm is
 * not a permutation of [0, n). `scratch` holds pb_inversions_scratch_bytes(n)
 * bytes, suitably aligned for uint32_t; its contents are overwritten. */
uint64_t pb_inversions(const uint32_t *perm, uint32_t n, void *scratch);

/* The O(n^2) definition, for the tests. */
uint64_t pb_inversions_naive(const uint32_t *perm, uint32_t n);

/* Whether perm[0..n) is a permutation of [0, n); `seen` holds n bytes. */
int pb_is_permutation(const uint32_t *perm, uint32_t n, unsigned char *seen);

#ifdef __cplusplus
}
#endif

#endif

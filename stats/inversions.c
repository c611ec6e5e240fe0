#include "stats/inversions.h"

#include <string.h>

uint64_t pb_inversions_scratch_bytes(uint32_t n) { return ((uint64_t)n + 1) * 4 + n; }

uint64_t pb_inversions_naive(const uint32_t *perm, uint32_t n)
{
    uint64_t inv = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = i + 1; j < n; j++) inv += perm[i] > perm[j];
    return inv;
}

int pb_is_permutation(const uint32_t *perm, uint32_t n, unsigned char *seen)
{
    memset(seen, 0, n);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = perm[i];
        if (v >= n || seen[v]) return 0;
        seen[v] = 1;
    }
    return 1;
}

uint64_t pb_inversions(const uint32_t *perm, uint32_t n, void *scratch)
{
    if (n < 32) {
        /* Short permutations: a bit set of seen values checks them. */
        uint32_t seen = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (perm[i] >= n || (seen >> perm[i] & 1u)) return PB_INVERSIONS_INVALID;
            seen |= 1u << perm[i];
        }
        return pb_inversions_naive(perm, n);
    }
    uint32_t *tree = scratch; /* tree[1..n]: Fenwick tree of counts over values 1..n */
    unsigned char *seen = (unsigned char *)(tree + (uint64_t)n + 1);
    memset(tree, 0, ((uint64_t)n + 1) * sizeof *tree);
    memset(seen, 0, n);
    uint64_t inv = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = perm[i];
        if (v >= n || seen[v]) return PB_INVERSIONS_INVALID;
        seen[v] = 1;
        /* Earlier values not above v: prefix count over 1..v+1. */
        uint32_t below = 0;
        for (uint64_t k = (uint64_t)v + 1; k > 0; k &= k - 1) below += tree[k];
        inv += i - below;
        for (uint64_t k = (uint64_t)v + 1; k <= n; k += k & (0 - k)) tree[k]++;
    }
    return inv;
}

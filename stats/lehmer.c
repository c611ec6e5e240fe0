#include "stats/lehmer.h"

uint64_t pb_factorial(unsigned n)
{
    uint64_t f = 1;
    for (unsigned i = 2; i <= n && i <= PB_LEHMER_MAX_N; i++) f *= i;
    return f;
}

uint64_t pb_lehmer_rank(const uint32_t *perm, unsigned n)
{
    if (n > PB_LEHMER_MAX_N) return PB_LEHMER_INVALID;
    uint32_t seen = 0;
    uint64_t rank = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t v = perm[i];
        if (v >= n || (seen >> v & 1u)) return PB_LEHMER_INVALID;
        seen |= 1u << v;
        /* c_i = values below v not yet seen = v - (seen values below v). */
        unsigned c = v - (unsigned)__builtin_popcount(seen & ((1u << v) - 1u));
        rank = rank * (n - i) + c; /* Horner form of sum c_i (n-1-i)! */
    }
    return rank;
}

void pb_lehmer_unrank(uint64_t rank, unsigned n, uint32_t *out)
{
    uint32_t digit[PB_LEHMER_MAX_N];
    /* Digits from the last position (radix 1) to the first (radix n). */
    for (unsigned i = n; i-- > 0;) {
        uint64_t radix = n - i;
        digit[i] = (uint32_t)(rank % radix);
        rank /= radix;
    }
    uint32_t used = 0;
    for (unsigned i = 0; i < n; i++) {
        /* The digit[i]-th smallest value not used yet. */
        uint32_t k = digit[i], v = 0;
        for (;; v++)
            if (!(used >> v & 1u) && k-- == 0) break;
        used |= 1u << v;
        out[i] = v;
    }
}

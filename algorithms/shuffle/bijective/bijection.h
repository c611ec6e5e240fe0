/* The bijections of the bijective shuffle (Mitchell et al. 2024, section 3),
 * for a power-of-two domain [0, 2^b), usable on the host (the C twins, the
 * CPU shuffles) and in CUDA kernels alike:
 *
 *   VariablePhilox: the paper's Listing 1. A Feistel network whose halves
 *   are floor(b/2) and ceil(b/2) bits; each round multiplies the left half by
 *   Philox's constant, takes the high word (xor the round key and the right
 *   half) as the new left half, and the low bits of the product, with the
 *   odd bit of the right half shifted in, as the new right half.
 *
 *   LCG: y = (a*x + c) mod 2^b with a odd.
 *
 * Round keys and (a, c) come from the seed through Random123's Philox, one
 * counter stream per permutation, so permutation k of a seed is reproducible
 * on either side. Both have inverses, which the tests use to spot-check
 * domains too large to enumerate. */
#ifndef PB_BIJECTION_H
#define PB_BIJECTION_H

#include <stdint.h>

#include <Random123/philox.h>

#ifdef __CUDACC__
#define PB_BIJ_HD static __host__ __device__ __forceinline__
#else
#define PB_BIJ_HD static inline
#endif

#define PB_VARPHILOX_MAX_ROUNDS 64
#define PB_VARPHILOX_M0 UINT64_C(0xD2B74407B1CE6E93)

typedef struct pb_varphilox {
    uint32_t left_bits, right_bits; /* floor(b/2), ceil(b/2) */
    uint32_t left_mask, right_mask;
    int rounds;
    uint32_t key[PB_VARPHILOX_MAX_ROUNDS];
} pb_varphilox;

typedef struct pb_lcg {
    uint64_t a, c, mask; /* mask = 2^b - 1 */
} pb_lcg;

/* 32-bit words of Philox(key = seed, counter = (block, 0, stream)): the
 * parameter stream of permutation `stream` of `seed`. */
PB_BIJ_HD philox4x32_ctr_t pb_bij_words(uint64_t seed, uint64_t stream, uint32_t block)
{
    philox4x32_key_t k = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
    philox4x32_ctr_t c = {{block, 0, (uint32_t)stream, (uint32_t)(stream >> 32)}};
    return philox4x32(c, k);
}

PB_BIJ_HD void pb_varphilox_init(pb_varphilox *f, unsigned bits, int rounds, uint64_t seed,
                                 uint64_t stream)
{
    f->left_bits = bits / 2;
    f->right_bits = bits - f->left_bits;
    f->left_mask = (uint32_t)((UINT64_C(1) << f->left_bits) - 1);
    f->right_mask = (uint32_t)((UINT64_C(1) << f->right_bits) - 1);
    f->rounds = rounds;
    for (int i = 0; i < rounds; i += 4) {
        philox4x32_ctr_t w = pb_bij_words(seed, stream, (uint32_t)(i / 4));
        for (int j = 0; j < 4 && i + j < rounds; j++) f->key[i + j] = w.v[j];
    }
}

PB_BIJ_HD uint64_t pb_varphilox_apply(const pb_varphilox *f, uint64_t x)
{
    uint32_t l = (uint32_t)(x >> f->right_bits), r = (uint32_t)(x & f->right_mask);
    uint32_t shift = f->right_bits - f->left_bits; /* 0 or 1: the odd bit */
    for (int i = 0; i < f->rounds; i++) {
        uint64_t p = PB_VARPHILOX_M0 * l;
        uint32_t hi = (uint32_t)(p >> 32), lo = (uint32_t)p;
        lo = (lo << shift) | (r >> f->left_bits);
        l = (hi ^ f->key[i] ^ r) & f->left_mask;
        r = lo & f->right_mask;
    }
    return (uint64_t)l << f->right_bits | r;
}

/* Inverse modulo 2^64 of an odd number (Newton's iteration). */
PB_BIJ_HD uint64_t pb_inverse_odd64(uint64_t a)
{
    uint64_t x = a;
    for (int i = 0; i < 5; i++) x *= 2 - a * x;
    return x;
}

PB_BIJ_HD uint64_t pb_varphilox_invert(const pb_varphilox *f, uint64_t y)
{
    uint32_t l = (uint32_t)(y >> f->right_bits), r = (uint32_t)(y & f->right_mask);
    uint32_t shift = f->right_bits - f->left_bits;
    uint32_t m0_inv = (uint32_t)pb_inverse_odd64(PB_VARPHILOX_M0);
    for (int i = f->rounds - 1; i >= 0; i--) {
        /* r = (B(L) << shift | odd bit) ; l = F(L) ^ key ^ R (low bits) */
        uint32_t odd = r & ((1u << shift) - 1);
        uint32_t b = r >> shift; /* low left_bits of M0 * L */
        uint32_t prev_l = (b * m0_inv) & f->left_mask;
        uint32_t hi = (uint32_t)((PB_VARPHILOX_M0 * prev_l) >> 32);
        uint32_t prev_r = ((l ^ hi ^ f->key[i]) & f->left_mask) | odd << f->left_bits;
        l = prev_l;
        r = prev_r;
    }
    return (uint64_t)l << f->right_bits | r;
}

PB_BIJ_HD void pb_lcg_init(pb_lcg *f, unsigned bits, uint64_t seed, uint64_t stream)
{
    philox4x32_ctr_t w = pb_bij_words(seed, stream, 0);
    f->mask = bits >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits) - 1;
    f->a = ((uint64_t)w.v[0] << 32 | w.v[1]) | 1; /* odd: coprime to 2^b */
    f->c = (uint64_t)w.v[2] << 32 | w.v[3];
}

PB_BIJ_HD uint64_t pb_lcg_apply(const pb_lcg *f, uint64_t x) { return (f->a * x + f->c) & f->mask; }

PB_BIJ_HD uint64_t pb_lcg_invert(const pb_lcg *f, uint64_t y)
{
    return ((y - f->c) * pb_inverse_odd64(f->a)) & f->mask;
}

/* Bits of the smallest power-of-two domain holding m items (m >= 1). */
PB_BIJ_HD unsigned pb_domain_bits(uint64_t m)
{
    unsigned b = 0;
    while (b < 63 && (UINT64_C(1) << b) < m) b++;
    return b;
}

#endif

/* Rao-Sandelius's leaves (algorithms/shuffle/rao_sandelius/cpu_rao_sandelius.c): the
 * Fisher-Yates of families/shuffle/shuffle_leaf.h, in place (Durstenfeld)
 * or inside-out from the scratch, drawing the same words of the same
 * Philox stream in the same order, so a leaf's permutation is the one
 * pb_fisher_yates_u32/u64 or pb_fisher_yates_inside_out_u32/u64 make of a
 * stream opened at the leaf's position, bit for bit. Only how the words are
 * made differs.
 *
 * pb_rng makes one Philox4x32-10 block at a time (ten rounds, each two
 * dependent 32x32->64 multiplies) and hands its words out one by one, with
 * a check per word. Here 8 blocks of consecutive counters are made side by
 * side (rs_philox_fill): each of a block's four words in the low half of a
 * 64-bit lane, so that one pmuludq multiplies a word of 4 (AVX2) or 8
 * (AVX-512F) blocks; the high halves carry junk that no low half ever sees
 * (the multiplies read low halves only, the xors are bitwise), and the
 * lanes are interleaved back into blocks at the end. A copy for each ISA is
 * compiled with its target attribute and the best one the CPU runs is
 * picked at run time (rs_philox_pick); elsewhere Random123's philox4x32
 * block by block. All make what philox4x32() makes of the same key (the
 * seed) and counters (sample : block position, as pb_cs_block_quiet): the
 * same words, so the same output on every path (tests/test_cpu_shuffles.c compares each path
 * with shuffle_leaf.h's leaves).
 *
 * A draw is Lemire's, exactly as core/rng.h's pb_rng_below32: one word
 * times the range, the high half the result, rejected (the next word
 * taken) while the low half is below 2^32 mod range; so each j is exactly
 * uniform and the leaf's permutation exactly uniform given uniform words.
 * The leaf runs through a buffer of words without a bound check per draw;
 * a rejection (about range / 2^32 likely) goes to rs_draws_reject, out of
 * line.
 *
 * The buffer (128 words) is refilled when the draws have used it, with no
 * more batches of 8 blocks than the draws still to come need, so a leaf
 * makes at most 7 blocks it does not use: rs_draws_close reports every
 * block made (what the stream's counter went through), far inside the
 * leaf's budget of 2^14 blocks an item (algorithms/shuffle/cpu_streams.h).
 *
 * A refill may also prefetch the lines of the leaf to come
 * (rs_draws_prefetch_next), as many as hold the items its words will draw
 * for, so the next leaf's items come from memory while this one is
 * shuffled. */
#ifndef PB_RS_LEAF_H
#define PB_RS_LEAF_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "families/shuffle/shuffle_leaf.h"

#define RS_PHILOX_LANES 8                    /* blocks made side by side */
#define RS_DRAW_BLOCKS (4 * RS_PHILOX_LANES) /* blocks a fill makes at most */
#define RS_DRAW_WORDS (4 * RS_DRAW_BLOCKS)   /* the buffer: 128 words */

/* Writes the 4 * 8 * batches words of blocks pos, pos + 1, ... of
 * (seed, sample)'s stream: out[4 b + w] = word w of block pos + b. */
typedef void (*rs_philox_fill_fn)(uint32_t *restrict out, uint64_t seed, uint64_t sample,
                                  uint64_t pos, unsigned batches);

/* Plain C: Random123's philox4x32 itself, block by block
 * (cpu_streams.h's pb_cs_block_quiet: the counter and key every path must
 * reproduce). */
static void rs_philox_fill_generic(uint32_t *restrict out, uint64_t seed, uint64_t sample,
                                   uint64_t pos, unsigned batches)
{
    for (unsigned b = 0; b < batches * RS_PHILOX_LANES; b++, out += 4) {
        philox4x32_ctr_t x = pb_cs_block_quiet(seed, sample, pos + b);
        memcpy(out, x.v, sizeof x.v);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
#define RS_PHILOX_X86 1
#include <immintrin.h>

/* The same rounds on vectors of 64-bit lanes: pmuludq multiplies their low
 * halves, a swap of the halves (pshufd) brings a product's high half down,
 * and the four words of a lane are interleaved into its block's 16 bytes
 * at the end. The round keys and constants, broadcast: */
#define RS_PHILOX_CONSTS(V, SET1)                                                                  \
    V key0[10], key1[10];                                                                          \
    {                                                                                              \
        uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);                                 \
        for (unsigned r = 0; r < 10; r++, k0 += PHILOX_W32_0, k1 += PHILOX_W32_1) {                \
            key0[r] = SET1(k0);                                                                    \
            key1[r] = SET1(k1);                                                                    \
        }                                                                                          \
    }                                                                                              \
    const V m0 = SET1(PHILOX_M4x32_0), m1 = SET1(PHILOX_M4x32_1);                                  \
    const V s0 = SET1((uint32_t)sample), s1 = SET1((uint32_t)(sample >> 32))

__attribute__((target("avx2"))) static void
rs_philox_fill_avx2(uint32_t *restrict out, uint64_t seed, uint64_t sample, uint64_t pos,
                    unsigned batches)
{
#define RS_SET1_256(x) _mm256_set1_epi64x((long long)(x))
#define RS_SWAP_256(x) _mm256_shuffle_epi32(x, _MM_SHUFFLE(2, 3, 0, 1))
    enum { G = RS_PHILOX_LANES / 4 };
    RS_PHILOX_CONSTS(__m256i, RS_SET1_256);
    const __m256i step = _mm256_setr_epi64x(0, 1, 2, 3);
    for (unsigned bt = 0; bt < batches; bt++, pos += RS_PHILOX_LANES, out += 4 * RS_PHILOX_LANES) {
        __m256i x0[G], x1[G], x2[G], x3[G];
        for (unsigned g = 0; g < G; g++) {
            __m256i c = _mm256_add_epi64(RS_SET1_256(pos + 4 * g), step);
            x0[g] = c, x1[g] = _mm256_srli_epi64(c, 32), x2[g] = s0, x3[g] = s1;
        }
#pragma GCC unroll 10
        for (unsigned r = 0; r < 10; r++)
            for (unsigned g = 0; g < G; g++) {
                __m256i p0 = _mm256_mul_epu32(x0[g], m0), p1 = _mm256_mul_epu32(x2[g], m1);
                x0[g] = _mm256_xor_si256(_mm256_xor_si256(RS_SWAP_256(p1), x1[g]), key0[r]);
                x2[g] = _mm256_xor_si256(_mm256_xor_si256(RS_SWAP_256(p0), x3[g]), key1[r]);
                x1[g] = p1, x3[g] = p0;
            }
        /* lane l: (w0, w1) and (w2, w3) as 64-bit pairs, then blocks 0 2 / 1 3
         * by unpacking, then in order by 128-bit halves */
        for (unsigned g = 0; g < G; g++) {
            __m256i x01 = _mm256_blend_epi32(x0[g], _mm256_slli_epi64(x1[g], 32), 0xAA);
            __m256i x23 = _mm256_blend_epi32(x2[g], _mm256_slli_epi64(x3[g], 32), 0xAA);
            __m256i l = _mm256_unpacklo_epi64(x01, x23), h = _mm256_unpackhi_epi64(x01, x23);
            _mm256_storeu_si256((__m256i *)out + 2 * g, _mm256_permute2x128_si256(l, h, 0x20));
            _mm256_storeu_si256((__m256i *)out + 2 * g + 1, _mm256_permute2x128_si256(l, h, 0x31));
        }
    }
#undef RS_SET1_256
#undef RS_SWAP_256
}

__attribute__((target("avx512f"))) static void
rs_philox_fill_avx512(uint32_t *restrict out, uint64_t seed, uint64_t sample, uint64_t pos,
                      unsigned batches)
{
#define RS_SET1_512(x) _mm512_set1_epi64((long long)(x))
#define RS_SWAP_512(x) _mm512_shuffle_epi32(x, _MM_PERM_CDAB)
    enum { G = RS_PHILOX_LANES / 8 };
    RS_PHILOX_CONSTS(__m512i, RS_SET1_512);
    const __m512i step = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    /* output order: lane l's words w0 w1 (x01) and w2 w3 (x23) */
    const __m512i lo_idx = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    const __m512i hi_idx = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    for (unsigned bt = 0; bt < batches; bt++, pos += RS_PHILOX_LANES, out += 4 * RS_PHILOX_LANES) {
        __m512i x0[G], x1[G], x2[G], x3[G];
        for (unsigned g = 0; g < G; g++) {
            __m512i c = _mm512_add_epi64(RS_SET1_512(pos + 8 * g), step);
            x0[g] = c, x1[g] = _mm512_srli_epi64(c, 32), x2[g] = s0, x3[g] = s1;
        }
#pragma GCC unroll 10
        for (unsigned r = 0; r < 10; r++)
            for (unsigned g = 0; g < G; g++) {
                __m512i p0 = _mm512_mul_epu32(x0[g], m0), p1 = _mm512_mul_epu32(x2[g], m1);
                x0[g] = _mm512_ternarylogic_epi64(RS_SWAP_512(p1), x1[g], key0[r], 0x96);
                x2[g] = _mm512_ternarylogic_epi64(RS_SWAP_512(p0), x3[g], key1[r], 0x96);
                x1[g] = p1, x3[g] = p0;
            }
        for (unsigned g = 0; g < G; g++) {
            __m512i x01 = _mm512_mask_blend_epi32(0xAAAA, x0[g], _mm512_slli_epi64(x1[g], 32));
            __m512i x23 = _mm512_mask_blend_epi32(0xAAAA, x2[g], _mm512_slli_epi64(x3[g], 32));
            _mm512_storeu_si512(out + 32 * g, _mm512_permutex2var_epi64(x01, lo_idx, x23));
            _mm512_storeu_si512(out + 32 * g + 16, _mm512_permutex2var_epi64(x01, hi_idx, x23));
        }
    }
#undef RS_SET1_512
#undef RS_SWAP_512
}
#undef RS_PHILOX_CONSTS
#else
#define RS_PHILOX_X86 0
#endif

/* The fill of an ISA level (0 plain C, 1 AVX2, 2 AVX-512F), or NULL
 * where this CPU (or build) lacks it. */
static inline rs_philox_fill_fn rs_philox_isa(int level)
{
#if RS_PHILOX_X86
    __builtin_cpu_init();
    if (level == 2) return __builtin_cpu_supports("avx512f") ? rs_philox_fill_avx512 : NULL;
    if (level == 1) return __builtin_cpu_supports("avx2") ? rs_philox_fill_avx2 : NULL;
#endif
    return level == 0 ? rs_philox_fill_generic : NULL;
}

/* The best fill this CPU runs, capped by PB_RS_ISA (generic, avx2 or
 * avx512: to compare them; the output is the same). */
static inline rs_philox_fill_fn rs_philox_pick(void)
{
    const char *e = getenv("PB_RS_ISA");
    int cap = !e || !*e || !strcmp(e, "avx512") ? 2 : !strcmp(e, "avx2") ? 1 : 0;
    for (int level = cap; level > 0; level--) {
        rs_philox_fill_fn f = rs_philox_isa(level);
        if (f) return f;
    }
    return rs_philox_fill_generic;
}

/* A leaf's stream: the words of blocks from `pos` on, made a buffer at a
 * time. */
typedef struct rs_draws {
    uint32_t w[RS_DRAW_WORDS];
    unsigned k, end;      /* next word; words made */
    uint64_t first, next; /* first block; next block to make */
    uint64_t seed, sample;
    rs_philox_fill_fn fill;
    uintptr_t pf, pf_end; /* lines to prefetch, some at each refill */
    unsigned pf_bytes;    /* bytes of them a word made (0: none) */
} rs_draws;

static inline void rs_draws_open(rs_draws *d, rs_philox_fill_fn fill, uint64_t seed,
                                 uint64_t sample, uint64_t pos)
{
    d->k = d->end = 0;
    d->first = d->next = pos;
    d->seed = seed;
    d->sample = sample;
    d->fill = fill;
    d->pf = d->pf_end = 0;
    d->pf_bytes = 0;
}

/* Prefetches the lines of [p, end) as the draws go, `bytes` of them a word
 * made (the item size: the lines the next leaf's draws will touch). */
static inline void rs_draws_prefetch_next(rs_draws *d, const void *p, const void *end,
                                          unsigned bytes)
{
    d->pf = (uintptr_t)p & ~(uintptr_t)63;
    d->pf_end = (uintptr_t)end;
    d->pf_bytes = bytes;
}

/* Refills the buffer for at least `need` more draws (one word each unless
 * rejected): enough batches for them, at most the buffer. */
static inline void rs_draws_refill(rs_draws *d, uint64_t need)
{
    enum { MAX = RS_DRAW_BLOCKS / RS_PHILOX_LANES };
    uint64_t b = (need + 4 * RS_PHILOX_LANES - 1) / (4 * RS_PHILOX_LANES);
    unsigned batches = b == 0 ? 1 : b < MAX ? (unsigned)b : MAX;
    d->fill(d->w, d->seed, d->sample, d->next, batches);
    d->next += (uint64_t)batches * RS_PHILOX_LANES;
    d->k = 0;
    d->end = 4 * RS_PHILOX_LANES * batches;
    for (unsigned q = (d->end * d->pf_bytes + 63) / 64; q && d->pf < d->pf_end; q--, d->pf += 64)
        __builtin_prefetch((const void *)d->pf, 0, 3);
}

/* Reports the blocks made (cpu_streams.h's trace). */
static inline void rs_draws_close(const rs_draws *d) { pb_cs_note(d->sample, d->first, d->next); }

/* The rare end of Lemire's draw: p = word * range has a low half below
 * range; take further words while it is below 2^32 mod range. `need`: the
 * draws still to come, this one included (for a refill's size). */
__attribute__((noinline, cold)) static uint64_t rs_draws_reject(rs_draws *d, uint64_t p,
                                                                uint32_t range, uint64_t need)
{
    uint32_t threshold = (uint32_t)(-range) % range;
    while ((uint32_t)p < threshold) {
        if (d->k == d->end) rs_draws_refill(d, need);
        p = (uint64_t)d->w[d->k++] * range;
    }
    return p;
}

/* Fisher-Yates of a leaf, as shuffle_leaf.h's, for m < 2^32: in place
 * (Durstenfeld: position i - 1 swaps with j uniform in [0, i), i = m down
 * to 2) or inside-out (out[i] = out[j], out[j] = src[i], j uniform in
 * [0, i], i = 1 up to m - 1). Each buffer of words is run through without a
 * bound check per draw: a rejection (about range / 2^32 likely) takes its
 * words in rs_draws_reject and ends the run. */
#define RS_LEAF_FUNCS(T, SUFFIX)                                                                   \
    static inline void rs_fisher_yates_##SUFFIX(T *a, uint64_t m, rs_draws *d)                     \
    {                                                                                              \
        uint64_t i = m;                                                                            \
        while (i > 1) {                                                                            \
            if (d->k == d->end) rs_draws_refill(d, i - 1);                                         \
            const uint32_t *w = d->w + d->k;                                                       \
            uint64_t stop = i - 1 > d->end - d->k ? i - (d->end - d->k) : 1;                       \
            for (; i > stop; i--) {                                                                \
                uint64_t p = (uint64_t)*w++ * (uint32_t)i;                                         \
                if (__builtin_expect((uint32_t)p < (uint32_t)i, 0)) {                              \
                    d->k = (unsigned)(w - d->w);                                                   \
                    p = rs_draws_reject(d, p, (uint32_t)i, i - 1);                                 \
                    w = d->w + d->k;                                                               \
                    stop = i - 1; /* the run ends with this draw */                                \
                }                                                                                  \
                T *x = a + (p >> 32), t = a[i - 1];                                                \
                a[i - 1] = *x;                                                                     \
                *x = t;                                                                            \
            }                                                                                      \
            d->k = (unsigned)(w - d->w);                                                           \
        }                                                                                          \
    }                                                                                              \
    static inline void rs_fisher_yates_inside_out_##SUFFIX(const T *restrict src, T *restrict out, \
                                                           uint64_t m, rs_draws *d)                \
    {                                                                                              \
        if (!m) return;                                                                            \
        out[0] = src[0];                                                                           \
        uint64_t i = 1;                                                                            \
        while (i < m) {                                                                            \
            if (d->k == d->end) rs_draws_refill(d, m - i);                                         \
            const uint32_t *w = d->w + d->k;                                                       \
            uint64_t stop = m - i > d->end - d->k ? i + (d->end - d->k) : m;                       \
            for (; i < stop; i++) {                                                                \
                uint32_t range = (uint32_t)(i + 1);                                                \
                uint64_t p = (uint64_t)*w++ * range;                                               \
                if (__builtin_expect((uint32_t)p < range, 0)) {                                    \
                    d->k = (unsigned)(w - d->w);                                                   \
                    p = rs_draws_reject(d, p, range, m - i);                                       \
                    w = d->w + d->k;                                                               \
                    stop = i + 1; /* the run ends with this draw */                                \
                }                                                                                  \
                T *x = out + (p >> 32);                                                            \
                out[i] = *x;                                                                       \
                *x = src[i];                                                                       \
            }                                                                                      \
            d->k = (unsigned)(w - d->w);                                                           \
        }                                                                                          \
    }
RS_LEAF_FUNCS(uint32_t, u32)
RS_LEAF_FUNCS(uint64_t, u64)
#undef RS_LEAF_FUNCS

#endif

/* The POV-shuffle's C twin (algorithms/shuffle/pov/pov_twin.c) against its
 * specification (algorithms/shuffle/pov/pov.h): a direct, slow reading of the
 * spec gives the same permutation at awkward sizes and parameters; the
 * output is a permutation for every n (0, 1, 2, sizes no block divides, a
 * deck smaller than one block, large ones) and item width; it does not
 * depend on the thread count; offsets are never multiples of the block
 * size and reach every other position; draws are uniform, and a rejected
 * word is replaced by its retry's. The module's own contract (the family
 * check at awkward sizes, seeds, sample path) is in tests/registry/test_modules.c,
 * its statistics in configs/quality/pov-iterations.ini and pov-seeds.ini;
 * its 64-bit seeds at the end of this file. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/pov/pov_twin.h"
#include "config/params.h"
#include "families/shuffle/shuffle_hooks.h"
#include "registry/registry.h"
#include "stats/chisq.h"
#include "stats/duplicates.h"
#include "stats/lehmer.h"
#include "tests/module_driver.h"
#include "tests/test.h"

static const pb_pov_params shapes[] = {
    {1, 1, 1}, {2, 2, 2}, {3, 3, 5}, {4, 64, 4}, {2, 7, 3}, {1, 4096, 1}, {2, 1, 4096}, {5, 5, 1}, {8, 2, 2},
};
static const uint64_t sizes[] = {0, 1, 2, 3, 5, 7, 8, 63, 64, 65, 100, 1000, 4097, 10007, (1u << 16) + 3};

/* sigma as the spec says it: the blocks in order of (key, block), sorted
 * here by qsort rather than the twin's radix sort. */
typedef struct keyed {
    uint64_t key;
    uint32_t b;
} keyed;

static int by_key(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static void spec_sigma(uint32_t *sigma, uint64_t nb, uint64_t seed, uint64_t sample, uint32_t it)
{
    keyed *k = malloc(nb * sizeof *k);
    if (!k) abort();
    for (uint64_t b = 0; b < nb; b++) k[b] = (keyed){pb_pov_block_key(seed, sample, it, b), (uint32_t)b};
    qsort(k, nb, sizeof *k, by_key);
    for (uint64_t b = 0; b < nb; b++) sigma[b] = k[b].b;
    free(k);
}

/* The spec read directly: positions of each virtual block listed, every
 * draw by pb_pov_draw, items swapped in place through the positions. */
static void spec_shuffle(uint64_t *a, uint64_t n, const pb_pov_params *p, uint64_t seed, uint64_t sample)
{
    if (n < 2) return;
    uint64_t nb = pb_pov_blocks(n, p->block);
    uint32_t *sigma = malloc(nb * sizeof *sigma);
    uint64_t *pos = malloc((size_t)p->block * p->vblock * sizeof *pos);
    for (uint32_t it = 0; it < p->iterations; it++) {
        uint64_t off = pb_pov_offset(n, p->block, seed, sample, it);
        spec_sigma(sigma, nb, seed, sample, it);
        for (uint64_t v = 0; v * p->vblock < nb; v++) {
            uint32_t m = 0;
            for (uint64_t k = 0; k < p->vblock && v * p->vblock + k < nb; k++) {
                uint64_t b = sigma[v * p->vblock + k];
                for (uint64_t t = 0; t < p->block && b * p->block + t < n; t++) pos[m++] = (off + b * p->block + t) % n;
            }
            for (uint32_t i = m; i > 1; i--) {
                uint32_t j = pb_pov_draw(seed, sample, it, (uint32_t)v, i, i);
                uint64_t x = a[pos[i - 1]];
                a[pos[i - 1]] = a[pos[j]];
                a[pos[j]] = x;
            }
        }
    }
    free(sigma), free(pos);
}

TEST_IMPL(pov_twin_equals_spec)
{
    uint64_t most = sizes[sizeof sizes / sizeof sizes[0] - 1];
    uint64_t *a = malloc(most * sizeof *a), *b = malloc(most * sizeof *b);
    uint32_t *sigma = malloc(most * sizeof *sigma);
    uint32_t *a32 = malloc(most * sizeof *a32);
    unsigned char *seen = malloc(most);
    ASSERT(a && b && sigma && a32 && seen);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            uint64_t n = sizes[k];
            pb_err err;
            for (uint64_t i = 0; i < n; i++) a[i] = b[i] = i * 0x9e3779b97f4a7c15u, a32[i] = (uint32_t)i;
            ASSERT(pb_pov_shuffle(a, n, 8, &shapes[s], 42, 7 + k, 1, sigma, &err) == 0);
            spec_shuffle(b, n, &shapes[s], 42, 7 + k);
            if (memcmp(a, b, n * sizeof *a) != 0) {
                fprintf(stderr, "n = %llu, block %u, vblock %u, %u iterations: twin and spec differ\n",
                        (unsigned long long)n, shapes[s].block, shapes[s].vblock, shapes[s].iterations);
                return 1;
            }
            /* 4-byte items: the same permutation, and a permutation. */
            ASSERT(pb_pov_shuffle(a32, n, 4, &shapes[s], 42, 7 + k, 1, sigma, &err) == 0);
            memset(seen, 0, n);
            for (uint64_t i = 0; i < n; i++) {
                ASSERT(a32[i] < n && !seen[a32[i]]);
                seen[a32[i]] = 1;
                ASSERT(b[i] == a32[i] * 0x9e3779b97f4a7c15u);
            }
        }
    free(a), free(b), free(sigma), free(a32), free(seen);
    return 0;
}

/* Items of 3 and 24 bytes (records to come) move whole and land where the
 * 8-byte items do. */
TEST_IMPL(pov_item_width)
{
    enum { N = 1001 };
    const unsigned widths[] = {3, 24};
    pb_pov_params p = {3, 7, 3};
    uint64_t ref[N];
    uint32_t sigma[N];
    pb_err err;
    for (uint64_t i = 0; i < N; i++) ref[i] = i;
    ASSERT(pb_pov_shuffle(ref, N, 8, &p, 9, 1, 1, sigma, &err) == 0);
    for (size_t w = 0; w < 2; w++) {
        unsigned ib = widths[w];
        unsigned char *r = malloc((size_t)N * ib);
        for (uint64_t i = 0; i < N; i++)
            for (unsigned k = 0; k < ib; k++) r[i * ib + k] = (unsigned char)(i >> (8 * (k % 2)));
        ASSERT(pb_pov_shuffle(r, N, ib, &p, 9, 1, 3, sigma, &err) == 0);
        for (uint64_t i = 0; i < N; i++) {
            uint64_t item = ref[i];
            for (unsigned k = 0; k < ib; k++) ASSERT(r[i * ib + k] == (unsigned char)(item >> (8 * (k % 2))));
        }
        free(r);
    }
    return 0;
}

TEST_IMPL(pov_thread_independent)
{
    const uint64_t n = (1u << 17) + 5;
    const pb_pov_params ps[] = {{4, 64, 4}, {3, 5, 7}, {2, 1, 1}};
    uint64_t *ref = malloc(n * sizeof *ref), *a = malloc(n * sizeof *a);
    uint32_t *sigma = malloc(n * sizeof *sigma);
    ASSERT(ref && a && sigma);
    for (size_t s = 0; s < 3; s++) {
        pb_err err;
        for (uint64_t i = 0; i < n; i++) ref[i] = i;
        ASSERT(pb_pov_shuffle(ref, n, 8, &ps[s], 5, 3, 1, sigma, &err) == 0);
        const int threads[] = {2, 3, 7};
        for (int t = 0; t < 3; t++) {
            for (uint64_t i = 0; i < n; i++) a[i] = i;
            ASSERT(pb_pov_shuffle(a, n, 8, &ps[s], 5, 3, threads[t], sigma, &err) == 0);
            ASSERT(memcmp(a, ref, n * sizeof *a) == 0);
        }
    }
    free(ref), free(a), free(sigma);
    return 0;
}

/* Offsets: never a multiple of the block, every other position reached
 * (n = 10, block 3: 1 2 4 5 7 8), and 0 where there is no choice. */
TEST_IMPL(pov_offsets)
{
    unsigned hits[10] = {0};
    for (uint64_t s = 0; s < 6000; s++) {
        uint64_t off = pb_pov_offset(10, 3, 77, s, (uint32_t)(s % 5));
        ASSERT(off < 10 && off % 3 != 0);
        hits[off]++;
    }
    for (int i = 0; i < 10; i++) ASSERT(i % 3 == 0 ? hits[i] == 0 : hits[i] > 850 && hits[i] < 1150);
    ASSERT(pb_pov_offset(1, 4, 1, 1, 0) == 0 && pb_pov_offset(100, 1, 1, 1, 0) == 0);
    ASSERT(pb_pov_offset(3, 4, 1, 1, 0) >= 1); /* a deck smaller than a block still turns */
    return 0;
}

/* Draws are uniform (range 3 and 7), and a rejected word gives way to the
 * same word of the next retry counter. */
TEST_IMPL(pov_draws)
{
    unsigned c3[3] = {0}, c7[7] = {0};
    for (uint32_t step = 0; step < 21000; step++) {
        c3[pb_pov_draw(1, 2, 3, 4, step, 3)]++;
        c7[pb_pov_draw(1, 2, 3, 4, step, 7)]++;
    }
    for (int i = 0; i < 3; i++) ASSERT(c3[i] > 6700 && c3[i] < 7300);
    for (int i = 0; i < 7; i++) ASSERT(c7[i] > 2700 && c7[i] < 3300);
    /* range 2^31 + 1 rejects about half the words: find a step that does. */
    const uint32_t range = (1u << 31) + 1;
    int found = 0;
    for (uint32_t step = 0; step < 64 && !found; step++) {
        uint32_t j, j1;
        philox4x32_ctr_t w0 = pb_pov_words(11, 0, 0, 0, step >> 2, 0);
        if (pb_lemire_pick(w0.v[step & 3], range, &j)) continue;
        philox4x32_ctr_t w1 = pb_pov_words(11, 0, 0, 0, step >> 2, 1);
        if (!pb_lemire_pick(w1.v[step & 3], range, &j1)) continue;
        ASSERT(pb_pov_draw(11, 0, 0, 0, step, range) == j1 && j1 < range);
        found = 1;
    }
    ASSERT(found);
    return 0;
}

/* A deck no larger than one block is one exact Fisher-Yates a iteration:
 * uniform over the 120 permutations of 5 (chi-square, 60000 draws). */
TEST_IMPL(pov_small_deck_uniform)
{
    enum { N = 5, DRAWS = 60000 };
    pb_pov_params p = {1, 64, 4};
    uint32_t *perms = malloc(DRAWS * N * sizeof *perms), sigma[1];
    ASSERT(perms);
    for (uint64_t d = 0; d < DRAWS; d++) {
        pb_err err;
        for (uint32_t i = 0; i < N; i++) perms[d * N + i] = i;
        ASSERT(pb_pov_shuffle(perms + d * N, N, 4, &p, 3, d, 1, sigma, &err) == 0);
    }
    pb_chisq c;
    pb_err err;
    pb_test_result r;
    ASSERT(pb_chisq_init(&c, N, &err) == 0);
    pb_chisq_add(&c, perms, DRAWS);
    pb_chisq_result(&c, 0.001, &r);
    printf("n = 5 in one block of 64: chi-square %.1f, threshold %.1f, p = %.3g\n", r.statistic, r.threshold,
           r.p_value);
    ASSERT(!r.reject);
    pb_chisq_free(&c);
    free(perms);
    return 0;
}

TEST_IMPL(pov_bad_params)
{
    pb_err err;
    pb_pov_params big = {1, 128, 64}, it = {64, 4, 4}, ok = {1, 1, 1};
    ASSERT(pb_pov_check(100, &big, &err) != 0);
    ASSERT_CONTAINS(err.msg, "virtual block holds");
    ASSERT(pb_pov_check(100, &it, &err) != 0);
    ASSERT(pb_pov_check(UINT64_C(1) << 32, &ok, &err) != 0);
    ASSERT(pb_pov_check(UINT64_C(1) << 27, &ok, &err) != 0); /* 2^27 one-item virtual blocks */
    ASSERT_CONTAINS(err.msg, "virtual blocks");
    return 0;
}

/* Seeds are full 64-bit values (the POV authors' code takes 1..999
 * only). Through the module as the harness drives it (8-byte items, sample
 * 0) and through its sample_perms (the battery's path, 4-byte items): seeds
 * at the edges of 10, 32 and 64 bits are all accepted, give a permutation,
 * the same one again for the same seed, and pairwise different ones at
 * n = 1000 (a seed truncated to 32 bits would make 0 and 2^32, 1 and
 * 2^32 + 1 equal; one taken mod 1000 would make 0 and 1000 equal). */
TEST_IMPL(pov_seeds_64bit)
{
    enum { N = 1000, NSEEDS = 8 };
    const uint64_t seeds[NSEEDS] = {0, 1, 999, 1000, UINT64_C(1) << 32, (UINT64_C(1) << 32) + 1, UINT64_C(1) << 63,
                                    UINT64_MAX};
    const pb_module *m = pb_module_find("cpu-pov-shuffle");
    ASSERT(m && pb_module_sample_perms(m));
    pb_params p;
    pb_params_defaults(m, &p);
    uint64_t *out[NSEEDS];
    uint32_t *perm = malloc((size_t)NSEEDS * N * sizeof *perm), again[N];
    ASSERT(perm);
    for (int s = 0; s < NSEEDS; s++) {
        pb_err err;
        void *a, *b;
        ASSERT(pb_drive_module(m, N, 8, seeds[s], 1, 0, &a, &err) == 0);
        ASSERT(pb_drive_module(m, N, 8, seeds[s], 1, 0, &b, &err) == 0);
        ASSERT(memcmp(a, b, (size_t)N * 8) == 0);
        out[s] = a;
        free(b);
        ASSERT(pb_module_sample_perms(m)(&p, N, seeds[s], 0, 1, perm + (size_t)s * N, &err) == 0);
        ASSERT(pb_module_sample_perms(m)(&p, N, seeds[s], 0, 1, again, &err) == 0);
        ASSERT(memcmp(perm + (size_t)s * N, again, sizeof again) == 0);
        unsigned char seen[N] = {0};
        for (uint32_t i = 0; i < N; i++) {
            uint32_t x = perm[(size_t)s * N + i];
            ASSERT(x < N && !seen[x]);
            seen[x] = 1;
        }
    }
    for (int s = 0; s < NSEEDS; s++)
        for (int t = s + 1; t < NSEEDS; t++) {
            if (memcmp(out[s], out[t], (size_t)N * 8) == 0 ||
                memcmp(perm + (size_t)s * N, perm + (size_t)t * N, (size_t)N * sizeof *perm) == 0) {
                fprintf(stderr, "seeds %llu and %llu give the same permutation\n", (unsigned long long)seeds[s],
                        (unsigned long long)seeds[t]);
                return 1;
            }
        }
    for (int s = 0; s < NSEEDS; s++) free(out[s]);
    free(perm);
    return 0;
}

/* The birthday test across seeds (the battery's duplicate test varies the
 * sample, configs/quality/pov-seeds.ini): sample 0 at n = 100 under 2^15
 * seeds that differ only in their high 32 bits and 2^15 that differ only in
 * their low 32 bits (beyond 999), 2^16 permutations in all: no repeat
 * (E[D] is about 2^32 / 100!, i.e. 0). A seed space cut to either half of
 * the word, or to 1..999, would repeat nearly every one. */
TEST_IMPL(pov_seeds_no_repeats)
{
    enum { N = 100, HALF = 1 << 15 };
    const pb_module *m = pb_module_find("cpu-pov-shuffle");
    ASSERT(m && pb_module_sample_perms(m));
    pb_params p;
    pb_params_defaults(m, &p);
    p.v[pb_module_param_index(m, "threads")] = 1; /* one permutation a call: no team */
    uint32_t *perm = malloc((size_t)2 * HALF * N * sizeof *perm);
    ASSERT(perm);
    for (uint64_t k = 0; k < HALF; k++) {
        pb_err err;
        ASSERT(pb_module_sample_perms(m)(&p, N, k << 32, 0, 1, perm + k * N, &err) == 0);
        ASSERT(pb_module_sample_perms(m)(&p, N, 0xdeadbeef00000000u | (k * 2654435761u & 0xffffffffu), 0, 1,
                               perm + (HALF + k) * N, &err) == 0);
    }
    pb_dups d;
    pb_err err;
    pb_test_result r;
    ASSERT(pb_dups_init(&d, N, 2 * HALF, &err) == 0);
    pb_dups_add(&d, perm, 2 * HALF);
    pb_dups_result(&d, 0.01, &r);
    printf("cpu-pov-shuffle, 2^16 seeds, n = 100: %g repeats (expected %.3g), %s\n", r.statistic, r.expected,
           pb_verdict_name(r.verdict));
    ASSERT(r.statistic == 0 && r.verdict == PB_VERDICT_PASS);
    pb_dups_free(&d);
    free(perm);
    return 0;
}

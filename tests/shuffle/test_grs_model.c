/* The GPU Rao-Sandelius shuffle's C model (algorithms/shuffle/rao_sandelius/grs_twin.h):
 *  - a valid permutation of whole items at awkward sizes (0, 1, 2, 2^k and
 *    2^k +- 1, 65537), u32, u64 and records, under shapes that take every
 *    path (no first sort, a first sort alone, deep splits, Fisher-Yates at
 *    1 item); the same seed and sample give the same output, another
 *    sample another;
 *  - a known answer (the output of one small shuffle), so that a change of
 *    the model, which a GPU module must follow bit for bit, is deliberate;
 *  - uniform: chi-square over all 24 permutations of 4 items and 120 of 5,
 *    under four shapes (splits of 1 and 2 bits, Fisher-Yates at 1, 2, 4);
 *  - no random word drawn twice: every (tag, w1, position) of a shuffle of
 *    20000 items through three levels is distinct, and their number is
 *    what the stats say was drawn;
 *  - a segment that no split separates goes one level deeper (all-in-one
 *    parts), so deep levels run: at 4096 items with 1-bit splits down to 1;
 *  - bad arguments get one message. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"
#include "families/shuffle/shuffle_items.h"
#include "tests/shuffle/grs_helpers.h"
#include "tests/test.h"

static const pb_grs_shape shapes[] = {
    {0, 5, 32}, /* no first sort: splits of 32 parts down to 32 */
    {4, 5, 32}, /* 16 buckets, then splits */
    {8, 5, 1},  /* Fisher-Yates only on single items: splits all the way */
    {6, 3, 4},
    {8, 1, 1000000}, /* the first sort alone, then Fisher-Yates */
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

TEST_IMPL(grs_model_valid)
{
    static const uint64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 65537};
    static const unsigned widths[] = {4, 8, 64};
    for (size_t w = 0; w < 3; w++)
        for (int s = 0; s < NSHAPES; s++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                uint64_t n = sizes[z];
                unsigned ib = widths[w];
                if (ib == 64 && n > 2000) continue;
                char *in = malloc(n * ib + 1), *out = malloc(n * ib + 1), *again = malloc(n * ib + 1);
                ASSERT(in && out && again);
                pb_shuffle_fill(in, n, ib);
                pb_err err;
                pb_grs_stats st;
                ASSERT(pb_grs_twin_shuffle(in, out, n, ib, &shapes[s], 7, 3, NULL, &st, &err) == 0);
                if (pb_shuffle_check(out, n, ib, &err)) {
                    fprintf(stderr, "n=%llu shape %d item %u: %s\n", (unsigned long long)n, s, ib,
                            err.msg);
                    return 1;
                }
                ASSERT(pb_grs_twin_shuffle(in, again, n, ib, &shapes[s], 7, 3, NULL, NULL, &err) ==
                       0);
                ASSERT(memcmp(out, again, n * ib) == 0);
                if (n >= 32) {
                    ASSERT(pb_grs_twin_shuffle(in, again, n, ib, &shapes[s], 7, 4, NULL, NULL,
                                                &err) == 0);
                    ASSERT(memcmp(out, again, n * ib) != 0);
                }
                if (n > shapes[s].small) ASSERT(st.splits > 0 || shapes[s].key_bits > 0);
                free(in), free(out), free(again);
            }
    return 0;
}

TEST_IMPL(grs_model_known_answer)
{
    /* grs_known_answer: the model's output of a small shuffle */
    uint32_t in[12], out[12];
    for (uint32_t i = 0; i < 12; i++) in[i] = i;
    pb_grs_shape sh = {2, 1, 2};
    pb_err err;
    ASSERT(pb_grs_twin_shuffle(in, out, 12, 4, &sh, 2026, 5, NULL, NULL, &err) == 0);
    ASSERT(memcmp(out, grs_known_answer, sizeof out) == 0);
    return 0;
}

static int model_perm(const void *ctx, const uint32_t *in, uint32_t *out, unsigned n, uint64_t sample)
{
    pb_err err;
    return pb_grs_twin_shuffle(in, out, n, 4, ctx, 99, sample, NULL, NULL, &err);
}

TEST_IMPL(grs_model_uniform)
{
    static const pb_grs_shape ushapes[] = {{0, 1, 1}, {1, 1, 2}, {2, 2, 1}, {1, 2, 4}};
    for (size_t s = 0; s < sizeof ushapes / sizeof ushapes[0]; s++) {
        char what[96];
        snprintf(what, sizeof what, "key bits %u, level bits %u, small %u", ushapes[s].key_bits,
                 ushapes[s].level_bits, ushapes[s].small);
        ASSERT(grs_orders_uniform(what, model_perm, &ushapes[s]) == 0);
    }
    return 0;
}

TEST_IMPL(grs_model_no_word_twice)
{
    const uint64_t n = 20000;
    pb_grs_shape sh = {3, 3, 8}; /* 8 buckets of ~2500, then ~3 levels of 8 parts */
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    ASSERT(in && out);
    pb_shuffle_fill(in, n, 4);
    grs_words g = {NULL, 0, 0};
    pb_grs_trace tr = grs_words_trace(&g);
    pb_grs_stats st;
    pb_err err;
    ASSERT(pb_grs_twin_shuffle(in, out, n, 4, &sh, 11, 1, &tr, &st, &err) == 0);
    ASSERT(st.deepest >= 2);
    size_t keys, levels, fy;
    ASSERT(grs_words_tally(&g, &keys, &levels, &fy) == 0);
    /* One key word an item; Fisher-Yates draws m - 1 words for each of its
     * segments, so n - (segments) in all; the rest are level words, at
     * least one full pass (every item is in a split segment at level 0). */
    ASSERT_EQ_U64(keys, n);
    ASSERT_EQ_U64(fy, n - st.fisher_yates);
    ASSERT(levels >= n);
    printf("%zu words: %zu keys, %zu level labels (%llu splits, depth %u), %zu Fisher-Yates "
           "draws (%llu segments)\n",
           g.n, keys, levels, (unsigned long long)st.splits, st.deepest, fy,
           (unsigned long long)st.fisher_yates);
    free(g.w), free(in), free(out);
    return 0;
}

TEST_IMPL(grs_model_deep)
{
    const uint64_t n = 4096;
    pb_grs_shape sh = {0, 1, 1};
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    ASSERT(in && out);
    pb_shuffle_fill(in, n, 4);
    pb_grs_stats st;
    pb_err err;
    ASSERT(pb_grs_twin_shuffle(in, out, n, 4, &sh, 5, 0, NULL, &st, &err) == 0);
    ASSERT(pb_shuffle_check(out, n, 4, &err) == 0);
    /* Halving 4096 items down to single ones takes at least 12 levels. */
    ASSERT(st.deepest >= 12);
    ASSERT_EQ_U64(st.fisher_yates, n);
    free(in), free(out);
    return 0;
}

TEST_IMPL(grs_model_bad_args)
{
    uint32_t a[4] = {0, 1, 2, 3}, b[4];
    pb_err err;
    pb_grs_shape bad[] = {{9, 5, 32}, {4, 0, 32}, {4, 9, 32}, {4, 5, 0}};
    for (size_t i = 0; i < 4; i++) {
        ASSERT(pb_grs_twin_shuffle(a, b, 4, 4, &bad[i], 1, 0, NULL, NULL, &err) != 0);
        ASSERT_CONTAINS(err.msg, "shape out of range");
    }
    pb_grs_shape ok = {2, 2, 2};
    ASSERT(pb_grs_twin_shuffle(a, b, 4, 4, &ok, 1, PB_GRS_MAX_SAMPLE, NULL, NULL, &err) != 0);
    ASSERT_CONTAINS(err.msg, "sample");
    ASSERT(pb_grs_twin_shuffle(a, b, PB_GRS_MAX_ITEMS + 1, 4, &ok, 1, 0, NULL, NULL, &err) != 0);
    ASSERT_CONTAINS(err.msg, "beyond 2^34");
    ASSERT_EQ_U64(pb_grs_key_bits_for(1000, 4096), 0);
    ASSERT_EQ_U64(pb_grs_key_bits_for(4097, 4096), 1);
    ASSERT_EQ_U64(pb_grs_key_bits_for(UINT64_C(1) << 18, 4096), 6);
    ASSERT_EQ_U64(pb_grs_key_bits_for(UINT64_C(1) << 29, 4096), PB_GRS_AUTO_KEY_BITS);
    ASSERT_EQ_U64(pb_grs_key_bits_for(UINT64_C(1) << 34, 1), PB_GRS_AUTO_KEY_BITS);
    return 0;
}

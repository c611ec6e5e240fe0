/* The GPU Rao-Sandelius shuffle in the L2 order (l2s_twin.h, the model of
 * gpu-l2-shuffle; docs/l2-shuffle.md):
 *  - the order changes nothing: at awkward sizes (0, 1, 2, 2^k +- 1, odd,
 *    large), u32, u64 and records, under shapes with no level, one level
 *    and several, and slots from 1 item (every group an overflow) through
 *    some overflows to the whole array (one group), the output equals
 *    pb_grs_twin_shuffle's bit for bit, and is a permutation;
 *  - the model's known answer, through groups and overflows;
 *  - no draw twice: every draw of a 20000-item shuffle in the L2 order is
 *    listed; none repeats, and the list is the model's own;
 *  - uniform: chi-square over the 24 orders of 4 items and the 120 of 5,
 *    with groups and overflows;
 *  - the groups: in order, covering every segment once, within a slot but
 *    for an overflow segment alone; the slot's size from bucket_cap or the
 *    L2; bad arguments get one message. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/rao_sandelius/l2s_twin.h"
#include "families/shuffle/shuffle_items.h"
#include "tests/shuffle/grs_helpers.h"
#include "tests/test.h"

/* shape, and the target that plans its levels */
typedef struct l2s_case {
    pb_grs_shape sh;
    uint64_t target;
} l2s_case;

static const l2s_case cases[] = {
    {{8, 8, 64}, 8192}, /* the defaults: no level below 2^21, one above */
    {{4, 3, 8}, 64},    /* one or two levels over the array, then groups */
    {{2, 1, 1}, 16},    /* halving splits down to single items */
    {{0, 5, 32}, 100},  /* no first split */
    {{6, 8, 4}, 1},     /* levels down to one item a segment on average */
};
enum { NCASES = sizeof cases / sizeof cases[0] };

TEST_IMPL(l2s_model_equals_model)
{
    static const uint64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4097, 65535, 65536, 65537, 200003};
    static const unsigned widths[] = {4, 8, 64};
    uint64_t overflows = 0, grouped = 0;
    for (size_t w = 0; w < 3; w++)
        for (int c = 0; c < NCASES; c++)
            for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
                const uint64_t n = sizes[z];
                const unsigned ib = widths[w];
                if (ib == 64 && n > 5000) continue;
                const uint64_t slots[] = {1, 5, n / 7 + 1, n / 2 + 1, n + 1, UINT64_C(1) << 40};
                char *in = malloc(n * ib + 1), *want = malloc(n * ib + 1), *got = malloc(n * ib + 1);
                ASSERT(in && want && got);
                pb_shuffle_fill(in, n, ib);
                pb_err err;
                ASSERT(pb_grs_twin_shuffle(in, want, n, ib, &cases[c].sh, 7, 3, NULL, NULL, &err) == 0);
                for (size_t q = 0; q < sizeof slots / sizeof slots[0]; q++) {
                    pb_l2s_stats st;
                    memset(got, 0x5a, n * ib + 1);
                    ASSERT(pb_l2s_twin_shuffle(in, got, n, ib, &cases[c].sh, cases[c].target, slots[q], 7, 3, NULL,
                                               &st, &err) == 0);
                    if (memcmp(want, got, n * ib) != 0) {
                        fprintf(stderr, "n=%llu case %d item %u slot %llu: differs from the model\n",
                                (unsigned long long)n, c, ib, (unsigned long long)slots[q]);
                        return 1;
                    }
                    ASSERT(pb_shuffle_check(got, n, ib, &err) == 0);
                    overflows += st.overflows;
                    grouped += st.groups > st.overflows;
                    if (st.levels && slots[q] > n) ASSERT_EQ_U64(st.overflows, 0);
                }
                free(in), free(want), free(got);
            }
    /* both paths ran, many times */
    printf("%llu overflow groups, %llu shuffles with slot groups\n", (unsigned long long)overflows,
           (unsigned long long)grouped);
    ASSERT(overflows > 100 && grouped > 100);
    return 0;
}

TEST_IMPL(l2s_model_known_answer)
{
    /* the model's known answer (grs_known_answer), with one level by
     * groups (target 1) and slots of 1 (every bucket an overflow) and 3 */
    uint32_t in[12], out[12];
    for (uint32_t i = 0; i < 12; i++) in[i] = i;
    pb_grs_shape sh = {2, 1, 2};
    pb_err err;
    for (uint64_t slot = 1; slot <= 3; slot += 2) {
        pb_l2s_stats st;
        ASSERT(pb_l2s_twin_shuffle(in, out, 12, 4, &sh, 1, slot, 2026, 5, NULL, &st, &err) == 0);
        ASSERT(st.levels >= 1 && st.groups >= 2);
        ASSERT(memcmp(out, grs_known_answer, sizeof out) == 0);
    }
    return 0;
}

typedef struct l2s_uniform_case {
    l2s_case c;
    uint64_t slot;
} l2s_uniform_case;

static int l2s_perm(const void *ctx, const uint32_t *in, uint32_t *out, unsigned n, uint64_t sample)
{
    const l2s_uniform_case *u = ctx;
    pb_err err;
    pb_l2s_stats st;
    if (pb_l2s_twin_shuffle(in, out, n, 4, &u->c.sh, u->c.target, u->slot, 99, sample, NULL, &st, &err)) return -1;
    return st.groups > 0 ? 0 : -1; /* the order's last level ran */
}

TEST_IMPL(l2s_model_uniform)
{
    /* shape, target, slot: every shape has one level by groups; slot 1
     * makes every group an overflow, 2 and 3 mix slot groups and
     * overflows, and two shapes have no first split */
    static const l2s_uniform_case uc[] = {
        {{{1, 1, 1}, 1}, 1}, {{{0, 1, 2}, 1}, 2}, {{{1, 2, 1}, 1}, 3}, {{{0, 2, 1}, 1}, 1}};
    for (size_t s = 0; s < sizeof uc / sizeof uc[0]; s++) {
        char what[96];
        snprintf(what, sizeof what, "L2 order, key bits %u, level bits %u, small %u, slot %u", uc[s].c.sh.key_bits,
                 uc[s].c.sh.level_bits, uc[s].c.sh.small, (unsigned)uc[s].slot);
        ASSERT(grs_orders_uniform(what, l2s_perm, &uc[s]) == 0);
    }
    return 0;
}

TEST_IMPL(l2s_model_no_word_twice)
{
    const uint64_t n = 20000;
    /* 8 buckets, a level over the array, then the last level by groups
     * in slots of 330 items: segments of ~312 a group each, those larger
     * than 330 (about one in six) overflows */
    pb_grs_shape sh = {3, 3, 8};
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4);
    ASSERT(in && out);
    pb_shuffle_fill(in, n, 4);
    grs_words g = {NULL, 0, 0}, m = {NULL, 0, 0};
    pb_grs_trace tr = grs_words_trace(&g), mt = grs_words_trace(&m);
    pb_l2s_stats st;
    pb_err err;
    ASSERT(pb_l2s_twin_shuffle(in, out, n, 4, &sh, 300, 330, 11, 1, &tr, &st, &err) == 0);
    ASSERT(st.levels == 2 && st.groups > 1 && st.overflows > 0 && st.overflows < st.groups);
    ASSERT(pb_grs_twin_shuffle(in, out, n, 4, &sh, 11, 1, &mt, NULL, &err) == 0);
    size_t keys, levels, fy, mk, ml, mf;
    ASSERT(grs_words_tally(&g, &keys, &levels, &fy) == 0);
    ASSERT(grs_words_tally(&m, &mk, &ml, &mf) == 0);
    /* the model's draws, no more, no fewer */
    ASSERT_EQ_U64(g.n, m.n);
    ASSERT(memcmp(g.w, m.w, g.n * sizeof *g.w) == 0);
    ASSERT_EQ_U64(keys, n);
    ASSERT_EQ_U64(fy, n - st.grs.fisher_yates);
    ASSERT(levels >= 2 * n);
    printf("%zu draws: %zu keys, %zu level labels, %zu Fisher-Yates; %llu groups, %llu overflows\n", g.n, keys,
           levels, fy, (unsigned long long)st.groups, (unsigned long long)st.overflows);
    free(g.w), free(m.w), free(in), free(out);
    return 0;
}

TEST_IMPL(l2s_plan_groups)
{
    /* segments of 3, 0, 4, 9, 1, 1, 0, 2 items from 0 */
    static const uint32_t len[8] = {3, 0, 4, 9, 1, 1, 0, 2};
    uint32_t ss[8], se[8], at = 0;
    for (int i = 0; i < 8; i++) ss[i] = at, at += len[i], se[i] = at;
    pb_l2s_group g[8];
    /* slot 7: {3, 0, 4}, {9} overflow, {1, 1, 0, 2} */
    ASSERT_EQ_U64(pb_l2s_plan_groups(ss, se, 8, 7, NULL), 3);
    ASSERT_EQ_U64(pb_l2s_plan_groups(ss, se, 8, 7, g), 3);
    ASSERT(g[0].seg_lo == 0 && g[0].seg_hi == 3 && g[0].start == 0 && g[0].end == 7 && !g[0].overflow);
    ASSERT(g[1].seg_lo == 3 && g[1].seg_hi == 4 && g[1].start == 7 && g[1].end == 16 && g[1].overflow);
    ASSERT(g[2].seg_lo == 4 && g[2].seg_hi == 8 && g[2].start == 16 && g[2].end == 20 && !g[2].overflow);
    /* every slot: in order, covering, within the slot or alone */
    for (uint64_t slot = 1; slot <= 21; slot++) {
        size_t ng = pb_l2s_plan_groups(ss, se, 8, slot, g);
        ASSERT(ng >= 1 && ng <= 8);
        for (size_t k = 0; k < ng; k++) {
            ASSERT(g[k].seg_lo < g[k].seg_hi);
            ASSERT(g[k].seg_lo == (k ? g[k - 1].seg_hi : 0));
            ASSERT(g[k].start == ss[g[k].seg_lo] && g[k].end == se[g[k].seg_hi - 1]);
            if (g[k].overflow) ASSERT(g[k].seg_hi - g[k].seg_lo == 1 && g[k].end - g[k].start > slot);
            else ASSERT(g[k].end - g[k].start <= slot);
        }
        ASSERT(g[ng - 1].seg_hi == 8);
        if (slot >= 20) ASSERT_EQ_U64(ng, 1);
    }
    ASSERT_EQ_U64(pb_l2s_plan_groups(ss, se, 0, 5, g), 0);
    ASSERT_EQ_U64(pb_l2s_slot_items(1000, UINT64_C(50) << 20, 1, 8), 1000);
    ASSERT_EQ_U64(pb_l2s_slot_items(0, UINT64_C(64) << 20, 1, 8), UINT64_C(4) << 20);
    ASSERT_EQ_U64(pb_l2s_slot_items(0, UINT64_C(48) << 20, 2, 8), UINT64_C(2) << 20);
    ASSERT_EQ_U64(pb_l2s_slot_items(0, 0, 1, 8), 1);
    return 0;
}

TEST_IMPL(l2s_model_bad_args)
{
    uint32_t a[4] = {0, 1, 2, 3}, b[4];
    pb_err err;
    pb_grs_shape bad[] = {{9, 5, 32}, {4, 0, 32}, {4, 9, 32}, {4, 5, 0}};
    for (size_t i = 0; i < 4; i++) {
        ASSERT(pb_l2s_twin_shuffle(a, b, 4, 4, &bad[i], 1, 4, 1, 0, NULL, NULL, &err) != 0);
        ASSERT_CONTAINS(err.msg, "shape out of range");
    }
    pb_grs_shape ok = {2, 2, 2};
    ASSERT(pb_l2s_twin_shuffle(a, b, 4, 4, &ok, 1, 0, 1, 0, NULL, NULL, &err) != 0);
    ASSERT_CONTAINS(err.msg, "slot");
    ASSERT(pb_l2s_twin_shuffle(a, b, 4, 4, &ok, 1, 4, 1, PB_GRS_MAX_SAMPLE, NULL, NULL, &err) != 0);
    ASSERT_CONTAINS(err.msg, "sample");
    ASSERT(pb_l2s_twin_shuffle(a, b, PB_L2S_MAX_ITEMS + 1, 4, &ok, 1, 4, 1, 0, NULL, NULL, &err) != 0);
    ASSERT_CONTAINS(err.msg, "beyond 2^32");
    return 0;
}

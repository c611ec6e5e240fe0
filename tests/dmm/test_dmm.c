/* The DMM simulator (dmm/): its cost model, the paper's algorithms on every
 * input pattern (correct, no races, zero conflicts where the paper claims
 * it), the conversions, the step growth of every series against its bound,
 * and the models of the GPU tile kernels (correct, conflict-free where
 * designed to be, conflicts exactly where predicted). No GPU needed. */
#include <math.h>
#include <stdlib.h>

#include "dmm/dmm_growth.h"
#include "dmm/dmm_sort.h"
#include "dmm/dmm_tile.h"
#include "dmm/dmm_tile_model.h"
#include "tests/test.h"

/* One step of 32 processors storing to bank(p) at line line(p). */
static pb_dmm_stats one_store(unsigned (*bank)(unsigned), unsigned (*line)(unsigned))
{
    pb_dmm d;
    pb_dmm_init(&d, 32, 64);
    pb_dmm_begin(&d, PB_DMM_ST);
    for (unsigned p = 0; p < 32; p++) pb_dmm_st(&d, p, pb_dmm_at(&d, 0, bank(p), line(p)), p);
    pb_dmm_end(&d);
    pb_dmm_stats st = d.st;
    pb_dmm_free(&d);
    return st;
}

static unsigned ident(unsigned p) { return p; }
static unsigned zero(unsigned p) { return (void)p, 0; }
static unsigned quarter(unsigned p) { return p % 8; }

TEST_IMPL(dmm_cost_model)
{
    /* 32 banks, one word each: one cycle. */
    pb_dmm_stats s = one_store(ident, ident);
    ASSERT_EQ_U64(s.st_steps, 1);
    ASSERT_EQ_U64(s.st_conflicts, 0);
    /* One bank, 32 words: 32 cycles, 31 conflicts. */
    s = one_store(zero, ident);
    ASSERT_EQ_U64(s.st_conflicts, 31);
    ASSERT_EQ_U64(pb_dmm_cycles(&s), 32);
    /* 8 banks, 4 words each: 4-way. */
    s = one_store(quarter, ident);
    ASSERT_EQ_U64(s.st_conflicts, 3);
    ASSERT_EQ_U64(s.races, 0);
    /* Stores to one word: a race, and no conflict (one word). */
    s = one_store(zero, zero);
    ASSERT_EQ_U64(s.races, 31);
    ASSERT_EQ_U64(s.st_conflicts, 0);

    pb_dmm d;
    ASSERT(pb_dmm_init(&d, 32, 4) == 0);
    *pb_dmm_word(&d, 0, 5, 2) = 77;
    /* Loads of one word are a broadcast. */
    pb_dmm_begin(&d, PB_DMM_LD);
    for (unsigned p = 0; p < 32; p++) pb_dmm_ld(&d, p, pb_dmm_at(&d, 0, 5, 2));
    pb_dmm_end(&d);
    ASSERT_EQ_U64(d.st.ld_conflicts, 0);
    ASSERT_EQ_U64(pb_dmm_got(&d, 31), 77);
    /* Two words of a bank, each loaded by half the processors: 2 cycles. */
    pb_dmm_begin(&d, PB_DMM_LD);
    for (unsigned p = 0; p < 32; p++) pb_dmm_ld(&d, p, pb_dmm_at(&d, 0, 5, p & 1));
    pb_dmm_end(&d);
    ASSERT_EQ_U64(d.st.ld_conflicts, 1);
    /* Issuing twice in a step, a store in a load step, an address outside:
     * races. A step nobody issues in is no step. */
    pb_dmm_begin(&d, PB_DMM_LD);
    pb_dmm_ld(&d, 0, 0);
    pb_dmm_ld(&d, 0, 1);
    pb_dmm_st(&d, 1, 2, 0);
    pb_dmm_ld(&d, 2, 32 * 4);
    pb_dmm_end(&d);
    ASSERT_EQ_U64(d.st.races, 3);
    pb_dmm_begin(&d, PB_DMM_ST);
    pb_dmm_end(&d);
    ASSERT_EQ_U64(pb_dmm_steps(&d.st), 3);
    pb_dmm_free(&d);
    return 0;
}

/* Every algorithm, every pattern, every applicable (w, m) of a grid. */
TEST_IMPL(dmm_algorithms)
{
    static const unsigned ws[] = {1, 2, 4, 8, 16, 32, 64};
    static const size_t ms[] = {1, 2, 4, 8, 16, 32, 64, 128};
    int runs = 0, failures = 0;
    for (size_t i = 0; i < pb_dmm_algo_count(); i++) {
        const pb_dmm_algo *a = pb_dmm_algo_at(i);
        for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++)
            for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++)
                for (int pat = 0; pat < PB_DMM_NPATTERNS; pat++) {
                    unsigned w = ws[wi];
                    size_t m = ms[mi];
                    if (a->applies(w, m) || (size_t)w * m > 4096) continue;
                    pb_dmm_result r;
                    pb_err err;
                    if (pb_dmm_run(a, w, m, (pb_dmm_pattern)pat, 1000 + runs, &r, &err)) {
                        fprintf(stderr, "%s\n", err.msg);
                        return 1;
                    }
                    runs++;
                    bool bad = !r.correct || r.st.races ||
                               (a->conflict_free && pb_dmm_conflicts(&r.st) != 0);
                    if (bad && failures++ < 10)
                        fprintf(stderr, "%s w=%u m=%zu %s: correct %d, races %llu, conflicts %llu\n",
                                a->name, w, m, pb_dmm_pattern_name((pb_dmm_pattern)pat),
                                r.correct, (unsigned long long)r.st.races,
                                (unsigned long long)pb_dmm_conflicts(&r.st));
                }
    }
    printf("%d runs, %d failures\n", runs, failures);
    ASSERT(runs > 500);
    return failures != 0;
}

/* The naive methods' conflicts are exactly the pattern's: onebank sends a
 * column's w words to one row (n >= w), uniform spreads them. */
TEST_IMPL(dmm_naive_conflicts)
{
    pb_dmm_result r;
    pb_err err;
    const pb_dmm_algo *part = pb_dmm_algo_find("naive-partition"),
                      *perm = pb_dmm_algo_find("naive-permute");
    ASSERT(pb_dmm_run(part, 32, 64, PB_DMM_ONEBANK, 1, &r, &err) == 0 && r.correct);
    ASSERT_EQ_U64(r.st.st_conflicts, 31 * 64);
    ASSERT_EQ_U64(r.st.ld_conflicts, 0);
    ASSERT(pb_dmm_run(part, 32, 64, PB_DMM_STRIDED, 1, &r, &err) == 0 && r.correct);
    ASSERT_EQ_U64(r.st.st_conflicts, 3 * 64);
    ASSERT(pb_dmm_run(part, 32, 64, PB_DMM_SORTED, 1, &r, &err) == 0 && r.correct);
    ASSERT_EQ_U64(r.st.st_conflicts, 0);
    /* w > m: a column holds w / m labels, m words each. */
    ASSERT(pb_dmm_run(part, 64, 16, PB_DMM_ONEBANK, 1, &r, &err) == 0 && r.correct);
    ASSERT_EQ_U64(r.st.st_conflicts, 15 * 16);
    ASSERT(pb_dmm_run(perm, 32, 64, PB_DMM_ONEBANK, 1, &r, &err) == 0 && r.correct);
    ASSERT_EQ_U64(r.st.st_conflicts, 31 * 64);
    /* A random permutation: the largest of 32 balls in 32 bins, about 3.5
     * on average, so 1..6 conflicts a step. */
    ASSERT(pb_dmm_run(perm, 32, 256, PB_DMM_UNIFORM, 1, &r, &err) == 0 && r.correct);
    ASSERT(r.st.st_conflicts > 256 && r.st.st_conflicts < 6 * 256);
    return 0;
}

/* The checks reject a wrong answer: the input itself, and a right answer
 * with two words swapped. */
TEST_IMPL(dmm_check_rejects)
{
    const unsigned w = 8;
    const size_t n = 16;
    uint64_t in[8 * 16];
    pb_dmm d;
    ASSERT(pb_dmm_init(&d, w, n) == 0);
    for (int prob = PB_DMM_SORT; prob <= PB_DMM_PERMUTE; prob++) {
        pb_dmm_make_input((pb_dmm_problem)prob, PB_DMM_UNIFORM, w, n, 3, in);
        for (unsigned r = 0; r < w; r++)
            for (size_t c = 0; c < n; c++) *pb_dmm_word(&d, 0, r, c) = in[r * n + c];
        ASSERT(!pb_dmm_check((pb_dmm_problem)prob, w, n, in, &d, 0));
    }
    const pb_dmm_algo *a = pb_dmm_algo_find("thm1-sort");
    pb_dmm_result res;
    pb_err err;
    ASSERT(pb_dmm_run(a, w, n, PB_DMM_UNIFORM, 3, &res, &err) == 0 && res.correct);
    pb_dmm_make_input(PB_DMM_SORT, PB_DMM_UNIFORM, w, n, 3, in);
    uint64_t sorted[8 * 16];
    for (size_t k = 0; k < w * n; k++) sorted[k] = in[k];
    for (size_t i = 1; i < w * n; i++)
        for (size_t j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            uint64_t t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    for (unsigned r = 0; r < w; r++)
        for (size_t c = 0; c < n; c++) *pb_dmm_word(&d, 0, r, c) = sorted[r * n + c];
    ASSERT(pb_dmm_check(PB_DMM_SORT, w, n, in, &d, 0));
    uint64_t t = *pb_dmm_word(&d, 0, 0, 0);
    *pb_dmm_word(&d, 0, 0, 0) = *pb_dmm_word(&d, 0, 7, 15);
    *pb_dmm_word(&d, 0, 7, 15) = t;
    ASSERT(!pb_dmm_check(PB_DMM_SORT, w, n, in, &d, 0));
    pb_dmm_free(&d);
    return 0;
}

/* Both conversions, wide, square and tall, in groups: the map, the round
 * trip, no conflicts; the diagonal in 2 nb steps a block, in place in 6. */
TEST_IMPL(dmm_conversions)
{
    static const unsigned gs[] = {1, 2, 4, 8, 16, 32};
    static const size_t nbs[] = {1, 2, 4, 8, 16, 32, 64};
    const unsigned w = 32;
    const size_t n = 64;
    for (size_t gi = 0; gi < sizeof gs / sizeof gs[0]; gi++)
        for (size_t bi = 0; bi < sizeof nbs / sizeof nbs[0]; bi++)
            for (int dir = 0; dir < 2; dir++)
                for (int inplace = 0; inplace < 2; inplace++) {
                    unsigned g = gs[gi];
                    size_t nb = nbs[bi];
                    pb_dmm d;
                    ASSERT(pb_dmm_init(&d, w, 2 * n) == 0);
                    for (unsigned r = 0; r < w; r++)
                        for (size_t c = 0; c < n; c++) *pb_dmm_word(&d, 0, r, c) = r * n + c;
                    pb_dmm_pair a = {0, n};
                    pb_dmm_conv cv = dir ? PB_DMM_C2R : PB_DMM_R2C;
                    if (inplace)
                        ASSERT(pb_dmm_convert_inplace(&d, 0, n, g, nb, cv) == 0);
                    else
                        pb_dmm_convert(&d, &a, n, g, nb, cv);
                    ASSERT_EQ_U64(pb_dmm_conflicts(&d.st), 0);
                    ASSERT_EQ_U64(d.st.races, 0);
                    ASSERT_EQ_U64(pb_dmm_steps(&d.st), (inplace ? 6 : 2) * n);
                    for (unsigned r = 0; r < w; r++)
                        for (size_t c = 0; c < n; c++) {
                            unsigned r2;
                            size_t c2;
                            pb_dmm_convert_map(g, nb, cv, r % g, c % nb, &r2, &c2);
                            uint64_t want = r * n + c;
                            uint64_t got = *pb_dmm_word(&d, a.cur, r - r % g + r2, c - c % nb + c2);
                            if (got != want) {
                                fprintf(stderr, "g=%u nb=%zu %s %s: (%u,%zu) holds %llu\n", g, nb,
                                        dir ? "C2R" : "R2C", inplace ? "in place" : "diagonal",
                                        r, c, (unsigned long long)got);
                                return 1;
                            }
                        }
                    /* And back. */
                    if (inplace)
                        ASSERT(pb_dmm_convert_inplace(&d, 0, n, g, nb, dir ? PB_DMM_R2C : PB_DMM_C2R) == 0);
                    else
                        pb_dmm_convert(&d, &a, n, g, nb, dir ? PB_DMM_R2C : PB_DMM_C2R);
                    for (unsigned r = 0; r < w; r++)
                        for (size_t c = 0; c < n; c++)
                            ASSERT_EQ_U64(*pb_dmm_word(&d, a.cur, r, c), r * n + c);
                    pb_dmm_free(&d);
                }
    return 0;
}

/* Theorem 1's super-rows and rounds: the paper's R = 1 for square m, more
 * where g * g < h. */
TEST_IMPL(dmm_thm1_rounds)
{
    ASSERT_EQ_U64(pb_dmm_thm1_superrow(16, 16), 4);
    ASSERT_EQ_U64(pb_dmm_thm1_rounds(16, 4), 1);
    ASSERT_EQ_U64(pb_dmm_thm1_superrow(64, 64), 8);
    ASSERT_EQ_U64(pb_dmm_thm1_rounds(64, 8), 1);
    ASSERT_EQ_U64(pb_dmm_thm1_superrow(32, 32), 4);
    ASSERT_EQ_U64(pb_dmm_thm1_rounds(32, 4), 2);
    ASSERT_EQ_U64(pb_dmm_thm1_superrow(32, 256), 16);
    ASSERT_EQ_U64(pb_dmm_thm1_rounds(32, 16), 1);
    ASSERT_EQ_U64(pb_dmm_thm1_rounds(128, 8), 2);
    return 0;
}

/* Every growth series: correct, no races, conflict-free where claimed, and
 * its steps grow as its bound. */
TEST_IMPL(dmm_growth)
{
    int failures = 0;
    for (size_t i = 0; i < pb_dmm_series_count(); i++) {
        const pb_dmm_series *s = pb_dmm_series_at(i);
        const pb_dmm_algo *a = pb_dmm_algo_find(s->algo);
        pb_dmm_series_result r;
        pb_err err;
        ASSERT(a != NULL);
        if (pb_dmm_series_run(s, 7, &r, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return 1;
        }
        bool ok = r.all_correct && r.races == 0 && (!a->conflict_free || r.conflicts == 0) &&
                  r.slope >= s->slope_lo && r.slope <= s->slope_hi &&
                  r.ratio_max / r.ratio_min <= s->ratio_spread;
        printf("%-22s %-8s slope %.3f [%.2f, %.2f], steps/bound %.2f..%.2f, conflicts %llu\n",
               s->algo, pb_dmm_pattern_name(s->pattern), r.slope, s->slope_lo, s->slope_hi,
               r.ratio_min, r.ratio_max, (unsigned long long)r.conflicts);
        if (!ok) {
            fprintf(stderr, "series %s (%s) off: correct %d races %llu\n", s->algo,
                    pb_dmm_pattern_name(s->pattern), r.all_correct, (unsigned long long)r.races);
            failures++;
        }
    }
    /* The fit itself: exact slopes of exact powers. */
    double x[4] = {2, 4, 8, 16}, y[4] = {12, 48, 192, 768};
    ASSERT(fabs(pb_dmm_loglog_slope(x, y, 4) - 2.0) < 1e-12);
    return failures != 0;
}

/* The tile generator: reproducible, and each pattern what it says. */
TEST_IMPL(dmm_tile_inputs)
{
    uint32_t a[32 * 256], b[32 * 256];
    pb_tile_gen(PB_TILE_PARTITION, PB_TILE_UNIFORM, 64, 9, 3, a);
    pb_tile_gen(PB_TILE_PARTITION, PB_TILE_UNIFORM, 64, 9, 3, b);
    ASSERT(memcmp(a, b, 32 * 64 * 4) == 0);
    pb_tile_gen(PB_TILE_PARTITION, PB_TILE_UNIFORM, 64, 9, 4, b);
    ASSERT(memcmp(a, b, 32 * 64 * 4) != 0);
    pb_tile_gen(PB_TILE_PARTITION, PB_TILE_ONEBANK, 256, 9, 0, a);
    for (unsigned i = 0; i < 32 * 256; i++) ASSERT_EQ_U64(pb_tile_label(a[i]), i % 32);
    pb_tile_gen(PB_TILE_PARTITION, PB_TILE_STRIDED, 256, 9, 0, a);
    for (unsigned i = 0; i < 32 * 256; i++) ASSERT_EQ_U64(pb_tile_label(a[i]), i % 32 / 4);
    pb_tile_gen(PB_TILE_SORT, PB_TILE_SKEWED, 256, 9, 0, a);
    unsigned zeros = 0;
    for (unsigned i = 0; i < 32 * 256; i++) zeros += pb_tile_label(a[i]) == 0;
    ASSERT(zeros > 3700 && zeros < 4500); /* half of 8192 */
    for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++) {
        pb_tile_gen(PB_TILE_PERMUTE, (pb_tile_pattern)pat, 128, 9, 1, a);
        memset(b, 0, sizeof b);
        for (unsigned i = 0; i < 32 * 128; i++) {
            ASSERT(pb_tile_dest(a[i]) < 32 * 128);
            b[pb_tile_dest(a[i])]++;
        }
        for (unsigned i = 0; i < 32 * 128; i++) ASSERT_EQ_U64(b[i], 1);
    }
    /* onebank's permutation is the transpose. */
    pb_tile_gen(PB_TILE_PERMUTE, PB_TILE_ONEBANK, 64, 9, 0, a);
    for (unsigned j = 0; j < 64; j++)
        for (unsigned l = 0; l < 32; l++) ASSERT_EQ_U64(pb_tile_dest(a[j * 32 + l]), l * 64 + j);
    return 0;
}

/* The models of the GPU kernels: correct on every pattern and m; split and
 * the paper's without conflicts; the scatter's conflicts where the patterns
 * put them (onebank 32-way, strided 8-way; pad removes them at m = 32). */
TEST_IMPL(dmm_tile_models)
{
    static const unsigned ms[] = {32, 64, 128, 256};
    int failures = 0;
    for (int op = 0; op < PB_TILE_NOPS; op++)
        for (int me = 0; me < PB_TILE_NMETHODS; me++)
            for (size_t mi = 0; mi < 4; mi++)
                for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++) {
                    pb_tile_op o = (pb_tile_op)op;
                    pb_tile_method method = (pb_tile_method)me;
                    if (!pb_tile_method_applies(o, method) || !pb_tile_method_modelled(method))
                        continue;
                    pb_tile_prediction pr;
                    pb_err err;
                    unsigned m = ms[mi];
                    if (pb_tile_predict(o, method, (pb_tile_pattern)pat, m, 11, 5, 2, &pr, &err)) {
                        fprintf(stderr, "%s\n", err.msg);
                        return 1;
                    }
                    bool cf = method == PB_TILE_SPLIT || method == PB_TILE_PAPER;
                    if (!pr.correct || pr.st.races || (cf && pb_dmm_conflicts(&pr.st))) {
                        fprintf(stderr, "%s/%s m=%u %s: correct %d races %llu conflicts %llu\n",
                                pb_tile_op_name(o), pb_tile_method_name(method), m,
                                pb_tile_pattern_name((pb_tile_pattern)pat), pr.correct,
                                (unsigned long long)pr.st.races,
                                (unsigned long long)pb_dmm_conflicts(&pr.st));
                        failures++;
                    }
                }
    pb_tile_prediction pr;
    pb_err err;
    for (int op = PB_TILE_PARTITION; op <= PB_TILE_PERMUTE; op += 2) {
        ASSERT(pb_tile_predict((pb_tile_op)op, PB_TILE_SCATTER, PB_TILE_ONEBANK, 128, 1, 0, 1, &pr,
                               &err) == 0);
        ASSERT_EQ_U64(pr.st.st_conflicts, 31 * 128);
        ASSERT_EQ_U64(pr.st.ld_conflicts, 0);
        ASSERT(pb_tile_predict((pb_tile_op)op, PB_TILE_SCATTER, PB_TILE_STRIDED, 128, 1, 0, 1, &pr,
                               &err) == 0);
        ASSERT_EQ_U64(pr.st.st_conflicts, 7 * 128);
        ASSERT(pb_tile_predict((pb_tile_op)op, PB_TILE_PAD, PB_TILE_ONEBANK, 32, 1, 0, 1, &pr,
                               &err) == 0);
        ASSERT_EQ_U64(pb_dmm_conflicts(&pr.st), 0);
    }
    /* Steps of the scatter partition: per warp a count store, warp 0's 2 x 8
     * base loads and stores, per line a base load and a store, the read
     * back. */
    ASSERT(pb_tile_predict(PB_TILE_PARTITION, PB_TILE_SCATTER, PB_TILE_UNIFORM, 64, 1, 0, 1, &pr,
                           &err) == 0);
    ASSERT_EQ_U64(pb_dmm_steps(&pr.st), 8 + 16 + 2 * 64 + 64);
    return failures != 0;
}

/* The split method's key bits: Gray-coded label with its parity first,
 * Gray-coded key, Gray-coded destination, as their definitions say. */
TEST_IMPL(dmm_split_bits)
{
    for (uint32_t l = 0; l < 32; l++) {
        uint32_t g = l ^ (l >> 1), item = l << 27 | 0x5a5a5a5u;
        ASSERT_EQ_U64(pb_tile_split_bit_partition(item, 0), pb_tile_popc(g) & 1u);
        for (unsigned p = 1; p < 6; p++)
            ASSERT_EQ_U64(pb_tile_split_bit_partition(item, p), (g >> (p - 1)) & 1u);
    }
    for (uint32_t d = 0; d < 8192; d++) {
        uint32_t g = d ^ (d >> 1), item = d << 19 | (d * 2654435761u >> 13);
        for (unsigned p = 0; p < 13; p++)
            ASSERT_EQ_U64(pb_tile_split_bit_permute(item, p), (g >> p) & 1u);
    }
    uint32_t k = 0x9e3779b9u, g = k ^ (k >> 1);
    for (unsigned p = 0; p < 32; p++) ASSERT_EQ_U64(pb_tile_split_bit_sort(k, p), (g >> p) & 1u);
    return 0;
}

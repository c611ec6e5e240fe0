/* The GPU top-k modules on ties = lowest-index (each row's index set against
 * the host twin's) and on 64-bit keys (fp64, u64), with radik's switches and
 * cluster path; test_gpu_topk.c's comment says what each test covers. */
#include <stdlib.h>
#include <time.h>

#include "config/params.h"
#include "core/gpu.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_problem.h"
#include "registry/registry.h"
#include "tests/test.h"
#include "tests/topk/gpu_topk_helpers.h"
#ifdef PB_HAVE_CUDA
#include "families/topk/gpu_topk_output.h"
#endif

#ifdef PB_HAVE_CUDA

/* ---- ties = lowest-index: the twin's index set exactly ---- */

/* The module variants run with ties = lowest-index: sort-and-choose (its
 * segmented path takes the stable sort), radik as configured by default,
 * radik whose ties come from the candidate passes (scale and filter off:
 * the final pass reads candidates), and radik with each switch that
 * changes how its passes reach the final one. */
static const tk_case tie_cases[] = {
    {"gpu-sort-and-choose", NULL, NULL}, {"gpu-radik", NULL, NULL},     {"gpu-radik", "scale", "off"},
    {"gpu-radik", "hier", "0"},          {"gpu-radik", "resched", "0"}, {"gpu-radik", "filter", "overshoot"},
    {"gpu-radik", "sorted", "yes"},      {"gpu-radik", "tie_aware", "0"},
};
enum { NTIE_CASES = sizeof tie_cases / sizeof tie_cases[0] };

/* One lowest-index run at q: verify() (which with lowest-index compares
 * index sets), then the returned indices, sorted per row, against the
 * host twin's (tw: sorted the same way). Returns 1 on failure (printed). */
static int ties_run(const pb_module *mod, const tk_case *c, const tk_point *q, uint64_t outs,
                    const uint32_t *tw, uint32_t *got)
{
    pb_err err = {{0}};
    tk_output out;
    int rc = gtk_run_output(mod, c, q, "ties", "lowest-index", outs, &out, &err);
    const uint32_t *ix = out.ix;
    const uint64_t *off = out.off;
    uint64_t rows = out.rows;
    void *st = out.st;
    for (uint64_t r = 0; r < rows && !rc; r++) {
        uint64_t o = off[r], m = off[r + 1] - o;
        memcpy(got + o, ix + o, m * 4);
        qsort(got + o, (size_t)m, 4, gtk_cmp_u32);
        if (memcmp(got + o, tw + o, m * 4) != 0) {
            uint64_t j = 0;
            while (got[o + j] == tw[o + j]) j++;
            snprintf(err.msg, sizeof err.msg,
                     "row %llu: the index sets differ from the twin's (sorted, at %llu: %u "
                     "where the twin has %u)",
                     (unsigned long long)r, (unsigned long long)j, got[o + j], tw[o + j]);
            rc = -1;
        }
    }
    if (st) mod->release(st);
    if (rc) gtk_describe(mod, c, q, "ties=lowest-index: ", err.msg);
    return rc ? 1 : 0;
}

/* The host twin's answer at point q, its index sets sorted per row (the
 * twin's is the lowest-index one: topk_select.h), and room for a module's
 * (got). Returns nonzero (printed) if it could not be made; tk_twin_free
 * either way. */
typedef struct tk_twin {
    pb_topk_problem hp;
    uint64_t outs;
    uint32_t *tw, *got;
} tk_twin;

static int tk_twin_init(tk_twin *t, const tk_point *q)
{
    const pb_module *host = pb_module_find("cpu-topk");
    tk_case none = {"cpu-topk", NULL, NULL};
    pb_params p;
    pb_err err = {{0}};
    *t = (tk_twin){0};
    gtk_set_params(host, &none, q, &p, &err);
    pb_point pt = {q->n, 4, gtk_seed(q), &p, 0};
    if (pb_topk_problem_init(&t->hp, &pt, &err) || pb_topk_twin_answer(&t->hp, &err)) {
        gtk_describe(host, &none, q, "host problem: ", err.msg);
        return 1;
    }
    t->outs = t->hp.out_total;
    t->tw = malloc((t->outs ? t->outs : 1) * 4);
    t->got = malloc((t->outs ? t->outs : 1) * 4);
    if (!t->tw || !t->got) return 1;
    memcpy(t->tw, t->hp.twin_idx, t->outs * 4);
    for (uint64_t r = 0; r < t->hp.rows; r++)
        qsort(t->tw + t->hp.out_off[r], (size_t)(t->hp.out_off[r + 1] - t->hp.out_off[r]), 4,
              gtk_cmp_u32);
    return 0;
}

static void tk_twin_free(tk_twin *t)
{
    free(t->tw);
    free(t->got);
    pb_topk_problem_free(&t->hp);
}

/* Every tie case at point q against one host twin; returns failures. */
static int ties_point(const pb_module **mods, const tk_point *q, int ncases)
{
    tk_twin t;
    int failures = tk_twin_init(&t, q);
    for (int ci = 0; ci < ncases && !failures; ci++)
        failures += ties_run(mods[ci], &tie_cases[ci], q, t.outs, t.tw, t.got);
    tk_twin_free(&t);
    return failures;
}

/* k values for the tie sweep at row length n: 1, 2, n - 1, n, past n, and
 * past the distinct values of few:2, few:16 and int8 (3, 17, 257), 1000
 * and n / 2; without repeats, all >= 1. */
static int tie_k_list(uint64_t n, uint64_t *ks)
{
    const uint64_t want[] = {1, 2, n - 1, n, n + 3, 3, 17, 257, 1000, n / 2};
    int c = 0;
    for (int i = 0; i < 10; i++) {
        if (want[i] < 1 || (want[i] > n && i >= 5)) continue;
        bool dup = false;
        for (int j = 0; j < c; j++) dup |= ks[j] == want[i];
        if (!dup) ks[c++] = want[i];
    }
    return c;
}

/* gpu_topk_ties runs as three parts, so that each fits one 600 s call on a
 * lent GPU with a build: part p takes the (size,
 * distribution) pairs, then the 2^24 points, whose running index is p
 * modulo 3. */
enum { TIES_PARTS = 3 };

static int ties_sweep(int part)
{
    const pb_module *mods[NTIE_CASES];
    for (int ci = 0; ci < NTIE_CASES; ci++) {
        mods[ci] = pb_module_find(tie_cases[ci].module);
        if (!mods[ci]) {
            fprintf(stderr, "no module '%s' in this build\n", tie_cases[ci].module);
            return 1;
        }
    }
    /* Heavy ties (and uniform, where ties are rare: the pass must then
     * change nothing); nan: every NaN is one key. */
    const int dists[] = {gtk_dist_named("few:2"), gtk_dist_named("few:16"),     gtk_dist_named("int8"),
                         gtk_dist_named("relu"),  gtk_dist_named("masked:0.5"), PB_TOPK_EQUAL,
                         PB_TOPK_NAN,         PB_TOPK_UNIFORM};
    enum { ND = sizeof dists / sizeof dists[0] };
    /* 2^11 +- 1: radik's tie partitions are 2^11 keys; 2^16 + 1 and
     * 2^20 + 1 reach radik's filter and several blocks a row. */
    const uint64_t sizes[] = {1, 2, 3, 1023, 2047, 2048, 2049, 65535, 65537, (1u << 20) + 1};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    long runs = 0;
    int failures = 0;
    for (int si = 0; si < NS; si++)
        for (int d = 0; d < ND; d++) {
            if ((si * ND + d) % TIES_PARTS != part) continue;
            uint64_t ks[10];
            int nk = tie_k_list(sizes[si], ks);
            for (int ki = 0; ki < nk && failures < MAX_FAILURES; ki++) {
                uint32_t h = gtk_coords(0x71e5, 0, dists[d], ki, si);
                /* Every shape for short rows; long ones a single row or
                 * the 5-row ragged batch. */
                int sh = sizes[si] <= 2049 ? (int)(h & 3) : (h & 1) ? 2 : (int)(h >> 1 & 1);
                tk_point q = {sizes[si], ks[ki], gtk_shapes[sh], dists[d], (int)(h >> 4 & 1),
                              gtk_dtype(h >> 5)};
                failures += ties_point(mods, &q, NTIE_CASES);
                runs += NTIE_CASES;
            }
        }
    /* The largest sizes at 2^24 (one row), all-equal and few:16 with k
     * 32 and 2^18 on sort-and-choose and default radik. */
    const int big_dists[] = {PB_TOPK_EQUAL, gtk_dist_named("few:16")};
    const uint64_t big_k[] = {32, UINT64_C(1) << 18};
    for (int d = 0; d < 2; d++)
        for (int ki = 0; ki < 2 && failures < MAX_FAILURES; ki++) {
            if ((d * 2 + ki) % TIES_PARTS != part) continue;
            tk_point q = {UINT64_C(1) << 24, big_k[ki], gtk_shapes[0], big_dists[d], 1, PB_TOPK_F32};
            failures += ties_point(mods, &q, 2);
            runs += 2;
        }
    printf("%ld lowest-index module runs, %d failures\n", runs, failures);
    return failures != 0;
}

#endif

static int ties(int part)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifdef PB_HAVE_CUDA
    return ties_sweep(part);
#else
    (void)part;
    return 1; /* a device without the GPU modules built cannot happen */
#endif
}

TEST_IMPL(gpu_topk_ties_part1) { return ties(0); }
TEST_IMPL(gpu_topk_ties_part2) { return ties(1); }
TEST_IMPL(gpu_topk_ties_part3) { return ties(2); }

/* ---- 64-bit keys: fp64 and u64 ---- */

#ifdef PB_HAVE_CUDA
/* sort-and-choose and radik on fp64 and u64 keys, every distribution, both
 * directions, n in {1, 2, 3, 1023, 1025, 65537, 2^20 + 1} (sort-and-choose's
 * row loop and segmented path by shape; radik's filter from 2^16, its
 * scaling from 2^15), k in {1, 2, 3, 17, 257, 1000, n - 1, n, n + 1} and
 * 2^18 on the longest rows, a single row (aligned or not) and batches (5
 * ragged misaligned rows, 16 misaligned rows; 2^20 + 1 a single row)
 * picked by hash; each run's verify() against the C twin. Short rows take
 * every k; long ones (the host's twin is the cost there) three by hash,
 * and radik always k = 17 too (a k its filter takes). The cases with
 * `switches` are radik with each switch off alone, the others the modules
 * as configured, both tie policies and sorted = yes. Then, without
 * `switches`, ties = lowest-index on the heavy-tie distributions: every
 * tie case's index sets equal the twin's (ties_point). PB_TOPK_CASES
 * narrows the cases as for the twin. */
static int wide_sweep(bool switches)
{
    static const tk_case main_cases[] = {
        {"gpu-sort-and-choose", NULL, NULL},   {"gpu-sort-and-choose", "ties", "lowest-index"},
        {"gpu-sort-and-choose", "sorted", "yes"}, {"gpu-radik", NULL, NULL},
        {"gpu-radik", "ties", "lowest-index"}, {"gpu-radik", "sorted", "yes"},
    };
    static const tk_case switch_cases[] = {
        {"gpu-radik", "filter", "off"},  {"gpu-radik", "filter", "overshoot"}, {"gpu-radik", "scale", "off"},
        {"gpu-radik", "scale", "random"}, {"gpu-radik", "tie_aware", "0"},     {"gpu-radik", "hier", "0"},
        {"gpu-radik", "resched", "0"},    {"gpu-radik", "pad", "0"},           {"gpu-radik", "wbuf", "0"},
        {"gpu-radik", "quick", "0"},      {"gpu-radik", "prefetch", "0"},
    };
    const tk_case *wc = switches ? switch_cases : main_cases;
    int nwc = switches ? (int)(sizeof switch_cases / sizeof switch_cases[0])
                       : (int)(sizeof main_cases / sizeof main_cases[0]);
    for (int ci = 0; ci < nwc; ci++) {
        const pb_module *m = pb_module_find(wc[ci].module);
        if (!m || (wc[ci].param && pb_module_param_index(m, wc[ci].param) < 0)) {
            fprintf(stderr, "no module '%s' with its parameter in this build\n", wc[ci].module);
            return 1;
        }
    }
    static const uint64_t sizes[] = {1, 2, 3, 1023, 1025, 65537, (1u << 20) + 1};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    tk_tally t = {0, 0};
    bool go = true;
    double t0 = gtk_now_s();
    for (int ci = 0; ci < nwc && go; ci++) {
        if (!gtk_case_wanted(&wc[ci])) continue;
        const pb_module *mod = pb_module_find(wc[ci].module);
        bool radik = strcmp(wc[ci].module, "gpu-radik") == 0;
        for (int si = 0; si < NS && go; si++)
            for (int dist = 0; dist < NDISTS && go; dist++)
                for (int dt = PB_TOPK_F64; dt <= PB_TOPK_U64 && go; dt++) {
                    uint64_t n = sizes[si];
                    const uint64_t want[] = {1, 2, 3, 17, 257, 1000, n - 1, n, n + 1, 1u << 18};
                    /* The main cases keep sort-and-choose's points of old
                     * (its cases come first, as they did). */
                    uint32_t h = gtk_coords(0x64 + (uint32_t)dt + (switches ? 0x40 : 0), ci, dist,
                                           0, si);
                    for (int ki = 0; ki < 10 && go; ki++) {
                        uint64_t k = want[ki];
                        if (k < 1 || (k == (1u << 18) && n < (1u << 20))) continue;
                        bool always = radik && k == 17;
                        if (n > 4096 && !always && (gtk_hash(h + (uint32_t)ki) % 10) >= 3) continue;
                        uint32_t hk = gtk_hash(h ^ (uint32_t)ki);
                        int sh = (int)(hk % (n > 65537 ? 2 : NSHAPES));
                        tk_point q = {n, k, gtk_shapes[sh], dist, (int)(hk >> 4 & 1), dt};
                        go = gtk_tally(&t, mod, &wc[ci], &q);
                    }
                }
    }
    if (!switches) {
        /* Every tie case (sort-and-choose, radik and its tie-relevant
         * switches): the twin's index sets exactly. */
        const pb_module *mods[NTIE_CASES];
        for (int ci = 0; ci < NTIE_CASES; ci++)
            if (!(mods[ci] = pb_module_find(tie_cases[ci].module))) {
                fprintf(stderr, "no module '%s' in this build\n", tie_cases[ci].module);
                return 1;
            }
        const int dists[] = {gtk_dist_named("few:2"), gtk_dist_named("few:16"), gtk_dist_named("int8"),
                             PB_TOPK_EQUAL,       PB_TOPK_NAN,          PB_TOPK_UNIFORM};
        const uint64_t tsizes[] = {3, 2049, 65537, (1u << 20) + 1};
        for (int si = 0; si < 4 && go; si++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0] && go; d++) {
                uint64_t ks[10];
                int nk = tie_k_list(tsizes[si], ks);
                for (int ki = 0; ki < nk && t.failures < MAX_FAILURES; ki++) {
                    uint32_t h = gtk_coords(0x64e5, 0, dists[d], ki, si);
                    tk_point q = {tsizes[si],
                                  ks[ki],
                                  gtk_shapes[tsizes[si] <= 2049 ? h & 3
                                         : (h & 1)          ? 2
                                                            : 0],
                                  dists[d],
                                  (int)(h >> 4 & 1),
                                  (h >> 5 & 1) ? PB_TOPK_U64 : PB_TOPK_F64};
                    t.failures += ties_point(mods, &q, NTIE_CASES);
                    t.runs += NTIE_CASES;
                }
            }
    }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, gtk_now_s() - t0, t.failures);
    return t.failures != 0;
}
#endif

TEST_IMPL(gpu_topk_wide)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifdef PB_HAVE_CUDA
    return wide_sweep(false);
#else
    return 1; /* a device without the GPU modules built cannot happen */
#endif
}

/* gpu_topk_wide's points on radik with each switch off: a test of its own,
 * so that each stays well inside one 600 s call on a lent GPU. */
TEST_IMPL(gpu_topk_wide_switches)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifdef PB_HAVE_CUDA
    return wide_sweep(true);
#else
    return 1; /* a device without the GPU modules built cannot happen */
#endif
}

#ifdef PB_HAVE_CUDA
/* radik, if this build has it with parameter `param` (else NULL, said). */
static const pb_module *radik_with(const char *param)
{
    const pb_module *m = pb_module_find("gpu-radik");
    if (m && pb_module_param_index(m, param) >= 0) return m;
    fprintf(stderr, "no gpu-radik with its parameter %s in this build\n", param);
    return NULL;
}
#endif

/* radik's `refine` (the threshold from a 16384-key sample) acts only on
 * rows of 2^25 keys or more, longer than any other test's: radik with it
 * on (the default) and off, any and lowest-index ties (lowest-index: the
 * twin's index sets exactly), on single rows of 2^25 + 3 (aligned or not)
 * and three ragged misaligned rows (a pair about 2^25, one of them past
 * it, and one of 2^25 + 3: presample's slots differ from the row indices), on
 * distributions whose thresholds are selective (uniform, normal, zipf,
 * relu, masked, sorted, reversed) or shared (few:256, int8, equal), fp32,
 * fp16, bf16 and u32 keys, k in {1, 32, 1000, 2^18} by hash. */
TEST_IMPL(gpu_topk_refine)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifndef PB_HAVE_CUDA
    return 1; /* a device without the GPU modules built cannot happen */
#else
    static const tk_case rcases[] = {{"gpu-radik", NULL, NULL}, {"gpu-radik", "refine", "0"}};
    const pb_module *m = radik_with("refine");
    if (!m) return 1;
    const pb_module *mods[NTIE_CASES];
    for (int ci = 0; ci < NTIE_CASES; ci++)
        if (!(mods[ci] = pb_module_find(tie_cases[ci].module))) {
            fprintf(stderr, "no module '%s' in this build\n", tie_cases[ci].module);
            return 1;
        }
    const char *dists[] = {"uniform", "normal", "zipf", "relu", "masked:0.5", "sorted",
                           "reversed", "few:256", "int8", "equal"};
    const int dts[] = {PB_TOPK_F32, PB_TOPK_F16, PB_TOPK_BF16, PB_TOPK_U32};
    const uint64_t ks[] = {1, 32, 1000, 1u << 18};
    /* Three ragged rows: a pair about 2^25 (one past it, one short of it)
     * and a third of 2^25 + 3, so that a refining row's presample slot is
     * not its row's index. */
    const tk_shape three = {3, 1, 1};
    tk_tally t = {0, 0};
    double t0 = gtk_now_s();
    for (int d = 0; d < 10 && t.failures < MAX_FAILURES; d++)
        for (int i = 0; i < 2 && t.failures < MAX_FAILURES; i++) {
            uint32_t h = gtk_coords(0x2e5, 0, d, i, 0);
            tk_point q = {(UINT64_C(1) << 25) + 3, ks[h & 3], i ? three : gtk_shapes[h >> 2 & 1],
                          gtk_dist_named(dists[d]), (int)(h >> 3 & 1), dts[(h >> 4) & 3]};
            for (int ci = 0; ci < 2; ci++) {
                t.failures += gtk_one(m, &rcases[ci], &q);
                t.runs++;
            }
            /* lowest-index on the tie cases' list, once a distribution. */
            if (i == 0) {
                t.failures += ties_point(mods, &q, NTIE_CASES);
                t.runs += NTIE_CASES;
            }
        }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, gtk_now_s() - t0, t.failures);
    return t.failures != 0;
#endif
}

/* radik's `tie_level` (pb_radik_refine, radik_sample.cuh): a refined
 * threshold that sample keys share as a level filters strictly (strict),
 * and moves up to the next sample key above it (up, the default). It acts
 * only on refining rows (2^25 keys or more) with ties = any, and
 * `l2_prefetch` only in the filter pass such rows take: radik with each
 * level and with l2_prefetch off, on rows of 2^25 + 3 (single rows aligned
 * or not, and three ragged misaligned rows) of fp16 and bf16 U[0, 1)
 * largest (their top levels: fp16's 1.0 holds 2^-12 of the row, the next
 * value 2^-11, so the threshold is one or the other), and of few:256,
 * int8, equal, normal and uniform keys of fp32, fp16 and bf16 (fp32 rows
 * take neither switch: they must answer alike), k in {1, 32, 1000},
 * either direction. */
TEST_IMPL(gpu_topk_tie_level)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifndef PB_HAVE_CUDA
    return 1; /* a device without the GPU modules built cannot happen */
#else
    static const tk_case lcases[] = {{"gpu-radik", NULL, NULL},
                                     {"gpu-radik", "tie_level", "off"},
                                     {"gpu-radik", "tie_level", "strict"},
                                     {"gpu-radik", "l2_prefetch", "0"}};
    const pb_module *m = radik_with("tie_level");
    if (!m) return 1;
    static const struct {
        const char *dist;
        int dtype, largest; /* -1: by the point's hash */
    } pts[] = {{"uniform", PB_TOPK_F16, 1},  {"uniform", PB_TOPK_BF16, 1}, {"few:256", PB_TOPK_F32, -1},
               {"int8", PB_TOPK_F16, -1},    {"equal", PB_TOPK_BF16, -1},  {"normal", PB_TOPK_F32, -1},
               {"uniform", PB_TOPK_F32, -1}, {"few:256", PB_TOPK_F16, -1}, {"uniform", PB_TOPK_F16, 1}};
    const uint64_t ks[] = {1, 32, 1000};
    const tk_shape three = {3, 1, 1};
    const int npts = (int)(sizeof pts / sizeof pts[0]), ncases = (int)(sizeof lcases / sizeof lcases[0]);
    tk_tally t = {0, 0};
    double t0 = gtk_now_s();
    for (int i = 0; i < npts && t.failures < MAX_FAILURES; i++) {
        uint32_t h = gtk_coords(0x71e, 0, i, 0, 0);
        tk_point q = {(UINT64_C(1) << 25) + 3, ks[h % 3], i % 3 == 2 ? three : gtk_shapes[h >> 2 & 1],
                      gtk_dist_named(pts[i].dist),
                      pts[i].largest >= 0 ? pts[i].largest : (int)(h >> 3 & 1), pts[i].dtype};
        for (int ci = 0; ci < ncases; ci++) {
            t.failures += gtk_one(m, &lcases[ci], &q);
            t.runs++;
        }
    }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, gtk_now_s() - t0, t.failures);
    return t.failures != 0;
#endif
}

/* How a cluster sweep sets a point's shape and dtype from its hash h. */
typedef void (*cluster_pick)(uint64_t n, uint32_t h, tk_point *q);

/* fp16 / bf16: single rows aligned or not and batches; long rows in
 * fewer shapes. */
static void pick16(uint64_t n, uint32_t h, tk_point *q)
{
    int sh = n <= 65537 ? (int)(h >> 4 & 3) : n < (1u << 22) ? (int)((h >> 4) % 3) : (int)(h >> 4 & 1);
    q->shape = gtk_shapes[sh];
    q->dtype = (h >> 9 & 1) ? PB_TOPK_BF16 : PB_TOPK_F16;
}

/* Word keys: fp32 half the points, u32, i32, fp64, u64 an eighth each;
 * 1024 ragged misaligned rows a quarter of the points up to n = 1025; no
 * 16-row batch of the longest rows (the host twin's time). */
static void pickw(uint64_t n, uint32_t h, tk_point *q)
{
    static const int dts[] = {PB_TOPK_F32, PB_TOPK_F32, PB_TOPK_U32, PB_TOPK_I32,
                              PB_TOPK_F64, PB_TOPK_U64, PB_TOPK_F32, PB_TOPK_F32};
    static const tk_shape many = {1024, 1, 1};
    int sh = (int)(h >> 4 & 3);
    q->shape = gtk_shapes[n > 131072 && sh == 3 ? 2 : sh];
    if (n <= 1025 && (h >> 12 & 3) == 0) q->shape = many;
    q->dtype = dts[h >> 9 & 7];
}

#ifdef PB_HAVE_CUDA

/* Where radik refuses cluster = on (its `available`: a device, or this
 * binary's code for it, older than compute capability 9.0; the refusal is
 * gpu_radik_cluster_arch's test), the cluster tests SKIP, saying why. */
static int cluster_refused(const pb_module *m)
{
    pb_params p;
    pb_err err = {{0}};
    char why[256] = "";
    pb_params_defaults(m, &p);
    if (pb_params_set(m, &p, "cluster", "on", &err) != 0) return 0;
    if (pb_module_available_with(m, &p, why, sizeof why)) return 0;
    printf("skipped: gpu-radik: %s\n", why);
    return PB_TEST_SKIP;
}

/* radik's cluster path (radik_cluster.cuh, radik_cluster_w.cuh) at one point: cluster = on
 * with ties = lowest-index (the index sets against the host twin's, as
 * gpu_topk_ties_part* do) and with ties = any, and radik's defaults and
 * sorted = yes, which take the path on batches (cluster = auto). Returns
 * failures. */
static int cluster_point(const pb_module *m, const tk_point *q)
{
    static const tk_case on = {"gpu-radik", "cluster", "on"};
    static const tk_case others[] = {
        {"gpu-radik", "cluster", "on"}, {"gpu-radik", NULL, NULL}, {"gpu-radik", "sorted", "yes"}};
    tk_twin t;
    int failures = tk_twin_init(&t, q);
    if (!failures) failures += ties_run(m, &on, q, t.outs, t.tw, t.got);
    for (int ci = 0; ci < 3 && !failures; ci++) failures += gtk_one(m, &others[ci], q);
    /* The cluster path's three reads (filter = off) and its fallback
     * (overshoot), lowest-index against the twin and ties = any. */
    static const char *const filters[] = {"off", "overshoot"};
    for (int f = 0; f < 2 && !failures; f++) {
        static const tk_case filt_on = {"gpu-radik", "filter", NULL};
        tk_case fc = filt_on;
        fc.value = filters[f];
        gtk_extra_name = "cluster", gtk_extra_value = "on";
        failures += ties_run(m, &fc, q, t.outs, t.tw, t.got);
        if (!failures) failures += gtk_one(m, &fc, q);
        gtk_extra_name = gtk_extra_value = NULL;
    }
    tk_twin_free(&t);
    return failures;
}

/* A cluster sweep: every size, distribution and k of the tie list (and
 * 4096 with k4096 from n = 4096), three k by hash past 8193 (and, with
 * thin, a quarter of the distributions by hash past 2^17), the direction
 * by hash; cluster_point at each. */
static tk_tally cluster_sweep(const pb_module *m, uint32_t salt, const uint64_t *sizes, int ns,
                              bool k4096, bool thin, cluster_pick pick)
{
    tk_tally t = {0, 0};
    for (int si = 0; si < ns && t.failures < MAX_FAILURES; si++)
        for (int dist = 0; dist < NDISTS && t.failures < MAX_FAILURES; dist++) {
            uint64_t n = sizes[si], ks[11];
            if (thin && n > 131072 && gtk_hash((uint32_t)(dist * 31 + si)) % 4 != 0) continue;
            int nk = tie_k_list(n, ks);
            if (k4096 && n >= 4096) ks[nk++] = 4096;
            for (int ki = 0; ki < nk && t.failures < MAX_FAILURES; ki++) {
                uint32_t h = gtk_coords(salt, 0, dist, ki, si);
                if (n > 8193 && h % (uint32_t)nk >= 3) continue;
                tk_point q = {n, ks[ki], gtk_shapes[0], dist, (int)(h >> 8 & 1), PB_TOPK_F32};
                pick(n, h, &q);
                t.failures += cluster_point(m, &q);
                t.runs += 8;
            }
        }
    return t;
}

/* One point on the cluster path (cluster = on) with `cluster_blocks` = c
 * (0: chosen): ties = lowest-index against the host twin, and ties = any.
 * Returns failures. */
static int blocks_point(const pb_module *m, const tk_point *q, unsigned c)
{
    char v[8];
    snprintf(v, sizeof v, "%u", c);
    const tk_case cc = {"gpu-radik", "cluster_blocks", v};
    tk_twin tw;
    int f = tk_twin_init(&tw, q);
    gtk_extra_name = "cluster", gtk_extra_value = "on";
    if (!f) f += ties_run(m, &cc, q, tw.outs, tw.tw, tw.got);
    if (!f) f += gtk_one(m, &cc, q);
    gtk_extra_name = gtk_extra_value = NULL;
    tk_twin_free(&tw);
    return f;
}

#endif

/* cluster = on refuses what a grid cannot hold: 65536 rows. Returns
 * failures. */
static int rows_refused(const pb_module *m)
{
    pb_params p;
    pb_err err = {{0}};
    tk_case on = {"gpu-radik", "cluster", "on"};
    tk_point q = {1, 1, {65536, 0, 0}, PB_TOPK_UNIFORM, 1, PB_TOPK_F32};
    gtk_set_params(m, &on, &q, &p, &err);
    pb_point pt = {q.n, 4, gtk_seed(&q), &p, 0};
    void *st = NULL;
    int bad = m->prepare(&pt, &st, &err) == 0 || !strstr(err.msg, "65535 rows");
    if (bad) fprintf(stderr, "gpu-radik cluster = on with 65536 rows: not refused (%s)\n", err.msg);
    if (st) m->release(st);
    return bad;
}

#ifdef PB_HAVE_CUDA

/* gpu_topk_cluster_blocks's points: every count 1 to 16 at each size. */
static tk_tally blocks_sweep(const pb_module *m)
{
    static const uint64_t sizes[] = {65537, 151936, (1u << 20) + 1};
    static const uint64_t ks[] = {1, 50, 1000, 4096};
    static const int dts[] = {PB_TOPK_F32, PB_TOPK_BF16, PB_TOPK_U64, PB_TOPK_F16};
    tk_tally t = {0, 0};
    for (int si = 0; si < 3 && t.failures < MAX_FAILURES; si++)
        for (unsigned c = 1; c <= 16 && t.failures < MAX_FAILURES; c++) {
            uint32_t h = gtk_hash(gtk_coords(0xcb, 0, (int)c, 0, si));
            tk_point q = {sizes[si],      ks[h & 3],          gtk_shapes[h >> 2 & 3],
                          (int)((h >> 4) % NDISTS), (int)(h >> 9 & 1), dts[h >> 10 & 3]};
            t.failures += blocks_point(m, &q, c);
            t.runs += 2;
        }
    return t;
}

/* gpu_topk_cluster_best's points: every distribution at each size. */
static tk_tally best_sweep(const pb_module *m)
{
    static const uint64_t sizes[] = {1, 2, 3, 5, 9, 1025, 32000, 65537, 151936, (1u << 20) + 1};
    static const int dts[] = {PB_TOPK_F32, PB_TOPK_U32, PB_TOPK_I32, PB_TOPK_F64,
                              PB_TOPK_U64, PB_TOPK_F16, PB_TOPK_BF16, PB_TOPK_F32};
    static const tk_shape many = {1024, 1, 1};
    const int ns = (int)(sizeof sizes / sizeof sizes[0]);
    tk_tally t = {0, 0};
    for (int si = 0; si < ns && t.failures < MAX_FAILURES; si++)
        for (int dist = 0; dist < NDISTS && t.failures < MAX_FAILURES; dist++) {
            uint32_t h = gtk_hash(gtk_coords(0xb1, 0, dist, 0, si));
            tk_point q = {sizes[si], 1, gtk_shapes[h >> 3 & 3], dist, (int)(h >> 5 & 1), dts[h & 7]};
            if (sizes[si] <= 1025 && (h >> 12 & 3) == 0) q.shape = many;
            t.failures += blocks_point(m, &q, (h >> 6) % 17);
            t.runs += 2;
        }
    return t;
}

#endif

/* Which sweep a cluster test runs: cluster_sweep's, or one of its own. */
enum cluster_own { OWN_NONE, OWN_BLOCKS, OWN_BEST };

/* A cluster test: SKIP without a GPU or where radik refuses cluster =
 * on; the sweep (own, or cluster_sweep's: word, 4096 among the k and a
 * quarter of the distributions past 2^17), then `after`'s checks. */
static int cluster_test(uint32_t salt, const uint64_t *sizes, int ns, bool word, cluster_pick pick,
                        int (*after)(const pb_module *), enum cluster_own own)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifndef PB_HAVE_CUDA
    (void)salt, (void)sizes, (void)ns, (void)word, (void)pick, (void)after, (void)own;
    return 1; /* a device without the GPU modules built cannot happen */
#else
    const pb_module *m = radik_with("cluster");
    if (!m) return 1;
    if ((rc = cluster_refused(m)) != 0) return rc;
    double t0 = gtk_now_s();
    tk_tally t = own == OWN_BLOCKS ? blocks_sweep(m)
                 : own == OWN_BEST ? best_sweep(m)
                                   : cluster_sweep(m, salt, sizes, ns, word, word, pick);
    if (after) t.failures += after(m);
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, gtk_now_s() - t0, t.failures);
    return t.failures != 0;
#endif
}

/* radik's cluster path: fp16 and bf16, every distribution, both
 * directions, n in {1, 2, 3, 7, 8, 9 (a pack of eight keys and its
 * neighbours), 1023, 1025, 8191, 8193, 65537, 2^17 + 1 (two blocks a row),
 * 2^20 + 1 (eight), 2^22 (eight, of 2^19 keys)}, k from the tie list (1, 2,
 * n - 1, n, past n, past the distinct values of few:2, few:16 and int8,
 * 1000, n / 2; three of them by hash past 8193), single rows aligned or
 * not and batches (5 ragged misaligned rows, 16 misaligned rows; batches
 * of long rows: the ragged five at 2^17 + 1 and 2^20 + 1). Each point:
 * cluster_point, with its filter on (the default), off (three reads) and
 * overshoot (its fallback). */
TEST_IMPL(gpu_topk_cluster)
{
    static const uint64_t sizes[] = {1,    2,    3,     7,     8,          9,          1023,
                                     1025, 8191, 8193, 65537, 131073, (1u << 20) + 1, 1u << 22};
    return cluster_test(0xc1, sizes, sizeof sizes / sizeof sizes[0], false, pick16, NULL, OWN_NONE);
}

/* radik's cluster path for word keys (radik_cluster_w.cuh): fp32, u32,
 * i32, fp64 and u64 by hash, every distribution (four by hash from 2^17
 * keys), both directions, n in {1, 2, 3, 4, 5 (a pack of four 32-bit keys
 * and its neighbours), 1023, 1025, 8191, 8192 (a block's room, kept whole
 * in one read), 8193, 32000, 32769 (two blocks a row), 65537, 131073,
 * 151936, 2^20 + 1 (eight blocks)}, k from the tie list and 4096 (three
 * of them by hash past 8193), single rows aligned or not and batches (5
 * ragged misaligned rows, 16 misaligned rows, and up to n = 1025 1024
 * ragged misaligned rows). Each point: cluster_point (cluster = on with
 * both tie policies, the defaults, sorted = yes; filter off: the rounds
 * on reads; overshoot: the sample's fallback). Then the 65536-row
 * refusal. */
TEST_IMPL(gpu_topk_cluster_word)
{
    static const uint64_t sizes[] = {1,     2,     3,     4,     5,      1023,   1025,          8191,
                                     8192,  8193,  32000, 32769, 65537,  131073, 151936, (1u << 20) + 1};
    return cluster_test(0xc2, sizes, sizeof sizes / sizeof sizes[0], true, pickw, rows_refused, OWN_NONE);
}

/* radik's cluster path at every count of blocks a row `cluster_blocks`
 * takes (1 to 16; set-up picks any of them, not only powers of two): n in
 * {65537, 151936, 2^20 + 1}, so that each block has a part, and at 2^20 + 1
 * a part that is not a whole number of packs; the dtype (fp32, bf16, u64,
 * fp16), distribution, k (1, 50, 1000, 4096), shape and direction by hash.
 * Each point: ties = lowest-index against the host twin and ties = any.
 * SKIP where radik refuses cluster = on (before Hopper). */
TEST_IMPL(gpu_topk_cluster_blocks)
{
    return cluster_test(0, NULL, 0, false, NULL, NULL, OWN_BLOCKS);
}

/* radik's cluster path at k = 1 (pb_radik_cl_best: one read, then the
 * cluster's best key): fp32, u32, i32, fp64, u64, fp16 and bf16 by hash,
 * every distribution (NaNs, infinities, all-equal rows, few levels), n in
 * {1, 2, 3, 5, 9, 1025, 32000, 65537, 151936, 2^20 + 1}, the shape (up to
 * n = 1025 a quarter of the points 1024 ragged misaligned rows), the
 * direction and the blocks a row (1 to 16, or chosen) by hash. Each
 * point: ties = lowest-index against the host twin (the best key's
 * smallest index) and ties = any. SKIP where radik refuses cluster = on. */
TEST_IMPL(gpu_topk_cluster_best)
{
    return cluster_test(0, NULL, 0, false, NULL, NULL, OWN_BEST);
}

/* radik takes every dtype (fp64 and u64 on its 64-bit kernels since they
 * replaced the refusal that stood here): no availability check refuses
 * one, with or without a GPU (gpu_topk_wide runs them). SKIP in a build
 * without radik. */
TEST_IMPL(gpu_topk_radik_every_dtype)
{
    const pb_module *m = pb_module_find("gpu-radik");
    if (!m) {
        printf("skipped: no gpu-radik in this build\n");
        return PB_TEST_SKIP;
    }
    static const char *const names[] = {"f32", "u32", "i32", "f16", "bf16", "f64", "u64"};
    ASSERT(sizeof names / sizeof names[0] == PB_TOPK_NDTYPES);
    char why[256] = "";
    pb_err err = {{0}};
    bool gpu = pb_gpu_count(why, sizeof why) > 0;
    for (int dt = 0; dt < PB_TOPK_NDTYPES; dt++) {
        pb_params p;
        pb_params_defaults(m, &p);
        ASSERT(pb_params_set(m, &p, "dtype", names[dt], &err) == 0);
        ASSERT(p.v[PB_TOPK_P_DTYPE] == dt);
        ASSERT(!m->available || m->available(&p, why, sizeof why));
        if (gpu) ASSERT(pb_module_available_with(m, &p, why, sizeof why));
    }
    return 0;
}

/* The GPU top-k modules on a CUDA device, each checked by its own verify()
 * (the family check: the C twin's value multiset, valid distinct indices).
 * SKIP without a device; a missing module (radik not registered) FAILS.
 * The ties and 64-bit key sweeps are in test_gpu_topk_ties.c, the shared
 * cases and points in gpu_topk_helpers.h.
 *
 *  - gpu_topk_twin_part1..3 (a third of the cases each): sort-and-choose,
 *    radik, and radik with each of its switches turned off alone (hier,
 *    wbuf, resched, pad, quick, prefetch; scale=off and scale=random; filter=off, and
 *    filter=overshoot, whose threshold makes
 *    most filtered rows fall back), and both modules with ties =
 *    lowest-index (whose verify() then compares index sets) x every
 *    distribution (relu,
 *    few:2/16/256, int8, masked:0.5, sorted, reversed included) x k in {1, 2, 31, 32, 33, 1000,
 *    n/2, n-1, n} (k beyond a row included) x n in {1, 2, 2^j - 1, 2^j,
 *    2^j + 1 (j = 10, 16, 20), 2^24} x a single row (aligned or not) and
 *    batches (5 ragged misaligned rows, 16 misaligned rows) x largest and
 *    smallest, fp32 and (an eighth of the points each) u32, i32, fp16 and bf16
 *    (for sort-and-choose, fp64 and u64 too, in place of half of fp32's). Below 2^16 the
 *    product is complete; above, a fixed hash of the point picks the shape,
 *    direction and type, so every value of every dimension is still met
 *    many times without the host's twin and check dominating the run (see
 *    the tiers in the test). Prints "N module runs, F failures"
 *    PB_TOPK_CASES=radik,radik:sorted=yes (for example) runs only the
 *    cases named.
 *  - gpu_topk_scaling: radik with scale=off, random and pivot (the filter
 *    off, so that the scaled first digit does the work), and the default
 *    (pivot and the filter) on the same inputs: each passes the check, and
 *    per row the returned index sets are identical where the k-th best key
 *    is unique in the row, otherwise the key multisets are (neither scaling
 *    nor the filter changes the returned set).
 *  - gpu_topk_ties_part1..3 (a third of the points each): ties =
 *    lowest-index on sort-and-choose, radik and radik with scale=off (ties
 *    from the candidate passes), hier=0, resched=0, filter=overshoot,
 *    sorted=yes and tie_aware=0 (the paper's tie handling): each row's
 *    returned index set equals the host twin's exactly (besides verify(),
 *    which then checks the same), on
 *    few:2, few:16, int8, relu, masked:0.5, equal, nan and uniform, at n in
 *    {1, 2, 3, 2^10 - 1, 2^11 - 1, 2^11, 2^11 + 1, 2^16 +- 1, 2^20 + 1} x
 *    k in {1, 2, n - 1, n, past n, 3, 17, 257, 1000, n / 2} (past the
 *    distinct values of few:2, few:16, int8), shapes and direction by
 *    hash; and at 2^24, equal and few:16, k = 32 and 2^18.
 *  - gpu_topk_half: fp16 and bf16 keys on both modules and both tie
 *    policies, at awkward n and k (see the test).
 *  - gpu_topk_wide: fp64 and u64 keys on sort-and-choose and radik (its
 *    64-bit kernels), both tie policies and sorted = yes, at awkward n and
 *    k, and the lowest-index index sets of every tie case against the
 *    twin's; gpu_topk_wide_switches: the same points on radik with each of
 *    its switches turned off alone (filter=off and overshoot, scale=off and
 *    random, tie_aware, hier, resched, pad, wbuf, quick, prefetch);
 *    gpu_topk_radik_every_dtype (no GPU needed): radik refuses no dtype.
 *  - gpu_topk_cluster: radik's cluster path (cluster = on, and the
 *    defaults on batches, which take it) on fp16 and bf16 keys, both tie
 *    policies (lowest-index: the index sets against the twin's) and
 *    sorted = yes, at awkward n and k (see the test);
 *    gpu_topk_cluster_word: the same for 32- and 64-bit keys
 *    (radik_cluster_w.cuh), k up to 4096, batches of 1024 rows;
 *    gpu_topk_cluster_blocks: every count of blocks a row;
 *    gpu_topk_cluster_best: k = 1 (the row's best key), every dtype.
 *  - gpu_topk_small: a few hundred quick runs (n 33, 1025, 4097 and one
 *    65537 batch, which radik filters at k = 32 and 1000) for
 *    compute-sanitizer; PB_TOPK_QUICK=1 trims it further. */
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

/* Tier A, n < 2^16: the full product (every shape, both directions); u32
 * and i32 for a quarter of the points each. */
static bool tier_full(tk_tally *t, const pb_module **mods, const uint64_t *sizes, int nsizes)
{
    for (int ci = 0; ci < NCASES; ci++)
        for (int si = 0; si < nsizes && gtk_in_part(ci); si++) {
            uint64_t ks[9];
            int nk = gtk_k_list(sizes[si], ks);
            for (int ki = 0; ki < nk; ki++)
                for (int dist = 0; dist < NDISTS; dist++)
                    for (int sh = 0; sh < NSHAPES; sh++)
                        for (int largest = 0; largest < 2; largest++) {
                            uint32_t h =
                                gtk_coords(0xa, ci, dist, ki, si) ^ (uint32_t)(sh * 2 + largest);
                            tk_point q = {sizes[si], ks[ki],  gtk_shapes[sh],
                                          dist,      largest, gtk_dtype_of(&gtk_cases[ci], gtk_hash(h))};
                            if (!gtk_tally(t, mods[ci], &gtk_cases[ci], &q)) return false;
                        }
        }
    return true;
}

/* Tier B, n = 2^16 +- 1: every case x size x k x distribution, on one
 * single-row shape and one batch shape picked by hash, the direction and
 * type picked by hash. */
static bool tier_two_shapes(tk_tally *t, const pb_module **mods, const uint64_t *sizes, int nsizes)
{
    for (int ci = 0; ci < NCASES; ci++)
        for (int si = 0; si < nsizes && gtk_in_part(ci); si++) {
            uint64_t ks[9];
            int nk = gtk_k_list(sizes[si], ks);
            for (int ki = 0; ki < nk; ki++)
                for (int dist = 0; dist < NDISTS; dist++) {
                    uint32_t h = gtk_coords(0xb, ci, dist, ki, si);
                    for (int half = 0; half < 2; half++) {
                        tk_point q = {sizes[si],
                                      ks[ki],
                                      gtk_shapes[2 * half + (h & 1)],
                                      dist,
                                      (int)((h >> 1) & 1) ^ half,
                                      gtk_dtype_of(&gtk_cases[ci], h >> 2)};
                        if (!gtk_tally(t, mods[ci], &gtk_cases[ci], &q)) return false;
                    }
                }
        }
    return true;
}

/* Tier C, n = 2^20 +- 1: every case x k x distribution once, the size
 * among the three, the shape, direction and type picked by hash. */
static bool tier_one_shape(tk_tally *t, const pb_module **mods, const uint64_t *sizes, int nsizes)
{
    for (int ci = 0; ci < NCASES; ci++) {
        if (!gtk_in_part(ci)) continue;
        uint64_t ks[9];
        int nk = gtk_k_list(sizes[0], ks);
        for (int ki = 0; ki < nk; ki++)
            for (int dist = 0; dist < NDISTS; dist++) {
                uint32_t h = gtk_coords(0xc, ci, dist, ki, 0);
                uint64_t n = sizes[(h >> 8) % (uint32_t)nsizes];
                /* k from the list at the chosen n (n/2, n-1, n move with it). */
                uint64_t nks[9];
                gtk_k_list(n, nks);
                tk_point q = {n,    nks[ki],           gtk_shapes[h & 3],
                              dist, (int)(h >> 2 & 1), gtk_dtype_of(&gtk_cases[ci], h >> 3)};
                if (!gtk_tally(t, mods[ci], &gtk_cases[ci], &q)) return false;
            }
    }
    return true;
}

/* Tier D, n = 2^24, single rows: every case x distribution at one small k
 * (picked by hash), and the largest k (n/2, n-1, n) for sort-and-choose and
 * radik on five distributions (uniform, equal, nan, relu, few:2): there the
 * host's twin is the cost. */
static bool tier_big(tk_tally *t, const pb_module **mods, uint64_t n)
{
    const uint64_t small_k[] = {1, 32, 33, 1000};
    const uint64_t big_k[] = {n / 2, n - 1, n};
    for (int ci = 0; ci < NCASES; ci++)
        for (int dist = 0; dist < NDISTS && gtk_in_part(ci); dist++) {
            uint32_t h = gtk_coords(0xd, ci, dist, 0, 0);
            tk_point q = {n,    small_k[h & 3],    gtk_shapes[h >> 2 & 1],
                          dist, (int)(h >> 3 & 1), gtk_dtype_of(&gtk_cases[ci], h >> 4)};
            if (!gtk_tally(t, mods[ci], &gtk_cases[ci], &q)) return false;
        }
    const int dists[] = {PB_TOPK_UNIFORM, PB_TOPK_EQUAL, PB_TOPK_NAN, gtk_dist_named("relu"),
                         gtk_dist_named("few:2")};
    for (int ci = 0; ci < 2; ci++)
        for (int d = 0; d < 5 && gtk_in_part(ci); d++) {
            uint32_t h = gtk_coords(0xe, ci, dists[d], 0, 0);
            tk_point q = {n,        big_k[h % 3],      gtk_shapes[h >> 2 & 1],
                          dists[d], (int)(h >> 3 & 1), PB_TOPK_F32};
            if (!gtk_tally(t, mods[ci], &gtk_cases[ci], &q)) return false;
        }
    return true;
}

static void tier_done(const char *name, const tk_tally *t, long runs_before, double t0)
{
    printf("  %s: %ld runs in %.1f s\n", name, t->runs - runs_before, gtk_now_s() - t0);
    fflush(stdout);
}

static int twin(int part)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
    gtk_twin_part = part;
    const pb_module *mods[NCASES];
    if (gtk_find_cases(mods)) return 1;
    tk_tally t = {0, 0};
    static const uint64_t tiny[] = {1, 2, 1023, 1024, 1025};
    static const uint64_t mid[] = {65535, 65536, 65537};
    static const uint64_t big[] = {(1u << 20) - 1, 1u << 20, (1u << 20) + 1};
    long before = 0;
    double t0 = gtk_now_s();
    bool go = tier_full(&t, mods, tiny, 5);
    tier_done("n <= 1025, full product", &t, before, t0);
    before = t.runs, t0 = gtk_now_s();
    go = go && tier_two_shapes(&t, mods, mid, 3);
    tier_done("n = 2^16 +- 1, a single row and a batch a point", &t, before, t0);
    before = t.runs, t0 = gtk_now_s();
    go = go && tier_one_shape(&t, mods, big, 3);
    tier_done("n = 2^20 +- 1, one shape a point", &t, before, t0);
    before = t.runs, t0 = gtk_now_s();
    go = go && tier_big(&t, mods, UINT64_C(1) << 24);
    tier_done("n = 2^24, single rows", &t, before, t0);
    if (!go) fprintf(stderr, "stopped after %d failures\n", t.failures);
    printf("%ld module runs, %d failures\n", t.runs, t.failures);
    return t.failures != 0;
}

TEST_IMPL(gpu_topk_twin_part1) { return twin(0); }
TEST_IMPL(gpu_topk_twin_part2) { return twin(1); }
TEST_IMPL(gpu_topk_twin_part3) { return twin(2); }

TEST_IMPL(gpu_topk_small)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
    const pb_module *mods[NCASES];
    if (gtk_find_cases(mods)) return 1;
    bool quick = getenv("PB_TOPK_QUICK") != NULL;
    static const uint64_t sizes[] = {33, 4097, 1025};
    int nsizes = quick ? 2 : 3;
    tk_tally t = {0, 0};
    bool go = true;
    for (int ci = 0; ci < NCASES && go; ci++)
        for (int dist = 0; dist < NDISTS && go; dist++) {
            for (int si = 0; si < nsizes && go; si++)
                for (int batch = 0; batch < 2 && go; batch++) {
                    uint32_t h = gtk_coords(0x5 + (uint32_t)batch, ci, dist, 0, si);
                    uint64_t ks[9];
                    int nk = gtk_k_list(sizes[si], ks);
                    /* A single row, aligned or not; or 5 ragged misaligned rows. */
                    tk_point q = {
                        sizes[si], ks[h % (uint32_t)nk], gtk_shapes[batch ? 2 : (h >> 8 & 1)],
                        dist,      (int)(h >> 9 & 1),    gtk_dtype_of(&gtk_cases[ci], h >> 10)};
                    go = gtk_tally(&t, mods[ci], &gtk_cases[ci], &q);
                }
            /* Rows long enough for sort-and-choose's per-row loop and for
             * radik's filter (quick: a k it filters with, 32 or 1000). */
            if (go) {
                uint32_t h = gtk_coords(0x7, ci, dist, 0, 0);
                uint64_t k = (h & 1) ? 1000 : quick ? 32 : 32768;
                tk_point q = {65537, k, gtk_shapes[2], dist, (int)(h >> 1 & 1), PB_TOPK_F32};
                go = gtk_tally(&t, mods[ci], &gtk_cases[ci], &q);
            }
        }
    printf("%ld module runs, %d failures\n", t.runs, t.failures);
    return t.failures != 0;
}

/* fp16 and bf16 keys on both modules: radik as it
 * runs by default, with the filter off (the two-read passes on 16-bit
 * digits), with scale=off and with ties = lowest-index, sort-and-choose
 * with either tie policy; every distribution, both directions, n in {1, 2,
 * 3, 1023, 1025, 65537, 2^20 + 1} (rows radik filters from 2^16), k in
 * {1, 2, 3, 17, 257, 1000, n - 1, n, n + 1} (past few:2's and int8's
 * distinct values) and 2^18 on the longest rows, a single row (aligned or
 * not) and batches (5 ragged misaligned rows, 16 misaligned rows) picked
 * by hash. Each run's verify() checks it against the C twin (with
 * lowest-index: the exact index set). */
TEST_IMPL(gpu_topk_half)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
    static const tk_case half_cases[] = {
        {"gpu-radik", NULL, NULL},         {"gpu-radik", "filter", "off"},
        {"gpu-radik", "scale", "off"},     {"gpu-radik", "ties", "lowest-index"},
        {"gpu-radik", "cluster", "off"},
        {"gpu-sort-and-choose", NULL, NULL}, {"gpu-sort-and-choose", "ties", "lowest-index"},
    };
    enum { NHC = sizeof half_cases / sizeof half_cases[0] };
    const pb_module *mods[NHC];
    for (int ci = 0; ci < NHC; ci++)
        if (!(mods[ci] = pb_module_find(half_cases[ci].module))) {
            fprintf(stderr, "no module '%s' in this build\n", half_cases[ci].module);
            return 1;
        }
    static const uint64_t sizes[] = {1, 2, 3, 1023, 1025, 65537, (1u << 20) + 1};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    tk_tally t = {0, 0};
    bool go = true;
    double t0 = gtk_now_s();
    for (int ci = 0; ci < NHC && go; ci++)
        for (int si = 0; si < NS && go; si++)
            for (int dist = 0; dist < NDISTS && go; dist++)
                for (int dt = PB_TOPK_F16; dt <= PB_TOPK_BF16 && go; dt++) {
                    uint64_t n = sizes[si];
                    const uint64_t want[] = {1, 2, 3, 17, 257, 1000, n - 1, n, n + 1, 1u << 18};
                    uint32_t h = gtk_coords(0x16 + (uint32_t)dt, ci, dist, 0, si);
                    /* Short rows: every k; long ones (the host's twin is the
                     * cost there): three k by hash. */
                    for (int ki = 0; ki < 10 && go; ki++) {
                        uint64_t k = want[ki];
                        if (k < 1 || (k == (1u << 18) && n < (1u << 20))) continue;
                        if (n > 4096 && (gtk_hash(h + (uint32_t)ki) % 10) >= 3) continue;
                        uint32_t hk = gtk_hash(h ^ (uint32_t)ki);
                        /* Batches of long rows only at 2^16 + 1. */
                        int sh = (int)(hk % (n > 65537 ? 2 : NSHAPES));
                        tk_point q = {n, k, gtk_shapes[sh], dist, (int)(hk >> 4 & 1), dt};
                        go = gtk_tally(&t, mods[ci], &half_cases[ci], &q);
                    }
                }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, gtk_now_s() - t0, t.failures);
    return t.failures != 0;
}

/* ---- scaling never changes the returned set ---- */

#ifdef PB_HAVE_CUDA

/* One radik scaling at point q: runs and verifies it, and leaves per output
 * slot the index (idx) and the order key (keys), each row's slice sorted
 * ascending. */
static int scaled_run(const pb_module *mod, const char *scale, const char *filter,
                      const tk_point *q, uint64_t outs, uint32_t *idx, uint32_t *keys)
{
    tk_case c = {"gpu-radik", "scale", scale};
    pb_err err = {{0}};
    tk_output o;
    int rc = gtk_run_output(mod, &c, q, "filter", filter, outs, &o, &err);
    const uint32_t *v = o.v, *ix = o.ix; /* radik: 32-bit values */
    const uint64_t *off = o.off;
    uint64_t rows = o.rows;
    void *st = o.st;
    if (!rc) {
        for (uint64_t j = 0; j < outs; j++) {
            idx[j] = ix[j];
            keys[j] = pb_topk_okey_of(v[j], q->dtype, q->largest);
        }
        for (uint64_t r = 0; r < rows; r++) {
            qsort(idx + off[r], (size_t)(off[r + 1] - off[r]), 4, gtk_cmp_u32);
            qsort(keys + off[r], (size_t)(off[r + 1] - off[r]), 4, gtk_cmp_u32);
        }
    }
    if (st) mod->release(st);
    if (rc) gtk_describe(mod, &c, q, "", err.msg);
    return rc ? 1 : 0;
}

/* Whether row r's k-th best key occurs once in the row (then every correct
 * answer returns the same indices), from the twin's rank-ordered answer. */
static bool pivot_unique(pb_topk_problem *p, uint64_t r)
{
    uint64_t o = p->out_off[r], m = p->out_off[r + 1] - o, len = pb_topk_row_len(p, r);
    if (m == len) return true; /* the whole row */
    uint32_t pivot = pb_topk_problem_okey(p, p->twin_vals[o + m - 1]);
    const uint32_t *row = p->data + p->begin[r];
    uint64_t seen = 0;
    for (uint64_t i = 0; i < len && seen < 2; i++) seen += pb_topk_problem_okey(p, row[i]) == pivot;
    return seen == 1;
}

/* The variants compared at one point: three scalings, and the filter. */
enum { NV = 4 };

/* The variants at one point; returns failures (printed). */
static int scaling_point(const pb_module *mod, const tk_point *q, long *unique_rows,
                         long *tied_rows)
{
    static const char *const scales[NV] = {"off", "random", "pivot", "pivot"};
    static const char *const filters[NV] = {"off", "off", "off", "on"};
    const pb_module *any = pb_module_find("cpu-topk");
    pb_params p;
    pb_err err = {{0}};
    tk_case none = {"cpu-topk", NULL, NULL};
    gtk_set_params(any, &none, q, &p, &err);
    pb_point pt = {q->n, 4, gtk_seed(q), &p, 0};
    pb_topk_problem hp; /* the same input on the host: the twin finds the pivots */
    if (pb_topk_problem_init(&hp, &pt, &err) || pb_topk_twin_answer(&hp, &err)) {
        gtk_describe(mod, &none, q, "host problem: ", err.msg);
        return 1;
    }
    uint64_t outs = hp.out_total;
    uint32_t *idx[NV], *keys[NV];
    int failures = 0;
    for (int s = 0; s < NV; s++) {
        idx[s] = malloc((outs ? outs : 1) * 4);
        keys[s] = malloc((outs ? outs : 1) * 4);
        if (!idx[s] || !keys[s]) failures = 1;
    }
    for (int s = 0; s < NV && !failures; s++)
        failures += scaled_run(mod, scales[s], filters[s], q, outs, idx[s], keys[s]);
    for (uint64_t r = 0; r < hp.rows && !failures; r++) {
        uint64_t o = hp.out_off[r], m = hp.out_off[r + 1] - o;
        bool unique = pivot_unique(&hp, r);
        *(unique ? unique_rows : tied_rows) += 1;
        uint32_t *const *a = unique ? idx : keys;
        for (int s = 1; s < NV && !failures; s++)
            if (memcmp(a[0] + o, a[s] + o, m * 4) != 0) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "row %llu: scale=%s filter=%s returns other %s than scale=off "
                         "filter=off (pivot %s)",
                         (unsigned long long)r, scales[s], filters[s],
                         unique ? "indices" : "values", unique ? "unique" : "tied");
                gtk_describe(mod, &none, q, "", msg);
                failures++;
            }
    }
    for (int s = 0; s < NV; s++) {
        free(idx[s]);
        free(keys[s]);
    }
    pb_topk_problem_free(&hp);
    return failures;
}

static int scaling_sweep(void)
{
    const pb_module *mod = pb_module_find("gpu-radik");
    const pb_module *ref = pb_module_find("gpu-sort-and-choose");
    if (!mod || !ref) {
        fprintf(stderr, "no module '%s' in this build\n", mod ? "gpu-sort-and-choose" : "gpu-radik");
        return 1;
    }
    /* The indices are read from the shared GPU top-k state (gpu_topk_output.h):
     * radik must keep its state there, as its result() says. */
    if (mod->result != ref->result) {
        fprintf(stderr, "gpu-radik's result() is not the shared GPU top-k one: its indices "
                        "cannot be read\n");
        return 1;
    }
    const int dists[] = {PB_TOPK_NARROW128,   PB_TOPK_NARROW,         PB_TOPK_UNIFORM,
                         PB_TOPK_ZIPF,        PB_TOPK_INF,            PB_TOPK_NAN,
                         gtk_dist_named("relu"),  gtk_dist_named("few:256"),  gtk_dist_named("sorted")};
    static const struct {
        uint64_t n;
        tk_shape shape;
    } points[] = {
        {4097, {1, 0, 1}},  {65537, {1, 0, 0}}, {UINT64_C(1) << 20, {1, 0, 0}},
        {65537, {5, 1, 1}}, {4097, {16, 0, 1}},
    };
    long runs = 0, unique_rows = 0, tied_rows = 0;
    int failures = 0;
    for (size_t pi = 0; pi < sizeof points / sizeof points[0]; pi++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int largest = 0; largest < 2; largest++) {
                uint64_t n = points[pi].n;
                const uint64_t ks[] = {1, 32, 1000, n / 2};
                for (int ki = 0; ki < 4 && failures < MAX_FAILURES; ki++) {
                    tk_point q = {n, ks[ki], points[pi].shape, dists[d], largest, PB_TOPK_F32};
                    failures += scaling_point(mod, &q, &unique_rows, &tied_rows);
                    runs += NV;
                }
            }
    printf("%ld module runs (%ld rows with a unique k-th key, %ld tied), %d failures\n", runs,
           unique_rows, tied_rows, failures);
    /* Both comparisons must actually have been made. */
    return failures != 0 || unique_rows == 0 || tied_rows == 0;
}


#endif

TEST_IMPL(gpu_topk_scaling)
{
    int rc = gtk_need_gpu();
    if (rc) return rc;
#ifdef PB_HAVE_CUDA
    return scaling_sweep();
#else
    return 1; /* a device without the GPU modules built cannot happen */
#endif
}

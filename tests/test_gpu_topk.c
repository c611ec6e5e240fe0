/* The GPU top-k modules on a CUDA device, each checked by its own verify()
 * (the family check: the C twin's value multiset, valid distinct indices).
 * SKIP without a device; a missing module (radik not registered) FAILS.
 *
 *  - gpu_topk_twin_part1..3 (a third of the cases each): sort-and-choose,
 *    radik, and radik with each of its switches turned off alone (hier,
 *    wbuf, resched, pad, quick, prefetch; scale=off and scale=random; filter=off, and
 *    filter=overshoot, whose threshold makes
 *    most filtered rows fall back), and both modules with ties =
 *    lowest-index (whose verify() then compares index sets) x every
 *    distribution (issue 21's relu,
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
 *    sorted = yes, at awkward n and k (see the test).
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
#ifdef PB_HAVE_CUDA
#include "families/topk/gpu_topk_output.h"
#endif

static int need_gpu(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A module and one parameter set apart from the defaults (name = value as
 * a config would write it). */
typedef struct tk_case {
    const char *module;
    const char *param, *value;
} tk_case;

static const tk_case cases[] = {
    {"sort-and-choose", NULL, NULL}, {"radik", NULL, NULL},        {"radik", "hier", "0"},
    {"radik", "wbuf", "0"},          {"radik", "resched", "0"},    {"radik", "pad", "0"},
    {"radik", "scale", "off"},       {"radik", "scale", "random"}, {"radik", "filter", "off"},
    {"radik", "filter", "overshoot"}, {"sort-and-choose", "ties", "lowest-index"},
    {"radik", "ties", "lowest-index"}, {"radik", "sorted", "yes"}, {"sort-and-choose", "sorted", "yes"},
    {"radik", "quick", "0"},           {"radik", "prefetch", "0"},
};
enum { NCASES = sizeof cases / sizeof cases[0] };

/* gpu_topk_twin runs in TWIN_PARTS tests, part p taking the cases ci with
 * ci % TWIN_PARTS == p: whole, it was expected to take ~950 s, past one
 * 600 s call on a lent GPU node. Every other test takes every case. */
enum { TWIN_PARTS = 3 };
static int twin_part = -1; /* -1: every case */

/* PB_TOPK_CASES=LIST (comma-separated `module` or `module:param=value`)
 * runs only the twin cases named, in whichever part holds them: a focused
 * run on a lent GPU, whose minutes are few (the parts take ~300 s each). */
static bool case_wanted(const tk_case *c)
{
    const char *list = getenv("PB_TOPK_CASES");
    if (!list || !*list) return true;
    char name[128];
    if (c->param)
        snprintf(name, sizeof name, "%s:%s=%s", c->module, c->param, c->value);
    else
        snprintf(name, sizeof name, "%s", c->module);
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && strncmp(p, name, l) == 0) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

static bool in_part(int ci)
{
    return (twin_part < 0 || ci % TWIN_PARTS == twin_part) && case_wanted(&cases[ci]);
}

typedef struct tk_shape {
    uint64_t rows;
    int ragged, misalign;
} tk_shape;

/* Shapes 0-1 are single rows, 2-3 batches. */
static const tk_shape shapes[] = {{1, 0, 0}, {1, 0, 1}, {5, 1, 1}, {16, 0, 1}};
enum { NSHAPES = 4 };

/* Every distribution as a config writes it: the first 8 in enum order (so
 * PB_TOPK_UNIFORM .. PB_TOPK_NAN index them), then issue 21's (ties: half
 * zeros, 2, 16 and 256 levels, int8's 256, half -inf; ordered rows). The
 * k lists reach past every level count (31..33 past 2 and 16, 1000 past
 * 256). */
static const char *const dist_names[] = {
    "uniform", "narrow", "narrow128", "zipf", "normal",     "equal",  "inf",     "nan",
    "relu",    "few:2",  "few:16",    "few:256", "int8", "masked:0.5", "sorted", "reversed"};
enum { NDISTS = sizeof dist_names / sizeof dist_names[0] };

static int dist_named(const char *name)
{
    for (int d = 0; d < NDISTS; d++)
        if (strcmp(dist_names[d], name) == 0) return d;
    return 0;
}

/* One point of a sweep: everything but the module. */
typedef struct tk_point {
    uint64_t n, k;
    tk_shape shape;
    int dist, largest, dtype;
} tk_point;

/* The value type a hashed point takes from three bits: u32, i32, fp16 and
 * bf16 an eighth of the points each, fp32 the rest. */
static int tk_dtype(uint32_t bits)
{
    static const int pick[8] = {PB_TOPK_U32, PB_TOPK_I32, PB_TOPK_F16, PB_TOPK_BF16,
                                PB_TOPK_F32, PB_TOPK_F32, PB_TOPK_F32, PB_TOPK_F32};
    return pick[bits & 7];
}

static const char *const dtype_names[] = {"f32", "u32", "i32", "f16", "bf16", "f64", "u64"};

/* The value type of case c's hashed point: tk_dtype's, and for
 * sort-and-choose fp64 and u64 in place of a quarter of fp32's points
 * each, from the two bits above tk_dtype's. radik's 64-bit keys have
 * their own sweeps (gpu_topk_wide, gpu_topk_wide_switches), so that the
 * twin parts keep their time. */
static int tk_dtype_of(const tk_case *c, uint32_t bits)
{
    int dt = tk_dtype(bits);
    if (dt != PB_TOPK_F32 || strcmp(c->module, "sort-and-choose") != 0) return dt;
    uint32_t w = (bits >> 3) & 3;
    return w == 0 ? PB_TOPK_F64 : w == 1 ? PB_TOPK_U64 : PB_TOPK_F32;
}

/* A fixed scramble of a point's coordinates (lowbias32), for the tiers that
 * pick some dimensions instead of running the full product. */
static uint32_t tk_hash(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static uint32_t tk_coords(uint32_t salt, int ci, int dist, int ki, int si)
{
    return tk_hash(salt ^ tk_hash((uint32_t)(((ci * 32 + dist) * 16 + ki) * 16 + si)));
}

/* k values at row length n: the list where >= 1, without repeats
 * (values beyond n stay: they select whole rows). Returns how many. */
static int k_list(uint64_t n, uint64_t *ks)
{
    const uint64_t want[] = {1, 2, 31, 32, 33, 1000, n / 2, n - 1, n};
    int c = 0;
    for (int i = 0; i < 9; i++) {
        if (want[i] < 1 || (n == 0 && i >= 6)) continue;
        bool dup = false;
        for (int j = 0; j < c; j++) dup |= ks[j] == want[i];
        if (!dup) ks[c++] = want[i];
    }
    return c;
}

static void describe(const pb_module *mod, const tk_case *c, const tk_point *q, const char *what,
                     const char *msg)
{
    fprintf(stderr,
            "%s%s%s%s%s n=%llu k=%llu rows=%llu ragged=%d misalign=%d largest=%d dist=%s "
            "dtype=%s: %s%s\n",
            mod->name, c->param ? " " : "", c->param ? c->param : "", c->param ? "=" : "",
            c->param ? c->value : "", (unsigned long long)q->n, (unsigned long long)q->k,
            (unsigned long long)q->shape.rows, q->shape.ragged, q->shape.misalign, q->largest,
            dist_names[q->dist], dtype_names[q->dtype], what, msg);
}

/* One more parameter every run takes (name = value), or none: the
 * cluster test's way to run a case with two parameters set. */
static const char *tk_extra_name, *tk_extra_value;

static int set_params(const pb_module *mod, const tk_case *c, const tk_point *q, pb_params *p,
                      pb_err *err)
{
    pb_params_defaults(mod, p);
    p->v[PB_TOPK_P_K] = (long long)q->k;
    p->v[PB_TOPK_P_ROWS] = (long long)q->shape.rows;
    p->v[PB_TOPK_P_RAGGED] = q->shape.ragged;
    p->v[PB_TOPK_P_MISALIGN] = q->shape.misalign;
    p->v[PB_TOPK_P_LARGEST] = q->largest;
    p->v[PB_TOPK_P_DTYPE] = q->dtype;
    if (pb_params_set(mod, p, "dist", dist_names[q->dist], err)) return -1;
    if (tk_extra_name && pb_module_param_index(mod, tk_extra_name) >= 0 &&
        pb_params_set(mod, p, tk_extra_name, tk_extra_value, err))
        return -1;
    return c->param ? pb_params_set(mod, p, c->param, c->value, err) : 0;
}

static uint64_t tk_seed(const tk_point *q)
{
    return 7000 + q->n * 31 + (uint64_t)q->dist * 7 + q->shape.rows;
}

/* One module at one point, as the harness drives it: prepare, two runs,
 * verify, release. Returns 1 on failure (printed). */
static int one(const pb_module *mod, const tk_case *c, const tk_point *q)
{
    pb_params p;
    pb_err err = {{0}};
    int rc = set_params(mod, c, q, &p, &err);
    pb_point pt = {q->n, 4, tk_seed(q), &p, 0};
    void *st = NULL;
    if (!rc) rc = mod->prepare(&pt, &st, &err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = mod->run(st, s, &err);
    if (!rc) rc = mod->verify(st, &err);
    if (st) mod->release(st);
    if (rc) describe(mod, c, q, "", err.msg);
    return rc ? 1 : 0;
}

static int find_cases(const pb_module **mods)
{
    for (int ci = 0; ci < NCASES; ci++) {
        mods[ci] = pb_module_find(cases[ci].module);
        if (!mods[ci]) {
            fprintf(stderr, "no module '%s' in this build (every GPU top-k module must be)\n",
                    cases[ci].module);
            return 1;
        }
        if (cases[ci].param && pb_module_param_index(mods[ci], cases[ci].param) < 0) {
            fprintf(stderr, "module '%s' has no parameter '%s'\n", cases[ci].module,
                    cases[ci].param);
            return 1;
        }
    }
    return 0;
}

typedef struct tk_tally {
    long runs;
    int failures;
} tk_tally;

enum { MAX_FAILURES = 20 };

/* Runs one point for one case; false once there are too many failures. */
static bool tally(tk_tally *t, const pb_module *mod, const tk_case *c, const tk_point *q)
{
    t->failures += one(mod, c, q);
    t->runs++;
    return t->failures < MAX_FAILURES;
}

/* Tier A, n < 2^16: the full product (every shape, both directions); u32
 * and i32 for a quarter of the points each. */
static bool tier_full(tk_tally *t, const pb_module **mods, const uint64_t *sizes, int nsizes)
{
    for (int ci = 0; ci < NCASES; ci++)
        for (int si = 0; si < nsizes && in_part(ci); si++) {
            uint64_t ks[9];
            int nk = k_list(sizes[si], ks);
            for (int ki = 0; ki < nk; ki++)
                for (int dist = 0; dist < NDISTS; dist++)
                    for (int sh = 0; sh < NSHAPES; sh++)
                        for (int largest = 0; largest < 2; largest++) {
                            uint32_t h =
                                tk_coords(0xa, ci, dist, ki, si) ^ (uint32_t)(sh * 2 + largest);
                            tk_point q = {sizes[si], ks[ki],  shapes[sh],
                                          dist,      largest, tk_dtype_of(&cases[ci], tk_hash(h))};
                            if (!tally(t, mods[ci], &cases[ci], &q)) return false;
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
        for (int si = 0; si < nsizes && in_part(ci); si++) {
            uint64_t ks[9];
            int nk = k_list(sizes[si], ks);
            for (int ki = 0; ki < nk; ki++)
                for (int dist = 0; dist < NDISTS; dist++) {
                    uint32_t h = tk_coords(0xb, ci, dist, ki, si);
                    for (int half = 0; half < 2; half++) {
                        tk_point q = {sizes[si],
                                      ks[ki],
                                      shapes[2 * half + (h & 1)],
                                      dist,
                                      (int)((h >> 1) & 1) ^ half,
                                      tk_dtype_of(&cases[ci], h >> 2)};
                        if (!tally(t, mods[ci], &cases[ci], &q)) return false;
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
        if (!in_part(ci)) continue;
        uint64_t ks[9];
        int nk = k_list(sizes[0], ks);
        for (int ki = 0; ki < nk; ki++)
            for (int dist = 0; dist < NDISTS; dist++) {
                uint32_t h = tk_coords(0xc, ci, dist, ki, 0);
                uint64_t n = sizes[(h >> 8) % (uint32_t)nsizes];
                /* k from the list at the chosen n (n/2, n-1, n move with it). */
                uint64_t nks[9];
                k_list(n, nks);
                tk_point q = {n,    nks[ki],           shapes[h & 3],
                              dist, (int)(h >> 2 & 1), tk_dtype_of(&cases[ci], h >> 3)};
                if (!tally(t, mods[ci], &cases[ci], &q)) return false;
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
        for (int dist = 0; dist < NDISTS && in_part(ci); dist++) {
            uint32_t h = tk_coords(0xd, ci, dist, 0, 0);
            tk_point q = {n,    small_k[h & 3],    shapes[h >> 2 & 1],
                          dist, (int)(h >> 3 & 1), tk_dtype_of(&cases[ci], h >> 4)};
            if (!tally(t, mods[ci], &cases[ci], &q)) return false;
        }
    const int dists[] = {PB_TOPK_UNIFORM, PB_TOPK_EQUAL, PB_TOPK_NAN, dist_named("relu"),
                         dist_named("few:2")};
    for (int ci = 0; ci < 2; ci++)
        for (int d = 0; d < 5 && in_part(ci); d++) {
            uint32_t h = tk_coords(0xe, ci, dists[d], 0, 0);
            tk_point q = {n,        big_k[h % 3],      shapes[h >> 2 & 1],
                          dists[d], (int)(h >> 3 & 1), PB_TOPK_F32};
            if (!tally(t, mods[ci], &cases[ci], &q)) return false;
        }
    return true;
}

static void tier_done(const char *name, const tk_tally *t, long runs_before, double t0)
{
    printf("  %s: %ld runs in %.1f s\n", name, t->runs - runs_before, now_s() - t0);
    fflush(stdout);
}

static int twin(int part)
{
    int rc = need_gpu();
    if (rc) return rc;
    twin_part = part;
    const pb_module *mods[NCASES];
    if (find_cases(mods)) return 1;
    tk_tally t = {0, 0};
    static const uint64_t tiny[] = {1, 2, 1023, 1024, 1025};
    static const uint64_t mid[] = {65535, 65536, 65537};
    static const uint64_t big[] = {(1u << 20) - 1, 1u << 20, (1u << 20) + 1};
    long before = 0;
    double t0 = now_s();
    bool go = tier_full(&t, mods, tiny, 5);
    tier_done("n <= 1025, full product", &t, before, t0);
    before = t.runs, t0 = now_s();
    go = go && tier_two_shapes(&t, mods, mid, 3);
    tier_done("n = 2^16 +- 1, a single row and a batch a point", &t, before, t0);
    before = t.runs, t0 = now_s();
    go = go && tier_one_shape(&t, mods, big, 3);
    tier_done("n = 2^20 +- 1, one shape a point", &t, before, t0);
    before = t.runs, t0 = now_s();
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
    int rc = need_gpu();
    if (rc) return rc;
    const pb_module *mods[NCASES];
    if (find_cases(mods)) return 1;
    bool quick = getenv("PB_TOPK_QUICK") != NULL;
    static const uint64_t sizes[] = {33, 4097, 1025};
    int nsizes = quick ? 2 : 3;
    tk_tally t = {0, 0};
    bool go = true;
    for (int ci = 0; ci < NCASES && go; ci++)
        for (int dist = 0; dist < NDISTS && go; dist++) {
            for (int si = 0; si < nsizes && go; si++)
                for (int batch = 0; batch < 2 && go; batch++) {
                    uint32_t h = tk_coords(0x5 + (uint32_t)batch, ci, dist, 0, si);
                    uint64_t ks[9];
                    int nk = k_list(sizes[si], ks);
                    /* A single row, aligned or not; or 5 ragged misaligned rows. */
                    tk_point q = {
                        sizes[si], ks[h % (uint32_t)nk], shapes[batch ? 2 : (h >> 8 & 1)],
                        dist,      (int)(h >> 9 & 1),    tk_dtype_of(&cases[ci], h >> 10)};
                    go = tally(&t, mods[ci], &cases[ci], &q);
                }
            /* Rows long enough for sort-and-choose's per-row loop and for
             * radik's filter (quick: a k it filters with, 32 or 1000). */
            if (go) {
                uint32_t h = tk_coords(0x7, ci, dist, 0, 0);
                uint64_t k = (h & 1) ? 1000 : quick ? 32 : 32768;
                tk_point q = {65537, k, shapes[2], dist, (int)(h >> 1 & 1), PB_TOPK_F32};
                go = tally(&t, mods[ci], &cases[ci], &q);
            }
        }
    printf("%ld module runs, %d failures\n", t.runs, t.failures);
    return t.failures != 0;
}

/* fp16 and bf16 keys (issue 21, item 3) on both modules: radik as it
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
    int rc = need_gpu();
    if (rc) return rc;
    static const tk_case half_cases[] = {
        {"radik", NULL, NULL},         {"radik", "filter", "off"},
        {"radik", "scale", "off"},     {"radik", "ties", "lowest-index"},
        {"radik", "cluster", "off"},
        {"sort-and-choose", NULL, NULL}, {"sort-and-choose", "ties", "lowest-index"},
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
    double t0 = now_s();
    for (int ci = 0; ci < NHC && go; ci++)
        for (int si = 0; si < NS && go; si++)
            for (int dist = 0; dist < NDISTS && go; dist++)
                for (int dt = PB_TOPK_F16; dt <= PB_TOPK_BF16 && go; dt++) {
                    uint64_t n = sizes[si];
                    const uint64_t want[] = {1, 2, 3, 17, 257, 1000, n - 1, n, n + 1, 1u << 18};
                    uint32_t h = tk_coords(0x16 + (uint32_t)dt, ci, dist, 0, si);
                    /* Short rows: every k; long ones (the host's twin is the
                     * cost there): three k by hash. */
                    for (int ki = 0; ki < 10 && go; ki++) {
                        uint64_t k = want[ki];
                        if (k < 1 || (k == (1u << 18) && n < (1u << 20))) continue;
                        if (n > 4096 && (tk_hash(h + (uint32_t)ki) % 10) >= 3) continue;
                        uint32_t hk = tk_hash(h ^ (uint32_t)ki);
                        /* Batches of long rows only at 2^16 + 1. */
                        int sh = (int)(hk % (n > 65537 ? 2 : NSHAPES));
                        tk_point q = {n, k, shapes[sh], dist, (int)(hk >> 4 & 1), dt};
                        go = tally(&t, mods[ci], &half_cases[ci], &q);
                    }
                }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, now_s() - t0, t.failures);
    return t.failures != 0;
}

/* ---- scaling never changes the returned set ---- */

#ifdef PB_HAVE_CUDA

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* A module's output after a point: st (release it), the values, indices and
 * row offsets pb_gpu_topk_output gives. */
typedef struct tk_output {
    void *st;
    const void *v; /* in the dtype's words */
    const uint32_t *ix;
    const uint64_t *off;
    uint64_t rows;
} tk_output;

/* Case c at point q with one more parameter (name = value): prepared, run
 * twice (two samples), verified, its output fetched and its length checked
 * against outs. Nonzero with err set on failure; o->st is set whenever
 * prepare made a state, failed or not. */
static int run_output(const pb_module *mod, const tk_case *c, const tk_point *q, const char *name,
                      const char *value, uint64_t outs, tk_output *o, pb_err *err)
{
    pb_params p;
    *o = (tk_output){0};
    int rc = set_params(mod, c, q, &p, err);
    if (!rc) rc = pb_params_set(mod, &p, name, value, err);
    pb_point pt = {q->n, 4, tk_seed(q), &p, 0};
    if (!rc) rc = mod->prepare(&pt, &o->st, err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = mod->run(o->st, s, err);
    if (!rc) rc = mod->verify(o->st, err);
    if (!rc) rc = pb_gpu_topk_output(o->st, &o->v, &o->ix, &o->off, &o->rows, err);
    if (!rc && o->off[o->rows] != outs) {
        snprintf(err->msg, sizeof err->msg, "%llu results, expected %llu",
                 (unsigned long long)o->off[o->rows], (unsigned long long)outs);
        rc = -1;
    }
    return rc;
}

/* One radik scaling at point q: runs and verifies it, and leaves per output
 * slot the index (idx) and the order key (keys), each row's slice sorted
 * ascending. */
static int scaled_run(const pb_module *mod, const char *scale, const char *filter,
                      const tk_point *q, uint64_t outs, uint32_t *idx, uint32_t *keys)
{
    tk_case c = {"radik", "scale", scale};
    pb_err err = {{0}};
    tk_output o;
    int rc = run_output(mod, &c, q, "filter", filter, outs, &o, &err);
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
            qsort(idx + off[r], (size_t)(off[r + 1] - off[r]), 4, cmp_u32);
            qsort(keys + off[r], (size_t)(off[r + 1] - off[r]), 4, cmp_u32);
        }
    }
    if (st) mod->release(st);
    if (rc) describe(mod, &c, q, "", err.msg);
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
    const pb_module *any = pb_module_find("omp-topk");
    pb_params p;
    pb_err err = {{0}};
    tk_case none = {"omp-topk", NULL, NULL};
    set_params(any, &none, q, &p, &err);
    pb_point pt = {q->n, 4, tk_seed(q), &p, 0};
    pb_topk_problem hp; /* the same input on the host: the twin finds the pivots */
    if (pb_topk_problem_init(&hp, &pt, &err) || pb_topk_twin_answer(&hp, &err)) {
        describe(mod, &none, q, "host problem: ", err.msg);
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
                describe(mod, &none, q, "", msg);
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
    const pb_module *mod = pb_module_find("radik");
    const pb_module *ref = pb_module_find("sort-and-choose");
    if (!mod || !ref) {
        fprintf(stderr, "no module '%s' in this build\n", mod ? "sort-and-choose" : "radik");
        return 1;
    }
    /* The indices are read from the shared GPU top-k state (gpu_topk_output.h):
     * radik must keep its state there, as its result() says. */
    if (mod->result != ref->result) {
        fprintf(stderr, "radik's result() is not the shared GPU top-k one: its indices "
                        "cannot be read\n");
        return 1;
    }
    const int dists[] = {PB_TOPK_NARROW128,   PB_TOPK_NARROW,         PB_TOPK_UNIFORM,
                         PB_TOPK_ZIPF,        PB_TOPK_INF,            PB_TOPK_NAN,
                         dist_named("relu"),  dist_named("few:256"),  dist_named("sorted")};
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


/* ---- ties = lowest-index: the twin's index set exactly ---- */

/* The module variants run with ties = lowest-index: sort-and-choose (its
 * segmented path takes the stable sort), radik as configured by default,
 * radik whose ties come from the candidate passes (scale and filter off:
 * the final pass reads candidates), and radik with each switch that
 * changes how its passes reach the final one. */
static const tk_case tie_cases[] = {
    {"sort-and-choose", NULL, NULL}, {"radik", NULL, NULL},     {"radik", "scale", "off"},
    {"radik", "hier", "0"},          {"radik", "resched", "0"}, {"radik", "filter", "overshoot"},
    {"radik", "sorted", "yes"},      {"radik", "tie_aware", "0"},
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
    int rc = run_output(mod, c, q, "ties", "lowest-index", outs, &out, &err);
    const uint32_t *ix = out.ix;
    const uint64_t *off = out.off;
    uint64_t rows = out.rows;
    void *st = out.st;
    for (uint64_t r = 0; r < rows && !rc; r++) {
        uint64_t o = off[r], m = off[r + 1] - o;
        memcpy(got + o, ix + o, m * 4);
        qsort(got + o, (size_t)m, 4, cmp_u32);
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
    if (rc) describe(mod, c, q, "ties=lowest-index: ", err.msg);
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
    const pb_module *host = pb_module_find("omp-topk");
    tk_case none = {"omp-topk", NULL, NULL};
    pb_params p;
    pb_err err = {{0}};
    *t = (tk_twin){0};
    set_params(host, &none, q, &p, &err);
    pb_point pt = {q->n, 4, tk_seed(q), &p, 0};
    if (pb_topk_problem_init(&t->hp, &pt, &err) || pb_topk_twin_answer(&t->hp, &err)) {
        describe(host, &none, q, "host problem: ", err.msg);
        return 1;
    }
    t->outs = t->hp.out_total;
    t->tw = malloc((t->outs ? t->outs : 1) * 4);
    t->got = malloc((t->outs ? t->outs : 1) * 4);
    if (!t->tw || !t->got) return 1;
    memcpy(t->tw, t->hp.twin_idx, t->outs * 4);
    for (uint64_t r = 0; r < t->hp.rows; r++)
        qsort(t->tw + t->hp.out_off[r], (size_t)(t->hp.out_off[r + 1] - t->hp.out_off[r]), 4,
              cmp_u32);
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

/* gpu_topk_ties runs as three parts (537 s whole on an H100, which with a
 * build does not fit one 600 s device call): part p takes the (size,
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
    const int dists[] = {dist_named("few:2"), dist_named("few:16"),     dist_named("int8"),
                         dist_named("relu"),  dist_named("masked:0.5"), PB_TOPK_EQUAL,
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
                uint32_t h = tk_coords(0x71e5, 0, dists[d], ki, si);
                /* Every shape for short rows; long ones a single row or
                 * the 5-row ragged batch. */
                int sh = sizes[si] <= 2049 ? (int)(h & 3) : (h & 1) ? 2 : (int)(h >> 1 & 1);
                tk_point q = {sizes[si], ks[ki], shapes[sh], dists[d], (int)(h >> 4 & 1),
                              tk_dtype(h >> 5)};
                failures += ties_point(mods, &q, NTIE_CASES);
                runs += NTIE_CASES;
            }
        }
    /* The sizes at 2^24 (one row), all-equal and few:16 with k
     * 32 and 2^18 on sort-and-choose and default radik. */
    const int big_dists[] = {PB_TOPK_EQUAL, dist_named("few:16")};
    const uint64_t big_k[] = {32, UINT64_C(1) << 18};
    for (int d = 0; d < 2; d++)
        for (int ki = 0; ki < 2 && failures < MAX_FAILURES; ki++) {
            if ((d * 2 + ki) % TIES_PARTS != part) continue;
            tk_point q = {UINT64_C(1) << 24, big_k[ki], shapes[0], big_dists[d], 1, PB_TOPK_F32};
            failures += ties_point(mods, &q, 2);
            runs += 2;
        }
    printf("%ld lowest-index module runs, %d failures\n", runs, failures);
    return failures != 0;
}

#endif

static int ties(int part)
{
    int rc = need_gpu();
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

TEST_IMPL(gpu_topk_scaling)
{
    int rc = need_gpu();
    if (rc) return rc;
#ifdef PB_HAVE_CUDA
    return scaling_sweep();
#else
    return 1; /* a device without the GPU modules built cannot happen */
#endif
}

/* ---- 64-bit keys: fp64 and u64 (issue 21, item 3) ---- */

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
        {"sort-and-choose", NULL, NULL},   {"sort-and-choose", "ties", "lowest-index"},
        {"sort-and-choose", "sorted", "yes"}, {"radik", NULL, NULL},
        {"radik", "ties", "lowest-index"}, {"radik", "sorted", "yes"},
    };
    static const tk_case switch_cases[] = {
        {"radik", "filter", "off"},  {"radik", "filter", "overshoot"}, {"radik", "scale", "off"},
        {"radik", "scale", "random"}, {"radik", "tie_aware", "0"},     {"radik", "hier", "0"},
        {"radik", "resched", "0"},    {"radik", "pad", "0"},           {"radik", "wbuf", "0"},
        {"radik", "quick", "0"},      {"radik", "prefetch", "0"},
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
    double t0 = now_s();
    for (int ci = 0; ci < nwc && go; ci++) {
        if (!case_wanted(&wc[ci])) continue;
        const pb_module *mod = pb_module_find(wc[ci].module);
        bool radik = strcmp(wc[ci].module, "radik") == 0;
        for (int si = 0; si < NS && go; si++)
            for (int dist = 0; dist < NDISTS && go; dist++)
                for (int dt = PB_TOPK_F64; dt <= PB_TOPK_U64 && go; dt++) {
                    uint64_t n = sizes[si];
                    const uint64_t want[] = {1, 2, 3, 17, 257, 1000, n - 1, n, n + 1, 1u << 18};
                    /* The main cases keep sort-and-choose's points of old
                     * (its cases come first, as they did). */
                    uint32_t h = tk_coords(0x64 + (uint32_t)dt + (switches ? 0x40 : 0), ci, dist,
                                           0, si);
                    for (int ki = 0; ki < 10 && go; ki++) {
                        uint64_t k = want[ki];
                        if (k < 1 || (k == (1u << 18) && n < (1u << 20))) continue;
                        bool always = radik && k == 17;
                        if (n > 4096 && !always && (tk_hash(h + (uint32_t)ki) % 10) >= 3) continue;
                        uint32_t hk = tk_hash(h ^ (uint32_t)ki);
                        int sh = (int)(hk % (n > 65537 ? 2 : NSHAPES));
                        tk_point q = {n, k, shapes[sh], dist, (int)(hk >> 4 & 1), dt};
                        go = tally(&t, mod, &wc[ci], &q);
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
        const int dists[] = {dist_named("few:2"), dist_named("few:16"), dist_named("int8"),
                             PB_TOPK_EQUAL,       PB_TOPK_NAN,          PB_TOPK_UNIFORM};
        const uint64_t tsizes[] = {3, 2049, 65537, (1u << 20) + 1};
        for (int si = 0; si < 4 && go; si++)
            for (size_t d = 0; d < sizeof dists / sizeof dists[0] && go; d++) {
                uint64_t ks[10];
                int nk = tie_k_list(tsizes[si], ks);
                for (int ki = 0; ki < nk && t.failures < MAX_FAILURES; ki++) {
                    uint32_t h = tk_coords(0x64e5, 0, dists[d], ki, si);
                    tk_point q = {tsizes[si],
                                  ks[ki],
                                  shapes[tsizes[si] <= 2049 ? h & 3
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
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, now_s() - t0, t.failures);
    return t.failures != 0;
}
#endif

TEST_IMPL(gpu_topk_wide)
{
    int rc = need_gpu();
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
    int rc = need_gpu();
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
    const pb_module *m = pb_module_find("radik");
    if (m && pb_module_param_index(m, param) >= 0) return m;
    fprintf(stderr, "no radik with its parameter %s in this build\n", param);
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
    int rc = need_gpu();
    if (rc) return rc;
#ifndef PB_HAVE_CUDA
    return 1; /* a device without the GPU modules built cannot happen */
#else
    static const tk_case rcases[] = {{"radik", NULL, NULL}, {"radik", "refine", "0"}};
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
    double t0 = now_s();
    for (int d = 0; d < 10 && t.failures < MAX_FAILURES; d++)
        for (int i = 0; i < 2 && t.failures < MAX_FAILURES; i++) {
            uint32_t h = tk_coords(0x2e5, 0, d, i, 0);
            tk_point q = {(UINT64_C(1) << 25) + 3, ks[h & 3], i ? three : shapes[h >> 2 & 1],
                          dist_named(dists[d]), (int)(h >> 3 & 1), dts[(h >> 4) & 3]};
            for (int ci = 0; ci < 2; ci++) {
                t.failures += one(m, &rcases[ci], &q);
                t.runs++;
            }
            /* lowest-index on the tie cases' list, once a distribution. */
            if (i == 0) {
                t.failures += ties_point(mods, &q, NTIE_CASES);
                t.runs += NTIE_CASES;
            }
        }
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, now_s() - t0, t.failures);
    return t.failures != 0;
#endif
}

#ifdef PB_HAVE_CUDA

/* radik's cluster path (radik_cluster.cuh) at one point: cluster = on
 * with ties = lowest-index (the index sets against the host twin's, as
 * gpu_topk_ties_part* do) and with ties = any, and radik's defaults and
 * sorted = yes, which take the path on batches (cluster = auto). Returns
 * failures. */
static int cluster_point(const pb_module *m, const tk_point *q)
{
    static const tk_case on = {"radik", "cluster", "on"};
    static const tk_case others[] = {
        {"radik", "cluster", "on"}, {"radik", NULL, NULL}, {"radik", "sorted", "yes"}};
    tk_twin t;
    int failures = tk_twin_init(&t, q);
    if (!failures) failures += ties_run(m, &on, q, t.outs, t.tw, t.got);
    for (int ci = 0; ci < 3 && !failures; ci++) failures += one(m, &others[ci], q);
    /* The cluster path's three reads (filter = off) and its fallback
     * (overshoot), lowest-index against the twin and ties = any. */
    static const char *const filters[] = {"off", "overshoot"};
    for (int f = 0; f < 2 && !failures; f++) {
        static const tk_case filt_on = {"radik", "filter", NULL};
        tk_case fc = filt_on;
        fc.value = filters[f];
        tk_extra_name = "cluster", tk_extra_value = "on";
        failures += ties_run(m, &fc, q, t.outs, t.tw, t.got);
        if (!failures) failures += one(m, &fc, q);
        tk_extra_name = tk_extra_value = NULL;
    }
    tk_twin_free(&t);
    return failures;
}

#endif

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
    int rc = need_gpu();
    if (rc) return rc;
#ifndef PB_HAVE_CUDA
    return 1; /* a device without the GPU modules built cannot happen */
#else
    const pb_module *m = radik_with("cluster");
    if (!m) return 1;
    static const uint64_t sizes[] = {1,    2,    3,     7,     8,          9,          1023,
                                     1025, 8191, 8193, 65537, 131073, (1u << 20) + 1, 1u << 22};
    enum { NS = sizeof sizes / sizeof sizes[0] };
    tk_tally t = {0, 0};
    double t0 = now_s();
    for (int si = 0; si < NS && t.failures < MAX_FAILURES; si++)
        for (int dist = 0; dist < NDISTS && t.failures < MAX_FAILURES; dist++) {
            uint64_t n = sizes[si], ks[10];
            int nk = tie_k_list(n, ks);
            for (int ki = 0; ki < nk && t.failures < MAX_FAILURES; ki++) {
                uint32_t h = tk_coords(0xc1, 0, dist, ki, si);
                if (n > 8193 && h % (uint32_t)nk >= 3) continue;
                int sh = n <= 65537 ? (int)(h >> 4 & 3)
                         : n < (1u << 22) ? (int)((h >> 4) % 3)
                                          : (int)(h >> 4 & 1);
                tk_point q = {n, ks[ki], shapes[sh], dist, (int)(h >> 8 & 1),
                              (h >> 9 & 1) ? PB_TOPK_BF16 : PB_TOPK_F16};
                t.failures += cluster_point(m, &q);
                t.runs += 8;
            }
        }
    /* cluster = on refuses what it does not serve: 32-bit keys. */
    pb_params p;
    pb_err err = {{0}};
    tk_case on = {"radik", "cluster", "on"};
    tk_point q = {1000, 10, shapes[0], PB_TOPK_UNIFORM, 1, PB_TOPK_F32};
    set_params(m, &on, &q, &p, &err);
    pb_point pt = {q.n, 4, tk_seed(&q), &p, 0};
    void *st = NULL;
    if (m->prepare(&pt, &st, &err) == 0 || !strstr(err.msg, "fp16 and bf16")) {
        fprintf(stderr, "radik cluster = on on fp32 keys: not refused (%s)\n", err.msg);
        t.failures++;
    }
    if (st) m->release(st);
    printf("%ld module runs in %.1f s, %d failures\n", t.runs, now_s() - t0, t.failures);
    return t.failures != 0;
#endif
}

/* radik takes every dtype (fp64 and u64 on its 64-bit kernels since they
 * replaced the refusal that stood here): no availability check refuses
 * one, with or without a GPU (gpu_topk_wide runs them). SKIP in a build
 * without radik. */
TEST_IMPL(gpu_topk_radik_every_dtype)
{
    const pb_module *m = pb_module_find("radik");
    if (!m) {
        printf("skipped: no radik in this build\n");
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

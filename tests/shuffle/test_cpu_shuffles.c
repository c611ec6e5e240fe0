/* The multicore CPU shuffles: rao-sandelius, merge-shuffle,
 * cpu-dart-throwing, tbb-bijective, tbb-sort-shuffle and the tbb-gather
 * ceiling.
 *
 *  - valid permutations at sizes 0, 1, 2, 2^k +- 1 and large, both item
 *    widths, with parameters that drive the recursion deep (cutoff 1,
 *    one-bit digits, blocks of one item);
 *  - the same output for the same seed and thread count, and, since every
 *    one of them is built to allow it, for any thread count (1, 2, 3, 5);
 *  - run() and sample_perms() give the same permutation for a sample;
 *  - no random bit drawn twice: every range of Philox blocks a run consumes
 *    is reported through pb_cs_trace, and no two ranges of one sample may
 *    overlap (two recursion levels, two merges, two threads or two calls
 *    drawing the same stream would);
 *  - uniformity: chi-square over all 24 permutations of 4 items and all
 *    720 of 6, and the joint orders of four disjoint pairs of 8 items
 *    (where merges or levels that shared bits would make correlated
 *    decisions);
 *  - tbb-bijective equals the C twin bit for bit, tbb-gather cpu-gather;
 *  - rao-sandelius's leaves (rs_leaf.h: Philox made 8 blocks at a time,
 *    plain C, AVX2 or AVX-512) give the permutation shuffle_leaf.h's
 *    Fisher-Yates makes of the same stream, rejections of Lemire's draw
 *    included, and make at most 7 blocks more than it draws; and its known
 *    answers. */
#include <pthread.h>
#include <stdlib.h>

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "algorithms/shuffle/cpu_streams.h"
#include "algorithms/shuffle/rao_sandelius/rs_leaf.h"
#include "core/fnv1a.h"
#include "config/params.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "stats/lehmer.h"
#include "tests/module_driver.h"
#include "tests/support/chi_square.h"
#include "tests/test.h"

/* A module with parameters ("name=value,name=value"). */
typedef struct variant {
    const char *module;
    const char *params;
} variant;

/* Every configuration that changes the algorithm's shape. */
static const variant all_variants[] = {
    {"cpu-rao-sandelius", ""},
    {"cpu-rao-sandelius", "radix_bits=1,cutoff=1"},
    {"cpu-rao-sandelius", "radix_bits=3,cutoff=5"},
    {"cpu-merge-shuffle", ""},
    {"cpu-merge-shuffle", "block=1"},
    {"cpu-merge-shuffle", "block=3"},
    {"cpu-merge-shuffle", "block=1,wide_merge=2"},
    {"cpu-merge-shuffle", "block=3,wide_merge=7"},
    {"cpu-merge-shuffle", "wide_merge=131072"},
    {"cpu-dart-throwing", ""},
    {"cpu-tbb-sort-shuffle", ""},
    {"cpu-tbb-bijective", ""},
    {"cpu-tbb-bijective", "bijection=lcg"},
    {"cpu-tbb-gather", ""},
};
#define NVARIANTS (sizeof all_variants / sizeof all_variants[0])

/* The shuffles whose permutations must be uniform (the bijective shuffle
 * is tested through its twin and the quality battery; gather is a
 * ceiling). */
static const variant uniform_variants[] = {
    {"cpu-rao-sandelius", ""},
    {"cpu-rao-sandelius", "radix_bits=1,cutoff=1"},
    {"cpu-rao-sandelius", "radix_bits=2,cutoff=2"},
    {"cpu-rao-sandelius", "radix_bits=3,cutoff=1"},
    {"cpu-merge-shuffle", ""},
    {"cpu-merge-shuffle", "block=1"},
    {"cpu-merge-shuffle", "block=2"},
    {"cpu-merge-shuffle", "block=1,wide_merge=2"},
    {"cpu-merge-shuffle", "block=1,wide_merge=4"},
    {"cpu-dart-throwing", ""},
    {"cpu-tbb-sort-shuffle", ""},
};
#define NUNIFORM (sizeof uniform_variants / sizeof uniform_variants[0])

static int set_params(const variant *v, const pb_module *m, pb_params *p, int threads)
{
    pb_params_defaults(m, p);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v->params);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        pb_err err;
        if (!eq) return -1;
        *eq = '\0';
        if (pb_params_set(m, p, kv, eq + 1, &err)) {
            fprintf(stderr, "%s\n", err.msg);
            return -1;
        }
    }
    int ti = pb_module_param_index(m, "threads");
    if (ti >= 0) p->v[ti] = threads;
    return 0;
}

static const pb_module *find(const variant *v)
{
    const pb_module *m = pb_module_find(v->module);
    if (!m) fprintf(stderr, "no module %s\n", v->module);
    return m;
}

/* Runs variant v once (sample `sample`) on n fresh items; checks the
 * output; returns in *perm (malloc'd) the input index at each position. */
static int drive(const variant *v, uint64_t n, unsigned bytes, uint64_t seed, uint64_t sample,
                 int threads, uint32_t **perm)
{
    const pb_module *m = find(v);
    pb_params p;
    pb_err err;
    if (!m || set_params(v, m, &p, threads)) return -1;
    pb_point pt = {n, bytes, seed, &p, threads};
    void *state = NULL;
    if (m->prepare(&pt, &state, &err)) {
        fprintf(stderr, "%s (%s) n=%llu: %s\n", v->module, v->params, (unsigned long long)n, err.msg);
        return -1;
    }
    const void *out = NULL;
    int rc = m->run(state, sample, &err);
    if (!rc) rc = m->result(state, &out, &err);
    if (!rc && m->verify) rc = m->verify(state, &err);
    if (!rc) rc = pb_shuffle_check(out, n, bytes, &err);
    if (rc) {
        fprintf(stderr, "%s (%s) n=%llu item=%u threads=%d: %s\n", v->module, v->params,
                (unsigned long long)n, bytes, threads, err.msg);
    } else if (perm) {
        *perm = malloc((n ? n : 1) * sizeof **perm);
        if (!*perm) rc = -1;
        for (uint64_t i = 0; !rc && i < n; i++) {
            uint64_t item = bytes == 4 ? ((const uint32_t *)out)[i] : ((const uint64_t *)out)[i];
            (*perm)[i] = (uint32_t)pb_shuffle_item_index(item, bytes);
        }
    }
    m->release(state);
    return rc;
}

static const uint64_t sizes[] = {
    0, 1, 2, 3, 4, 5, (1 << 4) - 1, (1 << 4) + 1, (1 << 10) - 1, (1 << 10) + 1,
    (1 << 14) - 1, (1 << 14) + 1, (1 << 17) - 1, (1 << 17) + 1, (1 << 20) + 1,
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

/* Valid at every size, and the same permutation for threads 1, 2, 3 and 5
 * (the same for 2 twice: deterministic), for both item widths. */
TEST_IMPL(cpu_shuffles_thread_independent)
{
    static const int threads[] = {2, 1, 3, 5, 2};
    unsigned walked = 0;
    for (size_t vi = 0; vi < NVARIANTS; vi++) {
        const variant *v = &all_variants[vi];
        for (size_t si = 0; si < NSIZES; si++) {
            uint64_t n = sizes[si];
            for (unsigned bytes = 4; bytes <= 8; bytes += 4) {
                /* One width and the default shapes at the largest size
                 * keep the suite fast. */
                if (n > (1 << 17) && (bytes == 4 || v->params[0])) continue;
                if (pb_test_san_skip(&walked)) continue;
                uint32_t *first = NULL;
                for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
                    uint32_t *perm;
                    ASSERT(drive(v, n, bytes, 77, 3, threads[t], &perm) == 0);
                    if (!first) {
                        first = perm;
                        continue;
                    }
                    if (memcmp(first, perm, n * sizeof *perm) != 0) {
                        fprintf(stderr, "%s (%s) n=%llu item=%u: threads=%d differs from threads=2\n",
                                v->module, v->params, (unsigned long long)n, bytes, threads[t]);
                        return 1;
                    }
                    free(perm);
                }
                free(first);
            }
        }
    }
    return 0;
}

/* The same permutation for 1, 2, 3, 7, 9, 16, 33 and 64 threads, at sizes
 * whose nodes split with every thread (rao-sandelius: 2^17 + 1, where a
 * chunk falls below its floor from 9 threads on, and 2^20 + 1), for every
 * threaded module and every radix_bits of rao-sandelius. Its chunks must
 * start on a block of random digits whatever the thread count: before the
 * fix, radix_bits 3, 5 and 6 (40, 24 and 20 digits a block) gave another
 * permutation from 9 threads on. */
TEST_IMPL(cpu_shuffles_many_threads)
{
    static const int threads[] = {1, 2, 3, 7, 9, 16, 33, 64};
    static const uint64_t ns[] = {(1 << 17) + 1, (1 << 20) + 1};
    variant vs[NVARIANTS + 8];
    char params[8][32];
    size_t nv = 0;
    for (size_t i = 0; i < NVARIANTS; i++) vs[nv++] = all_variants[i];
    for (int b = 1; b <= 8; b++) {
        snprintf(params[b - 1], sizeof params[0], "radix_bits=%d", b);
        vs[nv++] = (variant){"cpu-rao-sandelius", params[b - 1]};
    }
    /* 2^20 + 1 not under the sanitizers (PB_TEST_SANITIZED). */
    unsigned walked = 0;
    for (size_t vi = 0; vi < nv; vi++)
        for (size_t si = 0; si < 2 - PB_TEST_SANITIZED; si++) {
            if (pb_test_san_skip(&walked)) continue;
            uint64_t n = ns[si];
            uint32_t *first = NULL;
            for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
                /* More threads than a small machine's cores (33, 64) at the
                 * smaller size only: oversubscribed, every barrier waits a
                 * scheduler slice, and at 2^20 + 1 those two counts were
                 * most of the test's minute on two cores, for the same
                 * split of the work into more chunks than threads. */
                if (si > 0 && threads[t] > 16) continue;
                uint32_t *perm;
                ASSERT(drive(&vs[vi], n, 8, 4242, 1, threads[t], &perm) == 0);
                if (!first) {
                    first = perm;
                    continue;
                }
                if (memcmp(first, perm, n * sizeof *perm) != 0) {
                    fprintf(stderr, "%s (%s) n=%llu: threads=%d differs from threads=1\n",
                            vs[vi].module, vs[vi].params, (unsigned long long)n, threads[t]);
                    return 1;
                }
                free(perm);
            }
            free(first);
        }
    return 0;
}

/* Another sample or another seed gives another permutation. */
TEST_IMPL(cpu_shuffles_seed_and_sample)
{
    enum { N = 4097 };
    for (size_t vi = 0; vi < NVARIANTS; vi++) {
        uint32_t *a, *b, *c;
        ASSERT(drive(&all_variants[vi], N, 8, 5, 0, 2, &a) == 0);
        ASSERT(drive(&all_variants[vi], N, 8, 5, 1, 2, &b) == 0);
        ASSERT(drive(&all_variants[vi], N, 8, 6, 0, 2, &c) == 0);
        ASSERT(memcmp(a, b, sizeof(uint32_t) * N) != 0 && memcmp(a, c, sizeof(uint32_t) * N) != 0);
        free(a), free(b), free(c);
    }
    return 0;
}

/* sample_perms(first = s) is the permutation run(sample = s) applies. */
TEST_IMPL(cpu_shuffles_sample_perms_match_run)
{
    static const uint32_t ns[] = {1, 2, 7, 1000, 70001};
    for (size_t vi = 0; vi < NVARIANTS; vi++) {
        const variant *v = &all_variants[vi];
        const pb_module *m = find(v);
        ASSERT(m);
        if (!pb_module_sample_perms(m)) continue;
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            uint32_t n = ns[k];
            pb_params p;
            pb_err err;
            ASSERT(set_params(v, m, &p, 3) == 0);
            uint32_t *perms = malloc(sizeof(uint32_t) * n * 3);
            ASSERT(perms && pb_module_sample_perms(m)(&p, n, 11, 40, 3, perms, &err) == 0);
            for (int j = 0; j < 3; j++) {
                uint32_t *perm;
                ASSERT(drive(v, n, j == 1 ? 4 : 8, 11, 40 + (uint64_t)j, 2, &perm) == 0);
                if (memcmp(perm, perms + (size_t)j * n, sizeof(uint32_t) * n) != 0) {
                    fprintf(stderr, "%s (%s) n=%u: sample_perms differs from run for sample %d\n",
                            v->module, v->params, n, 40 + j);
                    return 1;
                }
                free(perm);
            }
            free(perms);
        }
    }
    return 0;
}

/* ---- random-bit reuse ---- */

typedef struct trace_range {
    uint64_t sample, first, end;
} trace_range;

static struct {
    pthread_mutex_t lock;
    trace_range *r;
    size_t n, cap;
    int overflow;
} rec = {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0};

static void record(uint64_t sample, uint64_t first, uint64_t end)
{
    pthread_mutex_lock(&rec.lock);
    if (rec.n == rec.cap) {
        size_t cap = rec.cap ? 2 * rec.cap : 4096;
        trace_range *r = realloc(rec.r, cap * sizeof *r);
        if (!r) rec.overflow = 1;
        else rec.r = r, rec.cap = cap;
    }
    if (rec.n < rec.cap) rec.r[rec.n++] = (trace_range){sample, first, end};
    pthread_mutex_unlock(&rec.lock);
}

static int cmp_range(const void *x, const void *y)
{
    const trace_range *a = x, *b = y;
    if (a->sample != b->sample) return a->sample < b->sample ? -1 : 1;
    if (a->first != b->first) return a->first < b->first ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

/* 0 if no two recorded ranges of one sample share a block; prints the
 * first pair that does. */
static int ranges_disjoint(const char *what)
{
    qsort(rec.r, rec.n, sizeof *rec.r, cmp_range);
    for (size_t i = 1; i < rec.n; i++) {
        const trace_range *a = &rec.r[i - 1], *b = &rec.r[i];
        if (a->sample == b->sample && b->first < a->end) {
            fprintf(stderr,
                    "%s: sample %llu draws blocks [%#llx, %#llx) and [%#llx, %#llx): bits reused\n",
                    what, (unsigned long long)a->sample, (unsigned long long)a->first,
                    (unsigned long long)a->end, (unsigned long long)b->first,
                    (unsigned long long)b->end);
            return 1;
        }
    }
    return 0;
}

/* The checker itself: overlapping ranges of one sample are caught, the
 * same range in two samples is not a reuse. */
TEST_IMPL(cpu_shuffles_trace_checker)
{
    rec.n = 0;
    record(1, 10, 20);
    record(2, 10, 20);
    record(1, 20, 30);
    ASSERT(!rec.overflow && ranges_disjoint("self-test") == 0);
    record(1, 29, 31);
    fprintf(stderr, "(an overlap is expected next)\n");
    ASSERT(ranges_disjoint("self-test") != 0);
    free(rec.r);
    rec.r = NULL, rec.n = rec.cap = 0;
    return 0;
}

/* Every module that draws through cpu_streams.h, over several samples,
 * thread counts and both of its paths (run and sample_perms): no block of
 * Philox output is consumed twice within a sample. The sizes take every
 * path: parallel splits (2^18), deep recursion (cutoff 1, one-bit digits),
 * many small merges (block 1), many rounds of darts. */
TEST_IMPL(cpu_shuffles_no_bit_reuse)
{
    static const variant traced[] = {
        {"cpu-rao-sandelius", ""},
        {"cpu-rao-sandelius", "radix_bits=1,cutoff=1"},
        {"cpu-rao-sandelius", "radix_bits=5,cutoff=3"},
        {"cpu-merge-shuffle", ""},
        {"cpu-merge-shuffle", "block=1"},
        {"cpu-merge-shuffle", "block=5"},
        {"cpu-merge-shuffle", "block=1,wide_merge=2"},
        {"cpu-merge-shuffle", "block=5,wide_merge=64"},
        {"cpu-merge-shuffle", "wide_merge=131072"},
        {"cpu-dart-throwing", ""},
        {"cpu-tbb-sort-shuffle", ""},
    };
    static const uint64_t ns[] = {2, 3, 100, 4097, (1 << 18) + 3};
    for (size_t vi = 0; vi < sizeof traced / sizeof traced[0]; vi++) {
        const variant *v = &traced[vi];
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
            rec.n = 0;
            pb_cs_trace = record;
            int rc = 0;
            /* Three consecutive samples, one run each, with 1 and 3 threads:
             * the 3-thread runs are recorded for samples 0..2, the 1-thread
             * ones for 10..12. */
            for (uint64_t s = 0; s < 3 && !rc; s++) {
                rc = drive(v, ns[k], 8, 99, s, 3, NULL);
                if (!rc) rc = drive(v, ns[k], 8, 99, 10 + s, 1, NULL);
            }
            /* sample_perms for samples 20..23 in one batch. */
            const pb_module *m = find(v);
            if (!rc && m && pb_module_sample_perms(m) && ns[k] <= 5000) {
                pb_params p;
                pb_err err;
                uint32_t *perms = malloc(sizeof(uint32_t) * ns[k] * 4);
                rc = !perms || set_params(v, m, &p, 2) ||
                     pb_module_sample_perms(m)(&p, (uint32_t)ns[k], 99, 20, 4, perms, &err);
                free(perms);
            }
            pb_cs_trace = NULL;
            ASSERT(rc == 0 && !rec.overflow);
            char what[128];
            snprintf(what, sizeof what, "%s (%s) n=%llu", v->module, v->params,
                     (unsigned long long)ns[k]);
            ASSERT(ranges_disjoint(what) == 0);
            /* The hook is wired: a shuffle of 100 or more items draws. */
            if (ns[k] >= 100 && rec.n == 0) {
                fprintf(stderr, "%s: no random draws were reported\n", what);
                return 1;
            }
        }
    }
    free(rec.r);
    rec.r = NULL, rec.n = rec.cap = 0;
    return 0;
}

/* ---- uniformity ---- */

/* Chi-square of counts against equal cells; fails below p = 1e-6. */
static int chi_square(const char *what, const unsigned *count, unsigned cells, unsigned draws)
{
    return pb_test_chi_square(what, count, cells, draws);
}

static uint32_t *sample(const variant *v, uint32_t n, uint64_t seed, uint64_t count)
{
    const pb_module *m = find(v);
    pb_params p;
    pb_err err;
    uint32_t *perms = malloc(sizeof(uint32_t) * n * count);
    if (!m || !perms || set_params(v, m, &p, 0) ||
        pb_module_sample_perms(m)(&p, n, seed, 0, count, perms, &err)) {
        free(perms);
        return NULL;
    }
    return perms;
}

/* All 4! and 6! permutations equally often (sample_perms, which equals
 * run: see cpu_shuffles_sample_perms_match_run). */
TEST_IMPL(cpu_shuffles_uniform)
{
    static const struct {
        uint32_t n;
        unsigned cells, draws;
    } cases[] = {{4, 24, 48000}, {5, 120, 120000}, {6, 720, 216000}};
    unsigned *count = malloc(sizeof(unsigned) * 720);
    ASSERT(count);
    for (size_t vi = 0; vi < NUNIFORM; vi++) {
        const variant *v = &uniform_variants[vi];
        /* 6! not under the sanitizers (PB_TEST_SANITIZED). */
        for (size_t c = 0; c < sizeof cases / sizeof cases[0] - PB_TEST_SANITIZED; c++) {
            uint32_t n = cases[c].n;
            uint32_t *perms = sample(v, n, 2026 + c, cases[c].draws);
            ASSERT(perms);
            memset(count, 0, sizeof(unsigned) * cases[c].cells);
            for (unsigned d = 0; d < cases[c].draws; d++) {
                uint64_t rank = pb_lehmer_rank(perms + (size_t)d * n, n);
                ASSERT(rank < cases[c].cells);
                count[rank]++;
            }
            free(perms);
            char what[128];
            snprintf(what, sizeof what, "%s (%s) n=%u", v->module, v->params, n);
            ASSERT(chi_square(what, count, cases[c].cells, cases[c].draws) == 0);
        }
    }
    free(count);
    return 0;
}

/* The relative orders of four disjoint pairs of 8 items, (0,1) (2,3) (4,5)
 * (6,7), are independent fair coins: 16 equal cells. Merges of one level
 * that shared a bit stream, or recursion levels that re-drew their parent's
 * digits, would order the pairs alike. Also the first and last positions'
 * items (64 cells). */
TEST_IMPL(cpu_shuffles_independent_decisions)
{
    enum { N = 8, DRAWS = 64000 };
    for (size_t vi = 0; vi < NUNIFORM; vi++) {
        const variant *v = &uniform_variants[vi];
        uint32_t *perms = sample(v, N, 4242, DRAWS);
        ASSERT(perms);
        unsigned pairs[16] = {0}, ends[64] = {0};
        for (unsigned d = 0; d < DRAWS; d++) {
            const uint32_t *p = perms + (size_t)d * N;
            uint32_t pos[N];
            for (int i = 0; i < N; i++) pos[p[i]] = (uint32_t)i;
            unsigned cell = 0;
            for (int k = 0; k < 4; k++) cell = cell << 1 | (pos[2 * k] < pos[2 * k + 1]);
            pairs[cell]++;
            ends[p[0] * N + p[N - 1]]++;
        }
        free(perms);
        /* p[0] == p[N-1] never happens: 56 reachable cells. */
        unsigned reach[56], r = 0;
        for (int c = 0; c < 64; c++)
            if (c / N != c % N) reach[r++] = ends[c];
        char what[128];
        snprintf(what, sizeof what, "%s (%s) pair orders", v->module, v->params);
        ASSERT(chi_square(what, pairs, 16, DRAWS) == 0);
        snprintf(what, sizeof what, "%s (%s) first and last items", v->module, v->params);
        ASSERT(chi_square(what, reach, 56, DRAWS) == 0);
    }
    return 0;
}

/* ---- the oneTBB modules against their references ---- */

/* tbb-bijective's output is the C twin's, bit for bit, for any thread
 * count: the compaction keeps the padded positions' order. */
TEST_IMPL(cpu_shuffles_tbb_bijective_twin)
{
    static const uint64_t ns[] = {1, 2, 3, 17, 1000, (1 << 16) + 1, 1000003};
    const pb_module *m = pb_module_find("cpu-tbb-bijective");
    ASSERT(m);
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
        for (unsigned bytes = 4; bytes <= 8; bytes += 4)
            for (int kind = 0; kind < 2; kind++)
                for (int threads = 1; threads <= 3; threads += 2) {
                    uint64_t n = ns[k];
                    pb_params p;
                    pb_err err;
                    pb_params_defaults(m, &p);
                    p.v[0] = threads;
                    p.v[1] = kind;
                    pb_point pt = {n, bytes, 31337, &p, threads};
                    void *state;
                    const void *out;
                    ASSERT(m->prepare(&pt, &state, &err) == 0);
                    ASSERT(m->run(state, 6, &err) == 0 && m->result(state, &out, &err) == 0);
                    void *in = malloc(n * bytes), *twin = malloc(n * bytes);
                    ASSERT(in && twin);
                    pb_shuffle_fill(in, n, bytes);
                    pb_bijective_twin_shuffle(in, twin, n, bytes, (pb_bij_kind)kind,
                                              PB_BIJ_DEFAULT_ROUNDS, 31337, 6);
                    if (memcmp(out, twin, n * bytes) != 0) {
                        fprintf(stderr, "cpu-tbb-bijective n=%llu item=%u %s threads=%d differs from the twin\n",
                                (unsigned long long)n, bytes, kind ? "lcg" : "varphilox", threads);
                        return 1;
                    }
                    free(in), free(twin);
                    m->release(state);
                }
    return 0;
}

/* tbb-gather reads through the same bijection as cpu-gather. */
TEST_IMPL(cpu_shuffles_tbb_gather_equals_cpu_gather)
{
    static const uint64_t ns[] = {1, 2, 1025, (1 << 20) + 1};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        void *a, *b;
        pb_err err;
        ASSERT(pb_drive_module(pb_module_find("cpu-tbb-gather"), ns[k], 8, 3, 2, 3, &a, &err) == 0);
        ASSERT(pb_drive_module(pb_module_find("cpu-gather"), ns[k], 8, 3, 2, 2, &b, &err) == 0);
        ASSERT(memcmp(a, b, ns[k] * 8) == 0);
        free(a), free(b);
    }
    return 0;
}

/* rao-sandelius's write-combining scatter (wc = 1, the default: lines
 * stored non-temporally on x86, first and last lines of a digit's range
 * by plain stores) gives the
 * permutation of the straight scatter (wc = 0), for every radix_bits, both
 * widths, 1 and 3 threads, at sizes whose nodes split sequentially and with
 * every thread, and where digits' lines stay partly filled. */
TEST_IMPL(cpu_shuffles_rs_write_combining)
{
    static const uint64_t ns[] = {1, 2, 7, 100, 4097, 65537, (1 << 17) + 1, (1 << 20) + 3};
    for (int bits = 1; bits <= 8; bits++)
        for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++)
            for (unsigned bytes = 4; bytes <= 8; bytes += 4)
                for (int threads = 1; threads <= 3; threads += 2) {
                    if (ns[k] > (1 << 17) + 1 && bits % 3) continue; /* bits 3 and 6 at 2^20 + 3 */
                    char a[64], b[64];
                    snprintf(a, sizeof a, "radix_bits=%d,cutoff=%d,wc=0", bits, bits * 7);
                    snprintf(b, sizeof b, "radix_bits=%d,cutoff=%d,wc=1", bits, bits * 7);
                    variant va = {"cpu-rao-sandelius", a}, vb = {"cpu-rao-sandelius", b};
                    uint32_t *pa, *pb;
                    ASSERT(drive(&va, ns[k], bytes, 5, 9, threads, &pa) == 0);
                    ASSERT(drive(&vb, ns[k], bytes, 5, 9, threads, &pb) == 0);
                    if (memcmp(pa, pb, ns[k] * sizeof *pa) != 0) {
                        fprintf(stderr, "cpu-rao-sandelius radix_bits=%d n=%llu item=%u threads=%d: wc=1 differs from wc=0\n",
                                bits, (unsigned long long)ns[k], bytes, threads);
                        return 1;
                    }
                    free(pa), free(pb);
                }
    return 0;
}

/* rao-sandelius's leaves (rs_leaf.h) against families/shuffle/shuffle_leaf.h:
 * for every fill this CPU runs (plain C, AVX2, AVX-512F), both forms (in
 * place, inside-out), both widths and sizes around the buffer (128 words)
 * and a batch (32), the same permutation from the same stream, at a
 * position whose counter's low word carries into the high one. The
 * leaves of 2^20 + 7 items draw from ranges near 2^20, where Lemire's draw
 * rejects about 2^7 times a leaf, so the rejection path is compared too
 * (and must have been taken). The blocks made cover the blocks the
 * reference drew, with at most 7 more (the rest of a batch of 8). */
TEST_IMPL(cpu_shuffles_rs_leaf_draws)
{
    static const uint64_t ms[] = {0,   1,   2,   3,   5,    31,   32,           33,
                                  34,  127, 128, 129, 130, 1000, 4097, (1 << 20) + 7};
    enum { MMAX = (1 << 20) + 7 };
    void *src = malloc(MMAX * 8), *x = malloc(MMAX * 8), *y = malloc(MMAX * 8);
    ASSERT(src && x && y);
    unsigned rejecting = 0, fills = 0;
    for (int isa = 0; isa <= 2; isa++) {
        rs_philox_fill_fn fill = rs_philox_isa(isa);
        if (!fill) {
            fprintf(stderr, "(rs_leaf.h fill %d: not on this CPU, skipped)\n", isa);
            continue;
        }
        fills++;
        for (size_t k = 0; k < sizeof ms / sizeof ms[0]; k++)
            for (unsigned bytes = 4; bytes <= 8; bytes += 4)
                for (int inside_out = 0; inside_out < 2; inside_out++) {
                    uint64_t m = ms[k], seed = 0x9e3779b97f4a7c15u ^ k, sample = 7 + k;
                    uint64_t pos = pb_cs_pos(PB_CS_LEAF, 1 + inside_out, (UINT64_C(1) << 32) - 9);
                    for (uint64_t i = 0; i < m; i++) {
                        if (bytes == 4) ((uint32_t *)src)[i] = (uint32_t)pb_mix64(i + 1);
                        else ((uint64_t *)src)[i] = pb_mix64(i + 1);
                    }
                    memcpy(x, src, m * bytes);
                    memcpy(y, src, m * bytes);
                    pb_rng r;
                    rs_draws d;
                    pb_cs_open(&r, seed, sample, pos);
                    rs_draws_open(&d, fill, seed, sample, pos);
                    if (bytes == 4 && inside_out) {
                        pb_fisher_yates_inside_out_u32((const uint32_t *)src, (uint32_t *)x, m, &r);
                        rs_fisher_yates_inside_out_u32((const uint32_t *)src, (uint32_t *)y, m, &d);
                    } else if (bytes == 4) {
                        pb_fisher_yates_u32((uint32_t *)x, m, &r);
                        rs_fisher_yates_u32((uint32_t *)y, m, &d);
                    } else if (inside_out) {
                        pb_fisher_yates_inside_out_u64((const uint64_t *)src, (uint64_t *)x, m, &r);
                        rs_fisher_yates_inside_out_u64((const uint64_t *)src, (uint64_t *)y, m, &d);
                    } else {
                        pb_fisher_yates_u64((uint64_t *)x, m, &r);
                        rs_fisher_yates_u64((uint64_t *)y, m, &d);
                    }
                    uint64_t used = pb_cs_tell(&r) - pos, made = d.next - d.first;
                    if (memcmp(x, y, m * bytes) != 0 || made < used || made > used + 7) {
                        fprintf(stderr,
                                "rs_leaf.h fill %d, m=%llu item=%u %s: %s (blocks drawn %llu, made %llu)\n",
                                isa, (unsigned long long)m, bytes, inside_out ? "inside-out" : "in place",
                                memcmp(x, y, m * bytes) ? "another permutation" : "blocks made out of range",
                                (unsigned long long)used, (unsigned long long)made);
                        return 1;
                    }
                    /* Without a rejection, m - 1 draws take (m - 1) / 4 blocks, rounded up. */
                    if (m > 1 && used > (m + 2) / 4) rejecting++;
                }
    }
    free(src), free(x), free(y);
    ASSERT(fills >= 1 && rejecting >= 4 * fills); /* the leaves of 2^20 + 7, at least */
    return 0;
}

/* rao-sandelius's permutations, known answers: the FNV-1a hash of the
 * input indices at each position of run() for fixed (seed, sample, n,
 * item width, parameters), taken from the module before its scatter went
 * through non-temporal lines and its digits and leaves were reworked
 * so any later optimisation must keep them (the leaves' Philox
 * made 8 blocks at a time, rs_leaf.h, kept them). Each shape is run
 * with 3 threads, through the straight scatter (wc = 0) and the lines
 * (wc = 1), these with non-temporal stores and without (PB_RS_NT = 0).
 * PB_RS_KAT_PRINT=1 prints the hashes instead of checking them. */
TEST_IMPL(cpu_shuffles_rs_known_answers)
{
    static const struct {
        const char *params;
        uint64_t n;
        unsigned bytes;
        uint64_t hash;
    } kat[] = {
        {"", 1000, 8, UINT64_C(0xcebb7095b1ae5409)},
        {"", 65537, 4, UINT64_C(0xcad0d2e39d89db08)},
        {"", 131073, 8, UINT64_C(0xe42158e9a027fab7)},
        {"", 1048579, 8, UINT64_C(0x98c658802f70b082)},
        {"", 2097157, 4, UINT64_C(0xa70e2b07c0fbee9d)},
        {"radix_bits=3,cutoff=5", 131073, 8, UINT64_C(0xbcabcac5532a1277)},
        {"radix_bits=7,cutoff=300", 1048579, 4, UINT64_C(0x9494e540f12c6b56)},
        {"radix_bits=8,cutoff=64", 2097157, 8, UINT64_C(0xa70e2b07c0fbee9d)},
        {"radix_bits=5,cutoff=1", 65537, 8, UINT64_C(0x19bd7ab71fe48318)},
        {"radix_bits=1,cutoff=1000", 262151, 8, UINT64_C(0x3c1508c9837ebdb6)},
    };
    const char *pr = getenv("PB_RS_KAT_PRINT");
    bool print = pr && *pr == '1';
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++)
        for (int mode = 0; mode < 3; mode++) {
            char params[96];
            snprintf(params, sizeof params, "%s%swc=%d", kat[k].params, *kat[k].params ? "," : "", mode != 0);
            setenv("PB_RS_NT", mode == 2 ? "0" : "1", 1);
            variant v = {"cpu-rao-sandelius", params};
            uint32_t *perm;
            int rc = drive(&v, kat[k].n, kat[k].bytes, 20, 3, 3, &perm);
            unsetenv("PB_RS_NT");
            ASSERT(rc == 0);
            uint64_t h = pb_fnv1a64(perm, kat[k].n * sizeof *perm);
            free(perm);
            if (print) {
                printf("        {\"%s\", %llu, %u, UINT64_C(0x%016llx)}, /* mode %d */\n", kat[k].params,
                       (unsigned long long)kat[k].n, kat[k].bytes, (unsigned long long)h, mode);
            } else if (h != kat[k].hash) {
                fprintf(stderr, "cpu-rao-sandelius (%s) n=%llu item=%u wc=%d nt=%d: hash %016llx, known %016llx\n",
                        kat[k].params, (unsigned long long)kat[k].n, kat[k].bytes, mode != 0, mode != 2,
                        (unsigned long long)h, (unsigned long long)kat[k].hash);
                return 1;
            }
        }
    return 0;
}

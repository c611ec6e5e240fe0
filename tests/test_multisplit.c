/* The multisplit family on the CPU: bucket identifiers, the input
 * generator, the C twin, the OpenMP split, the contract checks and the two
 * CPU modules.
 *
 *  - pb_bucket_of known answers for every kind, at the edges (the last key
 *    of a delta bucket, 0xFFFFFFFF at m = 3, splitter values, the identity
 *    clamp);
 *  - the generator: the same keys for any thread count, every key in the
 *    bucket it was drawn for, uniform / binomial / alpha-uniform histograms
 *    by chi-square, keys uniform inside their bucket;
 *  - the twin against an independent naive O(n m) stable split (its own
 *    bucket arithmetic, a linear splitter scan) over sizes x kinds x m x
 *    widths, on generated and on raw 32-bit keys;
 *  - the OpenMP split equals the sequential one for 1, 2, 3, 7 threads;
 *  - each check catches the corruption it exists for, and only that;
 *  - the modules through the descriptor, as the harness drives them. */
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "config/params.h"
#include "core/rng.h"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_host_bucket.h"
#include "families/multisplit/ms_problem.h"
#include "families/shuffle/shuffle_hooks.h"
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/test.h"

/* ---- helpers ---- */

static pb_params ms_params(uint32_t m, pb_bucket_kind kind, uint32_t shift, pb_ms_dist dist,
                           uint32_t alpha)
{
    pb_params p;
    memset(&p, 0, sizeof p);
    p.v[PB_MS_P_BUCKETS] = m;
    p.v[PB_MS_P_BUCKET] = kind;
    p.v[PB_MS_P_SHIFT] = shift;
    p.v[PB_MS_P_DIST] = dist;
    p.v[PB_MS_P_ALPHA] = alpha;
    return p;
}

static int ms_init(pb_ms_problem *p, uint64_t n, unsigned item, uint64_t seed, const pb_params *par)
{
    pb_point pt = {n, item, seed, par, 1};
    pb_err err;
    if (pb_ms_problem_init(p, &pt, &err) == 0) return 0;
    fprintf(stderr, "pb_ms_problem_init: %s\n", err.msg);
    return -1;
}

static unsigned log2u(uint32_t m)
{
    unsigned l = 0;
    while ((UINT32_C(1) << l) < m) l++;
    return l;
}

/* The bucket of a key by its definition, written apart from ms_bucket.h:
 * delta as floor(key * m / 2^32), range by counting splitters <= key. */
static uint32_t naive_bucket(const pb_ms_problem *p, uint32_t key)
{
    switch (p->kind) {
    case PB_BUCKET_DELTA: {
        /* floor(key / (2^32 / m)), in exact rational arithmetic */
        return (uint32_t)((uint64_t)key * p->m / (UINT64_C(1) << 32));
    }
    case PB_BUCKET_IDENTITY:
        return key >= p->m ? p->m - 1 : key;
    case PB_BUCKET_RADIX:
        return (key >> p->fn.shift) % p->m;
    default: {
        uint32_t b = 0;
        for (uint32_t j = 0; j + 1 < p->m; j++) b += p->splitters[j] <= key;
        return b;
    }
    }
}

/* Bucket by bucket, every item of that bucket in input order: O(n m). */
static void naive_split(const pb_ms_problem *p, uint32_t *ok, uint32_t *ov, uint64_t *off)
{
    uint32_t *id = malloc(p->n * sizeof *id + 1);
    for (uint64_t i = 0; i < p->n; i++) id[i] = naive_bucket(p, p->keys[i]);
    uint64_t d = 0;
    for (uint32_t b = 0; b < p->m; b++) {
        off[b] = d;
        for (uint64_t i = 0; i < p->n; i++)
            if (id[i] == b) {
                ok[d] = p->keys[i];
                if (p->pairs) ov[d] = p->vals[i];
                d++;
            }
    }
    off[p->m] = d;
    free(id);
}

static uint32_t *xalloc(uint64_t n)
{
    return malloc(n ? n * sizeof(uint32_t) : 4);
}

static double chisq_uniform_p(const uint64_t *count, uint32_t cells, uint64_t n)
{
    double e = (double)n / cells, chi2 = 0;
    for (uint32_t c = 0; c < cells; c++) chi2 += (count[c] - e) * (count[c] - e) / e;
    return gsl_cdf_chisq_Q(chi2, cells - 1);
}

/* ---- bucket identifiers ---- */

TEST_IMPL(ms_bucket_known)
{
    ASSERT_EQ_U64(pb_bucket_delta(2), UINT64_C(1) << 31);
    ASSERT_EQ_U64(pb_bucket_delta(3), 1431655766);
    ASSERT_EQ_U64(pb_bucket_delta(100), 42949673);
    ASSERT_EQ_U64(pb_bucket_delta(256), UINT64_C(1) << 24);

    pb_bucket_fn d3 = {PB_BUCKET_DELTA, 3, pb_bucket_delta(3), 0, NULL};
    ASSERT_EQ_U64(pb_bucket_of(d3, 0), 0);
    ASSERT_EQ_U64(pb_bucket_of(d3, 1431655765), 0);
    ASSERT_EQ_U64(pb_bucket_of(d3, 1431655766), 1);
    ASSERT_EQ_U64(pb_bucket_of(d3, 2863311530u), 1);
    ASSERT_EQ_U64(pb_bucket_of(d3, 2863311531u), 2); /* ceil(2 * 2^32 / 3) */
    ASSERT_EQ_U64(pb_bucket_of(d3, 0xFFFFFFFFu), 2);
    pb_bucket_fn d2 = {PB_BUCKET_DELTA, 2, pb_bucket_delta(2), 0, NULL};
    ASSERT_EQ_U64(pb_bucket_of(d2, 0x7FFFFFFFu), 0);
    ASSERT_EQ_U64(pb_bucket_of(d2, 0x80000000u), 1);
    pb_bucket_fn d100 = {PB_BUCKET_DELTA, 100, pb_bucket_delta(100), 0, NULL};
    ASSERT_EQ_U64(pb_bucket_of(d100, 0xFFFFFFFFu), 99);
    ASSERT_EQ_U64(pb_bucket_of(d100, 42949672), 0);
    ASSERT_EQ_U64(pb_bucket_of(d100, 42949673), 1);
    pb_bucket_fn d256 = {PB_BUCKET_DELTA, 256, pb_bucket_delta(256), 0, NULL};
    ASSERT_EQ_U64(pb_bucket_of(d256, 0xAB123456u), 0xAB);

    /* The generator draws delta keys from [lo(b), lo(b + 1)): the ends of
     * that interval, for every m and b, lie in bucket b. */
    for (uint32_t m = 2; m <= PB_MS_MAX_BUCKETS; m++) {
        pb_bucket_fn d = {PB_BUCKET_DELTA, m, pb_bucket_delta(m), 0, NULL};
        ASSERT_EQ_U64(pb_bucket_delta_lo(m, 0), 0);
        ASSERT_EQ_U64(pb_bucket_delta_lo(m, m), UINT64_C(1) << 32);
        for (uint32_t b = 0; b < m; b++) {
            uint64_t lo = pb_bucket_delta_lo(m, b), hi = pb_bucket_delta_lo(m, b + 1);
            ASSERT(lo < hi);
            ASSERT_EQ_U64(pb_bucket_of(d, (uint32_t)lo), b);
            ASSERT_EQ_U64(pb_bucket_of(d, (uint32_t)(hi - 1)), b);
        }
    }

    pb_bucket_fn id = {PB_BUCKET_IDENTITY, 10, 0, 0, NULL};
    ASSERT_EQ_U64(pb_bucket_of(id, 0), 0);
    ASSERT_EQ_U64(pb_bucket_of(id, 3), 3);
    ASSERT_EQ_U64(pb_bucket_of(id, 9), 9);
    ASSERT_EQ_U64(pb_bucket_of(id, 10), 9); /* the clamp: keys >= m go to the last bucket */
    ASSERT_EQ_U64(pb_bucket_of(id, 0xFFFFFFFFu), 9);

    pb_bucket_fn r16 = {PB_BUCKET_RADIX, 16, 0, 4, NULL};
    ASSERT_EQ_U64(pb_bucket_of(r16, 0x12345678u), 7);
    r16.shift = 28;
    ASSERT_EQ_U64(pb_bucket_of(r16, 0x12345678u), 1);
    r16.shift = 0;
    ASSERT_EQ_U64(pb_bucket_of(r16, 0x12345678u), 8);
    pb_bucket_fn r2 = {PB_BUCKET_RADIX, 2, 0, 31, NULL};
    ASSERT_EQ_U64(pb_bucket_of(r2, 0x80000000u), 1);
    ASSERT_EQ_U64(pb_bucket_of(r2, 0x7FFFFFFFu), 0);
    pb_bucket_fn r256 = {PB_BUCKET_RADIX, 256, 0, 24, NULL};
    ASSERT_EQ_U64(pb_bucket_of(r256, 0xAB123456u), 0xAB);
    r256.shift = 3;
    ASSERT_EQ_U64(pb_bucket_of(r256, 0x00000FF8u), 0xFF);

    static const uint32_t s4[] = {10, 20, 30};
    pb_bucket_fn rg = {PB_BUCKET_RANGE, 4, 0, 0, s4};
    static const uint32_t keys[] = {0, 9, 10, 19, 20, 29, 30, 31, 0xFFFFFFFFu};
    static const uint32_t want[] = {0, 0, 1, 1, 2, 2, 3, 3, 3};
    for (int i = 0; i < 9; i++) ASSERT_EQ_U64(pb_bucket_of(rg, keys[i]), want[i]);
    static const uint32_t s2[] = {100};
    pb_bucket_fn rg2 = {PB_BUCKET_RANGE, 2, 0, 0, s2};
    ASSERT_EQ_U64(pb_bucket_of(rg2, 99), 0);
    ASSERT_EQ_U64(pb_bucket_of(rg2, 100), 1);
    /* A splitter at 0 leaves bucket 0 empty; one at 0xFFFFFFFF takes only
     * that key into the last bucket. */
    static const uint32_t s5[] = {0, 5, 5, 0xFFFFFFFFu};
    pb_bucket_fn rg5 = {PB_BUCKET_RANGE, 5, 0, 0, s5};
    ASSERT_EQ_U64(pb_bucket_of(rg5, 0), 1);
    ASSERT_EQ_U64(pb_bucket_of(rg5, 4), 1);
    ASSERT_EQ_U64(pb_bucket_of(rg5, 5), 3);
    ASSERT_EQ_U64(pb_bucket_of(rg5, 0xFFFFFFFEu), 3);
    ASSERT_EQ_U64(pb_bucket_of(rg5, 0xFFFFFFFFu), 4);
    return 0;
}

/* The key 0xffffffff falls in the largest bucket any key reaches (m - 1,
 * or for radix digits cut short by the word's end, all ones), for every
 * kind and m (range with any ascending splitters): onesweep-ms pads its
 * last tile with it. */
TEST_IMPL(ms_bucket_top)
{
    pb_rng r;
    pb_rng_init(&r, 11, 0);
    static const int kinds[] = {PB_BUCKET_DELTA, PB_BUCKET_IDENTITY, PB_BUCKET_RADIX};
    for (uint32_t m = 2; m <= PB_MS_MAX_BUCKETS; m++)
        for (int ki = 0; ki < 3; ki++) {
            if (kinds[ki] == PB_BUCKET_RADIX && (m & (m - 1))) continue;
            for (uint32_t shift = 0; shift < 32; shift += kinds[ki] == PB_BUCKET_RADIX ? 3 : 32) {
                pb_bucket_fn f = {kinds[ki], m, pb_bucket_delta(m), shift, NULL};
                uint32_t keys[64] = {0, 1, m - 1, m, m + 1, 0xffffffffu, 0x80000000u};
                for (int i = 7; i < 64; i++) keys[i] = pb_rng_u32(&r) >> (i & 31);
                uint32_t top = pb_bucket_of(f, 0xffffffffu);
                for (int i = 0; i < 64; i++) {
                    ASSERT(pb_bucket_of(f, keys[i]) <= top);
                }
                if (kinds[ki] != PB_BUCKET_RADIX || shift + 8 <= 32) ASSERT_EQ_U64(top, m - 1);
            }
        }
    uint32_t spl[PB_MS_MAX_BUCKETS];
    for (uint32_t m = 2; m <= PB_MS_MAX_BUCKETS; m += 7) {
        for (uint32_t i = 0; i + 1 < m; i++) spl[i] = pb_rng_u32(&r);
        for (uint32_t i = 1; i + 1 < m; i++) /* insertion sort: ascending */
            for (uint32_t j = i; j > 0 && spl[j - 1] > spl[j]; j--) {
                uint32_t t = spl[j];
                spl[j] = spl[j - 1], spl[j - 1] = t;
            }
        pb_bucket_fn f = {PB_BUCKET_RANGE, m, 0, 0, spl};
        ASSERT_EQ_U64(pb_bucket_of(f, 0xffffffffu), m - 1);
    }
    return 0;
}

/* The host's range searches (branchless, and through the slice table) are
 * pb_bucket_range_search, key for key: every splitter count 1..40 and 255,
 * duplicate splitters, splitters at 0, 0xFFFFFFFF, on and beside slice
 * edges, all in one slice; every key at and next to a splitter or a slice
 * edge. Then pb_ms_split (which uses the table from PB_MS_RT_MIN keys)
 * against a linear count on such splitters. */
TEST_IMPL(ms_range_search_host)
{
    enum { MAXM = 256, NK = 3 * MAXM + 12, NS = 20000 };
    static uint32_t s[MAXM], keys[NK];
    static pb_ms_range_table rt;
    const uint32_t slice = UINT32_C(1) << (32 - PB_MS_RT_BITS);
    uint32_t *split_keys = xalloc(NS), *out = xalloc(NS);
    ASSERT(split_keys && out);
    pb_rng r;
    pb_rng_init(&r, 5, 0);
    for (uint32_t m = 2; m <= MAXM; m = m == 41 ? 256 : m + 1)
        for (int trial = 0; trial < 60; trial++) {
            /* Few distinct values make duplicates common; narrow spreads
             * put every splitter in one slice or two. */
            static const uint32_t spreads[] = {8, 1000, UINT32_MAX, 3 * (1u << 20), 0};
            uint32_t spread = spreads[trial % 5];
            for (uint32_t j = 0; j + 1 < m; j++) {
                uint32_t x = pb_rng_u32(&r);
                s[j] = spread ? x % spread : (x % 7 + 1) * slice - (x >> 31); /* on slice edges */
                if (trial % 10 == 3) s[j] += 0x7ff00000u;
            }
            if (trial == 5) s[0] = 0;
            if (trial == 6) s[m - 2] = UINT32_MAX;
            for (uint32_t a = 1; a + 1 < m; a++) /* insertion sort: ascending, ties kept */
                for (uint32_t b = a; b > 0 && s[b - 1] > s[b]; b--) {
                    uint32_t t = s[b];
                    s[b] = s[b - 1];
                    s[b - 1] = t;
                }
            pb_bucket_fn f = {PB_BUCKET_RANGE, m, 0, 0, s};
            pb_ms_range_table_build(&f, &rt);
            uint32_t nk = 0;
            for (uint32_t j = 0; j + 1 < m; j++) {
                keys[nk++] = s[j] - 1;
                keys[nk++] = s[j];
                keys[nk++] = s[j] + 1;
            }
            uint32_t e = (pb_rng_u32(&r) >> (32 - PB_MS_RT_BITS)) * slice;
            keys[nk++] = 0, keys[nk++] = UINT32_MAX, keys[nk++] = pb_rng_u32(&r);
            keys[nk++] = e, keys[nk++] = e - 1, keys[nk++] = e + slice - 1;
            for (uint32_t k = 0; k < nk; k++) {
                uint32_t want = 0;
                for (uint32_t j = 0; j + 1 < m; j++) want += s[j] <= keys[k];
                ASSERT_EQ_U64(pb_bucket_range_search(s, m, keys[k]), want);
                ASSERT_EQ_U64(pb_ms_range_search_host(s, m, keys[k]), want);
                ASSERT_EQ_U64(pb_ms_range_table_bucket(&rt, s, keys[k]), want);
            }
            if (trial % 20 == 0) {
                /* Keys drawn near the splitters, split with the table. */
                uint64_t off[MAXM + 1], cnt[MAXM] = {0};
                for (uint32_t i = 0; i < NS; i++) {
                    uint32_t x = pb_rng_u32(&r);
                    split_keys[i] = i % 2 ? x : s[x % (m - 1)] + (x >> 30) - 2;
                }
                pb_ms_split(&f, split_keys, NULL, NS, out, NULL, off, 2);
                for (uint32_t i = 0; i < NS; i++) {
                    uint32_t want = 0;
                    for (uint32_t j = 0; j + 1 < m; j++) want += s[j] <= split_keys[i];
                    cnt[want]++;
                }
                for (uint32_t b = 0; b < m; b++) {
                    ASSERT_EQ_U64(off[b + 1] - off[b], cnt[b]);
                    for (uint64_t i = off[b]; i < off[b + 1]; i++)
                        ASSERT_EQ_U64(pb_bucket_of(f, out[i]), b);
                }
            }
        }
    free(split_keys), free(out);
    return 0;
}

/* ---- parameters ---- */

TEST_IMPL(ms_params_check)
{
    pb_err err;
    pb_params p = ms_params(3, PB_BUCKET_RADIX, 0, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) != 0);
    ASSERT_CONTAINS(err.msg, "buckets=3");
    ASSERT_CONTAINS(err.msg, "power-of-two");
    p = ms_params(16, PB_BUCKET_RADIX, 30, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) != 0);
    ASSERT_CONTAINS(err.msg, "shift=30");
    ASSERT(strchr(err.msg, '\n') == NULL);
    p = ms_params(16, PB_BUCKET_RADIX, 28, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) == 0);
    p = ms_params(256, PB_BUCKET_RADIX, 24, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) == 0);
    p = ms_params(2, PB_BUCKET_RADIX, 31, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) == 0);
    /* Only radix needs a power of two; shift is ignored elsewhere. */
    p = ms_params(3, PB_BUCKET_DELTA, 30, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) == 0);
    p = ms_params(100, PB_BUCKET_RANGE, 0, PB_MS_BINOMIAL, 25);
    ASSERT(pb_ms_params_check(&p, &err) == 0);
    p = ms_params(1, PB_BUCKET_DELTA, 0, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) != 0);
    ASSERT_CONTAINS(err.msg, "buckets=1");
    p = ms_params(257, PB_BUCKET_IDENTITY, 0, PB_MS_UNIFORM, 25);
    ASSERT(pb_ms_params_check(&p, &err) != 0);
    ASSERT_CONTAINS(err.msg, "buckets=257");
    p = ms_params(32, PB_BUCKET_DELTA, 0, PB_MS_ALPHA, 101);
    ASSERT(pb_ms_params_check(&p, &err) != 0);
    ASSERT_CONTAINS(err.msg, "alpha=101");

    /* The problem refuses what the check refuses, and odd item widths. */
    pb_ms_problem prob;
    p = ms_params(3, PB_BUCKET_RADIX, 0, PB_MS_UNIFORM, 25);
    pb_point pt = {100, 4, 1, &p, 1};
    ASSERT(pb_ms_problem_init(&prob, &pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "buckets=3");
    p = ms_params(32, PB_BUCKET_DELTA, 0, PB_MS_UNIFORM, 25);
    pt.item_bytes = 6;
    ASSERT(pb_ms_problem_init(&prob, &pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "not 6");
    pb_ms_problem_free(&prob);
    return 0;
}

/* ---- the generator ---- */

/* Every (kind, m, shift) the generator tests walk through. */
typedef struct ms_shape {
    pb_bucket_kind kind;
    uint32_t m, shift;
} ms_shape;

static const ms_shape gen_shapes[] = {
    {PB_BUCKET_DELTA, 2, 0},      {PB_BUCKET_DELTA, 3, 0},    {PB_BUCKET_DELTA, 100, 0},
    {PB_BUCKET_DELTA, 256, 0},    {PB_BUCKET_IDENTITY, 2, 0}, {PB_BUCKET_IDENTITY, 33, 0},
    {PB_BUCKET_IDENTITY, 256, 0}, {PB_BUCKET_RADIX, 2, 31},   {PB_BUCKET_RADIX, 32, 3},
    {PB_BUCKET_RADIX, 256, 24},   {PB_BUCKET_RADIX, 16, 0},   {PB_BUCKET_RANGE, 2, 0},
    {PB_BUCKET_RANGE, 7, 0},      {PB_BUCKET_RANGE, 256, 0},
};
#define NSHAPES (sizeof gen_shapes / sizeof gen_shapes[0])

/* The same seed gives the same input with 1, 2 or 3 threads; another seed
 * another input; the splitters ascend strictly. */
TEST_IMPL(ms_gen_threads)
{
    enum { N = 200003 };
    int saved = omp_get_max_threads();
    for (size_t s = 0; s < NSHAPES; s++)
        for (int dist = 0; dist < 3; dist++) {
            const ms_shape *sh = &gen_shapes[s];
            pb_params par = ms_params(sh->m, sh->kind, sh->shift, (pb_ms_dist)dist, 30);
            pb_ms_problem a, b, c;
            omp_set_num_threads(1);
            ASSERT(ms_init(&a, N, 8, 11, &par) == 0);
            omp_set_num_threads(2);
            ASSERT(ms_init(&b, N, 8, 11, &par) == 0);
            omp_set_num_threads(3);
            ASSERT(ms_init(&c, N, 8, 12, &par) == 0);
            omp_set_num_threads(saved);
            ASSERT(memcmp(a.keys, b.keys, N * 4) == 0 && memcmp(a.vals, b.vals, N * 4) == 0);
            ASSERT(memcmp(a.splitters, b.splitters, sizeof a.splitters) == 0);
            ASSERT(memcmp(a.keys, c.keys, N * 4) != 0);
            if (sh->kind == PB_BUCKET_RANGE) {
                ASSERT(a.splitters[0] > 0);
                for (uint32_t j = 1; j + 1 < sh->m; j++)
                    ASSERT(a.splitters[j] > a.splitters[j - 1]);
                ASSERT(memcmp(a.splitters, c.splitters, (sh->m - 1) * 4) != 0);
            }
            pb_ms_problem_free(&a), pb_ms_problem_free(&b), pb_ms_problem_free(&c);
        }
    return 0;
}

/* Every key lies in the bucket the generator drew for it (its own draw,
 * replayed), identity keys are the bucket itself, values are positions. */
TEST_IMPL(ms_gen_buckets)
{
    enum { N = 40000 };
    for (size_t s = 0; s < NSHAPES; s++)
        for (int dist = 0; dist < 3; dist++) {
            const ms_shape *sh = &gen_shapes[s];
            uint32_t alpha = 40;
            pb_params par = ms_params(sh->m, sh->kind, sh->shift, (pb_ms_dist)dist, alpha);
            pb_ms_problem p;
            ASSERT(ms_init(&p, N, 8, 5 + s, &par) == 0);
            for (uint64_t i = 0; i < N; i++) {
                uint32_t want = pb_ms_drawn_bucket(&p, i, alpha);
                uint32_t got = pb_bucket_of(p.fn, p.keys[i]);
                if (got != want || naive_bucket(&p, p.keys[i]) != want) {
                    fprintf(stderr,
                            "%s m=%u dist=%d: key %" PRIu64 " = 0x%08x in bucket %u, "
                            "drawn for %u\n",
                            pb_ms_kind_name(sh->kind), sh->m, dist, i, p.keys[i], got, want);
                    return 1;
                }
                ASSERT(want < sh->m && p.vals[i] == i);
                if (sh->kind == PB_BUCKET_IDENTITY) ASSERT(p.keys[i] == want);
            }
            pb_ms_problem_free(&p);
        }
    return 0;
}

/* Uniform over buckets for every kind (chi-square), and, for delta and
 * range, uniform inside each bucket (16 equal slices of every bucket). */
TEST_IMPL(ms_gen_uniform)
{
    enum { N = 1 << 20, SLICES = 16 };
    for (size_t s = 0; s < NSHAPES; s++) {
        const ms_shape *sh = &gen_shapes[s];
        pb_params par = ms_params(sh->m, sh->kind, sh->shift, PB_MS_UNIFORM, 25);
        pb_ms_problem p;
        ASSERT(ms_init(&p, N, 4, 2026 + s, &par) == 0);
        uint64_t count[PB_MS_MAX_BUCKETS] = {0}, slice[SLICES] = {0}, top[2] = {0};
        for (uint64_t i = 0; i < N; i++) {
            uint32_t k = p.keys[i], b = pb_bucket_of(p.fn, k);
            count[b]++;
            top[k >> 31]++;
            uint64_t lo, hi;
            if (sh->kind == PB_BUCKET_DELTA) {
                lo = pb_bucket_delta_lo(sh->m, b);
                hi = pb_bucket_delta_lo(sh->m, b + 1);
            } else if (sh->kind == PB_BUCKET_RANGE) {
                lo = b ? p.splitters[b - 1] : 0;
                hi = b + 1 < sh->m ? p.splitters[b] : UINT64_C(1) << 32;
            } else {
                continue;
            }
            slice[(k - lo) * SLICES / (hi - lo)]++;
        }
        double pv = chisq_uniform_p(count, sh->m, N);
        if (pv < 1e-6) {
            fprintf(stderr, "%s m=%u: buckets not uniform, p = %.3g\n", pb_ms_kind_name(sh->kind),
                    sh->m, pv);
            return 1;
        }
        if (sh->kind == PB_BUCKET_DELTA || sh->kind == PB_BUCKET_RANGE) {
            pv = chisq_uniform_p(slice, SLICES, N);
            if (pv < 1e-6) {
                fprintf(stderr, "%s m=%u: keys not uniform inside buckets, p = %.3g\n",
                        pb_ms_kind_name(sh->kind), sh->m, pv);
                return 1;
            }
        }
        /* Radix keys below the digit's top bit are random: bit 31 is a fair
         * coin whenever the digit does not cover it. */
        if (sh->kind == PB_BUCKET_RADIX && sh->shift + log2u(sh->m) < 32)
            ASSERT(chisq_uniform_p(top, 2, N) > 1e-6);
        pb_ms_problem_free(&p);
    }
    return 0;
}

/* Binomial B(m-1, 1/2) over buckets: chi-square against the pmf, cells
 * with an expectation below 5 pooled into one tail cell. */
TEST_IMPL(ms_gen_binomial)
{
    enum { N = 1 << 20 };
    static const uint32_t ms[] = {2, 3, 33, 34, 100, 256};
    for (int t = 0; t < 6; t++) {
        uint32_t m = ms[t];
        pb_params par =
            ms_params(m, t & 1 ? PB_BUCKET_RANGE : PB_BUCKET_DELTA, 0, PB_MS_BINOMIAL, 25);
        pb_ms_problem p;
        ASSERT(ms_init(&p, N, 4, 77 + t, &par) == 0);
        uint64_t count[PB_MS_MAX_BUCKETS] = {0};
        for (uint64_t i = 0; i < N; i++) count[pb_bucket_of(p.fn, p.keys[i])]++;
        double chi2 = 0, tail_e = 0, tail_o = 0;
        int cells = 0;
        for (uint32_t b = 0; b < m; b++) {
            double e = N * gsl_ran_binomial_pdf(b, 0.5, m - 1);
            if (e < 5) {
                tail_e += e, tail_o += (double)count[b];
                continue;
            }
            chi2 += (count[b] - e) * (count[b] - e) / e;
            cells++;
        }
        if (tail_e >= 5) {
            chi2 += (tail_o - tail_e) * (tail_o - tail_e) / tail_e;
            cells++;
        } else {
            ASSERT(tail_o <= 20);
        }
        double pv = gsl_cdf_chisq_Q(chi2, cells - 1);
        if (pv < 1e-6) {
            fprintf(stderr, "binomial m=%u: chi-square %.1f over %d cells, p = %.3g\n", m, chi2,
                    cells, pv);
            return 1;
        }
        pb_ms_problem_free(&p);
    }
    return 0;
}

/* Alpha-uniform: the heavy bucket holds (1 - a) + a / m of the keys, the
 * others share the rest evenly; a = 0 puts every key in it. */
TEST_IMPL(ms_gen_alpha)
{
    enum { N = 1 << 20 };
    static const struct {
        uint32_t m, alpha;
    } cases[] = {{256, 25}, {7, 50}, {32, 0}, {32, 100}, {2, 90}};
    for (int t = 0; t < 5; t++) {
        uint32_t m = cases[t].m, alpha = cases[t].alpha;
        pb_params par = ms_params(m, PB_BUCKET_DELTA, 0, PB_MS_ALPHA, alpha);
        pb_ms_problem p;
        ASSERT(ms_init(&p, N, 4, 300 + t, &par) == 0);
        uint32_t heavy = pb_ms_heavy_bucket(&p);
        ASSERT(heavy < m);
        uint64_t count[PB_MS_MAX_BUCKETS] = {0};
        for (uint64_t i = 0; i < N; i++) count[pb_bucket_of(p.fn, p.keys[i])]++;
        double a = alpha / 100.0, want = (1 - a) + a / m, got = (double)count[heavy] / N;
        double sd = sqrt(want * (1 - want) / N);
        if (fabs(got - want) > 6 * sd + 1e-12) {
            fprintf(stderr, "alpha=%u m=%u: heavy bucket %u holds %.5f, expected %.5f\n", alpha, m,
                    heavy, got, want);
            return 1;
        }
        if (alpha > 0 && m > 2) {
            /* The other buckets: uniform among themselves. */
            uint64_t rest[PB_MS_MAX_BUCKETS], total = 0;
            uint32_t k = 0;
            for (uint32_t b = 0; b < m; b++)
                if (b != heavy) rest[k++] = count[b], total += count[b];
            ASSERT(chisq_uniform_p(rest, k, total) > 1e-6);
        }
        pb_ms_problem_free(&p);
    }
    /* The heavy bucket depends on the seed. */
    pb_params par = ms_params(256, PB_BUCKET_DELTA, 0, PB_MS_ALPHA, 25);
    int differ = 0;
    pb_ms_problem p0, p1;
    ASSERT(ms_init(&p0, 0, 4, 1, &par) == 0);
    for (uint64_t seed = 2; seed < 10; seed++) {
        ASSERT(ms_init(&p1, 0, 4, seed, &par) == 0);
        differ += pb_ms_heavy_bucket(&p1) != pb_ms_heavy_bucket(&p0);
        pb_ms_problem_free(&p1);
    }
    pb_ms_problem_free(&p0);
    ASSERT(differ > 0);
    return 0;
}

/* ---- the twin ---- */

/* The twin (and the sequential split) against the naive split, on the
 * generator's keys and on raw 32-bit keys (which reach identity's clamp and
 * every range bucket edge case the generator avoids). */
TEST_IMPL(ms_twin_naive)
{
    static const uint64_t sizes[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 65537};
    static const uint32_t ms_all[] = {2, 3, 7, 32, 33, 100, 256};
    static const uint32_t ms_pow2[] = {2, 32, 256};
    int config = 0;
    for (int kind = 0; kind < 4; kind++) {
        const uint32_t *ms = kind == PB_BUCKET_RADIX ? ms_pow2 : ms_all;
        int nm = kind == PB_BUCKET_RADIX ? 3 : 7;
        for (int im = 0; im < nm; im++)
            for (size_t is = 0; is < sizeof sizes / sizeof sizes[0]; is++)
                for (unsigned item = 4; item <= 8; item += 4)
                    for (int raw = 0; raw < 2; raw++, config++) {
                        uint32_t m = ms[im];
                        uint64_t n = sizes[is];
                        pb_params par =
                            ms_params(m, (pb_bucket_kind)kind, 3, (pb_ms_dist)(config % 3), 25);
                        pb_ms_problem p;
                        ASSERT(ms_init(&p, n, item, 1000 + (uint64_t)config, &par) == 0);
                        if (raw) {
                            pb_rng r;
                            pb_rng_init(&r, (uint64_t)config, 99);
                            for (uint64_t i = 0; i < n; i++) p.keys[i] = pb_rng_u32(&r);
                        }
                        uint32_t *nk = xalloc(n), *nv = xalloc(n), *sk = xalloc(n), *sv = xalloc(n);
                        ASSERT(nk && nv && sk && sv);
                        uint64_t noff[PB_MS_MAX_BUCKETS + 1], soff[PB_MS_MAX_BUCKETS + 1];
                        naive_split(&p, nk, nv, noff);
                        pb_err err;
                        ASSERT(pb_ms_twin_answer(&p, &err) == 0);
                        pb_ms_split(&p.fn, p.keys, p.vals, n, sk, p.pairs ? sv : NULL, soff, 1);
                        size_t bytes = (size_t)n * 4;
                        int ok =
                            memcmp(p.offsets, noff, (m + 1) * sizeof *noff) == 0 &&
                            memcmp(soff, noff, (m + 1) * sizeof *noff) == 0 &&
                            (n == 0 ||
                             (memcmp(p.twin_keys, nk, bytes) == 0 && memcmp(sk, nk, bytes) == 0)) &&
                            (n == 0 || !p.pairs ||
                             (memcmp(p.twin_vals, nv, bytes) == 0 && memcmp(sv, nv, bytes) == 0));
                        ok = ok && p.offsets[0] == 0 && p.offsets[m] == n;
                        if (ok && pb_ms_check_stable(&p, nk, p.pairs ? nv : NULL, &err)) ok = 0;
                        if (ok && pb_ms_check_contract(&p, nk, p.pairs ? nv : NULL, &err)) ok = 0;
                        if (!ok) {
                            fprintf(stderr, "twin != naive: %s m=%u n=%" PRIu64 " item=%u %s\n",
                                    pb_ms_kind_name((pb_bucket_kind)kind), m, n, item,
                                    raw ? "raw keys" : "generated keys");
                            return 1;
                        }
                        free(nk), free(nv), free(sk), free(sv);
                        pb_ms_problem_free(&p);
                    }
    }
    return 0;
}

/* The OpenMP split gives the sequential split's output for 1, 2, 3 and 7
 * threads, at sizes on both sides of the parallel threshold, with skewed
 * distributions that leave buckets empty in some chunks. */
TEST_IMPL(ms_omp_split_threads)
{
    static const uint64_t sizes[] = {
        0, 5, PB_MS_PAR_MIN - 1, PB_MS_PAR_MIN, 100003, (1u << 20) + 7};
    static const int threads[] = {1, 2, 3, 7};
    static const ms_shape shapes[] = {{PB_BUCKET_DELTA, 256, 0},
                                      {PB_BUCKET_IDENTITY, 33, 0},
                                      {PB_BUCKET_RADIX, 32, 3},
                                      {PB_BUCKET_RANGE, 100, 0}};
    int config = 0;
    for (int s = 0; s < 4; s++)
        for (size_t is = 0; is < sizeof sizes / sizeof sizes[0]; is++)
            for (unsigned item = 4; item <= 8; item += 4, config++) {
                uint64_t n = sizes[is];
                pb_params par = ms_params(shapes[s].m, shapes[s].kind, shapes[s].shift,
                                          (pb_ms_dist)(config % 3), 10);
                pb_ms_problem p;
                ASSERT(ms_init(&p, n, item, (uint64_t)config, &par) == 0);
                uint32_t *k1 = xalloc(n), *v1 = xalloc(n), *kt = xalloc(n), *vt = xalloc(n);
                ASSERT(k1 && v1 && kt && vt);
                uint64_t o1[PB_MS_MAX_BUCKETS + 1], ot[PB_MS_MAX_BUCKETS + 1];
                uint32_t *v1p = p.pairs ? v1 : NULL, *vtp = p.pairs ? vt : NULL;
                pb_ms_split(&p.fn, p.keys, p.vals, n, k1, v1p, o1, 1);
                for (int t = 0; t < 4; t++) {
                    memset(kt, 0xA5, n * 4);
                    memset(vt, 0xA5, n * 4);
                    pb_ms_split(&p.fn, p.keys, p.vals, n, kt, vtp, ot, threads[t]);
                    int same = memcmp(o1, ot, (shapes[s].m + 1) * sizeof *o1) == 0 &&
                               memcmp(k1, kt, n * 4) == 0 &&
                               (!p.pairs || memcmp(v1, vt, n * 4) == 0);
                    if (!same) {
                        fprintf(stderr,
                                "omp split != sequential: %s m=%u n=%" PRIu64
                                " item=%u threads=%d\n",
                                pb_ms_kind_name(shapes[s].kind), shapes[s].m, n, item, threads[t]);
                        return 1;
                    }
                }
                free(k1), free(v1), free(kt), free(vt);
                pb_ms_problem_free(&p);
            }
    return 0;
}

/* n = 0: nothing allocated is dereferenced, every check passes, every
 * offset is 0. */
TEST_IMPL(ms_empty)
{
    for (unsigned item = 4; item <= 8; item += 4) {
        pb_params par = ms_params(7, PB_BUCKET_RANGE, 0, PB_MS_BINOMIAL, 25);
        pb_ms_problem p;
        pb_err err;
        ASSERT(ms_init(&p, 0, item, 1, &par) == 0);
        ASSERT(pb_ms_twin_answer(&p, &err) == 0);
        for (int b = 0; b <= 7; b++) ASSERT(p.offsets[b] == 0);
        ASSERT(pb_ms_check_stable(&p, p.twin_keys, p.twin_vals, &err) == 0);
        ASSERT(pb_ms_check_contract(&p, p.twin_keys, p.twin_vals, &err) == 0);
        ASSERT(pb_ms_check_sorted(&p, p.twin_keys, p.twin_vals, 32, &err) == 0);
        uint64_t off[8];
        memset(off, 0xFF, sizeof off);
        pb_ms_split(&p.fn, NULL, NULL, 0, NULL, NULL, off, 2);
        for (int b = 0; b <= 7; b++) ASSERT(off[b] == 0);
        pb_ms_problem_free(&p);
        pb_ms_problem_free(&p); /* freeing twice is harmless */
    }
    return 0;
}

/* ---- the checks ---- */

typedef struct kv {
    uint32_t k, v;
} kv;

static uint32_t sort_mask;
static int kv_cmp(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    uint32_t xk = x->k & sort_mask, yk = y->k & sort_mask;
    if (xk != yk) return xk < yk ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* A stable sort of the input by bits [0, end_bit) into ok / ov. */
static void stable_sort(const pb_ms_problem *p, unsigned end_bit, uint32_t *ok, uint32_t *ov)
{
    kv *t = malloc(p->n * sizeof *t + 1);
    for (uint64_t i = 0; i < p->n; i++) t[i].k = p->keys[i], t[i].v = (uint32_t)i;
    sort_mask = end_bit >= 32 ? UINT32_MAX : (UINT32_C(1) << end_bit) - 1;
    qsort(t, p->n, sizeof *t, kv_cmp);
    for (uint64_t i = 0; i < p->n; i++) {
        ok[i] = t[i].k;
        if (ov) ov[i] = t[i].v;
    }
    free(t);
}

static void swap32(uint32_t *a, uint64_t i, uint64_t j)
{
    uint32_t t = a[i];
    a[i] = a[j];
    a[j] = t;
}

/* Each corruption is caught by the checks that must catch it, and passed
 * by the one that must not: order inside a bucket matters only to the
 * stable check. */
TEST_IMPL(ms_checks_catch)
{
    enum { N = 5000 };
    for (unsigned item = 4; item <= 8; item += 4) {
        pb_params par = ms_params(16, PB_BUCKET_DELTA, 0, PB_MS_UNIFORM, 25);
        pb_ms_problem p;
        pb_err err;
        ASSERT(ms_init(&p, N, item, 8, &par) == 0);
        ASSERT(pb_ms_twin_answer(&p, &err) == 0);
        uint32_t *k = xalloc(N), *v = xalloc(N), *vp = p.pairs ? v : NULL;
        ASSERT(k && v);
#define RESET()                                                                                    \
    (memcpy(k, p.twin_keys, N * 4), p.pairs ? (void)memcpy(v, p.twin_vals, N * 4) : (void)0)
        RESET();
        ASSERT(pb_ms_check_stable(&p, k, vp, &err) == 0);
        ASSERT(pb_ms_check_contract(&p, k, vp, &err) == 0);

        /* Two adjacent items of different buckets (across the edge between
         * buckets 3 and 4): both checks fail, naming the position. */
        uint64_t e = p.offsets[4];
        ASSERT(e > p.offsets[3] && e < p.offsets[5]);
        swap32(k, e - 1, e);
        if (vp) swap32(v, e - 1, e);
        ASSERT(pb_ms_check_stable(&p, k, vp, &err) != 0);
        char want[64];
        snprintf(want, sizeof want, "position %" PRIu64 " ", e - 1);
        ASSERT_CONTAINS(err.msg, want);
        ASSERT_CONTAINS(err.msg, "(bucket 4)");
        ASSERT_CONTAINS(err.msg, "expected key");
        ASSERT(pb_ms_check_contract(&p, k, vp, &err) != 0);
        ASSERT_CONTAINS(err.msg, "position");

        /* Two items inside one bucket: only the stable check fails. */
        RESET();
        uint64_t i = p.offsets[7] + 1, j = p.offsets[7] + 5;
        ASSERT(j < p.offsets[8] && k[i] != k[j]);
        swap32(k, i, j);
        if (vp) swap32(v, i, j);
        ASSERT(pb_ms_check_stable(&p, k, vp, &err) != 0);
        snprintf(want, sizeof want, "position %" PRIu64 " ", i);
        ASSERT_CONTAINS(err.msg, want);
        ASSERT(pb_ms_check_contract(&p, k, vp, &err) == 0);

        /* One value (pairs) or one key changed inside its bucket: both fail. */
        RESET();
        if (vp)
            v[100] ^= 1;
        else
            k[100] ^= 1; /* the lowest bit: still in its delta bucket */
        ASSERT(pb_ms_check_stable(&p, k, vp, &err) != 0);
        ASSERT(pb_ms_check_contract(&p, k, vp, &err) != 0);
        ASSERT_CONTAINS(err.msg, "does not hold the input's items");

        /* A duplicated item replacing another of its bucket: both fail. */
        RESET();
        k[200] = k[201];
        if (vp) v[200] = v[201];
        ASSERT(pb_ms_check_stable(&p, k, vp, &err) != 0);
        ASSERT(pb_ms_check_contract(&p, k, vp, &err) != 0);

        /* Pairs without values are refused, not read. */
        if (p.pairs) {
            RESET();
            ASSERT(pb_ms_check_stable(&p, k, NULL, &err) != 0);
            ASSERT(pb_ms_check_contract(&p, k, NULL, &err) != 0);
            ASSERT(pb_ms_check_sorted(&p, k, NULL, 32, &err) != 0);
        }

        /* Sorted: the stable sort passes at full and reduced width; the
         * multisplit, ordered by its top 4 bits only, fails. */
        for (unsigned end = 4; end <= 32; end += 28) {
            stable_sort(&p, end, k, vp);
            ASSERT(pb_ms_check_sorted(&p, k, vp, end, &err) == 0);
        }
        RESET();
        ASSERT(pb_ms_check_sorted(&p, k, vp, 32, &err) != 0);
        ASSERT_CONTAINS(err.msg, "out of order");
        /* A sort by 4 bits checked as a sort by 32 fails. */
        stable_sort(&p, 4, k, vp);
        ASSERT(pb_ms_check_sorted(&p, k, vp, 32, &err) != 0);
        /* end_bit 0: every order is sorted, only stability (pairs) and the
         * multiset count; the input itself passes. */
        memcpy(k, p.keys, N * 4);
        if (vp) memcpy(v, p.vals, N * 4);
        ASSERT(pb_ms_check_sorted(&p, k, vp, 0, &err) == 0);
        /* Unstable among equal sort keys (pairs): two items of equal low 4
         * bits swapped. */
        stable_sort(&p, 4, k, vp);
        if (vp) {
            ASSERT((k[0] & 15) == (k[1] & 15));
            swap32(k, 0, 1), swap32(v, 0, 1);
            ASSERT(pb_ms_check_sorted(&p, k, vp, 4, &err) != 0);
            ASSERT_CONTAINS(err.msg, "not stable at position 1");
        }
        /* Order kept but an item changed (a duplicated key, or a changed
         * value): not a permutation. */
        stable_sort(&p, 32, k, vp);
        ASSERT(k[9] < k[10] && k[10] < k[11]);
        if (vp)
            v[10] += N;
        else
            k[10] = k[9];
        ASSERT(pb_ms_check_sorted(&p, k, vp, 32, &err) != 0);
        ASSERT_CONTAINS(err.msg, "not a permutation");
#undef RESET
        free(k), free(v);
        pb_ms_problem_free(&p);
    }
    return 0;
}

/* The range contract on a real multisplit with an empty bucket: binomial
 * keys at m = 256 leave most buckets empty, and the checks still hold. */
TEST_IMPL(ms_checks_empty_buckets)
{
    pb_params par = ms_params(256, PB_BUCKET_RANGE, 0, PB_MS_BINOMIAL, 25);
    pb_ms_problem p;
    pb_err err;
    ASSERT(ms_init(&p, 100000, 8, 3, &par) == 0);
    ASSERT(pb_ms_twin_answer(&p, &err) == 0);
    int empty = 0;
    for (int b = 0; b < 256; b++) empty += p.offsets[b] == p.offsets[b + 1];
    ASSERT(empty > 100);
    ASSERT(pb_ms_check_stable(&p, p.twin_keys, p.twin_vals, &err) == 0);
    ASSERT(pb_ms_check_contract(&p, p.twin_keys, p.twin_vals, &err) == 0);
    /* Range buckets follow key order, so a full sort is also a multisplit. */
    uint32_t *k = xalloc(p.n), *v = xalloc(p.n);
    stable_sort(&p, 32, k, v);
    ASSERT(pb_ms_check_sorted(&p, k, v, 32, &err) == 0);
    ASSERT(pb_ms_check_contract(&p, k, v, &err) == 0);
    free(k), free(v);
    pb_ms_problem_free(&p);
    return 0;
}

/* ---- the modules ---- */

static int set_params(const pb_module *m, pb_params *par, const char *spec)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", spec);
    pb_params_defaults(m, par);
    pb_err err;
    for (char *save = NULL, *one = strtok_r(buf, ",", &save); one;
         one = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(one, '=');
        *eq = '\0';
        if (pb_params_set(m, par, one, eq + 1, &err)) {
            fprintf(stderr, "%s: %s\n", m->name, err.msg);
            return -1;
        }
    }
    return 0;
}

TEST_IMPL(ms_modules_registry)
{
    const char *names[] = {"multisplit-twin", "omp-multisplit"};
    for (int i = 0; i < 2; i++) {
        const pb_module *m = pb_module_find(names[i]);
        ASSERT(m && m->family == &pb_family_multisplit && m->device == PB_DEVICE_CPU);
        ASSERT(m->verify && !pb_module_sample_perms(m) && !(m->flags & PB_MOD_SEEDED));
        ASSERT(pb_module_param_index(m, "buckets") == PB_MS_P_BUCKETS);
        ASSERT(pb_module_param_index(m, "bucket") == PB_MS_P_BUCKET);
        ASSERT(pb_module_param_index(m, "shift") == PB_MS_P_SHIFT);
        ASSERT(pb_module_param_index(m, "dist") == PB_MS_P_DIST);
        ASSERT(pb_module_param_index(m, "alpha") == PB_MS_P_ALPHA);
        pb_params par;
        ASSERT(set_params(m, &par, "bucket=radix,buckets=64,shift=26") == 0);
        pb_point pt = {1000, 8, 1, &par, 1};
        ASSERT_EQ_U64(m->footprint(&pt), 3 * 1000 * 8);
        pb_err err;
        void *state = NULL;
        ASSERT(m->prepare(&pt, &state, &err) == 0);
        m->release(state);
        ASSERT(set_params(m, &par, "bucket=radix,buckets=64,shift=27") == 0);
        ASSERT(m->prepare(&pt, &state, &err) != 0);
        ASSERT_CONTAINS(err.msg, "shift=27");
    }
    const pb_module *o = pb_module_find("omp-multisplit");
    ASSERT(pb_module_param_index(o, "threads") == PB_MS_NCOMMON);
    ASSERT(pb_module_param_index(pb_module_find("multisplit-twin"), "threads") < 0);
    return 0;
}

/* Both modules as the harness drives them (prepare, two runs, result,
 * verify, release), default parameters, both widths; their outputs agree. */
TEST_IMPL(ms_modules_drive)
{
    static const uint64_t sizes[] = {0, 1, 2, 1000, 100003};
    const pb_module *tw = pb_module_find("multisplit-twin"), *om = pb_module_find("omp-multisplit");
    ASSERT(tw && om);
    for (size_t is = 0; is < 5; is++)
        for (unsigned item = 4; item <= 8; item += 4) {
            uint64_t n = sizes[is];
            void *a, *b, *c;
            pb_err err;
            if (pb_drive_module(tw, n, item, 17, 2, 0, &a, &err) ||
                pb_drive_module(om, n, item, 17, 2, 3, &b, &err) ||
                pb_drive_module(om, n, item, 17, 1, 0, &c, &err)) {
                fprintf(stderr, "n=%" PRIu64 " item=%u: %s\n", n, item, err.msg);
                return 1;
            }
            ASSERT(memcmp(a, b, n * item) == 0 && memcmp(a, c, n * item) == 0);
            free(a), free(b), free(c);
        }
    return 0;
}

/* The modules with every bucket kind and distribution: their output is the
 * twin's answer of an independently prepared problem at the same point,
 * keys then values; corrupting it makes verify fail. */
TEST_IMPL(ms_modules_params)
{
    static const char *specs[] = {
        "",
        "bucket=identity,buckets=100,dist=alpha,alpha=10",
        "bucket=radix,buckets=32,shift=3,dist=binomial",
        "bucket=radix,buckets=256,shift=24",
        "bucket=range,buckets=7",
        "bucket=range,buckets=256,dist=binomial",
        "bucket=delta,buckets=3,dist=alpha,alpha=0",
    };
    static const uint64_t sizes[] = {0, 33, 70001};
    const char *names[] = {"multisplit-twin", "omp-multisplit"};
    for (size_t sp = 0; sp < sizeof specs / sizeof specs[0]; sp++)
        for (int mi = 0; mi < 2; mi++)
            for (int is = 0; is < 3; is++)
                for (unsigned item = 4; item <= 8; item += 4) {
                    const pb_module *m = pb_module_find(names[mi]);
                    uint64_t n = sizes[is];
                    pb_params par;
                    ASSERT(set_params(m, &par, specs[sp]) == 0);
                    int ti = pb_module_param_index(m, "threads");
                    if (ti >= 0) par.v[ti] = 2;
                    pb_point pt = {n, item, 41, &par, 2};
                    pb_err err;
                    void *state;
                    const void *res;
                    ASSERT(m->prepare(&pt, &state, &err) == 0);
                    ASSERT(m->run(state, 0, &err) == 0 && m->run(state, 1, &err) == 0);
                    ASSERT(m->result(state, &res, &err) == 0);
                    if (m->verify(state, &err)) {
                        fprintf(stderr, "%s [%s] n=%" PRIu64 ": %s\n", m->name, specs[sp], n,
                                err.msg);
                        return 1;
                    }
                    pb_ms_problem p;
                    ASSERT(ms_init(&p, n, item, 41, &par) == 0);
                    ASSERT(pb_ms_twin_answer(&p, &err) == 0);
                    const uint32_t *out = res;
                    ASSERT(n == 0 || memcmp(out, p.twin_keys, n * 4) == 0);
                    ASSERT(n == 0 || !p.pairs || memcmp(out + n, p.twin_vals, n * 4) == 0);
                    if (n > 1) {
                        /* The output is the module's own: corrupt it. */
                        uint32_t *w = (uint32_t *)res;
                        w[n - 1] ^= 1;
                        if (p.pairs) w[2 * n - 1] ^= 1;
                        ASSERT(m->verify(state, &err) != 0);
                        ASSERT_CONTAINS(err.msg, "differs from the twin");
                    }
                    pb_ms_problem_free(&p);
                    m->release(state);
                }
    return 0;
}

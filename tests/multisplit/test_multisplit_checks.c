/* The multisplit family's contract checks: each catches the corruption it
 * exists for, and only that; empty buckets pass. */
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
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/multisplit/ms_helpers.h"
#include "tests/test.h"

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


/* ties = lowest-index: the twin equals a brute force (sort by key
 * descending, index ascending, take k) on the heavy-tie distributions,
 * -0.0/+0.0 and NaNs included, for 32- and 64-bit keys; omp-topk returns
 * the twin's index set; the check rejects a tied key of a larger index
 * returned in place of a smaller one (which `any` accepts); sorted = yes
 * gives the results in rank order. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "config/params.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_problem.h"
#include "families/topk/topk_select.h"
#include "registry/registry.h"
#include "tests/test.h"
#include "tests/topk/topk_helpers.h"

/* ---- ties = lowest-index ---- */

/* The distributions with heavy ties, by their place in tk_dist_values:
 * few:2, few:16, few:256, int8, relu, masked:0.5, equal, few:1, masked:1,
 * nan (its NaNs all tie). */
static const char *const tie_dists[] = {"few:2", "few:16",   "few:256", "int8",     "relu",
                                        "masked:0.5", "equal", "few:1", "masked:1", "nan"};
enum { NTIE = sizeof tie_dists / sizeof tie_dists[0] };

/* A value's order key (any dtype, widened to 64 bits) and its index. */
typedef struct tk_pair {
    uint64_t key;
    uint32_t idx;
} tk_pair;

/* Rank order: key descending, then index ascending. */
static int cmp_pair_rank(const void *x, const void *y)
{
    const tk_pair *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? 1 : -1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The brute-force lowest-index answer of row r, written to want[0, m):
 * every (key, index) sorted by key descending, index ascending, the first
 * m indices. Spelled out here rather than through the twin's candidates:
 * for 32-bit keys a qsort of (key << 32 | ~index) descending (tmp as
 * uint64_t, the faster sort), for 64-bit keys a qsort of plain pairs. */
static void brute_lowest(const pb_topk_problem *p, uint64_t r, uint64_t m, tk_pair *tmp,
                         uint32_t *want)
{
    uint64_t len = pb_topk_row_len(p, r);
    if (!pb_topk_dtype_is64(p->dtype)) {
        uint64_t *t = (uint64_t *)tmp;
        const uint32_t *row = p->data + p->begin[r];
        for (uint64_t i = 0; i < len; i++)
            t[i] = (uint64_t)pb_topk_problem_okey(p, row[i]) << 32 | (0xffffffffu - (uint32_t)i);
        qsort(t, len, sizeof *t, tk_cmp_u64_desc);
        for (uint64_t j = 0; j < m; j++) want[j] = 0xffffffffu - (uint32_t)t[j];
        return;
    }
    for (uint64_t i = 0; i < len; i++) {
        tmp[i].key = pb_topk_problem_okey64(p, pb_topk_value_at(p, p->begin[r] + i));
        tmp[i].idx = (uint32_t)i;
    }
    qsort(tmp, len, sizeof *tmp, cmp_pair_rank);
    for (uint64_t j = 0; j < m; j++) want[j] = tmp[j].idx;
}

/* The twin's answer against the brute force, row by row: the same indices
 * in the same (rank) order, so the same set; and the check with ties =
 * lowest-index accepts it. */
static int twin_is_lowest(pb_topk_problem *p)
{
    pb_err err;
    if (pb_topk_twin_answer(p, &err)) {
        fprintf(stderr, "twin: %s\n", err.msg);
        return 1;
    }
    tk_pair *tmp = malloc((p->max_len + 1) * sizeof *tmp);
    uint32_t *want = malloc((p->max_len + 1) * sizeof *want);
    int rc = 0;
    for (uint64_t r = 0; r < p->rows && !rc; r++) {
        uint64_t o = p->out_off[r], m = p->out_off[r + 1] - o;
        brute_lowest(p, r, m, tmp, want);
        for (uint64_t j = 0; j < m && !rc; j++)
            if (p->twin_idx[o + j] != want[j]) {
                fprintf(stderr, "row %llu rank %llu: twin index %u, brute force %u\n",
                        (unsigned long long)r, (unsigned long long)j, p->twin_idx[o + j], want[j]);
                rc = 1;
            }
    }
    free(tmp);
    free(want);
    if (!rc && pb_topk_check(p, pb_topk_twin_values(p), p->twin_idx, &err)) {
        fprintf(stderr, "check of the twin (lowest-index): %s\n", err.msg);
        rc = 1;
    }
    return rc;
}

/* k values for the tie tests at row length n and distribution dv: 1, 2,
 * n - 1, n, past n, and around the number of distinct values. */
static int tie_k_list(uint64_t n, const char *dv, uint64_t *ks)
{
    uint64_t want[16] = {1, 2, n - 1, n, n + 3, 33, 1000};
    int nw = 7, nk = 0;
    if (strncmp(dv, "few:", 4) == 0) {
        uint64_t l = strtoull(dv + 4, NULL, 10);
        want[nw++] = l, want[nw++] = l + 1, want[nw++] = 2 * l + 1;
    } else if (strcmp(dv, "int8") == 0) {
        want[nw++] = 255, want[nw++] = 256, want[nw++] = 257, want[nw++] = 513;
    } else {
        want[nw++] = n / 2, want[nw++] = n / 2 + 1;
    }
    for (int w = 0; w < nw; w++) {
        bool dup = want[w] < 1 || want[w] > n + 3;
        for (int j = 0; j < nk; j++) dup |= ks[j] == want[w];
        if (!dup) ks[nk++] = want[w];
    }
    return nk;
}

/* The twin is the lowest-index answer on every heavy-tie distribution at
 * awkward n (2^j +- 1, rows split across threads at 65537 with 3 threads)
 * and k (1, 2, n - 1, n, past n, at and past the distinct values), both
 * directions and dtypes, single rows and ragged, misaligned batches. */
TEST_IMPL(topk_ties_twin_brute)
{
    const uint64_t sizes[] = {1, 2, 3, 7, 255, 257, 1023, 1025, 65535, 65537};
    int saved = omp_get_max_threads(), tried = 0;
    unsigned walked = 0;
    omp_set_num_threads(3);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (int d = 0; d < NTIE; d++)
            for (int dtype = 0; dtype < PB_TOPK_NDTYPES; dtype++)
                for (int largest = 0; largest < 2; largest++)
                    for (int batch = 0; batch < 2; batch++) {
                        uint64_t n = sizes[si];
                        if (batch && n > 4097) continue;
                        /* The 64-bit types, for CI's time: few:16, int8
                         * and nan, and the long row (65537, split over the
                         * threads) on few:16 alone. */
                        const char *td = tie_dists[d];
                        if (pb_topk_dtype_is64(dtype) &&
                            (n == 65535 || (n == 65537 && strcmp(td, "few:16") != 0) ||
                             (strcmp(td, "few:16") != 0 && strcmp(td, "int8") != 0 &&
                              strcmp(td, "nan") != 0)))
                            continue;
                        if (pb_test_san_skip(&walked)) continue;
                        tk_cfg c = {n,           1,     batch ? 5 : 1, batch, batch, largest,
                                    tk_dist_index(tie_dists[d]), dtype, 500 + si, PB_TOPK_TIES_LOWEST};
                        ASSERT(c.dist >= 0);
                        pb_topk_problem p;
                        ASSERT(tk_init(&p, &c) == 0);
                        uint64_t ks[16];
                        int nk = tie_k_list(n, tie_dists[d], ks);
                        for (int q = 0; q < nk; q++) {
                            c.k = ks[q];
                            pb_topk_problem_set_k(&p, ks[q]);
                            if (twin_is_lowest(&p)) {
                                tk_describe(&c);
                                omp_set_num_threads(saved);
                                return 1;
                            }
                            tried++;
                        }
                        pb_topk_problem_free(&p);
                    }
    omp_set_num_threads(saved);
    printf("%d twin answers equal the brute force\n", tried);
    return 0;
}

/* A row of 97 keys drawn from pool (by a fixed LCG) in dtype, ties =
 * lowest-index: the twin picks the lowest indices among ties at every k.
 * Returns 1 on a failure (described). */
static int pool_row_lowest(int dtype, int largest, const uint64_t *pool, size_t npool)
{
    const uint64_t n = 97;
    tk_cfg c = {n, 1, 1, 0, 0, largest, tk_dist_index("equal"), dtype, 7, PB_TOPK_TIES_LOWEST};
    pb_topk_problem p;
    ASSERT(tk_init(&p, &c) == 0);
    bool wide = dtype == PB_TOPK_F64 || dtype == PB_TOPK_U64;
    uint64_t x = 12345;
    for (uint64_t i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t key = pool[(x >> 33) % npool];
        if (wide) p.data64[p.begin[0] + i] = key;
        else p.data[p.begin[0] + i] = (uint32_t)key;
    }
    for (uint64_t k = 1; k <= n; k++) {
        pb_topk_problem_set_k(&p, k);
        c.k = k;
        if (twin_is_lowest(&p)) {
            tk_describe(&c);
            return 1;
        }
    }
    pb_topk_problem_free(&p);
    return 0;
}

/* -0.0, +0.0 and NaNs of every sign and payload, mixed with 1.0 and -inf
 * in one row: ties are equal keys (topk_key.h), so the NaNs tie with each
 * other and -0.0 does not tie with +0.0. The twin is the brute force's
 * answer at every k, largest and smallest. */
TEST_IMPL(topk_ties_zeros_nans)
{
    const uint64_t pool[] = {0x80000000u, 0x00000000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u,
                             0xffdeadbeu, tk_fbits(1.0f), 0xff800000u};
    for (int largest = 0; largest < 2; largest++)
        if (pool_row_lowest(PB_TOPK_F32, largest, pool, sizeof pool / sizeof pool[0])) return 1;
    return 0;
}

/* omp-topk with ties = lowest-index passes the check (which then compares
 * index sets) on the heavy-tie distributions, and its selection with 1, 2
 * and 3 threads returns the twin's index set, row by row. */
TEST_IMPL(topk_ties_omp)
{
    const uint64_t sizes[] = {3, 257, 1025, 65537};
    int runs = 0;
    unsigned walked = 0;
    /* fp32 and u32 (by k's place); fp64 and u64 too at the smallest size,
     * and at the largest (long rows split over threads) on few:16, for
     * CI's time. */
    for (int wide = 0; wide < 2; wide++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
            for (int d = 0; d < NTIE; d++)
                for (int batch = 0; batch < 2; batch++) {
                    if (wide && si != 0 && (si != 3 || strcmp(tie_dists[d], "few:16") != 0))
                        continue;
                    if (pb_test_san_skip(&walked)) continue;
                    uint64_t n = sizes[si], ks[16];
                    int nk = tie_k_list(n, tie_dists[d], ks);
                    for (int q = 0; q < nk; q++) {
                        int dtype = wide    ? (q & 2 ? PB_TOPK_U64 : PB_TOPK_F64)
                                    : q & 2 ? PB_TOPK_U32
                                            : PB_TOPK_F32;
                        tk_cfg c = {n,
                                    ks[q],
                                    batch ? 5 : 1,
                                    batch,
                                    batch,
                                    (q & 1),
                                    tk_dist_index(tie_dists[d]),
                                    dtype,
                                    600 + si,
                                    PB_TOPK_TIES_LOWEST};
                        pb_topk_problem p;
                        ASSERT(tk_init(&p, &c) == 0);
                        pb_err err;
                        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
                        uint64_t outs = p.out_total;
                        uint64_t *v = malloc((outs + 1) * 8); /* room for either word */
                        uint32_t *ix = malloc((outs + 1) * 4);
                        uint32_t *tw = malloc((outs + 1) * 4), *tmp = malloc((outs + 1) * 4);
                        /* The module as the harness drives it once (3 threads: long
                         * single rows split), its selection with each count. */
                        if (tk_run_module(&c, 3)) return 1;
                        for (int t = 1; t <= 3; t++) {
                            pb_topk_ws ws;
                            ASSERT(pb_topk_ws_init(&ws, &p, t, &err) == 0);
                            pb_topk_select(&p, &ws, v, ix);
                            pb_topk_ws_free(&ws);
                            memcpy(tw, p.twin_idx, outs * 4);
                            for (uint64_t r = 0; r < p.rows; r++) {
                                uint64_t o = p.out_off[r], m = p.out_off[r + 1] - o;
                                pb_topk_sort_u32(ix + o, tmp, (size_t)m);
                                pb_topk_sort_u32(tw + o, tmp, (size_t)m);
                                ASSERT(memcmp(ix + o, tw + o, m * 4) == 0);
                            }
                            runs++;
                        }
                        free(v), free(ix), free(tw), free(tmp);
                        pb_topk_problem_free(&p);
                    }
                }
    printf("%d cpu-topk lowest-index runs\n", runs);
    return 0;
}

/* The check with ties = lowest-index rejects an answer that returns a tied
 * key of a larger index while a smaller one is left out (which `any`
 * accepts), accepts the right set in any order, and still catches what
 * `any` catches. */
TEST_IMPL(topk_ties_check)
{
    for (int ties = 0; ties < 2; ties++) {
        /* few:2: about half of each row is the larger value, so the 32 best
         * all tie. */
        tk_cfg c = {1000, 32, 5, 1, 1, 1, tk_dist_index("few:2"), PB_TOPK_F32, 41, ties};
        pb_topk_problem p;
        pb_err err;
        ASSERT(tk_init(&p, &c) == 0);
        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
        uint64_t o = p.out_off[2], m = p.out_off[3] - o, len = pb_topk_row_len(&p, 2);
        const uint32_t *row = p.data + p.begin[2];
        uint32_t kth = pb_topk_problem_okey(&p, p.twin_vals[o + m - 1]);
        ASSERT(pb_topk_problem_okey(&p, p.twin_vals[o]) == kth); /* all tie */
        /* The twin's largest index (its last, in rank order), and the next
         * tied index after it: left out by the twin. */
        uint32_t last = p.twin_idx[o + m - 1], next = last + 1;
        while (next < len && pb_topk_problem_okey(&p, row[next]) != kth) next++;
        ASSERT(next < len);
        uint32_t *v, *ix;

        /* The right set, reversed: fine either way. */
        tk_twin_copy(&p, &v, &ix);
        for (uint64_t j = 0; j < m / 2; j++) {
            uint32_t t = v[o + j], u = ix[o + j];
            v[o + j] = v[o + m - 1 - j], ix[o + j] = ix[o + m - 1 - j];
            v[o + m - 1 - j] = t, ix[o + m - 1 - j] = u;
        }
        ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
        free(v), free(ix);

        /* The twin's first tie (index `first`) swapped for `next`: the same
         * keys, a larger index returned, a smaller one left out. */
        for (int at = 0; at < 2; at++) {
            uint64_t j = at ? m - 1 : 0;
            tk_twin_copy(&p, &v, &ix);
            uint32_t dropped = ix[o + j];
            ix[o + j] = next, v[o + j] = row[next];
            int rc = pb_topk_check(&p, v, ix, &err);
            if (ties == PB_TOPK_TIES_ANY) {
                ASSERT(rc == 0);
            } else {
                ASSERT(rc != 0);
                char want[160];
                snprintf(want, sizeof want,
                         "row 2: ties = lowest-index, but result %llu is index %u, a key equal "
                         "to the k-th, while index %u, smaller with the same key, is left out",
                         (unsigned long long)j, next, dropped);
                ASSERT_CONTAINS(err.msg, want);
            }
            free(v), free(ix);
        }

        /* A wrong key is still a wrong key. */
        tk_twin_copy(&p, &v, &ix);
        uint32_t low = 0;
        while (pb_topk_problem_okey(&p, row[low]) == kth) low++;
        ix[o + 3] = low, v[o + 3] = row[low];
        ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
        ASSERT_CONTAINS(err.msg, "row 2: not the largest 32 values");
        free(v), free(ix);
        pb_topk_problem_free(&p);
    }
    return 0;
}

/* sorted = yes: omp-topk's rows come back in rank order,
 * equal keys by increasing index (its verify checks the order), at awkward
 * n and k, with heavy ties and none, both tie policies, both directions,
 * single rows (split over 3 threads from 2^15 values) and ragged,
 * misaligned batches; and the check rejects the right answer out of order
 * (reversed, or two equal keys swapped) with sorted = yes, and only then. */
TEST_IMPL(topk_sorted)
{
    const uint64_t sizes[] = {1, 2, 3, 1023, 65537};
    const char *dists[] = {"uniform", "few:2", "equal", "nan", "relu"};
    int runs = 0;
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (size_t d = 0; d < sizeof dists / sizeof dists[0]; d++)
            for (int ties = 0; ties < 2; ties++)
                for (int batch = 0; batch < 2; batch++) {
                    uint64_t n = sizes[si];
                    const uint64_t ks[] = {1, 2, n > 1 ? n - 1 : 1, n, 17};
                    for (size_t q = 0; q < sizeof ks / sizeof ks[0]; q++) {
                        tk_cfg c = {n,     ks[q], batch ? 5 : 1, batch, batch, (int)(q & 1), tk_dist_index(dists[d]),
                                    PB_TOPK_F32, 900 + si, ties};
                        if (tk_run_module_sorted(&c, 3, 1)) return 1;
                        runs++;
                        /* fp64 and u64 (by k's place) at 2 and 1023 on
                         * uniform, few:2 and nan, and 65537 on uniform. */
                        if ((n == 2 || n == 1023 || (n == 65537 && d == 0)) && d < 4 && d != 2) {
                            c.dtype = q & 2 ? PB_TOPK_U64 : PB_TOPK_F64;
                            if (tk_run_module_sorted(&c, 3, 1)) return 1;
                            runs++;
                        }
                    }
                }
    printf("%d cpu-topk sorted runs\n", runs);

    for (int sorted = 0; sorted < 2; sorted++) {
        /* few:2: the 32 best of each row all tie. */
        tk_cfg c = {1000, 32, 5, 1, 1, 1, tk_dist_index("few:2"), PB_TOPK_F32, 43, PB_TOPK_TIES_LOWEST};
        pb_topk_problem p;
        pb_err err;
        ASSERT(tk_init_sorted(&p, &c, sorted) == 0);
        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
        uint64_t o = p.out_off[2], m = p.out_off[3] - o;
        uint32_t *v, *ix;
        /* The twin's answer is in rank order. */
        tk_twin_copy(&p, &v, &ix);
        ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
        free(v), free(ix);
        /* Row 2 reversed; then only its first two results swapped. */
        for (int swap_two = 0; swap_two < 2; swap_two++) {
            tk_twin_copy(&p, &v, &ix);
            for (uint64_t j = 0; j < (swap_two ? 1 : m / 2); j++) {
                uint64_t a = o + j, b = swap_two ? o + 1 : o + m - 1 - j;
                uint32_t t = v[a], u = ix[a];
                v[a] = v[b], ix[a] = ix[b];
                v[b] = t, ix[b] = u;
            }
            int rc = pb_topk_check(&p, v, ix, &err);
            if (sorted) {
                ASSERT(rc != 0);
                ASSERT_CONTAINS(err.msg, "row 2: sorted = yes, but result 1");
            } else {
                ASSERT(rc == 0);
            }
            free(v), free(ix);
        }
        pb_topk_problem_free(&p);
    }
    return 0;
}

TEST_IMPL(topk_ties_zeros_nans_64)
{
    const uint64_t f64_pool[] = {
        0x8000000000000000u, 0, 0x7ff8000000000000u, 0xfff8000000000000u, 0x7ff0000000000001u,
        0xfff8deadbeef0001u, 1, 0x8000000000000001u, 0x7ff0000000000000u, 0xfff0000000000000u,
        tk_dbits(1.0)};
    const uint64_t u64_pool[] = {0,
                                 1,
                                 0xffffffffu,
                                 0x100000000u,
                                 0x100000001u,
                                 0xffffffff00000000u,
                                 0xfffffffffffffffeu,
                                 UINT64_MAX,
                                 0x8000000000000000u};
    for (int dtype = PB_TOPK_F64; dtype <= PB_TOPK_U64; dtype++)
        for (int largest = 0; largest < 2; largest++) {
            const uint64_t *pool = dtype == PB_TOPK_F64 ? f64_pool : u64_pool;
            size_t npool = dtype == PB_TOPK_F64 ? sizeof f64_pool / 8 : sizeof u64_pool / 8;
            if (pool_row_lowest(dtype, largest, pool, npool)) return 1;
        }
    return 0;
}

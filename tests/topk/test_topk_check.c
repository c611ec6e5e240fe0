/* The family check every top-k module is verified by: it catches a wrong
 * value, a value not among the best, a duplicated index, an index outside
 * the row and a wrong k, naming the row, for 32- and 64-bit keys alike. */
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

/* ---- the check ---- */

TEST_IMPL(topk_check_catches)
{
    tk_cfg c = {1000, 32, 5, 1, 1, 1, PB_TOPK_UNIFORM, PB_TOPK_F32, 31, 0};
    pb_topk_problem p;
    pb_err err;
    ASSERT(tk_init(&p, &c) == 0);
    ASSERT(pb_topk_twin_answer(&p, &err) == 0);
    uint64_t o = p.out_off[2], len = pb_topk_row_len(&p, 2);
    uint32_t *v, *ix;

    /* Unchanged, and in another order within a row: fine. */
    tk_twin_copy(&p, &v, &ix);
    uint32_t t = v[o], u = ix[o];
    v[o] = v[o + 5], ix[o] = ix[o + 5];
    v[o + 5] = t, ix[o + 5] = u;
    ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
    free(v), free(ix);

    /* A wrong value at a right index. */
    tk_twin_copy(&p, &v, &ix);
    v[o + 3] ^= 1;
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: result 3 is");
    ASSERT_CONTAINS(err.msg, "but the row's value at its index");
    free(v), free(ix);

    /* A consistent (index, value) that is not among the best: the row's
     * worst value. */
    tk_twin_copy(&p, &v, &ix);
    uint32_t worst = 0;
    for (uint32_t i = 1; i < len; i++)
        if (pb_topk_problem_okey(&p, p.data[p.begin[2] + i]) <
            pb_topk_problem_okey(&p, p.data[p.begin[2] + worst]))
            worst = i;
    ix[o + 7] = worst;
    v[o + 7] = p.data[p.begin[2] + worst];
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: not the largest 32 values");
    free(v), free(ix);

    /* A duplicated index. */
    tk_twin_copy(&p, &v, &ix);
    ix[o + 1] = ix[o], v[o + 1] = v[o];
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: index");
    ASSERT_CONTAINS(err.msg, "returned twice (again as result 1)");
    free(v), free(ix);

    /* An index outside the row (into the padding or the next row). */
    tk_twin_copy(&p, &v, &ix);
    ix[o + 4] = (uint32_t)len;
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 2: result 4 has index");
    ASSERT_CONTAINS(err.msg, "outside the row");
    free(v), free(ix);

    /* A module that selected k - 1 or k + 1 per row (in its own compact
     * layout): the rows no longer line up. */
    for (int dk = -1; dk <= 1; dk += 2) {
        tk_cfg c2 = c;
        c2.k = (uint64_t)((int64_t)c.k + dk);
        pb_topk_problem q;
        ASSERT(tk_init(&q, &c2) == 0);
        ASSERT(pb_topk_twin_answer(&q, &err) == 0);
        uint64_t cells = p.out_total > q.out_total ? p.out_total : q.out_total;
        v = calloc(cells, 4), ix = calloc(cells, 4);
        memcpy(v, q.twin_vals, q.out_total * 4);
        memcpy(ix, q.twin_idx, q.out_total * 4);
        ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
        /* k - 1: row 0 lacks its 32nd; k + 1: row 0's are right (its 32
         * best come first, in rank order), row 1 starts one late. */
        ASSERT_CONTAINS(err.msg, dk < 0 ? "row 0:" : "row 1:");
        free(v), free(ix);
        pb_topk_problem_free(&q);
    }
    pb_topk_problem_free(&p);

    /* Smallest: the message says so. */
    c.largest = 0;
    ASSERT(tk_init(&p, &c) == 0);
    ASSERT(pb_topk_twin_answer(&p, &err) == 0);
    tk_twin_copy(&p, &v, &ix);
    uint32_t best = 0;
    for (uint32_t i = 1; i < pb_topk_row_len(&p, 0); i++)
        if (pb_topk_problem_okey(&p, p.data[p.begin[0] + i]) <
            pb_topk_problem_okey(&p, p.data[p.begin[0] + best]))
            best = i;
    ix[0] = best, v[0] = p.data[p.begin[0] + best];
    ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
    ASSERT_CONTAINS(err.msg, "row 0: not the smallest 32 values");
    free(v), free(ix);
    pb_topk_problem_free(&p);
    return 0;
}

TEST_IMPL(topk_check_catches_64)
{
    pb_err err;
    for (int dtype = PB_TOPK_F64; dtype <= PB_TOPK_U64; dtype++)
        for (int largest = 0; largest < 2; largest++) {
            tk_cfg c = {1000, 32, 5, 1, 1, largest, PB_TOPK_UNIFORM, dtype, 51, 0};
            pb_topk_problem p;
            ASSERT(tk_init(&p, &c) == 0);
            ASSERT(pb_topk_twin_answer(&p, &err) == 0);
            uint64_t o = p.out_off[2], len = pb_topk_row_len(&p, 2), outs = p.out_total;
            uint64_t *v = malloc(outs * 8);
            uint32_t *ix = malloc(outs * 4);
            memcpy(ix, p.twin_idx, outs * 4);
            memcpy(v, p.twin_vals64, outs * 8);
            /* Another order within a row: fine. */
            uint64_t t = v[o];
            uint32_t u = ix[o];
            v[o] = v[o + 5], ix[o] = ix[o + 5];
            v[o + 5] = t, ix[o + 5] = u;
            ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
            /* The lowest bit of a value. */
            v[o + 3] ^= 1;
            ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
            ASSERT_CONTAINS(err.msg, "row 2: result 3 is");
            if (dtype == PB_TOPK_F64) ASSERT_CONTAINS(err.msg, "(0x3f");
            v[o + 3] ^= 1;
            /* The row's worst value at its index. */
            uint32_t worst = 0;
            for (uint32_t i = 1; i < len; i++)
                if (pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[2] + i)) <
                    pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[2] + worst)))
                    worst = i;
            t = v[o + 7], u = ix[o + 7];
            ix[o + 7] = worst, v[o + 7] = pb_topk_value_at(&p, p.begin[2] + worst);
            ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
            ASSERT_CONTAINS(err.msg, largest ? "row 2: not the largest 32 values"
                                             : "row 2: not the smallest 32 values");
            v[o + 7] = t, ix[o + 7] = u;
            ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
            free(v), free(ix);
            pb_topk_problem_free(&p);
        }

    /* ties = lowest-index on few:2 (the 32 best of a row all tie). */
    for (int dtype = PB_TOPK_F64; dtype <= PB_TOPK_U64; dtype++) {
        tk_cfg c = {1000, 32, 5, 1, 1, 1, tk_dist_index("few:2"), dtype, 53, PB_TOPK_TIES_LOWEST};
        pb_topk_problem p;
        ASSERT(tk_init(&p, &c) == 0);
        ASSERT(pb_topk_twin_answer(&p, &err) == 0);
        uint64_t o = p.out_off[2], m = p.out_off[3] - o, len = pb_topk_row_len(&p, 2);
        uint64_t kth = pb_topk_problem_okey64(&p, p.twin_vals64[o + m - 1]);
        ASSERT(pb_topk_problem_okey64(&p, p.twin_vals64[o]) == kth);
        uint32_t next = p.twin_idx[o + m - 1] + 1;
        while (next < len &&
               pb_topk_problem_okey64(&p, pb_topk_value_at(&p, p.begin[2] + next)) != kth)
            next++;
        ASSERT(next < len);
        uint64_t *v = malloc(p.out_total * 8);
        uint32_t *ix = malloc(p.out_total * 4);
        memcpy(v, p.twin_vals64, p.out_total * 8);
        memcpy(ix, p.twin_idx, p.out_total * 4);
        ix[o] = next, v[o] = pb_topk_value_at(&p, p.begin[2] + next);
        ASSERT(pb_topk_check(&p, v, ix, &err) != 0);
        ASSERT_CONTAINS(err.msg, "row 2: ties = lowest-index, but result 0 is index");
        p.ties = PB_TOPK_TIES_ANY;
        ASSERT(pb_topk_check(&p, v, ix, &err) == 0);
        free(v), free(ix);
        pb_topk_problem_free(&p);
    }

    /* The NaN policy on fp64. */
    tk_cfg c = {10007, 1, 1, 0, 0, 1, PB_TOPK_NAN, PB_TOPK_F64, 21, 0};
    pb_topk_problem p;
    ASSERT(tk_init(&p, &c) == 0);
    uint64_t nans = 0;
    for (uint64_t i = 0; i < p.total; i++) nans += isnan(tk_as_f64(p.data64[i])) != 0;
    pb_topk_problem_free(&p);
    ASSERT(nans > 100);
    for (int largest = 0; largest < 2; largest++)
        for (uint64_t extra = 0; extra < 2; extra++) {
            c.largest = largest;
            c.k = (largest ? nans + 1 : 10007 - nans) + extra;
            ASSERT(tk_init(&p, &c) == 0);
            ASSERT(pb_topk_twin_answer(&p, &err) == 0);
            uint64_t got_nan = 0, got_pinf = 0;
            uint64_t *v = malloc(p.out_total * 8);
            for (uint64_t j = 0; j < p.out_total; j++) {
                double d = tk_as_f64(p.twin_vals64[j]);
                got_nan += isnan(d) != 0;
                got_pinf += d == INFINITY;
                /* Any NaN bit pattern is as good as the input's. */
                v[j] = isnan(d) ? UINT64_C(0xfff0000000000001) : p.twin_vals64[j];
            }
            if (largest) {
                ASSERT_EQ_U64(got_nan, nans);
                ASSERT_EQ_U64(got_pinf, 1 + extra);
                ASSERT(isnan(tk_as_f64(p.twin_vals64[0]))); /* rank order: NaNs first */
            } else {
                ASSERT_EQ_U64(got_nan, extra);
            }
            ASSERT(pb_topk_check(&p, v, p.twin_idx, &err) == 0);
            free(v);
            pb_topk_problem_free(&p);
        }
    return 0;
}

/* fp64 -0.0, +0.0, NaNs of every sign and payload, the subnormals nearest
 * zero, +-inf and 1.0 in one row: NaNs tie with each other, -0.0 does not
 * tie with +0.0. And u64 values that differ only in their low 32 bits, or
 * only in their high ones. The twin is the brute force's lowest-index
 * answer at every k, largest and smallest. */

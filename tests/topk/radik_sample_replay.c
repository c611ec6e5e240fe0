/* pb_radik_sample_replay: gpu-radik's sampled filter threshold, replayed on
 * the host for a single row of the family's own input, so that a time that
 * moves with the seed can be checked against what the threshold keeps.
 *
 *   pb_radik_sample_replay N K DTYPE DIST SEED...
 *
 * For each seed (the point's seed: a config's `seed` or one of its
 * `seed_values`) it builds the row exactly as the top-k family does, reads
 * the keys the start kernel reads (pb_radik_sample_pos, the same salt as
 * radik.cu), and follows radik_start.cuh and pb_radik_refine: the small
 * sample's threshold (rank pb_radik_filter_rank of PB_RADIK_SAMPLE keys),
 * whether it is selective or shared by many sample keys (a strict filter),
 * and, for a row of PB_RADIK_REFINE_MIN keys or more, the refined threshold
 * from PB_RADIK_REFINE_SAMPLE keys, and for fp16 / bf16 radik's default
 * `tie_level` (up: a refined threshold that sample keys share as a level
 * filters strictly, moved up to the next sample key above it where enough
 * lie above it). It prints one line a seed: each threshold and how many
 * keys of the row it keeps (counted over the whole row: the candidates
 * the filter pass would write; a strict one keeps the keys above it and
 * at most K of those equal). 32- and
 * 16-bit keys, largest, ties = any, one row; default tuning (sm_90's, which
 * sm_80's equals). Exits 1 if a threshold would keep fewer than K keys (the
 * filter's own fallback case, which the sample makes unlikely), 2 on bad
 * arguments. A diagnostic, not a twin: the kernel's threshold is not
 * visible from outside, so nothing compares the two. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/topk/radik/radik_digit.h"
#include "config/params.h"
#include "families/topk/topk_problem.h"
#include "registry/registry.h"

static int by_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* Keys of the row at or above t (order keys), and (eq) equal to it. */
static uint64_t at_or_above_eq(const pb_topk_problem *p, uint64_t n, uint32_t t, uint64_t *eq)
{
    uint64_t c = 0, e = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t o = pb_topk_problem_okey(p, (uint32_t)pb_topk_value_at(p, i));
        c += o >= t, e += o == t;
    }
    if (eq) *eq = e;
    return c;
}
static uint64_t at_or_above(const pb_topk_problem *p, uint64_t n, uint32_t t)
{
    return at_or_above_eq(p, n, t, NULL);
}

/* pb_radik_refine's tie_level = up (radik_sample.cuh) on the listed keys
 * list[0, m) (descending) whose key of rank j is t: prints the threshold
 * it filters with and what that keeps, if the level rule acts. Returns 1 if
 * it would keep fewer than take keys, else 0. */
static int tie_level_up(const pb_topk_problem *p, uint64_t n, const uint32_t *list, uint32_t m,
                        uint32_t j, uint32_t t, uint32_t tied, uint32_t take)
{
    enum { BIG = PB_RADIK_REFINE_SAMPLE };
    const uint32_t len = (uint32_t)n;
    if (!pb_radik_level_tied(tied, BIG, len, take)) return 0;
    uint32_t above = 0;
    while (above < m && list[above] > t) above++;
    uint32_t thr = t;
    int strict = 1;
    if (pb_radik_level_may_rise(above, j)) {
        thr = list[above - 1]; /* the smallest listed key above t */
        uint32_t tied_up = 0;
        for (uint32_t i = 0; i < m; i++) tied_up += list[i] == thr;
        strict = pb_radik_level_tied(tied_up, BIG, len, take);
    }
    uint64_t eq;
    const uint64_t ge = at_or_above_eq(p, n, thr, &eq), gt = ge - eq;
    const uint64_t kept = strict ? gt + (eq < take ? eq : take) : ge;
    printf("; tie level (up): threshold %08x%s keeps %" PRIu64, thr, strict ? " strictly" : "", kept);
    return ge < take;
}

static int replay(const pb_module *m, uint64_t n, uint64_t k, const char *dtype, const char *dist,
                  uint64_t seed)
{
    pb_params params;
    pb_err err;
    pb_params_defaults(m, &params);
    params.v[PB_TOPK_P_K] = (long long)k;
    if (pb_params_set(m, &params, "dtype", dtype, &err) || pb_params_set(m, &params, "dist", dist, &err)) {
        fprintf(stderr, "pb_radik_sample_replay: %s\n", err.msg);
        return 2;
    }
    pb_point pt = {n, 4, seed, &params, 0};
    pb_topk_problem p;
    if (pb_topk_problem_init(&p, &pt, &err)) {
        fprintf(stderr, "pb_radik_sample_replay: %s\n", err.msg);
        return 2;
    }
    if (pb_topk_word_bytes(p.dtype) > 4) {
        pb_topk_problem_free(&p);
        fprintf(stderr, "pb_radik_sample_replay: 64-bit keys take no refined sample; 16- and 32-bit only\n");
        return 2;
    }
    const uint32_t len = (uint32_t)n, take = (uint32_t)(k < n ? k : n);
    const uint32_t salt = (uint32_t)(seed ^ (seed >> 32));
    enum { S = PB_RADIK_SAMPLE, BIG = PB_RADIK_REFINE_SAMPLE };
    static uint32_t small[S], big[BIG], list[BIG];
    for (uint32_t s = 0; s < BIG; s++) {
        big[s] = pb_topk_problem_okey(&p, (uint32_t)pb_topk_value_at(&p, pb_radik_sample_pos(s, 0, salt, len)));
        if (s < S) small[s] = big[s];
    }
    qsort(small, S, sizeof small[0], by_desc);
    const uint32_t j = pb_radik_filter_rank(S, take, len);
    int status = 0;
    printf("seed %" PRIu64 " salt %08x:", seed, salt);
    if (!pb_radik_filterable(n, take, 0) || j >= S) {
        printf(" no filter (the row or k is not selective)\n");
        pb_topk_problem_free(&p);
        return 0;
    }
    const uint32_t thr = small[j];
    uint32_t kept = 0, tied = 0;
    for (uint32_t i = 0; i < S; i++) kept += small[i] >= thr, tied += small[i] == thr;
    const int selective = kept * PB_RADIK_FILTER_KEEP <= S;
    const int strict = !selective || tied * PB_RADIK_TIE_STRICT > S;
    const uint64_t keep = at_or_above(&p, n, thr);
    printf(" sample %u: threshold %08x (rank %u, %u sample keys equal) keeps %" PRIu64 "%s", S, thr, j, tied,
           keep, strict ? " (strict filter)" : "");
    if (keep < take) status = 1;
    if (!strict && n >= PB_RADIK_REFINE_MIN) {
        uint32_t m2 = 0;
        for (uint32_t s = 0; s < BIG; s++)
            if (big[s] >= thr) list[m2++] = big[s];
        qsort(list, m2, sizeof list[0], by_desc);
        const uint32_t j2 = pb_radik_filter_rank(BIG, take, len);
        if (m2 > PB_RADIK_REFINE_LIST || j2 >= m2) {
            printf("; refine keeps it (%u keys listed)", m2);
        } else {
            const uint32_t t2 = list[j2];
            uint32_t tied2 = 0;
            for (uint32_t i = 0; i < m2; i++) tied2 += list[i] == t2;
            if ((uint64_t)tied2 * PB_RADIK_TIE_STRICT > BIG) {
                printf("; refine keeps it (its threshold shared by %u keys)", tied2);
            } else {
                const uint64_t keep2 = at_or_above(&p, n, t2);
                printf("; refined %u: threshold %08x (rank %u, %u listed, %u equal) keeps %" PRIu64, BIG, t2, j2,
                       m2, tied2, keep2);
                if (keep2 < take) status = 1;
                if (pb_topk_dtype_is16(p.dtype) && tie_level_up(&p, n, list, m2, j2, t2, tied2, take))
                    status = 1;
            }
        }
    }
    printf("\n");
    pb_topk_problem_free(&p);
    return status;
}

/* A whole unsigned decimal or 0x number, or -1 with one line. */
static int parse_u64(const char *what, const char *text, uint64_t *v)
{
    char *end;
    errno = 0;
    *v = strtoull(text, &end, 0);
    if (errno || end == text || *end || text[0] == '-') {
        fprintf(stderr, "pb_radik_sample_replay: %s '%s' is not a whole number\n", what, text);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: pb_radik_sample_replay N K DTYPE DIST SEED...\n");
        return 2;
    }
    uint64_t n, k, seed;
    if (parse_u64("N", argv[1], &n) || parse_u64("K", argv[2], &k)) return 2;
    if (n < 2 || n > UINT32_MAX || k < 1) {
        fprintf(stderr, "pb_radik_sample_replay: N from 2 to 2^32 - 1, K at least 1\n");
        return 2;
    }
    for (int i = 5; i < argc; i++)
        if (parse_u64("SEED", argv[i], &seed)) return 2;
    const pb_module *m = pb_module_find("cpu-topk");
    int status = 0;
    for (int i = 5; i < argc; i++) {
        parse_u64("SEED", argv[i], &seed);
        int rc = replay(m, n, k, argv[3], argv[4], seed);
        if (rc == 2) return 2;
        if (rc) status = 1;
    }
    return status;
}

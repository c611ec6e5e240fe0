/* RadiK's decision logic on the host (radik_digit.h, shared with the
 * kernels), so a wrong interval or select step fails in CI, not first on a
 * GPU:
 *  - the scaled digit is monotone in the key, and every bin's interval is
 *    exactly the keys with that digit (bin edges checked on both sides);
 *  - a host model of radik's passes (the kernels' classification: output
 *    above the interval, keep inside, histogram the next digit, ties at the
 *    end) returns the twin's values for every distribution, k and scaling
 *    mode, at most three passes after the count. */
#include <stdlib.h>

#include "algorithms/topk/radik_digit.h"
#include "algorithms/topk/topk_problem.h"
#include "harness/params.h"
#include "harness/registry.h"
#include "tests/test.h"

static uint64_t rd_state = 0x9e3779b97f4a7c15u;
static uint32_t rd_next(void)
{
    rd_state ^= rd_state << 13;
    rd_state ^= rd_state >> 7;
    rd_state ^= rd_state << 17;
    return (uint32_t)(rd_state >> 16);
}

/* Keys near interesting places: 0, the top, the reference, and anywhere. */
static uint32_t rd_key(uint32_t ref)
{
    switch (rd_next() % 4) {
    case 0: return rd_next() % 1024;
    case 1: return UINT32_MAX - rd_next() % 1024;
    case 2: return ref + (rd_next() % 4096) - 2048;
    default: return rd_next();
    }
}

TEST_IMPL(radik_scaled_digit)
{
    static const uint32_t refs[] = {0, 1, 255, 256, 0x7fffffffu, 0x80000000u, 0xbf800000u,
                                    UINT32_MAX - 1, UINT32_MAX};
    for (size_t ri = 0; ri < sizeof refs / sizeof refs[0] + 20; ri++) {
        uint32_t ref = ri < sizeof refs / sizeof refs[0] ? refs[ri] : rd_next();
        /* Every bin's interval: its ends have the bin, their outer
         * neighbours do not. */
        for (uint32_t bin = 0; bin < PB_RADIK_BINS; bin++) {
            uint32_t lo, hi;
            if (!pb_radik_scaled_interval(bin, ref, &lo, &hi)) continue;
            ASSERT(lo <= hi);
            ASSERT(hi - lo < (UINT32_C(1) << 24) + 1);
            ASSERT_EQ_U64(pb_radik_scaled_digit(lo, ref), bin);
            ASSERT_EQ_U64(pb_radik_scaled_digit(hi, ref), bin);
            if (lo > 0) ASSERT(pb_radik_scaled_digit(lo - 1, ref) < bin);
            if (hi < UINT32_MAX) ASSERT(pb_radik_scaled_digit(hi + 1, ref) > bin);
        }
        /* Monotone, and every key lies in its bin's interval. */
        for (int i = 0; i < 20000; i++) {
            uint32_t a = rd_key(ref), b = rd_key(ref);
            if (a > b) {
                uint32_t t = a;
                a = b;
                b = t;
            }
            uint32_t da = pb_radik_scaled_digit(a, ref), db = pb_radik_scaled_digit(b, ref);
            ASSERT(da <= db);
            ASSERT(da < PB_RADIK_BINS);
            uint32_t lo, hi;
            ASSERT(pb_radik_scaled_interval(da, ref, &lo, &hi));
            ASSERT(lo <= a && a <= hi);
        }
        /* The reference itself is alone in its bin. */
        uint32_t lo, hi;
        ASSERT(pb_radik_scaled_interval(pb_radik_scaled_digit(ref, ref), ref, &lo, &hi));
        ASSERT(lo == ref && hi == ref);
    }
    return 0;
}

/* The kernels' passes on one row of order keys, sequentially. Returns the
 * number of passes after the first (count) pass that still had work. */
static int rd_model(const uint32_t *keys, uint32_t len, uint64_t k, int scaled, uint32_t ref,
                    uint32_t *out_keys, uint32_t *nout_total)
{
    static uint32_t hist[PB_RADIK_BINS];
    uint32_t *cand = malloc((len ? len : 1) * sizeof *cand);
    uint32_t *next = malloc((len ? len : 1) * sizeof *next);
    pb_radik_row r;
    pb_radik_row_init(&r, len, k, scaled, ref);
    uint32_t nout = 0, ties = 0, ncand = 0;
    int busy = 0;
    for (int pass = 0; pass < 4; pass++) {
        bool input = pass < 2;
        const uint32_t *src = input ? keys : cand;
        uint32_t n = input ? len : r.len_in;
        uint32_t mode = r.mode, wr = 0;
        if (mode == PB_RADIK_DONE) break;
        if (pass > 0) busy++;
        memset(hist, 0, sizeof hist);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t key = src[i];
            switch (mode) {
            case PB_RADIK_COUNT: hist[pb_radik_digit(&r, key)]++; break;
            case PB_RADIK_SPLIT:
                if (key > r.hi) out_keys[nout++] = key;
                else if (key >= r.lo) {
                    next[wr++] = key;
                    hist[pb_radik_digit(&r, key)]++;
                }
                break;
            case PB_RADIK_TAKE:
                if (key >= r.lo) out_keys[nout++] = key;
                break;
            case PB_RADIK_FINAL:
                if (key > r.hi) out_keys[nout++] = key;
                else if (key == r.lo && ties++ < r.need) out_keys[r.take - r.need + ties - 1] = key;
                break;
            }
        }
        if (mode == PB_RADIK_SPLIT) {
            uint32_t *t = cand;
            cand = next;
            next = t;
            ncand = wr;
        }
        uint32_t bin = 0, above = 0, count = 0;
        if (mode == PB_RADIK_COUNT || mode == PB_RADIK_SPLIT) {
            for (uint32_t b = PB_RADIK_BINS; b-- > 0;) {
                if (above + hist[b] >= r.need) {
                    bin = b;
                    count = hist[b];
                    break;
                }
                above += hist[b];
            }
        }
        pb_radik_row_advance(&r, bin, above, count, ncand);
    }
    free(cand);
    free(next);
    *nout_total = nout + (ties < r.need ? ties : r.need);
    return r.mode == PB_RADIK_DONE ? busy : -1;
}

static int cmp_u32_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

TEST_IMPL(radik_host_model)
{
    static const uint64_t ns[] = {1, 2, 3, 31, 33, 1000, 4097, 100003};
    const pb_module *mod = pb_module_find("omp-topk");
    ASSERT(mod);
    long cases = 0;
    for (size_t ni = 0; ni < sizeof ns / sizeof ns[0]; ni++)
        for (int dist = 0; dist < PB_TOPK_NDIST; dist++)
            for (int largest = 0; largest < 2; largest++) {
                uint64_t n = ns[ni];
                pb_params params;
                pb_params_defaults(mod, &params);
                params.v[PB_TOPK_P_DIST] = dist;
                params.v[PB_TOPK_P_LARGEST] = largest;
                params.v[PB_TOPK_P_K] = 1;
                pb_point pt = {n, 4, 1234 + n, &params, 0};
                pb_topk_problem p;
                pb_err err;
                ASSERT(pb_topk_problem_init(&p, &pt, &err) == 0);
                uint32_t *keys = malloc(n * sizeof *keys), *sorted = malloc(n * sizeof *sorted);
                uint32_t *out = malloc(n * sizeof *out);
                for (uint64_t i = 0; i < n; i++)
                    keys[i] = pb_topk_problem_okey(&p, p.data[p.begin[0] + i]);
                memcpy(sorted, keys, n * sizeof *keys);
                qsort(sorted, n, sizeof *sorted, cmp_u32_desc);
                uint64_t kl[] = {1, 2, 31, 32, 33, 1000, n / 2, n - 1, n, n + 1};
                for (size_t ki = 0; ki < sizeof kl / sizeof kl[0]; ki++)
                    for (int sc = 0; sc < 3; sc++) {
                        uint64_t k = kl[ki];
                        if (k < 1) continue;
                        uint32_t take = k < n ? (uint32_t)k : (uint32_t)n;
                        /* off; a pseudo-random element; the true pivot */
                        uint32_t ref = sc == 1 ? keys[(rd_next() % n)] : sorted[take - 1];
                        uint32_t got = 0;
                        int passes = rd_model(keys, (uint32_t)n, k, sc != 0 && take < n, ref,
                                              out, &got);
                        if (passes < 0 || passes > 3 || got != take) {
                            fprintf(stderr, "n=%llu dist=%d k=%llu scale=%d: passes %d, %u of %u\n",
                                    (unsigned long long)n, dist, (unsigned long long)k, sc,
                                    passes, got, take);
                            return 1;
                        }
                        qsort(out, take, sizeof *out, cmp_u32_desc);
                        for (uint32_t i = 0; i < take; i++)
                            if (out[i] != sorted[i]) {
                                fprintf(stderr,
                                        "n=%llu dist=%d k=%llu scale=%d: rank %u is %08x, "
                                        "expected %08x\n",
                                        (unsigned long long)n, dist, (unsigned long long)k, sc, i,
                                        out[i], sorted[i]);
                                return 1;
                            }
                        cases++;
                    }
                free(keys);
                free(sorted);
                free(out);
                pb_topk_problem_free(&p);
            }
    printf("%ld model runs\n", cases);
    return 0;
}

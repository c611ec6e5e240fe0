/* Binned positions (stats/position_bins.h): a hand-computed answer, the
 * null mean against exhaustive enumeration, calibration with fisher-yates
 * (rejections at alpha inside the binomial interval, p-values uniform by
 * KS) and power against a buffer shuffle of a tenth of n at n = 10^5,
 * where the positional TVD cannot run. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/inversions.h"
#include "stats/position_bins.h"
#include "tests/support/binomial.h"
#include "tests/support/ks.h"
#include "tests/support/perm_files.h"
#include "tests/test.h"

#define ALPHA 0.01
#define CONFIDENCE 0.999

/* n = 4 (b = 4, each bin one position), the identity once: the counts are
 * the identity matrix, each cell expects 1/4, so Pearson's sum is
 * 4 (1 - 1/4)^2 / (1/4) + 12 (1/4)^2 / (1/4) = 9 + 3 = 12, scaled by
 * (n-1)/n = 3/4: 9 = (b-1)^2, the largest one permutation gives. */
TEST_IMPL(position_bins_known_answer)
{
    uint32_t id[4] = {0, 1, 2, 3}, bad[4] = {0, 1, 1, 3};
    pb_err err;
    pb_position_bins t;
    ASSERT(pb_position_bins_init(&t, 4, &err) == 0);
    ASSERT(t.bins == 4);
    pb_position_bins_add(&t, id, 1);
    ASSERT(fabs(pb_position_bins_statistic(&t) - 9) < 1e-12);
    pb_position_bins_add(&t, bad, 1);
    pb_test_result r;
    pb_position_bins_result(&t, ALPHA, &r);
    ASSERT(r.invalid == 1 && r.verdict == PB_VERDICT_FAIL);
    pb_position_bins_free(&t);
    /* n = 100 > 32: bins of 3 or 4 positions, each position in exactly one. */
    ASSERT(pb_position_bins_at(100) == 32);
    uint32_t sizes[32] = {0};
    for (uint32_t i = 0; i < 100; i++) sizes[pb_position_bin(i, 32, 100)]++;
    for (int b = 0; b < 32; b++) ASSERT(sizes[b] == 3 || sizes[b] == 4);
    ASSERT(pb_position_bins_init(&t, 1, &err) != 0);
    return 0;
}

/* Under uniform, E[X^2 (n-1)/n] = (b-1)^2 exactly, for one permutation:
 * the mean over all n! permutations of n = 5 (b = 5) and n = 7 (b = 7). */
TEST_IMPL(position_bins_null_exhaustive)
{
    for (uint32_t n = 5; n <= 7; n += 2) {
        uint32_t p[7];
        for (uint32_t i = 0; i < n; i++) p[i] = i;
        double sum = 0;
        uint64_t count = 0;
        /* Heap's algorithm over every permutation. */
        uint32_t c[7] = {0};
        pb_err err;
        for (uint32_t i = 0;;) {
            pb_position_bins t;
            ASSERT(pb_position_bins_init(&t, n, &err) == 0);
            pb_position_bins_add(&t, p, 1);
            sum += pb_position_bins_statistic(&t);
            count++;
            pb_position_bins_free(&t);
            while (i < n && c[i] >= i) c[i++] = 0;
            if (i >= n) break;
            uint32_t k = i % 2 ? c[i] : 0, tmp = p[k];
            p[k] = p[i], p[i] = tmp;
            c[i]++, i = 0;
        }
        double df = (double)(n - 1) * (n - 1);
        printf("n = %u: %llu permutations, mean statistic %.12f, (b-1)^2 = %g\n", n, (unsigned long long)count,
               sum / count, df);
        ASSERT(fabs(sum / count - df) < 1e-9 * df);
    }
    return 0;
}

/* Fisher-Yates at n = 1000 (bins of 31 or 32), 40 samples (about 38 a
 * cell) and at n = 40 (bins of one or two positions), 400 samples. */
static int calibrate(uint32_t n, uint64_t s, unsigned seeds)
{
    unsigned rej = 0, broken = 0;
    double *pv = malloc(seeds * sizeof *pv);
    if (!pv) return 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : rej, broken)
    for (unsigned k = 1; k <= seeds; k++) {
        uint32_t *p = pb_test_draw("cpu-fisher-yates", NULL, true, n, 500 + k, s);
        pb_position_bins t;
        pb_err err;
        if (!p || pb_position_bins_init(&t, n, &err)) {
            broken++;
            free(p);
            continue;
        }
        pb_position_bins_add(&t, p, s);
        pb_test_result r;
        pb_position_bins_result(&t, ALPHA, &r);
        rej += r.reject;
        pv[k - 1] = r.p_value;
        pb_position_bins_free(&t);
        free(p);
    }
    if (broken) return free(pv), 0;
    unsigned lo, hi;
    pb_binomial_interval(seeds, ALPHA, CONFIDENCE, &lo, &hi);
    double d = pb_ks_uniform_d(pv, seeds), ks = pb_ks_p(d, seeds);
    printf("position-bins, n = %u, %llu samples: %u of %u seeds rejected at alpha = %g (calibrated: %u .. %u); "
           "KS D = %.4f, p = %.3g\n",
           n, (unsigned long long)s, rej, seeds, ALPHA, lo, hi, d, ks);
    free(pv);
    return rej >= lo && rej <= hi && ks >= 0.001;
}

TEST_IMPL(position_bins_calibration)
{
    return calibrate(1000, 40, 1000) && calibrate(40, 400, 1000) ? 0 : 1;
}

/* A streaming buffer of n/10 items (tf.data's rule) keeps every item within
 * n/10 - 1 places of earlier: at n = 10^5 with 20 samples the bins see it;
 * a buffer of the whole n is a uniform shuffle and passes. */
TEST_IMPL(position_bins_power)
{
    enum { N = 100000, S = 20 };
    for (int whole = 0; whole <= 1; whole++) {
        char set[64];
        snprintf(set, sizeof set, "buffer=%d", whole ? N : N / 10);
        uint32_t *p = pb_test_draw("cpu-buffer-shuffle", set, true, N, 9, S);
        ASSERT(p);
        pb_position_bins t;
        pb_err err;
        ASSERT(pb_position_bins_init(&t, N, &err) == 0);
        pb_position_bins_add(&t, p, S);
        pb_test_result r;
        pb_position_bins_result(&t, ALPHA, &r);
        printf("cpu-buffer-shuffle %s: statistic %.6g (df %g, threshold %.6g), p = %.3g, %s\n", set, r.statistic, r.expected,
               r.threshold, r.p_value, pb_verdict_name(r.verdict));
        if (whole) ASSERT(r.p_value > 1e-3);
        else ASSERT(r.verdict == PB_VERDICT_FAIL && r.p_value < 1e-9);
        pb_position_bins_free(&t);
        free(p);
    }
    return 0;
}

/* The early bound as a count: under tf.data's buffer of B, no item comes
 * out more than B - 1 places early, so an input bin I never reaches an
 * output bin J whose last position is more than B - 1 before I's first.
 * Those cells must be exactly empty, and the statistic at least their
 * expectations' sum scaled by (n-1)/n (each empty cell adds its whole
 * expectation); at B = 7n/8, n = 10^4, 20 samples that alone exceeds the
 * chi-square threshold (docs/loader-shuffles.md). */
TEST_IMPL(position_bins_buffer_bound)
{
    enum { N = 10000, S = 20, B = 7 * N / 8 };
    char set[32];
    snprintf(set, sizeof set, "buffer=%d", B);
    uint32_t *p = pb_test_draw("cpu-buffer-shuffle", set, true, N, 3, S);
    ASSERT(p);
    pb_position_bins t;
    pb_err err;
    ASSERT(pb_position_bins_init(&t, N, &err) == 0);
    pb_position_bins_add(&t, p, S);
    uint32_t b = t.bins, forbidden = 0;
    double bound = 0;
    for (uint32_t i = 0; i < b; i++)
        for (uint32_t o = 0; o < b; o++) {
            uint64_t first_in = ((uint64_t)i * N + b - 1) / b, end_out = ((uint64_t)(o + 1) * N + b - 1) / b;
            if (end_out + (B - 1) > first_in) continue; /* some item of I may reach J */
            ASSERT(t.counts[(size_t)i * b + o] == 0);
            uint64_t ni = ((uint64_t)(i + 1) * N + b - 1) / b - first_in;
            uint64_t no = end_out - ((uint64_t)o * N + b - 1) / b;
            bound += (double)S * ni * no / N;
            forbidden++;
        }
    pb_test_result r;
    pb_position_bins_result(&t, ALPHA, &r);
    bound *= (N - 1.0) / N;
    printf("B = %d: %u empty cells, their expectations %.1f, statistic %.1f, threshold %.1f\n", B, forbidden, bound,
           r.statistic, r.threshold);
    ASSERT(forbidden == 6);
    ASSERT(r.statistic >= bound);
    ASSERT(bound > r.threshold && r.verdict == PB_VERDICT_FAIL);
    pb_position_bins_free(&t);
    free(p);
    return 0;
}

#include "dmm/dmm_problem.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "dmm/dmm_permute.h"
#include "dmm/dmm_sort.h"

static const char *const pattern_names[] = {"uniform", "onebank", "strided",
                                            "sorted",  "zeroone", "reversed"};

const char *pb_dmm_pattern_name(pb_dmm_pattern p)
{
    return p < PB_DMM_NPATTERNS ? pattern_names[p] : "?";
}

static bool pow2(size_t x) { return x && !(x & (x - 1)); }

/* ---- inputs ------------------------------------------------------------ */

/* Fisher-Yates over v[0..k). */
static void shuffle(uint64_t *v, size_t k, pb_rng *rng)
{
    for (size_t i = k; i > 1; i--) {
        size_t j = (size_t)pb_rng_below64(rng, i);
        uint64_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

void pb_dmm_make_input(pb_dmm_problem prob, pb_dmm_pattern pat, unsigned w, size_t n,
                       uint64_t seed, uint64_t *in)
{
    pb_rng rng;
    pb_rng_init(&rng, seed, 0x646d6dULL);
    const size_t N = (size_t)w * n;
    const bool strided_ok = w % 4 == 0 && n % 4 == 0;
    if (prob == PB_DMM_CONVERT) {
        for (size_t k = 0; k < N; k++) in[k] = k;
        return;
    }
    if (prob == PB_DMM_SORT) {
        for (unsigned r = 0; r < w; r++)
            for (size_t c = 0; c < n; c++) {
                uint64_t k = (uint64_t)r * n + c, v;
                switch (pat) {
                case PB_DMM_ONEBANK: v = c * w + r; break;
                case PB_DMM_STRIDED: v = ((uint64_t)(r * 4u) % w) * n + c; break;
                case PB_DMM_SORTED: v = k; break;
                case PB_DMM_ZEROONE: v = pb_rng_u32(&rng) & 1u; break;
                case PB_DMM_REVERSED: v = N - 1 - k; break;
                default: v = pb_rng_u32(&rng); break;
                }
                in[k] = v;
            }
        return;
    }
    /* Partition labels, or the destination row of a permutation. */
    uint64_t *lab = in;
    switch (pat) {
    case PB_DMM_ONEBANK:
        for (unsigned r = 0; r < w; r++)
            for (size_t c = 0; c < n; c++) lab[(size_t)r * n + c] = (c * w + r) / n;
        break;
    case PB_DMM_STRIDED:
        if (strided_ok) {
            for (unsigned r = 0; r < w; r++)
                for (size_t c = 0; c < n; c++)
                    lab[(size_t)r * n + c] = (r / 4 + c * (w / 4)) % w;
            break;
        }
        /* too small for the pattern: uniform */
        __attribute__((fallthrough));
    default:
        if (pat == PB_DMM_SORTED) {
            for (unsigned r = 0; r < w; r++)
                for (size_t c = 0; c < n; c++) lab[(size_t)r * n + c] = r;
        } else {
            for (size_t k = 0; k < N; k++) lab[k] = k / n;
            shuffle(lab, N, &rng);
        }
        break;
    }
    if (prob == PB_DMM_PARTITION) {
        for (size_t k = 0; k < N; k++) in[k] = lab[k] << 32 | k;
        return;
    }
    /* Permutation: the onebank and sorted patterns are their own
     * destinations; the others go to their label's row, at their rank
     * there in column-major order (uniform: a random permutation). */
    if (pat == PB_DMM_UNIFORM || pat == PB_DMM_ZEROONE || pat == PB_DMM_REVERSED ||
        (pat == PB_DMM_STRIDED && !strided_ok)) {
        for (size_t k = 0; k < N; k++) lab[k] = k;
        shuffle(lab, N, &rng);
        for (size_t k = 0; k < N; k++) in[k] = lab[k] << 32 | k;
        return;
    }
    if (pat == PB_DMM_ONEBANK || pat == PB_DMM_SORTED) {
        for (unsigned r = 0; r < w; r++)
            for (size_t c = 0; c < n; c++) {
                size_t k = (size_t)r * n + c;
                uint64_t dest = pat == PB_DMM_SORTED ? k : c * w + r;
                in[k] = dest << 32 | k;
            }
        return;
    }
    size_t *next = calloc(w, sizeof *next);
    for (size_t c = 0; c < n; c++)
        for (unsigned r = 0; r < w; r++) {
            size_t k = (size_t)r * n + c;
            uint64_t row = lab[k];
            in[k] = (row * n + (next ? next[row]++ : 0)) << 32 | k;
        }
    free(next);
}

/* ---- checks ------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

bool pb_dmm_check(pb_dmm_problem prob, unsigned w, size_t n, const uint64_t *in, pb_dmm *d,
                  size_t base)
{
    const size_t N = (size_t)w * n;
    uint64_t *out = malloc(N * sizeof *out), *ref = malloc(N * sizeof *ref);
    bool ok = out && ref;
    for (unsigned r = 0; ok && r < w; r++)
        for (size_t c = 0; c < n; c++) out[(size_t)r * n + c] = *pb_dmm_word(d, base, r, c);
    if (ok) memcpy(ref, in, N * sizeof *ref);
    switch (prob) {
    case PB_DMM_SORT:
        if (!ok) break;
        qsort(ref, N, sizeof *ref, cmp_u64);
        ok = memcmp(out, ref, N * sizeof *out) == 0;
        break;
    case PB_DMM_PARTITION:
        for (size_t k = 0; ok && k < N; k++) ok = (out[k] >> 32) == k / n;
        if (!ok) break;
        qsort(ref, N, sizeof *ref, cmp_u64);
        qsort(out, N, sizeof *out, cmp_u64);
        ok = memcmp(out, ref, N * sizeof *out) == 0;
        break;
    case PB_DMM_PERMUTE:
        for (size_t k = 0; ok && k < N; k++) ref[in[k] >> 32] = in[k];
        ok = ok && memcmp(out, ref, N * sizeof *out) == 0;
        break;
    case PB_DMM_CONVERT:
        for (unsigned r = 0; ok && r < w; r++)
            for (size_t c = 0; c < n && ok; c++) {
                unsigned r2;
                size_t c2;
                pb_dmm_convert_map(w, n, PB_DMM_R2C, r, c, &r2, &c2);
                ok = out[(size_t)r2 * n + c2] == in[(size_t)r * n + c];
            }
        break;
    }
    free(out);
    free(ref);
    return ok;
}

/* ---- the algorithms ----------------------------------------------------- */

static const char *any(unsigned w, size_t n)
{
    (void)w, (void)n;
    return NULL;
}
static const char *lemma1_ok(unsigned w, size_t n)
{
    return (size_t)w * w <= n ? NULL : "Lemma 1 needs w * w <= m";
}
static const char *thm1_ok(unsigned w, size_t n)
{
    if (w > n) return "Theorem 1 needs w <= m (the paper: w = m)";
    return w >= 2 && n >= 4 ? NULL : "Theorem 1 needs w >= 2 and m >= 4";
}
static const char *thm2_ok(unsigned w, size_t n)
{
    if (w < n) return "Theorem 2 needs w >= m";
    return n >= 4 ? NULL : "Theorem 2 needs m >= 4";
}

static double b_n(unsigned w, size_t n) { return (void)w, (double)n; }
static double b_nlogn(unsigned w, size_t n) { return (void)w, (double)n * log2((double)n); }
static double b_nlog2w(unsigned w, size_t n)
{
    double l = log2((double)w);
    return (double)n * l * l;
}

static const pb_dmm_algo algos[] = {
    {"naive-partition", PB_DMM_PARTITION, false, "2m steps; w-way (or m-way) conflicts", any, b_n},
    {"naive-permute", PB_DMM_PERMUTE, false, "2m steps; conflicts as the pattern makes them", any,
     b_n},
    {"convert-diagonal", PB_DMM_CONVERT, true, "O(m): 2m", any, b_n},
    {"convert-inplace", PB_DMM_CONVERT, true, "O(m) [Catanzaro et al.]: 6m", any, b_n},
    {"lemma1-sort", PB_DMM_SORT, true, "O(m log m) (w <= sqrt m)", lemma1_ok, b_nlogn},
    {"corollary1-partition", PB_DMM_PARTITION, true, "O(m) (w <= sqrt m)", lemma1_ok, b_n},
    {"thm1-sort", PB_DMM_SORT, true, "O(m log m) (paper: w = m)", thm1_ok, b_nlogn},
    {"thm1-partition", PB_DMM_PARTITION, true, "O(m) (paper: w = m)", thm1_ok, b_n},
    {"thm2-sort", PB_DMM_SORT, true, "O(m log w) (w >= m); here O(m log^2 w)", thm2_ok, b_nlog2w},
    {"colors-permute", PB_DMM_PERMUTE, true, "O(m logloglog_m w) expected", any, b_n},
};

size_t pb_dmm_algo_count(void) { return sizeof algos / sizeof algos[0]; }
const pb_dmm_algo *pb_dmm_algo_at(size_t i) { return i < pb_dmm_algo_count() ? &algos[i] : NULL; }
const pb_dmm_algo *pb_dmm_algo_find(const char *name)
{
    for (size_t i = 0; i < pb_dmm_algo_count(); i++)
        if (strcmp(algos[i].name, name) == 0) return &algos[i];
    return NULL;
}

int pb_dmm_run(const pb_dmm_algo *a, unsigned w, size_t n, pb_dmm_pattern pat, uint64_t seed,
               pb_dmm_result *res, pb_err *err)
{
    memset(res, 0, sizeof *res);
    if (!pow2(w) || !pow2(n) || w > 65536 || n > (1u << 20))
        return pb_err_set(err, "%s: w and m must be powers of two (w <= 2^16, m <= 2^20)", a->name);
    const char *why = a->applies(w, n);
    if (why) return pb_err_set(err, "%s at w = %u, m = %zu: %s", a->name, w, n, why);
    const size_t N = (size_t)w * n;
    /* Arrays (line bases): X, T (the pair), counters (w lines), slots,
     * out, one sync line. */
    const size_t X = 0, T = n, CNT = 2 * n, SLOT = 2 * n + w, OUT = 3 * n + w, SYNC = 4 * n + w;
    pb_dmm d;
    uint64_t *in = malloc(N * sizeof *in);
    if (!in || pb_dmm_init(&d, w, SYNC + 1)) {
        free(in);
        return pb_err_set(err, "out of memory for a %u x %zu machine", w, n);
    }
    pb_dmm_make_input(a->problem, pat, w, n, seed, in);
    for (unsigned r = 0; r < w; r++)
        for (size_t c = 0; c < n; c++) *pb_dmm_word(&d, X, r, c) = in[(size_t)r * n + c];

    pb_dmm_order words = {false, 0, 1, 0}, labels = {true, 32, w, CNT};
    const pb_dmm_order *o = a->problem == PB_DMM_PARTITION ? &labels : &words;
    pb_dmm_dest dest = {32, 0xffffffffu, false};
    pb_dmm_pair pr = {X, T};
    bool *asc = calloc(w, sizeof *asc);
    size_t result = X;
    int rc = asc ? 0 : -1;
    const char *name = a->name;
    if (rc) {
    } else if (!strcmp(name, "naive-partition")) {
        pb_dmm_naive_partition(&d, o, X, OUT, n);
        result = OUT;
    } else if (!strcmp(name, "naive-permute")) {
        pb_dmm_naive_permute(&d, &dest, X, OUT, n);
        result = OUT;
    } else if (!strcmp(name, "convert-diagonal")) {
        pb_dmm_convert(&d, &pr, n, w, n, PB_DMM_R2C);
        result = pr.cur;
    } else if (!strcmp(name, "convert-inplace")) {
        rc = pb_dmm_convert_inplace(&d, X, n, w, n, PB_DMM_R2C);
    } else if (!strcmp(name, "lemma1-sort") || !strcmp(name, "corollary1-partition")) {
        pb_dmm_lemma1(&d, o, &pr, n, w, asc);
        result = pr.cur;
    } else if (!strcmp(name, "thm1-sort") || !strcmp(name, "thm1-partition")) {
        pb_dmm_thm1(&d, o, &pr, n, w, asc);
        result = pr.cur;
    } else if (!strcmp(name, "thm2-sort")) {
        pb_dmm_thm2(&d, o, &pr, n);
        result = pr.cur;
    } else if (!strcmp(name, "colors-permute")) {
        pb_dmm_colors cfg = {seed, true, true, SYNC, 64, false};
        res->rounds = pb_dmm_permute_colors(&d, &dest, &pr, SLOT, OUT, n, &cfg);
        result = OUT;
        if (res->rounds == 0) rc = -1;
    } else {
        rc = -1;
    }
    if (rc == 0) {
        res->st = d.st;
        res->correct = pb_dmm_check(a->problem, w, n, in, &d, result);
    } else {
        pb_err_set(err, "%s at w = %u, m = %zu: could not run (out of memory or rounds)", name, w,
                   n);
    }
    free(asc);
    free(in);
    pb_dmm_free(&d);
    return rc;
}

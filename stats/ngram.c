#include "stats/ngram.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/fingerprint.h"
#include "stats/inversions.h"

static long double falling(long double x, unsigned k)
{
    long double r = 1;
    for (unsigned i = 0; i < k; i++) r *= x - i;
    return r > 0 ? r : 0;
}

long double pb_ngram_cells(uint32_t n, unsigned order) { return falling(n, order); }

int pb_ngram_applicable(uint32_t n, unsigned order, uint64_t samples, pb_err *err)
{
    if (order < PB_NGRAM_MIN_ORDER || order > PB_NGRAM_MAX_ORDER)
        return pb_err_set(err, "n-gram order %u is not %d .. %d", order, PB_NGRAM_MIN_ORDER, PB_NGRAM_MAX_ORDER);
    if (n < order + 1)
        return pb_err_set(err, "%u-grams need n >= %u (a permutation of n shows n - %u + 1 windows)", order,
                          order + 1, order);
    if (powl(n, order) >= 0x1p63L)
        return pb_err_set(err, "%u-grams of n = %u do not fit a 63-bit key", order, n);
    if (samples >= UINT32_MAX) return pb_err_set(err, "%u-grams count at most 2^32 - 2 samples", order);
    long double m = (long double)samples * (n - order + 1), k = pb_ngram_cells(n, order);
    if ((m < k ? m : k) > PB_NGRAM_MAX_CELLS)
        return pb_err_set(err,
                          "%u-grams at n = %u with %llu samples may see %.3Lg distinct tuples; at most 2^24 are "
                          "kept (fewer samples, or a smaller n)",
                          order, n, (unsigned long long)samples, m < k ? m : k);
    return 0;
}

size_t pb_ngram_pair_types(uint32_t n, unsigned order, pb_pair_type *types)
{
    long double k = pb_ngram_cells(n, order), q = (long double)(n - order + 1) / k, rest = k - 1;
    size_t nt = 0;
    /* Continuations of t into one run of order + s items, on either side. */
    for (unsigned s = 1; s < order; s++) {
        long double count = 2 * falling((long double)n - order, s);
        if (count <= 0) continue;
        long double p_over_q = 1 / falling((long double)n - order + 1, s);
        types[nt++] = (pb_pair_type){count, (p_over_q - q) / (1 - q)};
        rest -= count;
    }
    /* Tuples sharing no item: two blocks among the other items. */
    long double disjoint = falling((long double)n - order, order);
    if (disjoint > 0) {
        long double p_over_q = 1 / falling((long double)n - order + 1, order - 1);
        types[nt++] = (pb_pair_type){disjoint, (p_over_q - q) / (1 - q)};
        rest -= disjoint;
    }
    /* Every other tuple shares an item out of order: never with t. */
    if (rest > 0) types[nt++] = (pb_pair_type){rest, -q / (1 - q)};
    return nt;
}

pb_tvd_null pb_ngram_null(uint32_t n, unsigned order, uint64_t samples)
{
    pb_pair_type types[2 * PB_NGRAM_MAX_ORDER + 2];
    size_t nt = pb_ngram_pair_types(n, order, types);
    long double k = pb_ngram_cells(n, order);
    return pb_tvd_null_of(samples, k, (long double)(n - order + 1) / k, types, nt);
}

static uint64_t table_size(uint64_t want)
{
    uint64_t c = 1024;
    while (c < 2 * want) c *= 2;
    return c;
}

int pb_ngram_init(pb_ngram *g, uint32_t n, unsigned order, uint64_t samples, pb_err *err)
{
    memset(g, 0, sizeof *g);
    if (pb_ngram_applicable(n, order, samples, err)) return -1;
    g->n = n;
    g->order = order;
    long double m = (long double)samples * (n - order + 1), k = pb_ngram_cells(n, order);
    /* Sized for the distinct tuples expected, at most the bound; it grows
     * if a biased shuffle is more varied than expected (it cannot be more
     * than min(K, M)). */
    g->capacity = table_size((uint64_t)(m < k ? m : k) / 4 + 1);
    g->keys = calloc(g->capacity, sizeof *g->keys);
    g->counts = calloc(g->capacity, sizeof *g->counts);
    g->seen = malloc(n);
    if (!g->keys || !g->counts || !g->seen) {
        pb_ngram_free(g);
        return pb_err_set(err, "out of memory for the %u-gram table", order);
    }
    return 0;
}

static int grow(pb_ngram *g, pb_err *err)
{
    uint64_t cap = g->capacity * 2, mask = cap - 1;
    uint64_t *keys = calloc(cap, sizeof *keys);
    uint32_t *counts = calloc(cap, sizeof *counts);
    if (!keys || !counts) {
        free(keys), free(counts);
        return pb_err_set(err, "out of memory growing the %u-gram table to %llu slots", g->order,
                          (unsigned long long)cap);
    }
    for (uint64_t i = 0; i < g->capacity; i++) {
        if (!g->keys[i]) continue;
        uint64_t h = pb_mix64(g->keys[i]) & mask;
        while (keys[h]) h = (h + 1) & mask;
        keys[h] = g->keys[i];
        counts[h] = g->counts[i];
    }
    free(g->keys), free(g->counts);
    g->keys = keys;
    g->counts = counts;
    g->capacity = cap;
    return 0;
}

int pb_ngram_add(pb_ngram *g, const uint32_t *perms, uint64_t count, pb_err *err)
{
    uint32_t n = g->n;
    unsigned order = g->order;
    uint64_t top = 1; /* N^(order - 1): drops the oldest item of a window */
    for (unsigned i = 1; i < order; i++) top *= n;
    for (uint64_t j = 0; j < count; j++) {
        const uint32_t *p = perms + j * n;
        g->samples++;
        if (!pb_is_permutation(p, n, g->seen)) {
            g->invalid++;
            continue;
        }
        uint64_t key = 0;
        for (uint32_t i = 0; i < n; i++) {
            key = (key % top) * n + p[i];
            if (i + 1 < order) continue;
            if (2 * (g->used + 1) > g->capacity && grow(g, err)) return -1;
            uint64_t mask = g->capacity - 1, h = pb_mix64(key + 1) & mask;
            while (g->keys[h] && g->keys[h] != key + 1) h = (h + 1) & mask;
            if (!g->keys[h]) g->keys[h] = key + 1, g->used++;
            g->counts[h]++;
        }
    }
    return 0;
}

double pb_ngram_tvd(const pb_ngram *g)
{
    uint64_t s = g->samples - g->invalid;
    if (!s) return 0;
    long double k = pb_ngram_cells(g->n, g->order), m = (long double)s * (g->n - g->order + 1), e = m / k;
    long double sum = (k - (long double)g->used) * e; /* every unseen tuple */
    for (uint64_t i = 0; i < g->capacity; i++)
        if (g->keys[i] && g->counts[i] < e) sum += e - g->counts[i];
    return (double)(sum / m);
}

void pb_ngram_result(const pb_ngram *g, double alpha, pb_test_result *r)
{
    pb_tvd_verdict(pb_ngram_tvd(g), pb_ngram_null(g->n, g->order, g->samples - g->invalid), g->samples, alpha,
                   r);
    pb_verdict_invalid(r, g->invalid);
}

void pb_ngram_free(pb_ngram *g)
{
    free(g->keys), free(g->counts), free(g->seen);
    g->keys = NULL;
    g->counts = NULL;
    g->seen = NULL;
}

#include "tests/shuffle/grs_helpers.h"

#include <stdlib.h>

#include "stats/lehmer.h"
#include "tests/support/chi_square.h"

static void note(void *ctx, uint32_t tag, uint32_t w1, uint64_t p)
{
    grs_words *g = ctx;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->w = realloc(g->w, g->cap * sizeof *g->w);
        if (!g->w) abort();
    }
    g->w[g->n++] = (uint64_t)tag << 62 | (uint64_t)w1 << 36 | p;
}

pb_grs_trace grs_words_trace(grs_words *g)
{
    pb_grs_trace t = {note, g};
    return t;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int grs_words_tally(grs_words *g, size_t *keys, size_t *levels, size_t *fy)
{
    qsort(g->w, g->n, sizeof *g->w, cmp_u64);
    *keys = *levels = *fy = 0;
    for (size_t i = 0; i < g->n; i++) {
        if (i && g->w[i] == g->w[i - 1]) return -1;
        uint32_t tag = (uint32_t)(g->w[i] >> 62);
        *keys += tag == PB_GRS_TAG_KEY, *levels += tag == PB_GRS_TAG_LEVEL, *fy += tag == PB_GRS_TAG_FY;
    }
    return 0;
}

int grs_orders_uniform(const char *what, grs_perm_fn f, const void *ctx)
{
    for (unsigned n = 4; n <= 5; n++) {
        unsigned cells = n == 5 ? 120 : 24, draws = cells * 250;
        unsigned *count = calloc(cells, sizeof *count);
        uint32_t in[5], out[5];
        if (!count) return 1;
        for (uint32_t i = 0; i < n; i++) in[i] = i;
        for (unsigned d = 0; d < draws; d++) {
            if (f(ctx, in, out, n, d)) {
                free(count);
                return 1;
            }
            count[pb_lehmer_rank(out, n)]++;
        }
        char label[160];
        snprintf(label, sizeof label, "%s, %u items", what, n);
        int bad = pb_test_chi_square(label, count, cells, draws);
        free(count);
        if (bad) return 1;
    }
    return 0;
}

/* the output of grs_twin.h since its labels became bytes, sixteen a
 * Philox block (the word-a-label model gave 7, 3, 10, 11, 8, 5, 0, 6, 1,
 * 4, 9, 2) */
const uint32_t grs_known_answer[12] = {9, 2, 4, 3, 0, 7, 5, 6, 10, 1, 8, 11};

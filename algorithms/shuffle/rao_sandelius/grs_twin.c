#include "algorithms/shuffle/rao_sandelius/grs_twin.h"

#include <stdlib.h>
#include <string.h>

unsigned pb_grs_key_bits_for(uint64_t n, uint64_t target)
{
    unsigned b = 0;
    if (target < 1) target = 1;
    while (b < PB_GRS_AUTO_KEY_BITS && (n >> b) > target) b++;
    return b;
}

unsigned pb_grs_plan_levels(const pb_grs_shape *sh, uint64_t n, uint64_t target)
{
    const uint64_t stop = target > sh->small ? target : sh->small;
    unsigned levels = 0;
    while (sh->key_bits + levels * sh->level_bits < 40 &&
           (n >> (sh->key_bits + levels * sh->level_bits)) > stop)
        levels++;
    return levels;
}

static void trace_word(const pb_grs_trace *t, uint32_t tag, uint32_t w1, uint64_t p)
{
    if (t && t->word) t->word(t->ctx, tag, w1, p);
}

typedef struct grs_seg {
    uint64_t s, e;
    uint32_t level;
} grs_seg;

int pb_grs_work_init(pb_grs_work *w, uint64_t n, unsigned ib, pb_err *err)
{
    memset(w, 0, sizeof *w);
    w->ib = ib;
    w->label = malloc((n ? n : 1) * sizeof *w->label);
    w->scratch = malloc((n ? n : 1) * (size_t)ib);
    w->tmp = malloc(ib);
    w->sub = malloc(((size_t)1 << PB_GRS_MAX_LEVEL_BITS) * sizeof *w->sub);
    w->cap = 64;
    w->stack = malloc(w->cap * sizeof(grs_seg));
    if (w->label && w->scratch && w->tmp && w->sub && w->stack) return 0;
    pb_grs_work_free(w);
    return pb_err_set(err, "gpu rao-sandelius model: out of memory for %llu items", (unsigned long long)n);
}

void pb_grs_work_free(pb_grs_work *w)
{
    free(w->label), free(w->scratch), free(w->tmp), free(w->sub), free(w->stack);
    memset(w, 0, sizeof *w);
}

/* Fisher-Yates of the m items at a (positions s .. s+m-1), from the last
 * slot down: step t swaps slot m-1-t with a draw in [0, m-t) taken at
 * position s + t. */
static void fisher_yates(char *a, uint64_t s, uint64_t m, unsigned ib, philox4x32_key_t k,
                         uint64_t sample, const pb_grs_trace *tr, char *tmp)
{
    for (uint64_t t = 0; t + 1 < m; t++) {
        uint64_t j = m - 1 - t;
        /* Each retry is a word of its own; the trace sees the first (the
         * retries' are distinct by w1, and taken with probability < 2^-20). */
        trace_word(tr, PB_GRS_TAG_FY, 0, s + t);
        uint32_t r = pb_grs_fy_pick(k, s + t, (uint32_t)(j + 1), sample);
        if (r != j) {
            memcpy(tmp, a + j * ib, ib);
            memcpy(a + j * ib, a + r * ib, ib);
            memcpy(a + r * ib, tmp, ib);
        }
    }
}

void pb_grs_twin_split(const void *src, void *dst, uint64_t s, uint64_t m, unsigned bits, uint32_t tag,
                       uint32_t w1, philox4x32_key_t k, uint64_t sample, const pb_grs_trace *tr,
                       pb_grs_work *w, uint64_t *ends)
{
    const unsigned ib = w->ib;
    const size_t nl = (size_t)1 << bits;
    memset(ends, 0, nl * sizeof *ends);
    for (uint64_t i = 0; i < m; i++) {
        if (bits) trace_word(tr, tag, w1, s + i);
        w->label[i] = bits ? pb_grs_label(k, s + i, w1, sample, tag, bits) : 0;
        ends[w->label[i]]++;
    }
    /* ends[q] becomes the start of part q, then (as items go) its end */
    for (size_t q = 0, run = 0; q < nl; q++) {
        uint64_t c = ends[q];
        ends[q] = run;
        run += c;
    }
    for (uint64_t i = 0; i < m; i++)
        memcpy((char *)dst + ends[w->label[i]]++ * ib, (const char *)src + i * ib, ib);
}

int pb_grs_twin_finish(void *a, uint64_t s0, uint64_t m0, uint32_t level0, const pb_grs_shape *sh,
                       philox4x32_key_t k, uint64_t sample, const pb_grs_trace *tr, pb_grs_stats *st,
                       pb_grs_work *w, pb_err *err)
{
    char *o = a;
    const unsigned ib = w->ib;
    const size_t lb = (size_t)1 << sh->level_bits;
    grs_seg *stack = w->stack;
    size_t top = 0;
    /* Positions relative to a: the segment's are 0 .. m0 - 1, its draws at
     * s0 + those. */
    if (m0) stack[top++] = (grs_seg){0, m0, level0};
    while (top) {
        grs_seg g = stack[--top];
        uint64_t m = g.e - g.s;
        if (m <= sh->small || g.level >= PB_GRS_MAX_LEVELS) {
            st->fisher_yates++;
            fisher_yates(o + g.s * ib, s0 + g.s, m, ib, k, sample, tr, w->tmp);
            continue;
        }
        /* A stable split by the level's labels, drawn at positions. */
        st->splits++;
        if (g.level > st->deepest) st->deepest = g.level;
        pb_grs_twin_split(o + g.s * ib, w->scratch, s0 + g.s, m, sh->level_bits, PB_GRS_TAG_LEVEL, g.level, k,
                          sample, tr, w, w->sub);
        memcpy(o + g.s * ib, w->scratch, m * ib);
        /* w->sub[q] is now the end of part q within the segment. Pushed in
         * reverse so that parts are finished in order (any order gives the
         * same output: parts are disjoint). */
        if (top + lb > w->cap) {
            size_t ncap = (top + lb) * 2;
            grs_seg *ns = realloc(stack, ncap * sizeof *ns);
            if (!ns) return pb_err_set(err, "gpu rao-sandelius model: out of memory");
            w->stack = stack = ns, w->cap = ncap;
        }
        for (size_t q = lb; q-- > 0;) {
            uint64_t ps = g.s + (q ? w->sub[q - 1] : 0), pe = g.s + w->sub[q];
            if (pe > ps) stack[top++] = (grs_seg){ps, pe, g.level + 1};
        }
    }
    return 0;
}

int pb_grs_twin_shuffle(const void *in, void *out, uint64_t n, unsigned ib,
                         const pb_grs_shape *sh, uint64_t seed, uint64_t sample,
                         const pb_grs_trace *tr, pb_grs_stats *stats, pb_err *err)
{
    if (!sh || sh->key_bits > PB_GRS_MAX_KEY_BITS || sh->level_bits < 1 ||
        sh->level_bits > PB_GRS_MAX_LEVEL_BITS || sh->small < 1)
        return pb_err_set(err, "gpu rao-sandelius model: shape out of range (key bits 0..%d, "
                               "level bits 1..%d, small >= 1)",
                          PB_GRS_MAX_KEY_BITS, PB_GRS_MAX_LEVEL_BITS);
    if (n > PB_GRS_MAX_ITEMS)
        return pb_err_set(err, "gpu rao-sandelius model: %llu items, beyond 2^34",
                          (unsigned long long)n);
    if (sample >= PB_GRS_MAX_SAMPLE)
        return pb_err_set(err, "gpu rao-sandelius model: sample beyond 2^62");
    pb_grs_stats local;
    pb_grs_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    if (!ib) return pb_err_set(err, "gpu rao-sandelius model: 0-byte items");
    philox4x32_key_t k = pb_grs_key(seed);
    pb_grs_work w;
    uint64_t ends[(size_t)1 << PB_GRS_MAX_KEY_BITS];
    if (pb_grs_work_init(&w, n, ib, err)) return -1;
    /* 1. The first labels, and a stable split by them into out. */
    pb_grs_twin_split(in, out, 0, n, sh->key_bits, PB_GRS_TAG_KEY, 0, k, sample, tr, &w, ends);
    /* 2. Each bucket shuffled exactly, depth first. */
    int rc = 0;
    for (size_t b = 0, nb = (size_t)1 << sh->key_bits; !rc && b < nb; b++) {
        uint64_t s = b ? ends[b - 1] : 0, m = ends[b] - s;
        if (!m) continue;
        st->buckets++;
        if (m > st->largest) st->largest = m;
        rc = pb_grs_twin_finish((char *)out + s * ib, s, m, 0, sh, k, sample, tr, st, &w, err);
    }
    pb_grs_work_free(&w);
    return rc;
}

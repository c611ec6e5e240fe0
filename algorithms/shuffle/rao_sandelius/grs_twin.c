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

static void trace_word(const pb_grs_trace *t, uint32_t tag, uint32_t w1, uint64_t p)
{
    if (t && t->word) t->word(t->ctx, tag, w1, p);
}

/* Fisher-Yates of the m items at position s of a (indices s .. s+m-1),
 * from the last slot down: step t swaps slot m-1-t with a draw in
 * [0, m-t) taken at position s + t. */
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
            memcpy(tmp, a + (s + j) * ib, ib);
            memcpy(a + (s + j) * ib, a + (s + r) * ib, ib);
            memcpy(a + (s + r) * ib, tmp, ib);
        }
    }
}

typedef struct grs_seg {
    uint64_t s, e;
    uint32_t level;
} grs_seg;

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
    size_t nb = (size_t)1 << sh->key_bits, lb = (size_t)1 << sh->level_bits;
    uint64_t *start = calloc(nb + 1, sizeof *start);
    uint64_t *sub = calloc(lb + 1, sizeof *sub);
    uint32_t *label = malloc((n ? n : 1) * sizeof *label);
    char *scratch = malloc((n ? n : 1) * (size_t)ib), *tmp = malloc(ib);
    /* The stack of segments to split: at most (lb - 1) a level past the
     * first bucket's, pushed as found. */
    size_t cap = 64, top = 0;
    grs_seg *stack = malloc(cap * sizeof *stack);
    int rc = 0;
    if (!start || !sub || !label || !scratch || !tmp || !stack) {
        rc = pb_err_set(err, "gpu rao-sandelius model: out of memory for %llu items",
                        (unsigned long long)n);
        goto done;
    }
    /* 1. The first labels, and a stable counting sort by them into out. */
    for (uint64_t i = 0; i < n; i++) {
        if (sh->key_bits) trace_word(tr, PB_GRS_TAG_KEY, 0, i);
        label[i] = pb_grs_item_key(k, i, sample, sh->key_bits);
        start[label[i] + 1]++;
    }
    for (size_t b = 0; b < nb; b++) {
        if (start[b + 1]) {
            st->buckets++;
            if (start[b + 1] > st->largest) st->largest = start[b + 1];
        }
        start[b + 1] += start[b];
    }
    char *o = out;
    for (uint64_t i = 0; i < n; i++)
        memcpy(o + start[label[i]]++ * ib, (const char *)in + i * ib, ib);
    /* start[b] is now the end of bucket b: bucket b is [start[b-1], start[b]). */
    /* 2. Each bucket shuffled exactly, depth first. */
    for (size_t b = 0; b < nb; b++) {
        uint64_t s = b ? start[b - 1] : 0, e = start[b];
        if (e == s) continue;
        stack[top++] = (grs_seg){s, e, 0};
        while (top) {
            grs_seg g = stack[--top];
            uint64_t m = g.e - g.s;
            if (m <= sh->small || g.level >= PB_GRS_MAX_LEVELS) {
                st->fisher_yates++;
                fisher_yates(o, g.s, m, ib, k, sample, tr, tmp);
                continue;
            }
            /* A stable split by the level's labels, drawn at positions. */
            st->splits++;
            if (g.level > st->deepest) st->deepest = g.level;
            memset(sub, 0, (lb + 1) * sizeof *sub);
            for (uint64_t p = g.s; p < g.e; p++) {
                trace_word(tr, PB_GRS_TAG_LEVEL, g.level, p);
                label[p] = pb_grs_level_label(k, p, g.level, sample, sh->level_bits);
                sub[label[p] + 1]++;
            }
            for (size_t q = 0; q < lb; q++) sub[q + 1] += sub[q];
            for (uint64_t p = g.s; p < g.e; p++)
                memcpy(scratch + (g.s + sub[label[p]]++) * ib, o + p * ib, ib);
            memcpy(o + g.s * ib, scratch + g.s * ib, m * ib);
            /* sub[q] is now the end of part q within the segment. Pushed
             * in reverse so that parts are finished in order (any order
             * gives the same output: parts are disjoint). */
            if (top + lb > cap) {
                size_t ncap = (top + lb) * 2;
                grs_seg *ns = realloc(stack, ncap * sizeof *ns);
                if (!ns) {
                    rc = pb_err_set(err, "gpu rao-sandelius model: out of memory");
                    goto done;
                }
                stack = ns, cap = ncap;
            }
            for (size_t q = lb; q-- > 0;) {
                uint64_t ps = g.s + (q ? sub[q - 1] : 0), pe = g.s + sub[q];
                if (pe > ps) stack[top++] = (grs_seg){ps, pe, g.level + 1};
            }
        }
    }
done:
    free(start), free(sub), free(label), free(scratch), free(tmp), free(stack);
    return rc;
}

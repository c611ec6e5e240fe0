#include "algorithms/shuffle/rao_sandelius/l2s_twin.h"

#include <stdlib.h>
#include <string.h>

/* Segments of a level: [ss[i], se[i]), consecutive. */
typedef struct segs {
    uint32_t *ss, *se;
    size_t n;
} segs;

/* Splits every segment of cur (A -> B) at level `level`, or passes it
 * whole (part 0) when it holds at most `small` items, as the GPU's
 * whole-array pass does; the parts, 2^level_bits a segment, into next. */
static void split_all(const char *A, char *B, const segs *cur, segs *next, uint32_t level,
                      const pb_grs_shape *sh, philox4x32_key_t k, uint64_t sample, const pb_grs_trace *tr,
                      pb_grs_stats *st, pb_grs_work *w)
{
    const size_t lb = (size_t)1 << sh->level_bits;
    const unsigned ib = w->ib;
    uint64_t ends[(size_t)1 << PB_GRS_MAX_LEVEL_BITS];
    for (size_t i = 0; i < cur->n; i++) {
        const uint64_t s = cur->ss[i], m = cur->se[i] - s;
        if (m <= sh->small) {
            memcpy(B + s * ib, A + s * ib, m * ib);
            for (size_t q = 0; q < lb; q++) ends[q] = m;
        } else {
            st->splits++;
            if (level > st->deepest) st->deepest = level;
            pb_grs_twin_split(A + s * ib, B + s * ib, s, m, sh->level_bits, PB_GRS_TAG_LEVEL, level, k, sample,
                              tr, w, ends);
        }
        for (size_t q = 0; q < lb; q++) {
            next->ss[i * lb + q] = (uint32_t)(s + (q ? ends[q - 1] : 0));
            next->se[i * lb + q] = (uint32_t)(s + ends[q]);
        }
    }
    next->n = cur->n * lb;
}

int pb_l2s_twin_shuffle(const void *in, void *out, uint64_t n, unsigned ib, const pb_grs_shape *sh,
                        uint64_t target, uint64_t slot, uint64_t seed, uint64_t sample, const pb_grs_trace *tr,
                        pb_l2s_stats *stats, pb_err *err)
{
    if (!sh || sh->key_bits > PB_GRS_MAX_KEY_BITS || sh->level_bits < 1 ||
        sh->level_bits > PB_GRS_MAX_LEVEL_BITS || sh->small < 1 || slot < 1 || !ib)
        return pb_err_set(err, "l2 shuffle model: shape out of range (key bits 0..%d, level bits 1..%d, "
                               "small >= 1, slot >= 1, items of 1 byte or more)",
                          PB_GRS_MAX_KEY_BITS, PB_GRS_MAX_LEVEL_BITS);
    if (n > PB_L2S_MAX_ITEMS)
        return pb_err_set(err, "l2 shuffle model: %llu items, beyond 2^32 - 1", (unsigned long long)n);
    if (sample >= PB_GRS_MAX_SAMPLE) return pb_err_set(err, "l2 shuffle model: sample beyond 2^62");
    pb_l2s_stats local;
    pb_l2s_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    const philox4x32_key_t k = pb_grs_key(seed);
    const unsigned levels = pb_grs_plan_levels(sh, n, target);
    st->levels = levels;
    /* Segments before the last level: 2^(key_bits + (levels - 1) level_bits). */
    const unsigned bits = sh->key_bits + (levels ? (levels - 1) * sh->level_bits : 0);
    if (bits > 24) return pb_err_set(err, "l2 shuffle model: 2^%u segments; raise target or small", bits);
    const size_t maxseg = (size_t)1 << bits;
    const uint64_t slot_alloc = slot < n ? slot : (n ? n : 1);
    pb_grs_work w;
    if (pb_grs_work_init(&w, n, ib, err)) return -1;
    char *A = malloc((n ? n : 1) * (size_t)ib), *B = malloc((n ? n : 1) * (size_t)ib);
    char *ring = malloc(PB_L2S_RING * slot_alloc * ib);
    /* nxt also takes a group's parts: up to 2^level_bits a segment */
    const size_t maxpart = levels ? maxseg << sh->level_bits : maxseg;
    segs cur = {malloc(maxpart * 4), malloc(maxpart * 4), 0}, nxt = {malloc(maxpart * 4), malloc(maxpart * 4), 0};
    pb_l2s_group *groups = malloc(maxseg * sizeof *groups);
    uint64_t ends[(size_t)1 << PB_GRS_MAX_KEY_BITS];
    int rc = 0;
    if (!A || !B || !ring || !cur.ss || !cur.se || !nxt.ss || !nxt.se || !groups) {
        rc = pb_err_set(err, "l2 shuffle model: out of memory for %llu items", (unsigned long long)n);
        goto done;
    }
    /* 1. The first split, into A; its buckets are the first segments. */
    pb_grs_twin_split(in, A, 0, n, sh->key_bits, PB_GRS_TAG_KEY, 0, k, sample, tr, &w, ends);
    cur.n = (size_t)1 << sh->key_bits;
    for (size_t b = 0; b < cur.n; b++) {
        cur.ss[b] = (uint32_t)(b ? ends[b - 1] : 0);
        cur.se[b] = (uint32_t)ends[b];
        if (ends[b] > cur.ss[b]) {
            st->grs.buckets++;
            if (ends[b] - cur.ss[b] > st->grs.largest) st->grs.largest = ends[b] - cur.ss[b];
        }
    }
    if (levels == 0) { /* no level over the array: each bucket finished from A */
        memcpy(out, A, n * ib);
        for (size_t b = 0; !rc && b < cur.n; b++)
            rc = pb_grs_twin_finish((char *)out + (size_t)cur.ss[b] * ib, cur.ss[b], cur.se[b] - cur.ss[b], 0, sh,
                                    k, sample, tr, &st->grs, &w, err);
        goto done;
    }
    /* 2. Whole-array levels but the last, A -> B -> A. */
    for (unsigned l = 0; l + 1 < levels; l++) {
        split_all(A, B, &cur, &nxt, l, sh, k, sample, tr, &st->grs, &w);
        char *t = A;
        A = B, B = t;
        segs x = cur;
        cur = nxt, nxt = x;
    }
    /* 3. The last level a group at a time: split into a slot (or, an
     * overflow, into the output at its positions), then each part finished
     * into the output. */
    const uint32_t last = levels - 1;
    const size_t lb = (size_t)1 << sh->level_bits;
    const size_t ng = pb_l2s_plan_groups(cur.ss, cur.se, cur.n, slot, groups);
    st->groups = ng;
    for (size_t gi = 0; !rc && gi < ng; gi++) {
        const pb_l2s_group *g = &groups[gi];
        st->overflows += g->overflow != 0;
        /* dst holds position p at dst + (p - base) * ib */
        char *dst = g->overflow ? (char *)out : ring + (gi % PB_L2S_RING) * slot_alloc * ib;
        const uint64_t base = g->overflow ? 0 : g->start;
        segs one = {cur.ss + g->seg_lo, cur.se + g->seg_lo, g->seg_hi - g->seg_lo};
        segs parts = {nxt.ss, nxt.se, 0};
        /* the group's segments, split: A -> dst */
        for (size_t i = 0; i < one.n; i++) {
            const uint64_t s = one.ss[i], m = one.se[i] - s;
            if (m <= sh->small) {
                memcpy(dst + (s - base) * ib, A + s * ib, m * ib);
                for (size_t q = 0; q < lb; q++) ends[q] = m;
            } else {
                st->grs.splits++;
                if (last > st->grs.deepest) st->grs.deepest = last;
                pb_grs_twin_split(A + s * ib, dst + (s - base) * ib, s, m, sh->level_bits, PB_GRS_TAG_LEVEL, last,
                                  k, sample, tr, &w, ends);
            }
            for (size_t q = 0; q < lb; q++) {
                parts.ss[i * lb + q] = (uint32_t)(s + (q ? ends[q - 1] : 0));
                parts.se[i * lb + q] = (uint32_t)(s + ends[q]);
            }
        }
        parts.n = one.n * lb;
        /* its parts, each read from dst and finished in the output */
        for (size_t q = 0; !rc && q < parts.n; q++) {
            const uint64_t ps = parts.ss[q], m = parts.se[q] - ps;
            char *o = (char *)out + ps * ib;
            if (!g->overflow) memcpy(o, dst + (ps - base) * ib, m * ib);
            rc = pb_grs_twin_finish(o, ps, m, last + 1, sh, k, sample, tr, &st->grs, &w, err);
        }
    }
done:
    pb_grs_work_free(&w);
    free(A), free(B), free(ring), free(cur.ss), free(cur.se), free(nxt.ss), free(nxt.se), free(groups);
    return rc;
}

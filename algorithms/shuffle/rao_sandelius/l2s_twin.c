#include "algorithms/shuffle/rao_sandelius/l2s_twin.h"

#include <stdlib.h>
#include <string.h>

/* Segments of a level: [ss[i], se[i]), consecutive. */
typedef struct segs {
    uint32_t *ss, *se;
    size_t n;
} segs;

/* The stable split of segment [s, s + m) of src at `level` into dst (dst
 * holds position p at dst + (p - base) * ib), or the segment passed whole
 * (part 0) when it holds at most `small` items, as the GPU's move does;
 * its parts' bounds, 2^level_bits of them, into parts from index `at`. */
static void split_one(const char *src, char *dst, uint64_t base, uint64_t s, uint64_t m, uint32_t level,
                      const pb_grs_shape *sh, philox4x32_key_t k, uint64_t sample, const pb_grs_trace *tr,
                      pb_grs_stats *st, pb_grs_work *w, segs *parts, size_t at)
{
    const size_t lb = (size_t)1 << sh->level_bits;
    const unsigned ib = w->ib;
    uint64_t ends[(size_t)1 << PB_GRS_MAX_LEVEL_BITS];
    if (m <= sh->small) {
        memcpy(dst + (s - base) * ib, src + s * ib, m * ib);
        for (size_t q = 0; q < lb; q++) ends[q] = m;
    } else {
        st->splits++;
        if (level > st->deepest) st->deepest = level;
        pb_grs_twin_split(src + s * ib, dst + (s - base) * ib, s, m, sh->level_bits, PB_GRS_TAG_LEVEL, level, k,
                          sample, tr, w, ends);
    }
    for (size_t q = 0; q < lb; q++) {
        parts->ss[at + q] = (uint32_t)(s + (q ? ends[q - 1] : 0));
        parts->se[at + q] = (uint32_t)(s + ends[q]);
    }
}

/* Part [ps, ps + m) at depth `level`, read from src (position p at src +
 * (p - base) * ib) and finished into out at its positions, in place when
 * src is out, as the GPU's segment kernel does: the part is read whole
 * first, and its splits take A's region of the part as their scratch, as
 * the kernel's global path does (so a plan that still needed that region
 * would show here as a wrong output). */
static int finish_part(const char *src, uint64_t base, char *out, char *A, uint64_t ps, uint64_t m,
                       uint32_t level, const pb_grs_shape *sh, philox4x32_key_t k, uint64_t sample,
                       const pb_grs_trace *tr, pb_grs_stats *st, pb_grs_work *w, pb_err *err)
{
    const unsigned ib = w->ib;
    char *o = out + ps * ib;
    if (src + (ps - base) * ib != o) memcpy(o, src + (ps - base) * ib, m * ib);
    char *own = w->scratch;
    w->scratch = A + ps * ib;
    int rc = pb_grs_twin_finish(o, ps, m, level, sh, k, sample, tr, st, w, err);
    w->scratch = own;
    return rc;
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
    const size_t lb = (size_t)1 << sh->level_bits;
    /* cur and nxt also take a level's parts: up to 2^level_bits a segment */
    const size_t maxseg = (size_t)1 << bits, maxpart = levels ? maxseg << sh->level_bits : maxseg;
    const uint64_t slot_alloc = slot < n ? slot : (n ? n : 1);
    pb_grs_work w;
    if (pb_grs_work_init(&w, n, ib, err)) return -1;
    /* The buffers as on the GPU: the output, A (the module's scratch) and
     * the ring's slots. */
    char *A = malloc((n ? n : 1) * (size_t)ib), *ring = malloc(PB_L2S_RING * slot_alloc * ib);
    segs cur = {malloc(maxpart * 4), malloc(maxpart * 4), 0}, nxt = {malloc(maxpart * 4), malloc(maxpart * 4), 0};
    pb_l2s_group *groups = malloc(maxseg * sizeof *groups);
    uint64_t ends[(size_t)1 << PB_GRS_MAX_KEY_BITS];
    int rc = 0;
    if (!A || !ring || !cur.ss || !cur.se || !nxt.ss || !nxt.se || !groups) {
        rc = pb_err_set(err, "l2 shuffle model: out of memory for %llu items", (unsigned long long)n);
        goto done;
    }
    /* 1. The first split, into the output (the first of the passes'
     * buffers); none without key bits: the input is the first segment. */
    char *const buf[2] = {out, A};
    const char *src = in;
    unsigned pass = 0;
    if (sh->key_bits) {
        pb_grs_twin_split(in, buf[0], 0, n, sh->key_bits, PB_GRS_TAG_KEY, 0, k, sample, tr, &w, ends);
        src = buf[pass++ & 1];
    } else {
        ends[0] = n;
    }
    cur.n = (size_t)1 << sh->key_bits;
    for (size_t b = 0; b < cur.n; b++) {
        cur.ss[b] = (uint32_t)(b ? ends[b - 1] : 0);
        cur.se[b] = (uint32_t)ends[b];
        if (ends[b] > cur.ss[b]) {
            st->grs.buckets++;
            if (ends[b] - cur.ss[b] > st->grs.largest) st->grs.largest = ends[b] - cur.ss[b];
        }
    }
    if (levels == 0) { /* no level: each bucket finished from src into the output */
        for (size_t b = 0; !rc && b < cur.n; b++)
            rc = finish_part(src, 0, out, A, cur.ss[b], cur.se[b] - cur.ss[b], 0, sh, k, sample, tr, &st->grs, &w,
                             err);
        goto done;
    }
    /* 2. Whole-array levels but the last, alternating between the output
     * and A as the GPU's passes do. */
    for (unsigned l = 0; l + 1 < levels; l++) {
        char *dst = buf[pass & 1];
        for (size_t i = 0; i < cur.n; i++)
            split_one(src, dst, 0, cur.ss[i], cur.se[i] - cur.ss[i], l, sh, k, sample, tr, &st->grs, &w, &nxt,
                      i * lb);
        nxt.n = cur.n * lb;
        src = buf[pass++ & 1];
        segs x = cur;
        cur = nxt, nxt = x;
    }
    /* 3. The last level a group at a time: split into the slot (or, an
     * overflow, into whichever of the output and A is not its input, at
     * its positions), then each part finished into the output. */
    const uint32_t last = levels - 1;
    const size_t ng = pb_l2s_plan_groups(cur.ss, cur.se, cur.n, slot, groups);
    st->groups = ng;
    for (size_t gi = 0; !rc && gi < ng; gi++) {
        const pb_l2s_group *g = &groups[gi];
        st->overflows += g->overflow != 0;
        char *dst = g->overflow ? (src == A ? (char *)out : A) : ring + (gi % PB_L2S_RING) * slot_alloc * ib;
        const uint64_t base = g->overflow ? 0 : g->start;
        for (uint32_t i = g->seg_lo; i < g->seg_hi; i++)
            split_one(src, dst, base, cur.ss[i], cur.se[i] - cur.ss[i], last, sh, k, sample, tr, &st->grs, &w, &nxt,
                      (size_t)(i - g->seg_lo) * lb);
        for (size_t q = 0; !rc && q < (size_t)(g->seg_hi - g->seg_lo) * lb; q++)
            rc = finish_part(dst, base, out, A, nxt.ss[q], nxt.se[q] - nxt.ss[q], last + 1, sh, k, sample, tr,
                             &st->grs, &w, err);
    }
done:
    pb_grs_work_free(&w);
    free(A), free(ring), free(cur.ss), free(cur.se), free(nxt.ss), free(nxt.se), free(groups);
    return rc;
}

/* MosaicML Streaming's py1s and py1e (loader_model.h). A span is a shard
 * or the part of one that falls in a canonical node. */
#include <stdlib.h>

#include "algorithms/shuffle/loader/loader_model.h"

typedef struct span {
    uint32_t begin, end;
} span;

typedef struct keyed {
    double pos;
    uint32_t at; /* index into the node's samples */
} keyed;

static uint32_t shards_of(uint64_t n, uint32_t shard) { return (uint32_t)((n + shard - 1) / shard); }

uint64_t pb_ld_mosaic_scratch_bytes(uint64_t n, const pb_ld_mosaic *m)
{
    uint64_t s = shards_of(n, m->shard);
    return (2 * s + m->nodes) * sizeof(span) + (m->nodes + 1) * sizeof(uint32_t) + 8 +
           n * (sizeof(keyed) + sizeof(uint32_t));
}

static void shuffle_spans(span *a, uint32_t m, pb_ld_draws *d)
{
    for (uint32_t i = m; i > 1; i--) {
        uint32_t j = d->below(d->ctx, i);
        span x = a[i - 1];
        a[i - 1] = a[j];
        a[j] = x;
    }
}

static void shuffle_ids(uint32_t *a, uint32_t m, pb_ld_draws *d)
{
    for (uint32_t i = m; i > 1; i--) {
        uint32_t j = d->below(d->ctx, i), x = a[i - 1];
        a[i - 1] = a[j];
        a[j] = x;
    }
}

/* Cuts the spans in order into `parts` parts of n (p + 1) / parts - n p /
 * parts items, splitting the span that straddles a boundary: out gets the
 * pieces, node[p] .. node[p + 1] those of part p. Returns the pieces. */
static uint32_t divide(const span *in, uint32_t count, uint64_t n, uint32_t parts, span *out, uint32_t *node)
{
    uint32_t k = 0, pieces = 0;
    uint64_t so_far = 0;
    span cur = count ? in[0] : (span){0, 0};
    node[0] = 0;
    for (uint32_t p = 0; p < parts; p++) {
        uint64_t part_end = n * (p + 1) / parts;
        while (k < count) {
            uint64_t len = cur.end - cur.begin;
            if (part_end < so_far + len) {
                if (so_far < part_end) {
                    uint32_t split = (uint32_t)(part_end - so_far);
                    out[pieces++] = (span){cur.begin, cur.begin + split};
                    cur.begin += split;
                    so_far += split;
                }
                break;
            }
            out[pieces++] = cur;
            so_far += len;
            if (++k < count) cur = in[k];
        }
        node[p + 1] = pieces;
    }
    return pieces;
}

static int by_pos(const void *x, const void *y)
{
    const keyed *a = x, *b = y;
    if (a->pos != b->pos) return a->pos < b->pos ? -1 : 1;
    return a->at < b->at ? -1 : a->at > b->at;
}

/* py1e in one canonical node: its spans' items (each span shuffled) at
 * positions 0 .. cn - 1, each span's items shifted by uniforms whose
 * half-width is (its random block size - its length) / 2, kept inside the
 * node, then sorted by position (ties, of probability zero, by index). */
static uint32_t py1e_node(const span *sp, uint32_t count, uint32_t block, uint32_t *order, keyed *key,
                          uint32_t *samples, pb_ld_draws *d)
{
    uint32_t cn = 0;
    for (uint32_t s = 0; s < count; s++) {
        uint32_t len = sp[s].end - sp[s].begin;
        for (uint32_t i = 0; i < len; i++) samples[cn + i] = sp[s].begin + i;
        shuffle_ids(samples + cn, len, d);
        cn += len;
    }
    /* Streaming's int(0.75 * block) and int(1.25 * block), its draw in
     * [low, high). */
    uint64_t low = 3 * (uint64_t)block / 4, high = 5 * (uint64_t)block / 4;
    uint32_t off = 0;
    for (uint32_t s = 0; s < count; s++) {
        uint32_t len = sp[s].end - sp[s].begin;
        uint64_t rbs = low + d->below(d->ctx, (uint32_t)(high - low));
        double cutoff = ((double)rbs - len) / 2;
        if (cutoff < 0) cutoff = 0;
        double lo = -cutoff > -(double)off ? -cutoff : -(double)off;
        double room = (double)cn - off - len, hi = cutoff < room ? cutoff : room;
        for (uint32_t i = 0; i < len; i++) {
            key[off + i].pos = (double)(off + i) + lo + (hi - lo) * d->unit(d->ctx);
            key[off + i].at = off + i;
        }
        off += len;
    }
    qsort(key, cn, sizeof *key, by_pos);
    for (uint32_t i = 0; i < cn; i++) order[i] = samples[key[i].at];
    return cn;
}

void pb_ld_mosaic_shuffle(uint32_t n, const pb_ld_mosaic *m, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    uint32_t shards = shards_of(n, m->shard);
    span *in = scratch, *sp = in + shards;
    uint32_t *node = (uint32_t *)(sp + shards + m->nodes);
    keyed *key = (keyed *)(((uintptr_t)(node + m->nodes + 1) + 7) & ~(uintptr_t)7);
    uint32_t *samples = (uint32_t *)(key + n);
    for (uint32_t s = 0; s < shards; s++) {
        uint64_t b = (uint64_t)s * m->shard, e = b + m->shard < n ? b + m->shard : n;
        in[s] = (span){(uint32_t)b, (uint32_t)e};
    }
    shuffle_spans(in, shards, d); /* the run's shard order */
    divide(in, shards, n, m->nodes, sp, node);
    for (uint32_t p = 0; p < m->nodes; p++) shuffle_spans(sp + node[p], node[p + 1] - node[p], d); /* the epoch's */
    uint32_t t = 0;
    for (uint32_t p = 0; p < m->nodes; p++) {
        if (m->algo == PB_LD_PY1E) {
            t += py1e_node(sp + node[p], node[p + 1] - node[p], m->block, order + t, key, samples, d);
            continue;
        }
        for (uint32_t s = node[p]; s < node[p + 1]; s++) {
            uint32_t len = sp[s].end - sp[s].begin;
            for (uint32_t i = 0; i < len; i++) order[t + i] = sp[s].begin + i;
            shuffle_ids(order + t, len, d);
            t += len;
        }
    }
}

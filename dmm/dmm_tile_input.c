#include "dmm/dmm_tile_input.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "dmm/dmm_tile.h"

static const char *const op_names[] = {"partition", "sort", "permute"};
static const char *const pattern_names[] = {"uniform", "skewed", "onebank", "strided"};

const char *pb_tile_op_name(pb_tile_op op) { return op < PB_TILE_NOPS ? op_names[op] : "?"; }
const char *pb_tile_pattern_name(pb_tile_pattern p)
{
    return p < PB_TILE_NPATTERNS ? pattern_names[p] : "?";
}

static uint32_t label_of(pb_tile_pattern pat, unsigned i, pb_rng *rng)
{
    const unsigned lane = i % PB_TILE_W;
    switch (pat) {
    case PB_TILE_SKEWED: {
        uint32_t r = pb_rng_u32(rng) | 1u;
        return (uint32_t)__builtin_clz(r);
    }
    case PB_TILE_ONEBANK: return lane;
    case PB_TILE_STRIDED: return lane / 4;
    default: return pb_rng_u32(rng) & 31u;
    }
}

void pb_tile_gen(pb_tile_op op, pb_tile_pattern pat, unsigned m, uint64_t seed, uint64_t tile,
                 uint32_t *items)
{
    const unsigned N = PB_TILE_W * m;
    pb_rng rng;
    /* One Philox stream a tile: a tile's items never depend on the thread
     * that generates it. */
    pb_rng_init(&rng, seed, tile << 2 | (uint64_t)op);
    if (op != PB_TILE_PERMUTE) {
        for (unsigned i = 0; i < N; i++)
            items[i] = label_of(pat, i, &rng) << PB_TILE_LABEL_SHIFT | (pb_rng_u32(&rng) >> 5);
        return;
    }
    uint32_t dest[PB_TILE_W * PB_TILE_MAX_M];
    if (pat == PB_TILE_UNIFORM) {
        for (unsigned i = 0; i < N; i++) dest[i] = i;
        for (unsigned i = N; i > 1; i--) {
            unsigned j = pb_rng_below32(&rng, i);
            uint32_t t = dest[i - 1];
            dest[i - 1] = dest[j];
            dest[j] = t;
        }
    } else {
        /* Where a stable partition by the pattern's labels sends each. */
        unsigned count[PB_TILE_W] = {0}, start[PB_TILE_W];
        for (unsigned i = 0; i < N; i++) count[dest[i] = label_of(pat, i, &rng)]++;
        for (unsigned b = 0, s = 0; b < PB_TILE_W; b++) start[b] = s, s += count[b];
        for (unsigned i = 0; i < N; i++) dest[i] = start[dest[i]]++;
    }
    for (unsigned i = 0; i < N; i++)
        items[i] = dest[i] << PB_TILE_DEST_SHIFT | (pb_rng_u32(&rng) >> 13);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

void pb_tile_reference(pb_tile_op op, unsigned m, const uint32_t *in, uint32_t *out)
{
    const unsigned N = PB_TILE_W * m;
    if (op == PB_TILE_PERMUTE) {
        for (unsigned i = 0; i < N; i++) out[pb_tile_dest(in[i])] = in[i];
    } else if (op == PB_TILE_SORT) {
        memcpy(out, in, N * sizeof *out);
        qsort(out, N, sizeof *out, cmp_u32);
    } else {
        unsigned start[PB_TILE_W] = {0};
        for (unsigned i = 0; i < N; i++) start[pb_tile_label(in[i])]++;
        for (unsigned b = 0, s = 0; b < PB_TILE_W; b++) {
            unsigned c = start[b];
            start[b] = s;
            s += c;
        }
        for (unsigned i = 0; i < N; i++) out[start[pb_tile_label(in[i])]++] = in[i];
    }
}

long pb_tile_compare(pb_tile_op op, unsigned m, const uint32_t *in, const uint32_t *out,
                     bool exact)
{
    const unsigned N = PB_TILE_W * m;
    uint32_t *ref = malloc(N * sizeof *ref), *got = malloc(N * sizeof *got);
    long bad = -1;
    if (!ref || !got) {
        bad = -2;
        goto done;
    }
    pb_tile_reference(op, m, in, ref);
    if (exact) {
        for (unsigned i = 0; i < N && bad < 0; i++)
            if (out[i] != ref[i]) bad = (long)i;
        goto done;
    }
    for (unsigned i = 0; i < N && bad < 0; i++)
        if (pb_tile_label(out[i]) != pb_tile_label(ref[i])) bad = (long)i;
    if (bad >= 0) goto done;
    memcpy(got, out, N * sizeof *got);
    for (unsigned s = 0, e; s < N; s = e) {
        for (e = s; e < N && pb_tile_label(ref[e]) == pb_tile_label(ref[s]); e++) {}
        qsort(got + s, e - s, sizeof *got, cmp_u32);
        qsort(ref + s, e - s, sizeof *ref, cmp_u32);
        for (unsigned i = s; i < e && bad < 0; i++)
            if (got[i] != ref[i]) bad = (long)s; /* the label's group starting here */
    }
done:
    free(ref);
    free(got);
    return bad;
}

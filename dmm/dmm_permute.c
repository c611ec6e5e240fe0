#include "dmm/dmm_permute.h"

#include <stdlib.h>

#include "dmm/dmm_tile.h"

void pb_dmm_naive_partition(pb_dmm *d, const pb_dmm_order *o, size_t src, size_t dst, size_t n)
{
    const unsigned w = d->w;
    size_t *next = calloc(o->nlabels, sizeof *next);
    if (!next) {
        d->st.races++;
        return;
    }
    for (size_t c = 0; c < n; c++) {
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, c));
        pb_dmm_end(d);
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned p = 0; p < w; p++) {
            uint64_t v = pb_dmm_got(d, p);
            unsigned l = pb_dmm_label(o, v);
            /* The label's row, at its next free column: known offline. */
            pb_dmm_st(d, p, pb_dmm_at(d, dst, l % w, next[l]++), v);
        }
        pb_dmm_end(d);
    }
    free(next);
}

void pb_dmm_naive_permute(pb_dmm *d, const pb_dmm_dest *ds, size_t src, size_t dst, size_t n)
{
    const unsigned w = d->w;
    for (size_t c = 0; c < n; c++) {
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, c));
        pb_dmm_end(d);
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned p = 0; p < w; p++) {
            unsigned r;
            size_t col;
            pb_dmm_dest_of(ds, w, n, pb_dmm_got(d, p), &r, &col);
            pb_dmm_st(d, p, pb_dmm_at(d, dst, r, col), pb_dmm_got(d, p));
        }
        pb_dmm_end(d);
    }
}

/* The paper's random shift: row p rotated by a random amount, in its own
 * bank (n loads, n stores). */
static void rotate_rows(pb_dmm *d, size_t base, size_t n, uint64_t seed, uint64_t *buf)
{
    const unsigned w = d->w;
    for (size_t c = 0; c < n; c++) {
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, base, p, c));
        pb_dmm_end(d);
        for (unsigned p = 0; p < w; p++) buf[(size_t)p * n + c] = pb_dmm_got(d, p);
    }
    for (size_t c = 0; c < n; c++) {
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned p = 0; p < w; p++) {
            size_t shift = pb_tile_hash32((uint32_t)seed ^ pb_tile_hash32(p)) % n;
            pb_dmm_st(d, p, pb_dmm_at(d, base, p, (c + shift) % n), buf[(size_t)p * n + c]);
        }
        pb_dmm_end(d);
    }
}

/* The words not yet delivered, summed over the processors by a tree in the
 * sync line and broadcast: what the paper's synchronisation step costs. */
static uint64_t tree_sum(pb_dmm *d, size_t line, const uint64_t *mine, uint64_t *acc)
{
    const unsigned w = d->w;
    pb_dmm_begin(d, PB_DMM_ST);
    for (unsigned p = 0; p < w; p++) pb_dmm_st(d, p, pb_dmm_at(d, line, p, 0), mine[p]);
    pb_dmm_end(d);
    for (unsigned p = 0; p < w; p++) acc[p] = mine[p];
    for (unsigned s = 1; s < w; s *= 2) {
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned p = 0; p < w; p++)
            if (p % (2 * s) == 0 && p + s < w) pb_dmm_ld(d, p, pb_dmm_at(d, line, p + s, 0));
        pb_dmm_end(d);
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned p = 0; p < w; p++)
            if (p % (2 * s) == 0 && p + s < w) {
                acc[p] += pb_dmm_got(d, p);
                pb_dmm_st(d, p, pb_dmm_at(d, line, p, 0), acc[p]);
            }
        pb_dmm_end(d);
    }
    pb_dmm_begin(d, PB_DMM_LD);
    for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, line, 0, 0));
    pb_dmm_end(d);
    return pb_dmm_got(d, 0);
}

unsigned pb_dmm_permute_colors(pb_dmm *d, const pb_dmm_dest *ds, pb_dmm_pair *a, size_t slot,
                               size_t out, size_t n, const pb_dmm_colors *cfg)
{
    const unsigned w = d->w;
    uint64_t *buf = malloc((size_t)w * n * sizeof *buf);
    unsigned char *pending = malloc((size_t)w * n);
    uint64_t *left = malloc(w * sizeof *left), *acc = malloc(w * sizeof *acc);
    uint64_t *word = malloc(w * sizeof *word);
    size_t *col = malloc(w * sizeof *col);
    unsigned rounds = 0;
    if (!buf || !pending || !left || !acc || !word || !col) {
        d->st.races++;
        goto done;
    }
    if (cfg->preprocess && n <= w && w % n == 0) {
        rotate_rows(d, a->cur, n, cfg->seed, buf);
        pb_dmm_convert(d, a, n, (unsigned)n, n, PB_DMM_R2C);
    }
    const size_t src = a->cur;
    for (size_t i = 0; i < (size_t)w * n; i++) pending[i] = 1;
    /* Slot tags: 0 never used, round r + 1 filled in round r. */
    for (size_t k = 0; k < n; k++) {
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned p = 0; p < w; p++) pb_dmm_st(d, p, pb_dmm_at(d, slot, p, k), 0);
        pb_dmm_end(d);
    }
    for (uint64_t total = (uint64_t)w * n; total > 0;) {
        if (rounds == cfg->max_rounds) {
            if (!cfg->fallback) {
                rounds = 0;
                goto done;
            }
            /* What is left goes straight to its destination. */
            for (size_t t = 0; t < n; t++) {
                pb_dmm_begin(d, PB_DMM_LD);
                for (unsigned p = 0; p < w; p++)
                    if (pending[(size_t)p * n + t]) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, t));
                pb_dmm_end(d);
                pb_dmm_begin(d, PB_DMM_ST);
                for (unsigned p = 0; p < w; p++) {
                    if (!pending[(size_t)p * n + t]) continue;
                    unsigned r;
                    size_t c;
                    pb_dmm_dest_of(ds, w, n, pb_dmm_got(d, p), &r, &c);
                    pb_dmm_st(d, p, pb_dmm_at(d, out, r, c), pb_dmm_got(d, p));
                }
                pb_dmm_end(d);
            }
            rounds++;
            goto done;
        }
        const uint64_t tag = (uint64_t)(rounds + 1) << 32;
        /* Filing: each pending word into its colour's slot, if free. */
        for (size_t t = 0; t < n; t++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++)
                if (pending[(size_t)p * n + t]) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, t));
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) {
                if (!pending[(size_t)p * n + t]) continue;
                unsigned r;
                size_t c;
                pb_dmm_dest_of(ds, w, n, pb_dmm_got(d, p), &r, &c);
                size_t h = pb_tile_color_hash((uint32_t)cfg->seed, rounds, r, (uint32_t)n);
                col[p] = (c + n - h) % n;
            }
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++)
                if (pending[(size_t)p * n + t]) pb_dmm_ld(d, p, pb_dmm_at(d, slot, p, col[p]));
            pb_dmm_end(d);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++)
                if (pending[(size_t)p * n + t] && (pb_dmm_got(d, p) >> 32) != (uint64_t)(rounds + 1)) {
                    pb_dmm_st(d, p, pb_dmm_at(d, slot, p, col[p]), tag | t);
                    pending[(size_t)p * n + t] = 0;
                }
            pb_dmm_end(d);
        }
        /* Communication: step k sends every processor's word of colour k. */
        for (size_t k = 0; k < n; k++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, slot, p, k));
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) {
                uint64_t s = pb_dmm_got(d, p);
                col[p] = (s >> 32) == (uint64_t)(rounds + 1) ? (size_t)(uint32_t)s : SIZE_MAX;
            }
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++)
                if (col[p] != SIZE_MAX) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, col[p]));
            pb_dmm_end(d);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++) {
                if (col[p] == SIZE_MAX) continue;
                unsigned r;
                size_t c;
                word[p] = pb_dmm_got(d, p);
                pb_dmm_dest_of(ds, w, n, word[p], &r, &c);
                pb_dmm_st(d, p, pb_dmm_at(d, out, r, c), word[p]);
            }
            pb_dmm_end(d);
        }
        rounds++;
        total = 0;
        for (unsigned p = 0; p < w; p++) {
            left[p] = 0;
            for (size_t t = 0; t < n; t++) left[p] += pending[(size_t)p * n + t];
            total += left[p];
        }
        if (cfg->count_sync) {
            uint64_t summed = tree_sum(d, cfg->sync_line, left, acc);
            if (summed != total) d->st.races++;
        }
    }
done:
    free(buf);
    free(pending);
    free(left);
    free(acc);
    free(word);
    free(col);
    return rounds;
}

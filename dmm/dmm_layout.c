#include "dmm/dmm_layout.h"

#include <stdlib.h>

void pb_dmm_convert_map(unsigned g, size_t nb, pb_dmm_conv dir, unsigned r, size_t c, unsigned *r2,
                        size_t *c2)
{
    if (dir == PB_DMM_R2C) {
        size_t k = (size_t)r * nb + c;
        *r2 = (unsigned)(k % g);
        *c2 = k / g;
    } else {
        size_t k = c * g + r;
        *r2 = (unsigned)(k / nb);
        *c2 = k % nb;
    }
}

/* The column processor r (of its group) moves at step s of a block: every
 * step's stores then go to g distinct banks of the group (see the header).
 */
static size_t diagonal_column(unsigned g, size_t nb, pb_dmm_conv dir, unsigned r, size_t s)
{
    if (g <= nb) {
        size_t q = nb / g, t = s % g, u = s / g;
        if (dir == PB_DMM_R2C) return u * g + (t + r) % g;
        return ((t + r) % g) * q + u;
    }
    size_t q = g / nb;
    if (dir == PB_DMM_R2C) return (s + r / q) % nb;
    return (s + r % nb) % nb;
}

void pb_dmm_convert(pb_dmm *d, pb_dmm_pair *a, size_t n, unsigned g, size_t nb, pb_dmm_conv dir)
{
    const unsigned w = d->w;
    for (size_t b0 = 0; b0 < n; b0 += nb)
        for (size_t s = 0; s < nb; s++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++)
                pb_dmm_ld(d, p, pb_dmm_at(d, a->cur, p, b0 + diagonal_column(g, nb, dir, p % g, s)));
            pb_dmm_end(d);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++) {
                unsigned r = p % g, r2;
                size_t c2;
                pb_dmm_convert_map(g, nb, dir, r, diagonal_column(g, nb, dir, r, s), &r2, &c2);
                pb_dmm_st(d, p, pb_dmm_at(d, a->other, p - r + r2, b0 + c2), pb_dmm_got(d, p));
            }
            pb_dmm_end(d);
        }
    pb_dmm_swap(a);
}

/* The three phases of the in-place R2C of a g x nb block. Phases 1 and 3
 * move a word within its bank (return: its new column), phase 2 within its
 * column (return: its new bank in the group). */
static size_t r2c_phase(int k, unsigned g, size_t nb, unsigned r, size_t c)
{
    if (g <= nb) {
        size_t q = nb / g, u = c / g, t = c % g;
        if (k == 1) return u * g + (t + g - r % g) % g;
        if (k == 2) return (r + t) % g;
        return ((r + g - t) % g) * q + u; /* r is the bank v here */
    }
    size_t q = g / nb, y = r / q, z = r % q;
    if (k == 1) return (c + nb - y % nb) % nb;
    if (k == 2) return z * nb + (c + y) % nb;
    return (r % nb + nb - c) % nb; /* r is the bank z * nb + c0 here */
}

/* One phase over every block: phase 1 or 3 through each processor's
 * registers (it loads its block's words, then stores them at their new
 * columns), phase 2 a column at a time. `tab` holds the phase's map for
 * every (bank of the group, column): new column or new bank. */
static void run_phase(pb_dmm *d, size_t base, size_t n, unsigned g, size_t nb, bool within_bank,
                      const size_t *tab, uint64_t *buf)
{
    const unsigned w = d->w;
    for (size_t b0 = 0; b0 < n; b0 += nb) {
        if (within_bank) {
            for (size_t c = 0; c < nb; c++) {
                pb_dmm_begin(d, PB_DMM_LD);
                for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, base, p, b0 + c));
                pb_dmm_end(d);
                for (unsigned p = 0; p < w; p++) buf[(size_t)p * nb + c] = pb_dmm_got(d, p);
            }
            for (size_t c = 0; c < nb; c++) {
                pb_dmm_begin(d, PB_DMM_ST);
                for (unsigned p = 0; p < w; p++)
                    pb_dmm_st(d, p, pb_dmm_at(d, base, p, b0 + tab[(size_t)(p % g) * nb + c]),
                              buf[(size_t)p * nb + c]);
                pb_dmm_end(d);
            }
        } else {
            for (size_t c = 0; c < nb; c++) {
                pb_dmm_begin(d, PB_DMM_LD);
                for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, base, p, b0 + c));
                pb_dmm_end(d);
                pb_dmm_begin(d, PB_DMM_ST);
                for (unsigned p = 0; p < w; p++)
                    pb_dmm_st(d, p, pb_dmm_at(d, base, p - p % g + (unsigned)tab[(size_t)(p % g) * nb + c], b0 + c),
                              pb_dmm_got(d, p));
                pb_dmm_end(d);
            }
        }
    }
}

int pb_dmm_convert_inplace(pb_dmm *d, size_t base, size_t n, unsigned g, size_t nb,
                           pb_dmm_conv dir)
{
    size_t cells = (size_t)g * nb;
    size_t *tab[3];
    uint64_t *buf = malloc((size_t)d->w * nb * sizeof *buf);
    for (int k = 0; k < 3; k++) tab[k] = malloc(cells * sizeof *tab[k]);
    int rc = (buf && tab[0] && tab[1] && tab[2]) ? 0 : -1;
    if (rc == 0) {
        /* tab[k][r * nb + c]: phase k+1's map of (bank r of the group, column
         * c); for C2R the inverse of each, applied in reverse order. */
        for (int k = 0; k < 3; k++)
            for (unsigned r = 0; r < g; r++)
                for (size_t c = 0; c < nb; c++) {
                    size_t to = r2c_phase(k + 1, g, nb, r, c);
                    if (dir == PB_DMM_R2C)
                        tab[k][(size_t)r * nb + c] = to;
                    else if (k == 1)
                        tab[k][to * nb + c] = r; /* bank r -> to, inverted */
                    else
                        tab[k][(size_t)r * nb + to] = c;
                }
        for (int i = 0; i < 3; i++) {
            int k = dir == PB_DMM_R2C ? i : 2 - i;
            run_phase(d, base, n, g, nb, k != 1, tab[k], buf);
        }
    }
    for (int k = 0; k < 3; k++) free(tab[k]);
    free(buf);
    return rc;
}

/* Bitonic sort of every column of every group of h rows, in place. */
static void bitonic_columns(pb_dmm *d, const pb_dmm_order *o, size_t base, size_t n, unsigned h,
                            const bool *desc)
{
    const unsigned w = d->w;
    uint64_t *own = malloc(w * sizeof *own);
    if (!own) {
        d->st.races++;
        return;
    }
    for (unsigned k = 2; k <= h; k *= 2)
        for (unsigned j = k / 2; j >= 1; j /= 2)
            for (size_t c = 0; c < n; c++) {
                pb_dmm_begin(d, PB_DMM_LD);
                for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, base, p, c));
                pb_dmm_end(d);
                for (unsigned p = 0; p < w; p++) own[p] = pb_dmm_got(d, p);
                pb_dmm_begin(d, PB_DMM_LD);
                for (unsigned p = 0; p < w; p++) {
                    unsigned i = p % h;
                    pb_dmm_ld(d, p, pb_dmm_at(d, base, p - i + (i ^ j), c));
                }
                pb_dmm_end(d);
                pb_dmm_begin(d, PB_DMM_ST);
                for (unsigned p = 0; p < w; p++) {
                    unsigned i = p % h;
                    uint64_t mine = own[p], theirs = pb_dmm_got(d, p);
                    bool up = ((i & k) == 0) != desc[p];
                    bool lower = (i & j) == 0;
                    /* The lower of the pair keeps the smaller in an ascending
                     * block; equal words: each keeps its own. */
                    bool want_small = lower == up;
                    bool take = want_small ? pb_dmm_before(o, theirs, mine, false)
                                           : pb_dmm_before(o, mine, theirs, false);
                    pb_dmm_st(d, p, pb_dmm_at(d, base, p, c), take ? theirs : mine);
                }
                pb_dmm_end(d);
            }
    free(own);
}

void pb_dmm_colsort(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, unsigned h,
                    const bool *desc)
{
    if (h > n) {
        bitonic_columns(d, o, a->cur, n, h, desc);
        return;
    }
    pb_dmm_convert(d, a, n, h, h, PB_DMM_R2C);
    pb_dmm_rowsort(d, o, a, n, h, desc);
    pb_dmm_convert(d, a, n, h, h, PB_DMM_C2R);
}

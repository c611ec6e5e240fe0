#include "dmm/dmm.h"

#include <stdlib.h>
#include <string.h>

int pb_dmm_init(pb_dmm *d, unsigned w, size_t lines)
{
    memset(d, 0, sizeof *d);
    if (w == 0) return -1;
    d->w = w;
    d->lines = lines;
    d->mem = calloc(lines ? lines * w : 1, sizeof *d->mem);
    d->act = malloc(w * sizeof *d->act);
    d->addr = malloc(w * sizeof *d->addr);
    d->val = calloc(w, sizeof *d->val);
    d->on = calloc(w, 1);
    d->count = calloc(w, sizeof *d->count);
    d->sorted = malloc(w * sizeof *d->sorted);
    if (!d->mem || !d->act || !d->addr || !d->val || !d->on || !d->count || !d->sorted) {
        pb_dmm_free(d);
        return -1;
    }
    return 0;
}

void pb_dmm_free(pb_dmm *d)
{
    free(d->mem);
    free(d->act);
    free(d->addr);
    free(d->val);
    free(d->on);
    free(d->count);
    free(d->sorted);
    memset(d, 0, sizeof *d);
}

void pb_dmm_reset_stats(pb_dmm *d) { memset(&d->st, 0, sizeof d->st); }

void pb_dmm_begin(pb_dmm *d, pb_dmm_kind kind)
{
    d->kind = kind;
    d->nact = 0;
}

static bool issue(pb_dmm *d, unsigned p, size_t addr, pb_dmm_kind kind)
{
    if (p >= d->w || d->kind != kind || addr >= d->lines * d->w || d->on[p]) {
        d->st.races++;
        return false;
    }
    d->on[p] = 1;
    d->act[d->nact++] = p;
    d->addr[p] = addr;
    return true;
}

void pb_dmm_ld(pb_dmm *d, unsigned p, size_t addr) { issue(d, p, addr, PB_DMM_LD); }

void pb_dmm_st(pb_dmm *d, unsigned p, size_t addr, uint64_t v)
{
    if (issue(d, p, addr, PB_DMM_ST)) d->val[p] = v;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* The bank of a word: a mask for a power-of-two w (every machine the tile
 * models run, w = 32), where the division would dominate a step's cost. */
static inline unsigned bank_of(const pb_dmm *d, size_t addr)
{
    return (unsigned)((d->w & (d->w - 1)) == 0 ? addr & (d->w - 1) : addr % d->w);
}

void pb_dmm_end(pb_dmm *d)
{
    if (d->nact == 0) return;
    unsigned ways = 1;
    bool shared = false;
    for (unsigned i = 0; i < d->nact; i++) {
        unsigned b = bank_of(d, d->addr[d->act[i]]);
        if (++d->count[b] > 1) shared = true;
    }
    if (shared) {
        /* Some bank is asked more than once: count its distinct words (equal
         * words are one broadcast; equal stores are a race). */
        for (unsigned i = 0; i < d->nact; i++) d->sorted[i] = d->addr[d->act[i]];
        qsort(d->sorted, d->nact, sizeof *d->sorted, cmp_size);
        for (unsigned i = 0; i < d->nact; i++) d->count[bank_of(d, d->sorted[i])] = 0;
        for (unsigned i = 0; i < d->nact; i++) {
            if (i > 0 && d->sorted[i] == d->sorted[i - 1]) {
                if (d->kind == PB_DMM_ST) d->st.races++;
                continue;
            }
            unsigned b = bank_of(d, d->sorted[i]);
            if (++d->count[b] > ways) ways = d->count[b];
        }
    }
    for (unsigned i = 0; i < d->nact; i++) {
        unsigned p = d->act[i];
        d->count[bank_of(d, d->addr[p])] = 0;
        d->on[p] = 0;
        if (d->kind == PB_DMM_LD)
            d->val[p] = d->mem[d->addr[p]];
        else
            d->mem[d->addr[p]] = d->val[p];
    }
    d->st.accesses += d->nact;
    if (d->kind == PB_DMM_LD) {
        d->st.ld_steps++;
        d->st.ld_conflicts += ways - 1;
    } else {
        d->st.st_steps++;
        d->st.st_conflicts += ways - 1;
    }
    d->nact = 0;
}

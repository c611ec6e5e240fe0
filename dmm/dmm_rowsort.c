#include "dmm/dmm_rowsort.h"

#include <stdlib.h>

/* Per-processor registers of a routine. */
typedef struct regs {
    uint64_t *a, *b, *c;
    size_t *i, *j;
} regs;

static bool regs_alloc(regs *r, unsigned w)
{
    r->a = malloc(w * sizeof *r->a);
    r->b = malloc(w * sizeof *r->b);
    r->c = malloc(w * sizeof *r->c);
    r->i = malloc(w * sizeof *r->i);
    r->j = malloc(w * sizeof *r->j);
    return r->a && r->b && r->c && r->i && r->j;
}

static void regs_free(regs *r)
{
    free(r->a);
    free(r->b);
    free(r->c);
    free(r->i);
    free(r->j);
}

/* Stable counting sort of every segment by label, from array src into dst:
 * zero the counters, count, exclusive prefix in the row's label order,
 * scatter. Per segment: labels + 3 len + 2 labels + 4 len steps. */
static void count_sort(pb_dmm *d, const pb_dmm_order *o, size_t src, size_t dst, size_t n,
                       size_t len, const bool *desc, regs *r)
{
    const unsigned w = d->w, C = o->nlabels;
    for (size_t s0 = 0; s0 < n; s0 += len) {
        for (unsigned k = 0; k < C; k++) {
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++) pb_dmm_st(d, p, pb_dmm_at(d, o->cnt, p, k), 0);
            pb_dmm_end(d);
        }
        for (size_t t = 0; t < len; t++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, s0 + t));
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) r->i[p] = pb_dmm_label(o, pb_dmm_got(d, p));
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, o->cnt, p, r->i[p]));
            pb_dmm_end(d);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++)
                pb_dmm_st(d, p, pb_dmm_at(d, o->cnt, p, r->i[p]), pb_dmm_got(d, p) + 1);
            pb_dmm_end(d);
        }
        for (unsigned p = 0; p < w; p++) r->a[p] = s0;
        for (unsigned k = 0; k < C; k++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++)
                pb_dmm_ld(d, p, pb_dmm_at(d, o->cnt, p, desc[p] ? C - 1 - k : k));
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) r->b[p] = pb_dmm_got(d, p);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++)
                pb_dmm_st(d, p, pb_dmm_at(d, o->cnt, p, desc[p] ? C - 1 - k : k), r->a[p]);
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) r->a[p] += r->b[p];
        }
        for (size_t t = 0; t < len; t++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, s0 + t));
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) {
                r->a[p] = pb_dmm_got(d, p);
                r->i[p] = pb_dmm_label(o, r->a[p]);
            }
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, o->cnt, p, r->i[p]));
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) r->j[p] = (size_t)pb_dmm_got(d, p);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++) pb_dmm_st(d, p, pb_dmm_at(d, dst, p, r->j[p]), r->a[p]);
            pb_dmm_end(d);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++)
                pb_dmm_st(d, p, pb_dmm_at(d, o->cnt, p, r->i[p]), r->j[p] + 1);
            pb_dmm_end(d);
        }
    }
}

/* One level of a bottom-up merge sort: runs of `run` words merged in pairs
 * from src into dst, within every segment. The heads of both runs sit in
 * registers; each output word is one store and (while its run lasts) one
 * load of the next word of the run it came from. */
static void merge_level(pb_dmm *d, size_t src, size_t dst, size_t n, size_t run, const bool *desc,
                        regs *r)
{
    const unsigned w = d->w;
    for (size_t a0 = 0; a0 < n; a0 += 2 * run) {
        const size_t b0 = a0 + run, end = a0 + 2 * run;
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, a0));
        pb_dmm_end(d);
        for (unsigned p = 0; p < w; p++) r->a[p] = pb_dmm_got(d, p), r->i[p] = a0;
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned p = 0; p < w; p++) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, b0));
        pb_dmm_end(d);
        for (unsigned p = 0; p < w; p++) r->b[p] = pb_dmm_got(d, p), r->j[p] = b0;
        for (size_t t = a0; t < end; t++) {
            /* take_a: kept in c[p] for the load that follows. */
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned p = 0; p < w; p++) {
                bool a_left = r->i[p] < b0, b_left = r->j[p] < end;
                bool take_a = a_left && (!b_left || !(desc[p] ? r->b[p] > r->a[p] : r->b[p] < r->a[p]));
                r->c[p] = take_a;
                pb_dmm_st(d, p, pb_dmm_at(d, dst, p, t), take_a ? r->a[p] : r->b[p]);
                if (take_a)
                    r->i[p]++;
                else
                    r->j[p]++;
            }
            pb_dmm_end(d);
            if (t + 1 == end) break;
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned p = 0; p < w; p++) {
                size_t next = r->c[p] ? r->i[p] : r->j[p], lim = r->c[p] ? b0 : end;
                if (next < lim) pb_dmm_ld(d, p, pb_dmm_at(d, src, p, next));
            }
            pb_dmm_end(d);
            for (unsigned p = 0; p < w; p++) {
                size_t next = r->c[p] ? r->i[p] : r->j[p], lim = r->c[p] ? b0 : end;
                if (next >= lim) continue;
                if (r->c[p])
                    r->a[p] = pb_dmm_got(d, p);
                else
                    r->b[p] = pb_dmm_got(d, p);
            }
        }
    }
}

void pb_dmm_rowsort(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, size_t len,
                    const bool *desc)
{
    regs r;
    if (!regs_alloc(&r, d->w)) {
        d->st.races++; /* no way to run it: make the failure visible */
        regs_free(&r);
        return;
    }
    if (o->by_label) {
        count_sort(d, o, a->cur, a->other, n, len, desc, &r);
        pb_dmm_swap(a);
    } else {
        /* Merging runs within segments: a run never crosses a segment
         * boundary because len is a power of two multiple of every run. */
        for (size_t run = 1; run < len; run *= 2) {
            merge_level(d, a->cur, a->other, n, run, desc, &r);
            pb_dmm_swap(a);
        }
    }
    regs_free(&r);
}

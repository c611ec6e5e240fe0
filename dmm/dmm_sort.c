#include "dmm/dmm_sort.h"

#include <stdlib.h>

/* dst[p] = base[p] xor (the parity of p's row within its group of g). */
static void alternate(unsigned w, const bool *base, unsigned g, bool *dst)
{
    for (unsigned p = 0; p < w; p++) dst[p] = base[p] != (((p % g) & 1u) != 0);
}

/* dst[p] = base[p] xor (the parity of p's group of g rows within its group
 * of h rows). */
static void alternate_groups(unsigned w, const bool *base, unsigned h, unsigned g, bool *dst)
{
    for (unsigned p = 0; p < w; p++) dst[p] = base[p] != ((((p % h) / g) & 1u) != 0);
}

void pb_dmm_lemma1(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, unsigned g,
                   const bool *desc)
{
    bool *alt = malloc(d->w * sizeof *alt);
    if (!alt) {
        d->st.races++;
        return;
    }
    alternate(d->w, desc, g, alt);
    for (int round = 0; round < 2; round++) {
        pb_dmm_rowsort(d, o, a, n, n, alt);
        pb_dmm_convert(d, a, n, g, n, PB_DMM_R2C);
        pb_dmm_rowsort(d, o, a, n, n, desc);
        pb_dmm_convert(d, a, n, g, n, PB_DMM_C2R);
    }
    pb_dmm_rowsort(d, o, a, n, n, desc);
    free(alt);
}

unsigned pb_dmm_thm1_superrow(unsigned h, size_t n)
{
    unsigned g = 1;
    while (2 * g <= h && (size_t)(2 * g) * (2 * g) <= n) g *= 2;
    return g;
}

unsigned pb_dmm_thm1_rounds(unsigned h, unsigned g)
{
    /* After Lemma 1 each super-row has at most one dirty row: h / g. A
     * column sort gathers d dirty rows into one contiguous run, which meets
     * at most ceil((d - 1) / g) + 1 super-rows; sorting those leaves one
     * dirty row in each. Two, in adjacent super-rows sorted in opposite
     * directions, is what the last column sort resolves. */
    unsigned d = h / g, rounds = 0, s;
    if (g < 2) return 0; /* no progress possible: callers refuse g < 2 */
    do {
        s = d <= 1 ? d : (d - 1 + g - 1) / g + 1;
        if (s > h / g) s = h / g;
        d = s;
        rounds++;
    } while (s > 2);
    return rounds;
}

void pb_dmm_thm1(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n, unsigned h,
                 const bool *desc)
{
    unsigned g = pb_dmm_thm1_superrow(h, n), rounds = pb_dmm_thm1_rounds(h, g);
    bool *alt = malloc(d->w * sizeof *alt);
    if (!alt || g < 2) {
        d->st.races++;
        free(alt);
        return;
    }
    alternate_groups(d->w, desc, h, g, alt);
    pb_dmm_lemma1(d, o, a, n, g, desc);
    for (unsigned r = 0; r < rounds; r++) {
        pb_dmm_colsort(d, o, a, n, h, desc);
        pb_dmm_lemma1(d, o, a, n, g, alt);
    }
    pb_dmm_colsort(d, o, a, n, h, desc);
    pb_dmm_rowsort(d, o, a, n, n, desc);
    free(alt);
}

void pb_dmm_thm2(pb_dmm *d, const pb_dmm_order *o, pb_dmm_pair *a, size_t n)
{
    const unsigned w = d->w;
    bool *asc = calloc(w, sizeof *asc), *alt = malloc(w * sizeof *alt);
    if (!asc || !alt) {
        d->st.races++;
        free(asc);
        free(alt);
        return;
    }
    alternate_groups(w, asc, w, (unsigned)n, alt);
    pb_dmm_rowsort(d, o, a, n, n, asc);
    pb_dmm_colsort(d, o, a, n, w, asc);
    pb_dmm_convert(d, a, n, w, n, PB_DMM_C2R);
    pb_dmm_colsort(d, o, a, n, w, asc);
    pb_dmm_thm1(d, o, a, n, (unsigned)n, alt);
    pb_dmm_colsort(d, o, a, n, w, asc);
    pb_dmm_rowsort(d, o, a, n, n, asc);
    free(asc);
    free(alt);
}

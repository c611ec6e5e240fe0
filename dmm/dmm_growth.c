#include "dmm/dmm_growth.h"

#include <math.h>
#include <string.h>

/* Slopes of log steps over log m (or, for series over w, over log log2 w:
 * the w factor of every bound here is a power of log w): an O(m) algorithm
 * has slope 1 (less where lower-order terms still weigh at small m),
 * m log m about 1.1-1.2 over these ranges (the local slope of m log2 m is
 * 1 + 1/ln m). The ratio spread bounds steps / bound over the series. */
static const pb_dmm_series series[] = {
    /* Naive methods: 2m steps whatever the input; the conflicts differ. */
    {"naive-partition", PB_DMM_ONEBANK, PB_DMM_VARY_M, 32, 32, 7, 0.99, 1.01, 1.01},
    {"naive-partition", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 0.99, 1.01, 1.01},
    {"naive-permute", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 0.99, 1.01, 1.01},
    {"naive-permute", PB_DMM_UNIFORM, PB_DMM_VARY_W, 32, 32, 8, -0.01, 0.01, 1.01},
    /* Conversions: 2m (diagonal) and 6m (in place) exactly. */
    {"convert-diagonal", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 0.99, 1.01, 1.01},
    {"convert-inplace", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 0.99, 1.01, 1.01},
    /* Lemma 1 and Corollary 1: w = 4 <= sqrt(m). */
    {"lemma1-sort", PB_DMM_UNIFORM, PB_DMM_VARY_M, 4, 16, 9, 1.05, 1.3, 1.5},
    {"corollary1-partition", PB_DMM_UNIFORM, PB_DMM_VARY_M, 4, 16, 9, 0.9, 1.05, 1.5},
    /* Theorem 1: the paper's square case w = m, and the GPU's w = 32. */
    {"thm1-sort", PB_DMM_UNIFORM, PB_DMM_VARY_BOTH, 16, 16, 6, 1.05, 1.4, 2.0},
    {"thm1-partition", PB_DMM_UNIFORM, PB_DMM_VARY_BOTH, 16, 16, 6, 0.85, 1.15, 2.0},
    {"thm1-sort", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 1.0, 1.3, 2.0},
    {"thm1-partition", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 0.8, 1.05, 2.0},
    /* Theorem 2: m = 16, w growing (bitonic columns: m log^2 w). */
    {"thm2-sort", PB_DMM_UNIFORM, PB_DMM_VARY_W, 16, 16, 9, 0.6, 2.0, 2.0},
    /* The colouring permutation: O(m) a round, a few rounds. */
    {"colors-permute", PB_DMM_UNIFORM, PB_DMM_VARY_M, 32, 32, 7, 0.9, 1.1, 1.6},
    {"colors-permute", PB_DMM_UNIFORM, PB_DMM_VARY_W, 16, 16, 9, -0.2, 0.6, 1.8},
};

size_t pb_dmm_series_count(void) { return sizeof series / sizeof series[0]; }
const pb_dmm_series *pb_dmm_series_at(size_t i)
{
    return i < pb_dmm_series_count() ? &series[i] : NULL;
}

double pb_dmm_loglog_slope(const double *x, const double *y, unsigned k)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (unsigned i = 0; i < k; i++) {
        double lx = log(x[i]), ly = log(y[i]);
        sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly;
    }
    double den = k * sxx - sx * sx;
    return den != 0 ? (k * sxy - sx * sy) / den : NAN;
}

int pb_dmm_series_run(const pb_dmm_series *s, uint64_t seed, pb_dmm_series_result *out,
                      pb_err *err)
{
    memset(out, 0, sizeof *out);
    out->s = s;
    const pb_dmm_algo *a = pb_dmm_algo_find(s->algo);
    if (!a) return pb_err_set(err, "no simulator algorithm '%s'", s->algo);
    if (s->points > PB_DMM_SERIES_MAX) return pb_err_set(err, "%s: too many points", s->algo);
    double x[PB_DMM_SERIES_MAX] = {0}, steps[PB_DMM_SERIES_MAX] = {0},
           conf[PB_DMM_SERIES_MAX] = {0};
    bool conflicts_everywhere = true;
    out->all_correct = true;
    out->ratio_min = INFINITY;
    out->ratio_max = 0;
    for (unsigned i = 0; i < s->points; i++) {
        unsigned w = s->w0;
        size_t m = s->m0;
        if (s->vary != PB_DMM_VARY_W) m <<= i;
        if (s->vary != PB_DMM_VARY_M) w <<= i;
        out->w[i] = w;
        out->m[i] = m;
        if (pb_dmm_run(a, w, m, s->pattern, seed + i, &out->r[i], err)) return -1;
        const pb_dmm_result *r = &out->r[i];
        x[i] = s->vary == PB_DMM_VARY_W ? log2((double)w) : (double)m;
        steps[i] = (double)pb_dmm_steps(&r->st);
        conf[i] = (double)pb_dmm_conflicts(&r->st);
        if (conf[i] <= 0) conflicts_everywhere = false;
        double ratio = steps[i] / a->bound_fn(w, m);
        if (ratio < out->ratio_min) out->ratio_min = ratio;
        if (ratio > out->ratio_max) out->ratio_max = ratio;
        out->all_correct = out->all_correct && r->correct;
        out->conflicts += pb_dmm_conflicts(&r->st);
        out->races += r->st.races;
        if (r->rounds > out->max_rounds) out->max_rounds = r->rounds;
    }
    out->slope = pb_dmm_loglog_slope(x, steps, s->points);
    out->conflict_slope = conflicts_everywhere ? pb_dmm_loglog_slope(x, conf, s->points) : NAN;
    return 0;
}

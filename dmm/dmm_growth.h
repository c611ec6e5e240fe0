/* How the simulator's step counts grow with m and w: a series of doubling
 * sizes per algorithm, the least-squares slope of log(steps) over log(the
 * size that varies), and steps over the paper's bound at each point. The
 * tests hold every series to its expected growth; `permbench dmm growth`
 * prints the table of docs/bank-conflicts.md. */
#ifndef PB_DMM_GROWTH_H
#define PB_DMM_GROWTH_H

#include "dmm/dmm_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_dmm_vary { PB_DMM_VARY_M, PB_DMM_VARY_W, PB_DMM_VARY_BOTH } pb_dmm_vary;

#define PB_DMM_SERIES_MAX 10

typedef struct pb_dmm_series {
    const char *algo;
    pb_dmm_pattern pattern;
    pb_dmm_vary vary;
    unsigned w0;      /* first point; doubling what varies */
    size_t m0;
    unsigned points;  /* <= PB_DMM_SERIES_MAX */
    double slope_lo, slope_hi; /* the expected slope of log steps */
    double ratio_spread;       /* max / min of steps / bound allowed */
} pb_dmm_series;

typedef struct pb_dmm_series_result {
    const pb_dmm_series *s;
    unsigned w[PB_DMM_SERIES_MAX];
    size_t m[PB_DMM_SERIES_MAX];
    pb_dmm_result r[PB_DMM_SERIES_MAX];
    double slope;                /* of log steps over log m (log log2 w for series over w) */
    double conflict_slope;       /* the same of conflicts; NAN when some point has none */
    double ratio_min, ratio_max; /* steps / bound */
    bool all_correct;
    uint64_t conflicts, races;   /* summed over the points */
    unsigned max_rounds;
} pb_dmm_series_result;

size_t pb_dmm_series_count(void);
const pb_dmm_series *pb_dmm_series_at(size_t i);

/* Runs every point of a series (seed for the inputs). */
int pb_dmm_series_run(const pb_dmm_series *s, uint64_t seed, pb_dmm_series_result *out,
                      pb_err *err);

/* Least-squares slope of y over x, both logged (positive values). */
double pb_dmm_loglog_slope(const double *x, const double *y, unsigned k);

#ifdef __cplusplus
}
#endif

#endif

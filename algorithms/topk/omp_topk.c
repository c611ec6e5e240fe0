/* omp-topk: the CPU top-k with OpenMP, the C twin's own code run as a
 * module (topk_select.h): rows in parallel when there are at least as many
 * rows as threads, otherwise each long row split into one chunk per thread,
 * each thread keeping its chunk's k best by quickselect, then a final
 * selection over the threads' candidates. Output unsorted within a row,
 * or with `sorted = yes` put in rank order after the selection (the twin's
 * ranking, rows in parallel; one row is sorted by one thread).
 * Ties at the k-th key always go to the smallest indices (the candidates
 * break them so), which meets both `ties` settings at no extra cost.
 * fp64 and u64 rows are 64-bit words, their candidates 96-bit ones
 * (topk_select.h); the results' values are in the dtype's words. */
#include <stdlib.h>
#include <string.h>

#include "core/module.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_hooks.h"
#include "families/topk/topk_problem.h"
#include "families/topk/topk_select.h"

enum { P_THREADS = PB_TOPK_NCOMMON };

static const pb_param_spec params[] = {
    PB_TOPK_COMMON_PARAMS,
    PB_PARAM_THREADS,
};

typedef struct omp_topk {
    pb_topk_problem p;
    pb_topk_ws ws;
    void *vals; /* in the dtype's words */
    uint32_t *idx;
    void *rank, *rank_tmp; /* sorted = yes: the ranking's scratch, candidates */
} omp_topk;

static uint64_t footprint(const pb_point *pt)
{
    int dtype = (int)pt->params->v[PB_TOPK_P_DTYPE];
    /* Values and indices, and with sorted = yes two candidates a result. */
    uint64_t per = pb_topk_word_bytes(dtype) + 4 +
                   (pt->params->v[PB_TOPK_P_SORTED] ? 2 * pb_topk_cand_bytes(dtype) : 0);
    return pb_topk_problem_host_bytes(pt) + per * pb_topk_out_bound(pt) +
           pb_topk_ws_bytes(pt, pt->threads);
}

static void release(void *state)
{
    omp_topk *s = state;
    if (!s) return;
    pb_topk_problem_free(&s->p);
    pb_topk_ws_free(&s->ws);
    free(s->vals);
    free(s->idx);
    free(s->rank);
    free(s->rank_tmp);
    free(s);
}

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    omp_topk *s = calloc(1, sizeof *s);
    *state = s;
    if (!s) return pb_err_set(err, "out of memory");
    if (pb_topk_problem_init(&s->p, pt, err)) return -1;
    size_t outs = (size_t)s->p.out_total, cells = outs ? outs : 1;
    s->vals = malloc(cells * pb_topk_word_bytes(s->p.dtype));
    s->idx = malloc(cells * sizeof *s->idx);
    if (!s->vals || !s->idx) return pb_err_set(err, "out of memory for %zu top-k results", outs);
    if (s->p.sorted) {
        s->rank = malloc(cells * pb_topk_cand_bytes(s->p.dtype));
        s->rank_tmp = malloc(cells * pb_topk_cand_bytes(s->p.dtype));
        if (!s->rank || !s->rank_tmp) return pb_err_set(err, "out of memory to rank %zu top-k results", outs);
    }
    return pb_topk_ws_init(&s->ws, &s->p, pt->threads, err);
}

/* The input is only read, so every repeat selects from the same values. */
static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample, (void)err;
    omp_topk *s = state;
    pb_topk_select(&s->p, &s->ws, s->vals, s->idx);
    if (s->p.sorted) pb_topk_rank_rows(&s->p, s->vals, s->idx, s->rank, s->rank_tmp, s->ws.threads);
    return 0;
}

/* Before every sample: the results poisoned. */
static int refresh(void *state, pb_err *err)
{
    (void)err;
    omp_topk *s = state;
    size_t outs = (size_t)s->p.out_total;
    memset(s->vals, 0xa5, outs * pb_topk_word_bytes(s->p.dtype));
    memset(s->idx, 0xa5, outs * sizeof *s->idx);
    return 0;
}

static int result(void *state, const void **out, pb_err *err)
{
    (void)err;
    *out = ((omp_topk *)state)->vals;
    return 0;
}

static int verify(void *state, pb_err *err)
{
    omp_topk *s = state;
    return pb_topk_check(&s->p, s->vals, s->idx, err);
}

PB_MODULE_DEF(omp_topk, "cpu-topk", pb_topk_cpu_hooks,
    .summary = "CPU top-k (OpenMP): per-thread candidate buffers and quickselect; the C twin",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = run, .result = result,
    .verify = verify, .release = release, .refresh = refresh);

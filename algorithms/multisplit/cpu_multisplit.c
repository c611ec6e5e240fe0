/* The multisplit family on the CPU: the sequential C twin as a module (the
 * reference every multisplit is checked against, and the single-core
 * baseline), and its OpenMP form (per-chunk histograms, one scan, a parallel
 * stable scatter), which gives the same output for any thread count.
 *
 * Output layout: keys[n], then (key-value points) vals[n], in one block, so
 * result() is the point's n * item_bytes bytes of output; the bucket offsets
 * are kept beside it and verified too. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/module.h"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_problem.h"

static const pb_param_spec twin_params[] = {PB_MS_COMMON_PARAMS};
static const pb_param_spec omp_params[] = {PB_MS_COMMON_PARAMS, PB_PARAM_THREADS};

typedef struct ms_state {
    pb_ms_problem p;
    uint32_t *out; /* keys[n], then vals[n] for pairs */
    uint64_t offsets[PB_MS_MAX_BUCKETS + 1];
    int threads;
} ms_state;

static uint64_t footprint(const pb_point *pt)
{
    /* Input and twin (pb_ms_problem_host_bytes), plus the output. */
    return pb_ms_problem_host_bytes(pt) + pt->n * (uint64_t)pt->item_bytes;
}

static void release(void *state)
{
    ms_state *s = state;
    if (!s) return;
    pb_ms_problem_free(&s->p);
    free(s->out);
    free(s);
}

static int prepare_with(const pb_point *pt, int threads, void **state, pb_err *err)
{
    ms_state *s = calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "out of memory");
    if (pb_ms_problem_init(&s->p, pt, err)) {
        free(s);
        return -1;
    }
    size_t bytes = (size_t)pt->n * pt->item_bytes;
    s->out = malloc(bytes ? bytes : 1);
    if (!s->out) {
        release(s);
        return pb_err_set(err, "cannot allocate %zu bytes of multisplit output", bytes);
    }
    s->threads = threads;
    /* First touch by the threads that will scatter into it, and no page
     * faults inside the first timed run. */
    char *o = (char *)s->out;
#pragma omp parallel for schedule(static) num_threads(threads) if (bytes >= PB_MS_PAR_MIN)
    for (size_t i = 0; i < bytes; i += 4096) o[i] = 0;
    *state = s;
    return 0;
}

static int prepare_twin(const pb_point *pt, void **state, pb_err *err)
{
    return prepare_with(pt, 1, state, err);
}

static int prepare_omp(const pb_point *pt, void **state, pb_err *err)
{
    return prepare_with(pt, pt->threads > 0 ? pt->threads : omp_get_max_threads(), state, err);
}

/* Every run splits the same input afresh: a multisplit's output does not
 * depend on the sample, and its input is never overwritten. */
static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample, (void)err;
    ms_state *s = state;
    pb_ms_problem *p = &s->p;
    pb_ms_split(&p->fn, p->keys, p->vals, p->n, s->out, p->pairs ? s->out + p->n : NULL, s->offsets,
                s->threads);
    return 0;
}

/* Before every sample: the output and offsets poisoned. */
static int refresh(void *state, pb_err *err)
{
    (void)err;
    ms_state *s = state;
    memset(s->out, 0xa5, (size_t)s->p.n * (s->p.pairs ? 8 : 4));
    memset(s->offsets, 0xa5, sizeof s->offsets);
    return 0;
}

static int result(void *state, const void **out, pb_err *err)
{
    (void)err;
    *out = ((ms_state *)state)->out;
    return 0;
}

static int verify(void *state, pb_err *err)
{
    ms_state *s = state;
    pb_ms_problem *p = &s->p;
    if (pb_ms_check_stable(p, s->out, p->pairs ? s->out + p->n : NULL, err)) return -1;
    for (uint32_t b = 0; b <= p->m; b++)
        if (s->offsets[b] != p->offsets[b])
            return pb_err_set(err, "multisplit offset %u is %llu, the twin's is %llu", b,
                              (unsigned long long)s->offsets[b], (unsigned long long)p->offsets[b]);
    return 0;
}

/* The twin and the OpenMP multisplit keep the same state: only prepare differs. */
static const pb_module_hooks cpu_ms_hooks = {
    .family = &pb_family_multisplit, .device = PB_DEVICE_CPU, .footprint = footprint, .run = run,
    .result = result, .verify = verify, .release = release, .refresh = refresh,
};

PB_MODULE_DEF(multisplit_twin, "cpu-multisplit-twin", cpu_ms_hooks,
    .summary = "the sequential C twin: stable counting-sort multisplit (count, scan, scatter)",
    PB_PARAMS(twin_params), .prepare = prepare_twin);

PB_MODULE_DEF(omp_multisplit, "cpu-multisplit", cpu_ms_hooks,
    .summary = "stable multisplit, OpenMP: per-chunk histograms, one scan, parallel scatter; "
               "the twin's output for any thread count",
    PB_PARAMS(omp_params), .prepare = prepare_omp);

/* tile-partition-twin, tile-sort-twin, tile-permute-twin: the output of
 * each GPU tile kernel computed on the CPU, one twin a GPU module, with its
 * parameters (m, pattern, method) by the same names, so that each is that
 * module's reference (core/module.h) and every GPU sample is compared with
 * its output by fingerprint.
 *
 * Where the contract fixes the output (every method but the paper's
 * partition: a stable grouping, a sort, a permutation by destination), the
 * twin is the C reference: the kernels give it bit for bit (the GPU tests)
 * and so do the simulator's models of them (dmm_tile_models). The paper's
 * partition orders each label's items its own way: there the twin is the
 * simulator's model of the kernel (dmm/dmm_tile_model.h), whose
 * shared-memory program is the kernel's step for step (the GPU test
 * compares the two bit for bit). Running the model for every method would
 * give the same outputs at 8 to 45 times the cost (docs/bank-conflicts.md),
 * and the harness runs a reference once for every row (the tile modules
 * are unseeded): the models of the three n = 2^24 sweeps would take minutes
 * of a GPU node's CPU. */
#include <stdlib.h>
#include <string.h>

#include "core/fingerprint.h"
#include "dmm/dmm_tile.h"
#include "families/tile/tile_problem.h"

static const pb_param_spec params[] = {
    PB_TILE_COMMON_PARAMS,
};

typedef struct twin {
    pb_tile_problem prob;
    uint32_t *out;
} twin;

static void release(void *state)
{
    twin *s = state;
    if (!s) return;
    pb_tile_problem_free(&s->prob);
    free(s->out);
    free(s);
}

static int prepare(pb_tile_op op, const pb_point *pt, void **state, pb_err *err)
{
    twin *s = calloc(1, sizeof *s);
    *state = s;
    if (!s) return pb_err_set(err, "out of host memory");
    pb_tile_method method = (pb_tile_method)pt->params->v[PB_TILE_P_METHOD];
    if (pb_tile_problem_init(&s->prob, op, method, pt, err)) return -1;
    s->out = malloc(s->prob.n * sizeof *s->out);
    if (!s->out) return pb_err_set(err, "out of host memory for the output");
    return 0;
}

static int prepare_partition(const pb_point *pt, void **state, pb_err *err)
{
    return prepare(PB_TILE_PARTITION, pt, state, err);
}

static int prepare_sort(const pb_point *pt, void **state, pb_err *err)
{
    return prepare(PB_TILE_SORT, pt, state, err);
}

static int prepare_permute(const pb_point *pt, void **state, pb_err *err)
{
    return prepare(PB_TILE_PERMUTE, pt, state, err);
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample; /* deterministic, as the kernels are: the input is the seed's */
    twin *s = state;
    const pb_tile_problem *p = &s->prob;
    const int64_t tiles = (int64_t)p->tiles;
    const uint64_t N = 32 * (uint64_t)p->m;
    int failed = 0;
    pb_err first = {{0}};
#pragma omp parallel for schedule(dynamic, 1)
    for (int64_t t = 0; t < tiles; t++) {
        const uint32_t *in = p->in + (uint64_t)t * N;
        uint32_t *out = s->out + (uint64_t)t * N;
        if (pb_tile_method_exact(p->op, p->method)) {
            pb_tile_reference(p->op, p->m, in, out);
            continue;
        }
        pb_dmm_stats st = {0};
        pb_err e = {{0}};
        if (pb_tile_model_tile(p->op, p->method, p->m, in, out, pb_tile_paper_seed(p->seed, (uint64_t)t),
                               &st, NULL, &e) || st.races) {
#pragma omp critical(pb_tile_twin)
            if (!failed++) first = e;
        }
    }
    if (failed) return pb_err_set(err, "tile twin: %s", first.msg[0] ? first.msg : "a race in the model");
    return 0;
}

/* Before every sample: the output poisoned (the input is only read). */
static int refresh(void *state, pb_err *err)
{
    (void)err;
    twin *s = state;
    memset(s->out, 0xa5, s->prob.n * sizeof *s->out);
    return 0;
}

static int fingerprint(void *state, uint64_t *fp, pb_err *err)
{
    (void)err;
    twin *s = state;
    *fp = pb_fingerprint(s->out, s->prob.n, 4);
    return 0;
}

static int result(void *state, const void **out, pb_err *err)
{
    (void)err;
    *out = ((twin *)state)->out;
    return 0;
}

/* The contract against the C reference: what the harness checks the twin
 * by, every sample of its own and once for each stream it is a reference
 * for. */
static int verify(void *state, pb_err *err)
{
    twin *s = state;
    return pb_tile_check(&s->prob, s->out, err);
}

static uint64_t footprint(const pb_point *pt) { return 8 * pt->n + (1u << 20); }

static const pb_module_hooks twin_hooks = {
    .family = &pb_family_tile, .device = PB_DEVICE_CPU, .max_n = UINT32_MAX, .footprint = footprint,
    .run = run, .result = result, .verify = verify, .release = release, .refresh = refresh,
    .fingerprint = fingerprint,
};

#define PB_TILE_TWIN(id)                                                                           \
    PB_MODULE_DEF(tile_##id##_twin, "cpu-tile-" #id "-twin", twin_hooks,                           \
        .summary = "gpu-tile-" #id "'s output on the CPU, its reference: the C reference, or the " \
                   "simulator's model of the kernel where the output is the method's own",         \
        PB_PARAMS(params), .prepare = prepare_##id)

PB_TILE_TWIN(partition);
PB_TILE_TWIN(sort);
PB_TILE_TWIN(permute);

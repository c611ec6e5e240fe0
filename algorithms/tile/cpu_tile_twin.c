/* tile-twin: the simulator's model of each GPU tile kernel (dmm/
 * dmm_tile_model.h) run on the CPU, tile by tile: the kernels' C twin. Its
 * shared-memory program is the kernel's, so its output is the kernel's
 * output; for the paper's partition, whose order within a label is its own,
 * the GPU test compares the two bit for bit. cub has no model: the twin
 * gives the C reference (what CUB's stable sorts give). Timing it measures
 * the simulator, not an algorithm. */
#include <stdlib.h>
#include <string.h>

#include "dmm/dmm_tile.h"
#include "families/tile/tile_problem.h"

static const pb_param_spec params[] = {
    PB_TILE_COMMON_PARAMS,
    {"op", PB_PARAM_ENUM, PB_TILE_PARTITION, 0, 0, "partition|sort|permute",
     "the operation: partition by 32 labels, sort, permute"},
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

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    twin *s = calloc(1, sizeof *s);
    *state = s;
    if (!s) return pb_err_set(err, "out of host memory");
    pb_tile_op op = (pb_tile_op)pt->params->v[PB_TILE_NCOMMON];
    pb_tile_method method = (pb_tile_method)pt->params->v[PB_TILE_P_METHOD];
    if (pb_tile_problem_init(&s->prob, op, method, pt, err)) return -1;
    s->out = malloc(s->prob.n * sizeof *s->out);
    if (!s->out) return pb_err_set(err, "out of host memory for the output");
    return 0;
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample;
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
        if (!pb_tile_method_modelled(p->method)) {
            pb_tile_reference(p->op, p->m, in, out);
            continue;
        }
        pb_dmm_stats st = {0};
        pb_err e;
        if (pb_tile_model_tile(p->op, p->method, p->m, in, out, pb_tile_paper_seed(p->seed, (uint64_t)t),
                               &st, NULL, &e) || st.races) {
#pragma omp critical(pb_tile_twin)
            if (!failed++) first = e;
        }
    }
    if (failed) return pb_err_set(err, "tile-twin: %s", first.msg[0] ? first.msg : "a race in the model");
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

static int result(void *state, const void **out, pb_err *err)
{
    (void)err;
    *out = ((twin *)state)->out;
    return 0;
}

static int verify(void *state, pb_err *err)
{
    twin *s = state;
    return pb_tile_check(&s->prob, s->out, err);
}

static uint64_t footprint(const pb_point *pt) { return 8 * pt->n + (1u << 20); }

const pb_module pb_module_tile_twin = {
    .name = "tile-twin",
    .family = &pb_family_tile,
    .device = PB_DEVICE_CPU,
    .summary = "the simulator's model of each GPU tile kernel, run on the CPU: their C twin "
               "(cub: the C reference)",
    .params = PB_PARAMS(params),
    .max_n = UINT32_MAX,
    .footprint = footprint,
    .prepare = prepare,
    .run = run,
    .result = result,
    .verify = verify,
    .release = release,
    .refresh = refresh,
};

/* What the loader-shuffle modules share: each names its model (a kind) and
 * writes thin descriptor functions over these. A run draws the model's
 * order for (seed, sample) on the calling thread (a streaming buffer is
 * sequential by nature) and gathers the items by it with OpenMP;
 * sample_perms draws one order a thread, over the samples. */
#ifndef PB_LOADER_MODULE_H
#define PB_LOADER_MODULE_H

#include "algorithms/shuffle/loader/loader_model.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

typedef struct pb_ld_kind {
    const char *name;
    /* 0, or -1 when the parameters cannot shuffle n items. */
    int (*check)(const pb_params *p, uint64_t n, pb_err *err);
    uint64_t (*scratch_bytes)(const pb_params *p, uint64_t n);
    void (*shuffle)(const pb_params *p, uint32_t n, uint32_t *order, void *scratch, pb_ld_draws *d);
} pb_ld_kind;

/* The threads parameter is the first of every loader module. */
#define PB_LD_P_THREADS 0

/* A loader module's descriptor, from what makes it different: its id, name,
 * summary, parameter specs and its kind's three functions. The hooks are
 * the ones above (state, run, release, sample_perms) over the shuffle
 * family's CPU set for modules that gather (pb_shuffle_cpu_via_hooks); items
 * of any width are gathered by memcpy, records whole. */
#define PB_LD_MODULE(id, name_, summary_, params_, check_, scratch_bytes_, shuffle_)                              \
    static const pb_ld_kind id##_kind = {name_, check_, scratch_bytes_, shuffle_};                               \
    static uint64_t id##_footprint(const pb_point *pt) { return pb_ld_footprint(&id##_kind, pt); }              \
    static int id##_prepare(const pb_point *pt, void **state, pb_err *err)                                      \
    {                                                                                                           \
        return pb_ld_prepare(&id##_kind, pt, state, err);                                                       \
    }                                                                                                           \
    static int id##_sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first, uint64_t count, \
                                 uint32_t *out, pb_err *err)                                                    \
    {                                                                                                           \
        return pb_ld_sample_perms(&id##_kind, p, n, seed, first, count, out, err);                              \
    }                                                                                                           \
    PB_SHUFFLE_MODULE(id, name_, pb_shuffle_cpu_via_hooks, id##_sample_perms,                                   \
        .flags = PB_MOD_SEEDED | PB_MOD_APPROXIMATE, .summary = summary_, PB_PARAMS(params_),                   \
        .max_n = UINT32_MAX, .footprint = id##_footprint, .prepare = id##_prepare, .run = pb_ld_run,            \
        .release = pb_ld_release, .items = PB_ITEM_ANY)

/* The buffer's parameters, as buffer-shuffle and shard-shuffle both take
 * them, in this order; pb_ld_buffer_of reads them from index `at` on. */
#define PB_LD_BUFFER_PARAMS                                                                                     \
    {"buffer", PB_PARAM_INT, 1000, 1, UINT32_MAX - 1, NULL, "items the shuffle buffer holds (B)"},             \
        {"fill", PB_PARAM_ENUM, PB_LD_FILL_TFDATA, 0, 0, PB_LD_FILL_CHOICES,                                    \
         "tfdata: fill B, then pick among B (also torchdata, Hugging Face); webdataset: grow by 2 a step"},    \
        {"initial", PB_PARAM_INT, 100, 0, UINT32_MAX - 1, NULL,                                                 \
         "webdataset: items held before the first output (at most B)"}
pb_ld_buffer pb_ld_buffer_of(const pb_params *p, int at);

/* A kind that takes every n. */
int pb_ld_no_check(const pb_params *p, uint64_t n, pb_err *err);

uint64_t pb_ld_footprint(const pb_ld_kind *k, const pb_point *pt);
int pb_ld_prepare(const pb_ld_kind *k, const pb_point *pt, void **state, pb_err *err);
int pb_ld_run(void *state, uint64_t sample, pb_err *err);
void pb_ld_release(void *state);
int pb_ld_sample_perms(const pb_ld_kind *k, const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                       uint64_t count, uint32_t *out, pb_err *err);

#endif

/* What the loader-shuffle modules share: each names its model (a kind) and
 * writes thin descriptor functions over these. A run draws the model's
 * order for (seed, sample) on the calling thread (a streaming buffer is
 * sequential by nature) and gathers the items by it with OpenMP;
 * sample_perms draws one order a thread, over the samples. */
#ifndef PB_LOADER_MODULE_H
#define PB_LOADER_MODULE_H

#include "algorithms/shuffle/loader/loader_model.h"
#include "core/module.h"

typedef struct pb_ld_kind {
    const char *name;
    /* 0, or -1 when the parameters cannot shuffle n items. */
    int (*check)(const pb_params *p, uint64_t n, pb_err *err);
    uint64_t (*scratch_bytes)(const pb_params *p, uint64_t n);
    void (*shuffle)(const pb_params *p, uint32_t n, uint32_t *order, void *scratch, pb_ld_draws *d);
} pb_ld_kind;

/* The threads parameter is the first of every loader module. */
#define PB_LD_P_THREADS 0

uint64_t pb_ld_footprint(const pb_ld_kind *k, const pb_point *pt);
int pb_ld_prepare(const pb_ld_kind *k, const pb_point *pt, void **state, pb_err *err);
int pb_ld_run(void *state, uint64_t sample, pb_err *err);
void pb_ld_release(void *state);
int pb_ld_sample_perms(const pb_ld_kind *k, const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                       uint64_t count, uint32_t *out, pb_err *err);

#endif

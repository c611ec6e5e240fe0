/* gsl-shuffle: GSL's gsl_ran_shuffle driven by MT19937, the independent,
 * trusted reference shuffle (it shares no code with ours). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "harness/module.h"
#include "harness/rng.h"
#include "harness/shuffle_buffers.h"

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    pb_shuffle_buffers *b;
    if (pb_shuffle_buffers_new(pt, false, &b, err)) return -1;
    b->extra = gsl_rng_alloc(gsl_rng_mt19937);
    if (!b->extra) {
        pb_shuffle_release(b);
        return pb_err_set(err, "gsl_rng_alloc failed");
    }
    *state = b;
    return 0;
}

static void release(void *state)
{
    pb_shuffle_buffers *b = state;
    gsl_rng_free(b->extra);
    b->extra = NULL;
    pb_shuffle_release(b);
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    gsl_rng *r = b->extra;
    /* MT19937 takes a 32-bit seed; mixing (seed, sample) gives each repeat
     * its own. */
    gsl_rng_set(r, (unsigned long)(pb_mix64(b->pt.seed ^ pb_mix64(sample)) & 0xffffffffu));
    /* gsl_ran_shuffle counts down from n - 1 in a size_t: n = 0 wraps. */
    if (b->pt.n > 1) gsl_ran_shuffle(r, b->out, b->pt.n, b->pt.item_bytes);
    return 0;
}

const pb_module pb_module_gsl_shuffle = {
    .name = "gsl-shuffle",
    .family = PB_FAMILY_SHUFFLE,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "GSL gsl_ran_shuffle with MT19937, the trusted reference",
    .params = PB_NO_PARAMS,
    /* gsl_rng_uniform_int cannot draw from a range beyond MT19937's 2^32-1. */
    .max_n = UINT32_MAX,
    .footprint = pb_shuffle_footprint_inplace,
    .prepare = prepare,
    .run = run,
    .result = pb_shuffle_result,
    .release = release,
};

/* grs-twin: the GPU Rao-Sandelius shuffle's C model (grs_model.h) as a
 * module, so that the algorithm is validated, sampled for the quality
 * battery and timed like any other shuffle before its kernels exist, and
 * so that the GPU module to come has a reference to equal bit for bit. */

#include <stdlib.h>

#include "algorithms/shuffle/grs_model.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"

enum { P_KEY_BITS, P_TARGET, P_LEVEL_BITS, P_SMALL };

static const pb_param_spec params[] = {
    {"key_bits", PB_PARAM_INT, -1, -1, PB_GRS_MAX_KEY_BITS, NULL,
     "label bits of the first sort: 2^key_bits buckets (-1: as many as put about `target` "
     "items in a bucket)"},
    {"target", PB_PARAM_INT, 4096, 1, 1LL << 30, NULL,
     "items a bucket holds on average when key_bits is -1 (about half a block's shared "
     "memory on the GPU)"},
    {"level_bits", PB_PARAM_INT, 5, 1, PB_GRS_MAX_LEVEL_BITS, NULL,
     "label bits of each split inside a bucket: 2^level_bits parts"},
    {"small", PB_PARAM_INT, 32, 1, 1LL << 30, NULL,
     "segments of at most this many items are shuffled by Fisher-Yates"},
};

/* The shape for n items under resolved parameters. */
static pb_grs_shape shape_of(const pb_params *p, uint64_t n)
{
    pb_grs_shape s;
    s.key_bits = p->v[P_KEY_BITS] < 0 ? pb_grs_key_bits_for(n, (uint64_t)p->v[P_TARGET])
                                      : (unsigned)p->v[P_KEY_BITS];
    s.level_bits = (unsigned)p->v[P_LEVEL_BITS];
    s.small = (uint32_t)p->v[P_SMALL];
    return s;
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    pb_grs_shape s = shape_of(b->pt.params, b->pt.n);
    return pb_grs_model_shuffle(b->in, b->out, b->pt.n, b->pt.item_bytes, &s, b->pt.seed, sample,
                                NULL, NULL, err);
}

static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    pb_grs_shape s = shape_of(p, n);
    uint32_t *id = malloc((n ? n : 1) * sizeof *id);
    if (!id) return pb_err_set(err, "grs-twin: out of memory");
    for (uint32_t i = 0; i < n; i++) id[i] = i;
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad)
    for (uint64_t j = 0; j < count; j++) {
        pb_err e;
        bad |= pb_grs_model_shuffle(id, out + j * n, n, 4, &s, seed, first + j, NULL, NULL, &e) != 0;
    }
    free(id);
    return bad ? pb_err_set(err, "grs-twin: a sample failed (sample past 2^62?)") : 0;
}

const pb_module pb_module_grs_twin = {
    .name = "grs-twin",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED,
    .summary = "GPU Rao-Sandelius shuffle in sequential C: a radix sort by random labels, then "
               "each bucket split by random labels and finished by Fisher-Yates (the model the "
               "GPU module is to equal; exactly uniform)",
    .params = PB_PARAMS(params),
    .footprint = pb_shuffle_footprint_outofplace,
    .prepare = pb_shuffle_prepare_outofplace,
    .run = run,
    .result = pb_shuffle_result,
    .release = pb_shuffle_release,
    .sample_perms = sample_perms,
    .refresh = pb_shuffle_refresh,
    .fingerprint = pb_shuffle_fingerprint,
};

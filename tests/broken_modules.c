/* Test-only modules that are wrong in the ways a timed module can be wrong
 * and still look busy: they do nothing, do half the work, hand back the
 * previous sample's output, or are wrong on one sample. They are never in
 * the registry; tests/bench/test_every_sample.c runs them through the harness,
 * which must report each one failed. Their reference is fisher-yates: each
 * claims to produce its output. */
#include "tests/broken_modules.h"

#include <stdlib.h>
#include <string.h>

#include "core/rng.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_leaf.h"

/* What fisher-yates does for `sample`: the in-place shuffle of out. */
static void fisher_yates(pb_shuffle_buffers *b, uint64_t n, uint64_t sample)
{
    pb_rng r;
    pb_rng_init(&r, b->pt.seed, sample);
    pb_fisher_yates(b->out, n, b->pt.item_bytes, &r);
}

static int run_noop(void *state, uint64_t sample, pb_err *err)
{
    (void)state, (void)sample, (void)err;
    return 0;
}

static int run_half(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    fisher_yates(b, b->pt.n / 2, sample);
    return 0;
}

/* Out of place: each call computes its sample's right output, then hands
 * back the one of the call before (kept in `extra`; the first call has
 * none and hands back its own). */
static int run_stale(void *state, uint64_t sample, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    size_t bytes = (size_t)b->pt.n * b->pt.item_bytes;
    memcpy(b->out, b->in, bytes);
    fisher_yates(b, b->pt.n, sample);
    if (!b->extra) {
        if (!(b->extra = malloc(bytes ? bytes : 1))) return pb_err_set(err, "out of memory");
        memcpy(b->extra, b->out, bytes);
    }
    void *previous = b->extra;
    b->extra = b->out;
    b->out = previous;
    return 0;
}

/* Right but on its PB_BROKEN_ONCE_CALL-th call (warm-ups count), where it
 * swaps the first two items after shuffling. */
static int calls;

static int run_once(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    fisher_yates(b, b->pt.n, sample);
    if (++calls == PB_BROKEN_ONCE_CALL && b->pt.n >= 2) {
        unsigned w = b->pt.item_bytes;
        unsigned char t[8], *o = b->out;
        memcpy(t, o, w);
        memcpy(o, o + w, w);
        memcpy(o + w, t, w);
    }
    return 0;
}

void pb_broken_once_reset(void) { calls = 0; }

#define BROKEN_REF(id, text, inplace, fn, ref)                                                     \
    const pb_module pb_broken_##id = {                                                             \
        .name = "broken-" #id,                                                                     \
        .family = &pb_family_shuffle,                                                              \
        .device = PB_DEVICE_CPU,                                                                   \
        .flags = PB_MOD_SEEDED | (inplace ? PB_MOD_INPLACE : 0),                                   \
        .summary = text,                                                                           \
        .footprint = inplace ? pb_shuffle_footprint_inplace : pb_shuffle_footprint_outofplace,     \
        .prepare = inplace ? pb_shuffle_prepare_inplace : pb_shuffle_prepare_outofplace,           \
        .run = fn,                                                                                 \
        .result = pb_shuffle_result,                                                               \
        .release = pb_shuffle_release,                                                             \
        .refresh = pb_shuffle_refresh,                                                             \
        .fingerprint = pb_shuffle_fingerprint,                                                     \
        .reference = ref,                                                                          \
    };
#define BROKEN(id, text, inplace, fn) BROKEN_REF(id, text, inplace, fn, "cpu-fisher-yates")

BROKEN(noop, "does nothing (in place)", 1, run_noop)
BROKEN(half, "shuffles half of the items (in place)", 1, run_half)
BROKEN(stale, "returns the previous sample's output (out of place)", 0, run_stale)
BROKEN(once, "wrong on one sample (in place)", 1, run_once)
BROKEN_REF(stale_noref, "returns the previous sample's output, no reference", 0, run_stale, NULL)

/* Right when timed, wrong when sampled: its sample hook draws Fisher-Yates
 * but repeats a value in sample PB_BROKEN_SAMPLE_ROW, which `permbench
 * sample` must refuse to write. */
static int run_right(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    fisher_yates(b, b->pt.n, sample);
    return 0;
}

static int sample_wrong_once(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                             uint64_t count, uint32_t *out, pb_err *err)
{
    (void)params, (void)err;
    for (uint64_t j = 0; j < count; j++) {
        uint32_t *p = out + j * n;
        for (uint32_t i = 0; i < n; i++) p[i] = i;
        pb_rng r;
        pb_rng_init(&r, seed, first + j);
        pb_fisher_yates_u32(p, n, &r);
        if (first + j == PB_BROKEN_SAMPLE_ROW && n >= 2) p[0] = p[1];
    }
    return 0;
}

static const pb_shuffle_hooks sample_wrong_hooks = {.sample_perms = sample_wrong_once};

/* Reached only through the registry (pb_registry_add resolves its set). */
const pb_module pb_broken_sample = {
    .name = "broken-sample",
    .hooks = &pb_shuffle_cpu_inplace_hooks,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "draws one sample permutation with a repeated value",
    .run = run_right,
    .ext = &sample_wrong_hooks,
};

/* gsl-shuffle: GSL's gsl_ran_shuffle driven by MT19937, the independent,
 * trusted reference shuffle (it shares no code with ours). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdlib.h>

#include "core/module.h"
#include "core/rng.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

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

/* MT19937 takes 32-bit seeds, so seeding every permutation afresh would
 * repeat seeds (and permutations) among a million samples by the birthday
 * bound, which the duplicate test would rightly flag. Instead permutations
 * come in chunks of consecutive draws from one generator, a chunk per seed:
 * a few hundred seeds for a million samples. Permutation k is still fixed by
 * (seed, k) whatever the batching or thread count. */
enum { CHUNK = 4096 };

static int sample_perms(const pb_params *params, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    (void)params;
    uint64_t c0 = first / CHUNK, c1 = (first + count + CHUNK - 1) / CHUNK;
    int failed = 0;
#pragma omp parallel for schedule(dynamic)
    for (uint64_t c = c0; c < c1; c++) {
        gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
        uint32_t *scratch = malloc((size_t)n * sizeof *scratch);
        if (!r || !scratch) {
#pragma omp atomic write
            failed = 1;
        } else {
            gsl_rng_set(r, (unsigned long)(pb_mix64(seed ^ pb_mix64(~c)) & 0xffffffffu));
            for (uint64_t k = c * CHUNK; k < (c + 1) * CHUNK && k < first + count; k++) {
                uint32_t *p = k >= first ? out + (k - first) * n : scratch;
                for (uint32_t i = 0; i < n; i++) p[i] = i;
                if (n > 1) gsl_ran_shuffle(r, p, n, sizeof *p);
            }
        }
        free(scratch);
        if (r) gsl_rng_free(r);
    }
    return failed ? pb_err_set(err, "cpu-gsl-shuffle: out of memory drawing samples") : 0;
}

PB_SHUFFLE_MODULE(gsl_shuffle, "cpu-gsl-shuffle", pb_shuffle_cpu_inplace_hooks, sample_perms,
    .summary = "GSL gsl_ran_shuffle with MT19937, the trusted reference",
    /* gsl_rng_uniform_int cannot draw from a range beyond MT19937's 2^32-1. */
    .max_n = UINT32_MAX, .prepare = prepare, .run = run, .release = release);

#include "algorithms/shuffle/loader/loader_module.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "families/shuffle/shuffle_buffers.h"

/* The state starts with its buffers so the family's *_via hooks serve it. */
typedef struct ld_state {
    pb_shuffle_buffers *b;
    const pb_ld_kind *kind;
    uint32_t *order;
    void *scratch;
} ld_state;

static int threads_of(const pb_params *p)
{
    long long t = p->v[PB_LD_P_THREADS];
    return t > 0 ? (int)t : omp_get_num_procs();
}

pb_ld_buffer pb_ld_buffer_of(const pb_params *p, int at)
{
    return (pb_ld_buffer){(uint32_t)p->v[at], (pb_ld_fill)p->v[at + 1], (uint32_t)p->v[at + 2]};
}

int pb_ld_no_check(const pb_params *p, uint64_t n, pb_err *err)
{
    (void)p, (void)n, (void)err;
    return 0;
}

uint64_t pb_ld_footprint(const pb_ld_kind *k, const pb_point *pt)
{
    return pb_shuffle_footprint_outofplace(pt) + pt->n * 4 + k->scratch_bytes(pt->params, pt->n);
}

int pb_ld_prepare(const pb_ld_kind *k, const pb_point *pt, void **state, pb_err *err)
{
    if (k->check(pt->params, pt->n, err)) return -1;
    ld_state *s = calloc(1, sizeof *s);
    if (!s) return pb_err_set(err, "%s: out of memory", k->name);
    s->kind = k;
    if (pb_shuffle_buffers_new(pt, true, &s->b, err)) {
        free(s);
        return -1;
    }
    s->order = malloc(pt->n * 4 + 4);
    s->scratch = malloc(k->scratch_bytes(pt->params, pt->n) + 8);
    if (!s->order || !s->scratch) {
        pb_ld_release(s);
        return pb_err_set(err, "%s: out of memory for the order and the model's buffer", k->name);
    }
    *state = s;
    return 0;
}

int pb_ld_run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    ld_state *s = state;
    pb_shuffle_buffers *b = s->b;
    uint32_t n = (uint32_t)b->pt.n;
    pb_rng r;
    pb_ld_draws d;
    pb_ld_philox_draws(&r, b->pt.seed, sample, &d);
    s->kind->shuffle(&b->params, n, s->order, s->scratch, &d);
    size_t w = b->pt.item_bytes;
    const unsigned char *in = b->in;
    unsigned char *out = b->out;
    int threads = n < (1u << 15) ? 1 : b->pt.threads;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (uint32_t t = 0; t < n; t++) memcpy(out + t * w, in + (size_t)s->order[t] * w, w);
    return 0;
}

void pb_ld_release(void *state)
{
    ld_state *s = state;
    if (!s) return;
    pb_shuffle_release(s->b);
    free(s->order);
    free(s->scratch);
    free(s);
}

/* Permutation j is the order of sample first + j: the items' indices are
 * the permutation itself. */
int pb_ld_sample_perms(const pb_ld_kind *k, const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                       uint64_t count, uint32_t *out, pb_err *err)
{
    if (k->check(p, n, err)) return -1;
    int failed = 0;
#pragma omp parallel num_threads(threads_of(p)) reduction(| : failed)
    {
        void *scratch = malloc(k->scratch_bytes(p, n) + 8);
        failed = !scratch;
#pragma omp for schedule(dynamic, 4)
        for (uint64_t j = 0; j < count; j++) {
            if (failed) continue;
            pb_rng r;
            pb_ld_draws d;
            pb_ld_philox_draws(&r, seed, first + j, &d);
            k->shuffle(p, n, out + j * n, scratch, &d);
        }
        free(scratch);
    }
    return failed ? pb_err_set(err, "%s: out of memory", k->name) : 0;
}

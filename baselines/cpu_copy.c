/* cpu-copy: contiguous copy of the input, one slice per OpenMP thread; the
 * host's bandwidth ceiling that the CPU rows are compared with. */
#include <omp.h>
#include <string.h>

#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

static const pb_param_spec params[] = {PB_PARAM_THREADS};

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)sample, (void)err;
    pb_shuffle_buffers *b = state;
    size_t bytes = (size_t)b->pt.n * b->pt.item_bytes;
    const char *in = b->in;
    char *out = b->out;
#pragma omp parallel num_threads(b->pt.threads)
    {
        size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        /* Slices start on 64-byte boundaries so no two threads share a line. */
        size_t lo = (bytes * t / nt) & ~(size_t)63, hi = t + 1 == nt ? bytes : (bytes * (t + 1) / nt) & ~(size_t)63;
        if (hi > lo) memcpy(out + lo, in + lo, hi - lo);
    }
    return 0;
}

/* It copies bytes: any item is its bytes. */
PB_MODULE_DEF(cpu_copy, "cpu-copy", pb_shuffle_cpu_outofplace_hooks, .flags = PB_MOD_CEILING,
    .summary = "contiguous parallel copy (OpenMP): the host's bandwidth ceiling",
    PB_PARAMS(params), .run = run, .verify = pb_shuffle_verify_copy, .bound = PB_BOUND_COPY,
    .items = PB_ITEM_ANY);

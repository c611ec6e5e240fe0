/* cpu-gather: out[i] = in[f(i)] through the affine bijection of affine.h,
 * a fresh one per sample (OpenMP): the host's random-gather ceiling. Each
 * thread steps f along its own slice, so the index costs two adds. */
#include <omp.h>
#include <string.h>

#include "baselines/affine.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

static const pb_param_spec params[] = {PB_PARAM_THREADS};

#define GATHER(T)                                                                                  \
    static void gather_##T(const T *restrict in, T *restrict out, const pb_affine *f, int threads)  \
    {                                                                                              \
        _Pragma("omp parallel num_threads(threads)")                                               \
        {                                                                                          \
            uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();     \
            uint64_t lo = f->n * t / nt, hi = f->n * (t + 1) / nt;                                 \
            if (lo < hi) {                                                                         \
                uint64_t p = pb_affine_apply(f, lo);                                               \
                for (uint64_t i = lo; i < hi; i++) {                                               \
                    out[i] = in[p];                                                                \
                    p += f->a;                                                                     \
                    if (p >= f->n) p -= f->n;                                                      \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }
GATHER(uint32_t)
GATHER(uint64_t)

/* Records of R bytes: the same walk, each record copied whole. Inlined with
 * a constant R from run(), so the copy is a run of wide loads and stores. */
static inline void gather_rec(const unsigned char *restrict in, unsigned char *restrict out, size_t rec,
                              const pb_affine *f, int threads)
{
#pragma omp parallel num_threads(threads)
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        uint64_t lo = f->n * t / nt, hi = f->n * (t + 1) / nt;
        if (lo < hi) {
            uint64_t p = pb_affine_apply(f, lo);
            for (uint64_t i = lo; i < hi; i++) {
                memcpy(out + i * rec, in + p * rec, rec);
                p += f->a;
                if (p >= f->n) p -= f->n;
            }
        }
    }
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    pb_affine f = pb_affine_make(b->pt.n, b->pt.seed, sample);
    switch (b->pt.item_bytes) {
    case 4: gather_uint32_t(b->in, b->out, &f, b->pt.threads); break;
    case 8: gather_uint64_t(b->in, b->out, &f, b->pt.threads); break;
    case 16: gather_rec(b->in, b->out, 16, &f, b->pt.threads); break;
    case 64: gather_rec(b->in, b->out, 64, &f, b->pt.threads); break;
    case 256: gather_rec(b->in, b->out, 256, &f, b->pt.threads); break;
    default: gather_rec(b->in, b->out, b->pt.item_bytes, &f, b->pt.threads); break;
    }
    return 0;
}

/* Records: whole records gathered (gather_rec). */
PB_MODULE_DEF(cpu_gather, "cpu-gather", pb_shuffle_cpu_outofplace_hooks,
    .flags = PB_MOD_CEILING | PB_MOD_SEEDED,
    .summary = "random gather through an on-the-fly bijection (OpenMP): the host's gather ceiling",
    PB_PARAMS(params), .run = run, .bound = PB_BOUND_GATHER,
    .items = PB_ITEM_ANY);

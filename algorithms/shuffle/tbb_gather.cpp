/* tbb-gather: out[i] = in[f(i)] through the affine bijection of
 * baselines/affine.h, a fresh one per sample, on oneTBB (parallel_for): the
 * host's random-gather ceiling as the paper's TBB code measures it (Table 2,
 * "Gather"). Each range steps f from its first index, so the index costs two
 * adds; the output equals cpu-gather's for any thread count. A ceiling, not
 * a shuffle: it has no sample permutations. */
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "algorithms/shuffle/tbb_state.h"
#include "baselines/affine.h"
#include "families/shuffle/shuffle_hooks.h"

namespace {

const pb_param_spec params[] = {PB_PARAM_THREADS};

constexpr uint64_t GRAIN = 1 << 14;

template <class T> void gather(const T *in, T *out, const pb_affine &f)
{
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, f.n, GRAIN),
                      [&](const tbb::blocked_range<uint64_t> &r) {
                          uint64_t p = pb_affine_apply(&f, r.begin());
                          for (uint64_t i = r.begin(); i != r.end(); ++i) {
                              out[i] = in[p];
                              p += f.a;
                              if (p >= f.n) p -= f.n;
                          }
                      });
}

int run(void *state, uint64_t sample, pb_err *)
{
    pb_tbb_state *st = static_cast<pb_tbb_state *>(state);
    pb_shuffle_buffers *b = st->b;
    if (b->pt.n == 0) return 0;
    pb_affine f = pb_affine_make(b->pt.n, b->pt.seed, sample);
    st->arena->execute([&] {
        if (b->pt.item_bytes == 4)
            gather(static_cast<const uint32_t *>(b->in), static_cast<uint32_t *>(b->out), f);
        else gather(static_cast<const uint64_t *>(b->in), static_cast<uint64_t *>(b->out), f);
    });
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_tbb_prepare(pt, true, 0, state, err);
}

} // namespace

PB_MODULE_DEF(tbb_gather, "cpu-tbb-gather", pb_shuffle_cpu_via_hooks, .flags = PB_MOD_CEILING | PB_MOD_SEEDED,
    .summary = "random gather through an on-the-fly bijection (oneTBB): the paper's CPU gather "
               "ceiling",
    PB_PARAMS(params), .prepare = prepare, .run = run, .result = pb_tbb_result, .release = pb_tbb_release);

/* tbb-bijective: the bijective shuffle (Mitchell et al. 2024, Algorithm 1)
 * on oneTBB: evaluate the bijection over the padded domain [0, 2^b) and keep
 * the values below m, in the order of their positions, with
 * tbb::parallel_scan as the compaction (the pre-scan counts the kept values
 * of a range, the final scan writes them from the prefix of the ranges
 * before it), gathering in[f(x)] as it writes.
 *
 * The bijection is bijection.h's VariablePhilox or LCG, made by pb_bij_init
 * for stream = sample exactly as the C twin does, so the output equals
 * pb_bijective_twin_shuffle bit for bit, for any thread count (the kept
 * values are ordered by padded position). Its only random bits are the
 * bijection's parameters: one set per sample. */
#include <functional>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_scan.h>

#include "algorithms/shuffle/bijective_twin.h"
#include "algorithms/shuffle/tbb_state.h"

namespace {

enum { P_THREADS, P_BIJECTION, P_ROUNDS };

const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"bijection", PB_PARAM_ENUM, PB_BIJ_VARPHILOX, 0, 1, PB_BIJ_CHOICES,
     "the bijection: VariablePhilox (Feistel) or LCG"},
    {"rounds", PB_PARAM_INT, PB_BIJ_DEFAULT_ROUNDS, 1, PB_VARPHILOX_MAX_ROUNDS, nullptr,
     "VariablePhilox rounds"},
};

constexpr uint64_t GRAIN = 1 << 12;

/* out[k] = load(the k-th value of f below m over [0, domain)). */
template <class F, class Load, class T>
void scan(const F &f, uint64_t domain, uint64_t m, const Load &load, T *out)
{
    tbb::parallel_scan(
        tbb::blocked_range<uint64_t>(0, domain, GRAIN), uint64_t(0),
        [&](const tbb::blocked_range<uint64_t> &r, uint64_t sum, bool is_final) {
            if (is_final) {
                for (uint64_t x = r.begin(); x != r.end(); ++x) {
                    uint64_t src = f(x);
                    if (src < m) out[sum++] = load(src);
                }
            } else {
                for (uint64_t x = r.begin(); x != r.end(); ++x) sum += f(x) < m;
            }
            return sum;
        },
        std::plus<uint64_t>());
}

/* The shuffle of m items whose item k is load(k), for sample `stream`. */
template <class Load, class T>
void bijective(const pb_params &p, uint64_t m, uint64_t seed, uint64_t stream, const Load &load,
               T *out)
{
    if (m == 0) return;
    pb_bij f;
    pb_bij_init(&f, static_cast<pb_bij_kind>(p.v[P_BIJECTION]), static_cast<int>(p.v[P_ROUNDS]), m,
                seed, stream);
    uint64_t domain = uint64_t(1) << f.bits;
    if (f.kind == PB_BIJ_LCG)
        scan([&](uint64_t x) { return pb_lcg_apply(&f.lcg, x); }, domain, m, load, out);
    else scan([&](uint64_t x) { return pb_varphilox_apply(&f.vp, x); }, domain, m, load, out);
}

int run(void *state, uint64_t sample, pb_err *)
{
    pb_tbb_state *st = static_cast<pb_tbb_state *>(state);
    pb_shuffle_buffers *b = st->b;
    st->arena->execute([&] {
        if (b->pt.item_bytes == 4) {
            const uint32_t *in = static_cast<const uint32_t *>(b->in);
            bijective(b->params, b->pt.n, b->pt.seed, sample, [in](uint64_t k) { return in[k]; },
                      static_cast<uint32_t *>(b->out));
        } else {
            const uint64_t *in = static_cast<const uint64_t *>(b->in);
            bijective(b->params, b->pt.n, b->pt.seed, sample, [in](uint64_t k) { return in[k]; },
                      static_cast<uint64_t *>(b->out));
        }
    });
    return 0;
}

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    return pb_tbb_prepare(pt, true, 0, state, err);
}

/* Permutation j: the indices for sample first + j, by the same scan. */
int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                 uint32_t *out, pb_err *)
{
    tbb::task_arena arena(pb_tbb_threads(p->v[P_THREADS]));
    arena.execute([&] {
        tbb::parallel_for(uint64_t(0), count, [&](uint64_t j) {
            bijective(*p, n, seed, first + j, [](uint64_t k) { return static_cast<uint32_t>(k); },
                      out + j * n);
        });
    });
    return 0;
}

} // namespace

extern "C" const pb_module pb_module_tbb_bijective = {
    .name = "tbb-bijective",
    .family = PB_FAMILY_SHUFFLE,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED,
    .summary = "bijective shuffle on oneTBB (parallel_scan compaction), VariablePhilox or LCG; "
               "equals bijective-twin bit for bit",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .max_n = 0,
    .footprint = pb_shuffle_footprint_outofplace,
    .prepare = prepare,
    .run = run,
    .result = pb_tbb_result,
    .verify = nullptr,
    .release = pb_tbb_release,
    .sample_perms = sample_perms,
};

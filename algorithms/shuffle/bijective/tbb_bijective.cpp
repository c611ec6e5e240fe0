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

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "algorithms/shuffle/tbb_state.h"
#include "families/shuffle/shuffle_hooks.h"

namespace {

enum { P_THREADS, P_BIJECTION, P_ROUNDS };

const pb_param_spec params[] = {PB_PARAM_THREADS, PB_BIJ_PARAMS};

constexpr uint64_t GRAIN = 1 << 12;

/* The bijection on W consecutive values x0, x0 + 1, ...: `apply` for one
 * value, `apply_w` for W at once (the same arithmetic, interleaved so that
 * their dependency chains overlap). */
constexpr int W = 8;

struct lcg_fn {
    const pb_lcg *f;
    uint64_t operator()(uint64_t x) const { return pb_lcg_apply(f, x); }
    void many(uint64_t x0, uint64_t *y) const
    {
        for (int k = 0; k < W; k++) y[k] = pb_lcg_apply(f, x0 + k);
    }
};

/* VariablePhilox as pb_varphilox_apply (bijection.h), W values in lockstep. */
struct varphilox_fn {
    const pb_varphilox *f;
    uint64_t operator()(uint64_t x) const { return pb_varphilox_apply(f, x); }
    void many(uint64_t x0, uint64_t *y) const
    {
        const uint32_t rb = f->right_bits, lb = f->left_bits, shift = rb - lb;
        const uint32_t lm = f->left_mask, rm = f->right_mask;
        uint32_t l[W], r[W];
        for (int k = 0; k < W; k++) {
            l[k] = static_cast<uint32_t>((x0 + k) >> rb);
            r[k] = static_cast<uint32_t>((x0 + k) & rm);
        }
        for (int i = 0; i < f->rounds; i++) {
            const uint32_t key = f->key[i];
            for (int k = 0; k < W; k++) {
                uint64_t p = PB_VARPHILOX_M0 * l[k];
                uint32_t hi = static_cast<uint32_t>(p >> 32), lo = static_cast<uint32_t>(p);
                lo = (lo << shift) | (r[k] >> lb);
                l[k] = (hi ^ key ^ r[k]) & lm;
                r[k] = lo & rm;
            }
        }
        for (int k = 0; k < W; k++) y[k] = uint64_t(l[k]) << rb | r[k];
    }
};

/* out[k] = load(the k-th value of f below m over [0, domain)). */
template <class F, class Load, class T>
void scan(const F &f, uint64_t domain, uint64_t m, const Load &load, T *out)
{
    tbb::parallel_scan(
        tbb::blocked_range<uint64_t>(0, domain, GRAIN), uint64_t(0),
        [&](const tbb::blocked_range<uint64_t> &r, uint64_t sum, bool is_final) {
            uint64_t x = r.begin(), y[W];
            for (; x + W <= r.end(); x += W) {
                f.many(x, y);
                if (is_final) {
                    for (int k = 0; k < W; k++)
                        if (y[k] < m) out[sum++] = load(y[k]);
                } else {
                    for (int k = 0; k < W; k++) sum += y[k] < m;
                }
            }
            for (; x != r.end(); ++x) {
                uint64_t src = f(x);
                if (src < m) {
                    if (is_final) out[sum] = load(src);
                    ++sum;
                }
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
    if (f.kind == PB_BIJ_LCG) scan(lcg_fn{&f.lcg}, domain, m, load, out);
    else scan(varphilox_fn{&f.vp}, domain, m, load, out);
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
                 uint32_t *out, pb_err *err)
{
    tbb::task_arena *arena = pb_tbb_arena(pb_tbb_threads(p->v[P_THREADS]));
    if (!arena) return pb_err_set(err, "out of memory");
    arena->execute([&] {
        tbb::parallel_for(uint64_t(0), count, [&](uint64_t j) {
            bijective(*p, n, seed, first + j, [](uint64_t k) { return static_cast<uint32_t>(k); },
                      out + j * n);
        });
    });
    delete arena;
    return 0;
}

} // namespace

PB_SHUFFLE_MODULE(tbb_bijective, "cpu-tbb-bijective", pb_shuffle_cpu_via_hooks, sample_perms,
    .summary = "bijective shuffle on oneTBB (parallel_scan compaction), VariablePhilox or LCG; "
               "equals cpu-bijective-twin bit for bit",
    PB_PARAMS(params), .prepare = prepare, .run = run, .result = pb_tbb_result, .release = pb_tbb_release);

/* tbb-sort-shuffle: every item gets a random 64-bit key, and the (key,
 * item) pairs are sorted with oneTBB's parallel_sort (the paper's
 * SortShuffle on the CPU), in place with 16 bytes of pairs per item.
 *
 * Ties: two equal keys among n have probability about n^2 / 2^65 (1/128 at
 * n = 2^29); they are broken by the item itself, so the order is a strict
 * total order and the sorted result (the output) is the same for any thread
 * count and schedule, at the price of a bias of that order of magnitude.
 *
 * Randomness (algorithms/shuffle/cpu_streams.h): block i / 2 of (KEYS, 0)
 * gives the keys of items i and i + 1 (i even), each block drawn once. */
#include <atomic>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "algorithms/shuffle/tbb_state.h"
#include "families/shuffle/shuffle_hooks.h"

namespace {

enum { P_THREADS };

const pb_param_spec params[] = {PB_PARAM_THREADS};

constexpr uint64_t GRAIN = 1 << 13; /* blocks (two keys each) per task */

struct pair {
    uint64_t key, item;
};

inline bool operator<(const pair &x, const pair &y)
{
    return x.key < y.key || (x.key == y.key && x.item < y.item);
}

/* a[0, n) shuffled through pairs[n]; load(k) is item k, store(k, v) writes
 * output k. */
template <class Load, class Store>
void sort_shuffle(uint64_t n, pair *pairs, uint64_t seed, uint64_t sample, const Load &load,
                  const Store &store)
{
    uint64_t blocks = (n + 1) / 2;
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, blocks, GRAIN),
                      [&](const tbb::blocked_range<uint64_t> &r) {
                          for (uint64_t blk = r.begin(); blk != r.end(); ++blk) {
                              philox4x32_ctr_t w =
                                  pb_cs_block(seed, sample, pb_cs_pos(PB_CS_KEYS, 0, blk));
                              uint64_t i = 2 * blk;
                              pairs[i] = {uint64_t(w.v[0]) << 32 | w.v[1], load(i)};
                              if (i + 1 < n) pairs[i + 1] = {uint64_t(w.v[2]) << 32 | w.v[3], load(i + 1)};
                          }
                      });
    tbb::parallel_sort(pairs, pairs + n);
    tbb::parallel_for(tbb::blocked_range<uint64_t>(0, n, GRAIN),
                      [&](const tbb::blocked_range<uint64_t> &r) {
                          for (uint64_t i = r.begin(); i != r.end(); ++i) store(i, pairs[i].item);
                      });
}

template <class T> void shuffle_items(T *a, uint64_t n, pair *pairs, uint64_t seed, uint64_t sample)
{
    sort_shuffle(
        n, pairs, seed, sample, [a](uint64_t k) { return uint64_t(a[k]); },
        [a](uint64_t k, uint64_t v) { a[k] = static_cast<T>(v); });
}

uint64_t footprint(const pb_point *pt) { return pt->n * (pt->item_bytes + sizeof(pair)); }

int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pb_tbb_prepare(pt, false, pt->n * sizeof(pair), state, err)) return -1;
    pb_tbb_state *st = static_cast<pb_tbb_state *>(*state);
    /* First touch from the arena's threads. */
    char *x = static_cast<char *>(st->scratch);
    uint64_t bytes = pt->n * sizeof(pair);
    st->arena->execute([&] {
        tbb::parallel_for(uint64_t(0), (bytes + 4095) / 4096, [x](uint64_t pg) { x[pg * 4096] = 0; });
    });
    return 0;
}

int run(void *state, uint64_t sample, pb_err *)
{
    pb_tbb_state *st = static_cast<pb_tbb_state *>(state);
    pb_shuffle_buffers *b = st->b;
    pair *pairs = static_cast<pair *>(st->scratch);
    st->arena->execute([&] {
        if (b->pt.item_bytes == 4)
            shuffle_items(static_cast<uint32_t *>(b->out), b->pt.n, pairs, b->pt.seed, sample);
        else shuffle_items(static_cast<uint64_t *>(b->out), b->pt.n, pairs, b->pt.seed, sample);
    });
    return 0;
}

/* Permutation j: the indices sorted by the keys of sample first + j, by the
 * same code. */
int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first, uint64_t count,
                 uint32_t *out, pb_err *err)
{
    tbb::task_arena *arena = pb_tbb_arena(pb_tbb_threads(p->v[P_THREADS]));
    if (!arena) return pb_err_set(err, "out of memory");
    std::atomic<bool> failed{false};
    arena->execute([&] {
        tbb::parallel_for(tbb::blocked_range<uint64_t>(0, count, 16),
                          [&](const tbb::blocked_range<uint64_t> &r) {
                              pair *pairs = static_cast<pair *>(std::malloc((n + 1) * sizeof(pair)));
                              if (!pairs) {
                                  failed = true;
                                  return;
                              }
                              for (uint64_t j = r.begin(); j != r.end(); ++j) {
                                  uint32_t *o = out + j * n;
                                  sort_shuffle(
                                      n, pairs, seed, first + j, [](uint64_t k) { return k; },
                                      [o](uint64_t k, uint64_t v) { o[k] = static_cast<uint32_t>(v); });
                              }
                              std::free(pairs);
                          });
    });
    delete arena;
    return failed ? pb_err_set(err, "out of memory") : 0;
}

} // namespace

PB_SHUFFLE_MODULE(tbb_sort_shuffle, "cpu-tbb-sort-shuffle", pb_shuffle_cpu_via_hooks, sample_perms,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "random 64-bit keys sorted with oneTBB's parallel_sort (SortShuffle); same output "
               "for any thread count",
    PB_PARAMS(params), .footprint = footprint, .prepare = prepare, .run = run, .result = pb_tbb_result,
    .release = pb_tbb_release);

/* cpu-dart-throwing: every item throws darts at 2n slots until one sticks,
 * then a parallel compaction reads the slots in order (OpenMP, atomics).
 *
 * Deterministic, by rounds ("deterministic reservations"): in round r,
 * every item not yet placed throws its r-th dart and claims the slot with
 * an atomic minimum of (tentative bit | item); a slot taken in an earlier
 * round holds its item without the tentative bit, so it is smaller than any
 * claim and never changes hands. After a barrier each claimant checks
 * whether it holds its slot: the winner commits (clears the bit), the others
 * throw again next round. Ties go to the lowest item, not to whichever
 * thread's atomic lands first, so the output depends on the darts only:
 * the same for any thread count and schedule.
 *
 * Uniform: whether an attempt sticks depends only on how many slots are
 * free, not where, so the order in which items are placed is independent of
 * the slots they land in, and each landing is uniform over the free slots.
 * The occupied slots, read in order, are a uniform arrangement.
 *
 * Memory: the input, the output (which holds each item's current dart
 * during the rounds), 2n 32-bit slots and a bit per item; n < 2^31.
 *
 * Randomness (algorithms/shuffle/cpu_streams.h): dart r of item i is a
 * 64-bit Lemire draw in [0, 2n) from the 16 blocks at (DART, 0,
 * i << 20 | r << 4) (a rejection there is 2^-32 likely; 65536 rounds would
 * be needed to run into the next item's range). */
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"

enum { P_THREADS };

static const pb_param_spec params[] = {PB_PARAM_THREADS};

#define DT_TENTATIVE UINT32_C(0x80000000)
#define DT_EMPTY UINT32_C(0xffffffff)
#define DT_MAX_N ((UINT64_C(1) << 31) - 1)
#define DT_ROUND_BITS 16
#define DT_AHEAD 32 /* the compaction prefetches the item of the slot this far ahead */

typedef struct dt_scratch {
    _Atomic uint32_t *slots; /* 2n */
    uint64_t *placed;        /* n bits */
    uint64_t *chunk;         /* per-chunk counts for the compaction */
} dt_scratch;

static uint64_t dt_words(uint64_t n) { return (n + 63) / 64; }

static int dt_scratch_new(dt_scratch *s, uint64_t n, int threads)
{
    s->slots = malloc(2 * n * sizeof *s->slots + 1);
    s->placed = malloc(dt_words(n) * sizeof *s->placed + 1);
    s->chunk = malloc(((size_t)threads * 4 + 1) * sizeof *s->chunk);
    return s->slots && s->placed && s->chunk ? 0 : -1;
}

static void dt_scratch_free(dt_scratch *s)
{
    free((void *)s->slots);
    free(s->placed);
    free(s->chunk);
}

/* Dart `round` of item i. */
static uint32_t dt_dart(uint64_t seed, uint64_t sample, uint64_t i, unsigned round, uint64_t slots)
{
    uint64_t pos = pb_cs_pos(PB_CS_DART, 0, i << 20 | (uint64_t)round << 4);
    pb_rng r;
    pb_cs_open(&r, seed, sample, pos);
    uint32_t d = (uint32_t)pb_rng_below64_wide(&r, slots);
    pb_cs_close(&r, sample, pos);
    return d;
}

#define DT_COMPACT(T)                                                                              \
    static void dt_compact_##T(const T *restrict in, T *restrict out,                              \
                               _Atomic uint32_t *restrict slots, uint64_t lo, uint64_t hi,          \
                               uint64_t o)                                                         \
    {                                                                                              \
        for (uint64_t k = lo; k < hi; k++) {                                                       \
            if (k + DT_AHEAD < hi) {                                                               \
                uint32_t u = atomic_load_explicit(&slots[k + DT_AHEAD], memory_order_relaxed);     \
                if (u != DT_EMPTY) __builtin_prefetch(&in[u]);                                     \
            }                                                                                      \
            uint32_t v = atomic_load_explicit(&slots[k], memory_order_relaxed);                    \
            if (v != DT_EMPTY) out[o++] = in[v];                                                   \
        }                                                                                          \
    }
DT_COMPACT(uint32_t)
DT_COMPACT(uint64_t)

/* The check of word w's unplaced items: the winners of their slots commit
 * and are marked placed; returns how many lost. */
static uint64_t dt_check(_Atomic uint32_t *slots, uint64_t *placed, const uint32_t *dart,
                         uint64_t w)
{
    uint64_t won = 0, lost = 0;
    for (uint64_t open = ~placed[w]; open; open &= open - 1)
        __builtin_prefetch((const void *)&slots[dart[w * 64 + (uint64_t)__builtin_ctzll(open)]]);
    for (uint64_t open = ~placed[w]; open; open &= open - 1) {
        unsigned b = (unsigned)__builtin_ctzll(open);
        uint64_t i = w * 64 + b;
        uint32_t d = dart[i];
        if (atomic_load_explicit(&slots[d], memory_order_relaxed) == (DT_TENTATIVE | (uint32_t)i)) {
            atomic_store_explicit(&slots[d], (uint32_t)i, memory_order_relaxed);
            won |= UINT64_C(1) << b;
        } else {
            lost++;
        }
    }
    placed[w] |= won;
    return lost;
}

/* The compaction, inside the parallel region: count the occupied slots of
 * each chunk, a prefix over the chunks, then each chunk writes its items in
 * slot order. */
static void dt_compact(const void *in, void *out, unsigned item_bytes, dt_scratch *s,
                       uint64_t nslots, int nchunks)
{
    _Atomic uint32_t *slots = s->slots;
#pragma omp for schedule(static)
    for (int ch = 0; ch < nchunks; ch++) {
        uint64_t lo = nslots * (uint64_t)ch / (uint64_t)nchunks;
        uint64_t hi = nslots * (uint64_t)(ch + 1) / (uint64_t)nchunks, c = 0;
        for (uint64_t k = lo; k < hi; k++)
            c += atomic_load_explicit(&slots[k], memory_order_relaxed) != DT_EMPTY;
        s->chunk[ch] = c;
    }
#pragma omp single
    {
        uint64_t run = 0;
        for (int ch = 0; ch < nchunks; ch++) {
            uint64_t c = s->chunk[ch];
            s->chunk[ch] = run;
            run += c;
        }
    }
#pragma omp for schedule(static)
    for (int ch = 0; ch < nchunks; ch++) {
        uint64_t lo = nslots * (uint64_t)ch / (uint64_t)nchunks;
        uint64_t hi = nslots * (uint64_t)(ch + 1) / (uint64_t)nchunks, o = s->chunk[ch];
        if (!in) {
            uint32_t *idx = out;
            for (uint64_t k = lo; k < hi; k++) {
                uint32_t v = atomic_load_explicit(&slots[k], memory_order_relaxed);
                if (v != DT_EMPTY) idx[o++] = v;
            }
        } else if (item_bytes == 4) {
            dt_compact_uint32_t(in, out, slots, lo, hi, o);
        } else {
            dt_compact_uint64_t(in, out, slots, lo, hi, o);
        }
    }
}

/* out[0, n) = a uniform shuffle of in[0, n); `dart` is n 32-bit words of
 * scratch (may alias out when items are at least 4 bytes: it is read
 * before the compaction writes). in == NULL shuffles the indices (writes
 * out[k] = the index that lands at k, 32-bit). Returns -1 if the darts
 * never settle (they would only if they repeated). */
static int dt_shuffle(const void *in, void *out, uint32_t *dart, uint64_t n, unsigned item_bytes,
                      dt_scratch *s, int threads, uint64_t seed, uint64_t sample)
{
    if (n == 0) return 0;
    threads = pb_cs_team(threads, n);
    uint64_t nslots = 2 * n, words = dt_words(n);
    _Atomic uint32_t *slots = s->slots;
    uint64_t *placed = s->placed;
    uint64_t left0 = 0, left1 = 0; /* unplaced after the check of an even, odd round */
    int settled = 0;
#pragma omp parallel num_threads(threads) if (threads > 1)
    {
#pragma omp for schedule(static)
        for (uint64_t k = 0; k < nslots; k++)
            atomic_store_explicit(&slots[k], DT_EMPTY, memory_order_relaxed);
#pragma omp for schedule(static)
        for (uint64_t w = 0; w < words; w++)
            placed[w] = w + 1 < words || n % 64 == 0 ? 0 : ~UINT64_C(0) << (n % 64);
        /* Each round places an item with probability above 1/4: 2^16
         * rounds never happen unless the darts repeat (and they would run
         * into the next item's blocks). */
        unsigned round;
        for (round = 0; round < 1u << DT_ROUND_BITS; round++) {
            /* Every thread read this parity's count two rounds ago; the
             * throw's barrier orders the reset before the check adds to it. */
#pragma omp master
            *(round & 1 ? &left1 : &left0) = 0;
            /* Throw: every unplaced item claims a slot. The darts of a
             * word's 64 items are drawn (and their slots prefetched) before
             * any is claimed, so the cache misses overlap. */
#pragma omp for schedule(static)
            for (uint64_t w = 0; w < words; w++) {
                for (uint64_t open = ~placed[w]; open; open &= open - 1) {
                    uint64_t i = w * 64 + (uint64_t)__builtin_ctzll(open);
                    uint32_t d = dt_dart(seed, sample, i, round, nslots);
                    dart[i] = d;
                    __builtin_prefetch((const void *)&slots[d], 1);
                }
                for (uint64_t open = ~placed[w]; open; open &= open - 1) {
                    uint64_t i = w * 64 + (uint64_t)__builtin_ctzll(open);
                    uint32_t d = dart[i];
                    uint32_t claim = DT_TENTATIVE | (uint32_t)i;
                    uint32_t cur = atomic_load_explicit(&slots[d], memory_order_relaxed);
                    while (claim < cur &&
                           !atomic_compare_exchange_weak_explicit(&slots[d], &cur, claim,
                                                                  memory_order_relaxed,
                                                                  memory_order_relaxed)) {
                    }
                }
            }
            /* Check: winners commit, the others stay unplaced. */
            if (round & 1) {
#pragma omp for schedule(static) reduction(+ : left1)
                for (uint64_t w = 0; w < words; w++) left1 += dt_check(slots, placed, dart, w);
            } else {
#pragma omp for schedule(static) reduction(+ : left0)
                for (uint64_t w = 0; w < words; w++) left0 += dt_check(slots, placed, dart, w);
            }
            /* The same on every thread, and not written before the end of
             * the next round's throw. */
            if ((round & 1 ? left1 : left0) == 0) break;
        }
        if (round < 1u << DT_ROUND_BITS) {
            dt_compact(in, out, item_bytes, s, nslots, threads * 4);
#pragma omp master
            settled = 1;
        }
    }
    return settled ? 0 : -1;
}

/* ---- module ---- */

typedef struct dt_state {
    pb_shuffle_buffers *b;
    dt_scratch s;
} dt_state;

static uint64_t footprint(const pb_point *pt)
{
    return 2 * pt->n * pt->item_bytes + 2 * pt->n * 4 + dt_words(pt->n) * 8;
}

static void release(void *state)
{
    dt_state *st = state;
    if (!st) return;
    pb_shuffle_release(st->b);
    dt_scratch_free(&st->s);
    free(st);
}

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    dt_state *st = calloc(1, sizeof *st);
    if (!st) return pb_err_set(err, "out of memory");
    if (pb_shuffle_buffers_new(pt, true, &st->b, err)) {
        free(st);
        return -1;
    }
    if (dt_scratch_new(&st->s, pt->n, pt->threads)) {
        release(st);
        return pb_err_set(err, "cannot allocate the slots of %llu items",
                          (unsigned long long)pt->n);
    }
    /* First touch from the threads that will use them. */
    uint64_t nslots = 2 * pt->n;
#pragma omp parallel for num_threads(pt->threads) schedule(static)
    for (uint64_t k = 0; k < nslots; k++) atomic_init(&st->s.slots[k], DT_EMPTY);
    *state = st;
    return 0;
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    dt_state *st = state;
    pb_shuffle_buffers *b = st->b;
    if (dt_shuffle(b->in, b->out, b->out, b->pt.n, b->pt.item_bytes, &st->s, b->pt.threads,
                   b->pt.seed, sample))
        return pb_err_set(err, "darts did not settle in 2^%d rounds", DT_ROUND_BITS);
    return 0;
}

static int result(void *state, const void **out, pb_err *err)
{
    return pb_shuffle_result(((dt_state *)state)->b, out, err);
}

/* Permutation j: the indices shuffled for sample first + j by the same
 * code, one permutation per thread. */
static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    int threads = pb_cs_threads(p->v[P_THREADS]), failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        dt_scratch s;
        uint32_t *dart = malloc(((size_t)n + 1) * sizeof *dart);
        if (dt_scratch_new(&s, n, 1) || !dart) failed = 1;
#pragma omp for schedule(dynamic, 16)
        for (uint64_t j = 0; j < count; j++)
            if (!failed && dt_shuffle(NULL, out + j * n, dart, n, 4, &s, 1, seed, first + j))
                failed = 2;
        dt_scratch_free(&s);
        free(dart);
    }
    if (failed & 2) return pb_err_set(err, "darts did not settle in 2^%d rounds", DT_ROUND_BITS);
    return failed ? pb_err_set(err, "out of memory") : 0;
}

PB_SHUFFLE_MODULE(cpu_dart_throwing, "cpu-dart-throwing", pb_shuffle_cpu_via_hooks, sample_perms,
    .summary = "dart throwing into 2n slots by rounds of atomic claims (lowest item wins), then "
               "parallel compaction (OpenMP); same output for any thread count",
    PB_PARAMS(params), .max_n = DT_MAX_N, .footprint = footprint, .prepare = prepare, .run = run,
    .result = result, .release = release);

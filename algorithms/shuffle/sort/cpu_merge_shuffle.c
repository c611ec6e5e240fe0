/* merge-shuffle: MergeShuffle of Bacher, Bodini, Hollender and Lumbroso
 * (2015, arXiv:1508.03167), in place (OpenMP tasks).
 *
 * The array is cut into 2^k blocks of at most `block` items (block j is
 * [j n / 2^k, (j + 1) n / 2^k)), each shuffled by Fisher-Yates in parallel;
 * then neighbours are merged pairwise, level by level, up the tree. The
 * merge of two shuffled runs A = T[0, n1) and B = T[n1, n) (their Algorithm
 * 2) walks i over the result: a random bit says whether T[i] keeps the next
 * item of A (i = j stops it: A is used up) or takes the next item of B by a
 * swap with T[j] (j = n stops it); once one run is used up, each remaining
 * position i is filled by a Fisher-Yates insertion, a swap with a uniform
 * position in [0, i]. Given uniform, independent runs, the merge is a
 * uniform shuffle of their union (their Theorem 1), so the whole is uniform.
 *
 * Merges of one level run in parallel as tasks. Merges of at least
 * `wide_merge` items (the top levels, where there are fewer merges than
 * threads) are wide merges instead, each run by the whole team, out of
 * place into a second buffer (the levels alternate between the two, the
 * blocks and in-place levels working in the second buffer when the wide
 * levels are odd in number, so the last writes the array): the
 * same random bits, bit p choosing whether output p is A's next item or
 * B's, stopping at the first bit that asks an exhausted run; the other
 * run's rest follows in order, and each remaining position i gets the same
 * Fisher-Yates insertion. Every bit's place is fixed by its index, so the
 * team counts the ones of each chunk of bits in parallel, a prefix over the
 * chunks gives each its place in A and B and the stop, and each chunk
 * writes its outputs. Uniform by the argument of their Theorem 1: when the
 * stop comes at position p, every arrangement of the A and B slots in
 * [0, p) has probability 2^-(p+1), the runs' items are uniform in their
 * slots, so [0, p) is a uniform arrangement of its items (all of one run and
 * a uniform subset of the other), and each insertion keeps the prefix
 * uniform (docs/cpu-shuffles.md). The output differs from the in-place merge's
 * (which lets the swaps reorder A), but depends on n, `block` and
 * `wide_merge` only, never on the thread count.
 *
 * Randomness (algorithms/shuffle/cpu_streams.h): block [lo, hi) draws from
 * (BLOCK, 0, lo << 14); the merge of [s, e) at level L from (MERGE, L,
 * s << 14), its bits one at a time from 32-bit words (the unused rest of the
 * last word is dropped, never handed on). Blocks, and merges of one level,
 * are disjoint, so no bit is drawn twice; the tree depends on n and `block`
 * only, so the output is the same for any thread count.
 *
 * PB_MERGE_PHASES=1 prints each run's phase times to stderr (blocks, each
 * level; docs/cpu-shuffles.md has a profile); PB_MERGE_NT=0 turns off the
 * wide writes' non-temporal stores. Neither changes the output. */
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_leaf.h"

enum { P_THREADS, P_BLOCK, P_WIDE };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"block", PB_PARAM_INT, 1 << 16, 1, 1 << 30, NULL,
     "largest block shuffled by Fisher-Yates before the merges"},
    {"wide_merge", PB_PARAM_INT, 1 << 20, 2, 1LL << 40, NULL,
     "merges of at least this many items run on the whole team, out of place (the top levels)"},
};

#define MS_TASK_MIN (UINT64_C(1) << 14) /* merge subtrees this large become tasks */

/* PB_MERGE_PHASES=1: run() prints each phase's wall time to stderr. */
enum { MS_P_COUNT, MS_P_PREFIX, MS_P_WRITE, MS_P_REST, MS_P_N };

typedef struct ms_ctx {
    uint64_t seed, sample, n;
    unsigned k; /* 2^k blocks */
    unsigned item_bytes;
    void *a;        /* where the blocks and the in-place merges work: the array, or tmp */
    const void *in; /* the items to shuffle (the array); a block is copied from it when a != in */
    int threads;
    double *prof;   /* PB_MERGE_PHASES: the wide merges' phase times (summed over merges), else NULL */
    bool nt;        /* the wide merges' stores bypass the cache (PB_MERGE_NT, default on) */
} ms_ctx;

/* A wide merge's bits come in chunks of this many (256 Philox blocks). */
#define MS_CHUNK_BITS (UINT64_C(1) << 15)
#define MS_CHUNK_BLOCKS (MS_CHUNK_BITS / 128)

/* Bit p (< 128) of the block at pos: the order pb_rng_u32 hands them out
 * and the in-place merge takes them (word p / 32, its low bit first). */
static inline unsigned ms_bit(const philox4x32_ctr_t *w, unsigned p) { return w->v[p >> 5] >> (p & 31) & 1; }

/* Block b of a merge's bits (pos: its stream's first block). Drawn
 * unreported in the hot loops; ms_wide_one reports their range once. */
static inline philox4x32_ctr_t ms_bits_block(const ms_ctx *c, uint64_t pos, uint64_t b)
{
    return pb_cs_block_quiet(c->seed, c->sample, pos + b);
}

/* The in-place merge, without a branch on the bits. The paper's loop
 * swaps T[i] with T[j] on a 1 (j++), keeps T[i] on a 0; here B's next
 * item T[j] is held in y, T[i] is written to T[j] on every bit (a 0 leaves
 * it there only until the next 1 overwrites it, or the stop puts y back;
 * with B used up, j = n, it goes to T[i] itself) and the bit
 * selects T[i]'s new value. So no load waits on the store just before it,
 * and the swaps, hence the output, are the paper's. A word of bits whose
 * ones and zeros cannot reach the stop (a bit that asks a run used up)
 * runs without checks; the others check each bit. */
#define MS_ITEM_FUNCS(T)                                                                           \
    static void ms_merge_##T(T *a, uint64_t n1, uint64_t n, pb_rng *r)                             \
    {                                                                                              \
        uint64_t i = 0, j = n1;                                                                    \
        T y = j < n ? a[j] : (T)0; /* B may be empty: no read past it */                           \
        for (;;) {                                                                                 \
            uint32_t bits = pb_rng_u32(r);                                                         \
            unsigned ones = (unsigned)__builtin_popcount(bits);                                    \
            if (ones < n - j && 32 - ones < j - i) {                                               \
                /* No stop in this word, j < n throughout: no checks. */                           \
                for (unsigned t = 0; t < 32; t++, bits >>= 1) {                                    \
                    uint64_t bit = bits & 1;                                                       \
                    T x = a[i], mask = (T)0 - (T)bit;                                              \
                    a[j] = x;                                                                      \
                    a[i] = (y & mask) | (x & ~mask);                                               \
                    j += bit;                                                                      \
                    y = (a[j] & mask) | (y & ~mask);                                               \
                    i++;                                                                           \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            for (unsigned t = 0; t < 32; t++, bits >>= 1) {                                        \
                uint64_t bit = bits & 1;                                                           \
                if ((bit & (j == n)) | ((bit ^ 1) & (i == j))) goto insert;                        \
                T x = a[i], mask = (T)0 - (T)bit;                                                  \
                a[j - ((j - i) & (0 - (uint64_t)(j == n)))] = x; /* T[i] itself once j = n */       \
                a[i] = (y & mask) | (x & ~mask);                                                   \
                j += bit;                                                                          \
                T next = a[j - (j == n)];                                                          \
                y = (next & mask) | (y & ~mask);                                                   \
                i++;                                                                               \
            }                                                                                      \
        }                                                                                          \
    insert:                                                                                        \
        if (j < n) a[j] = y;                                                                       \
        for (; i < n; i++) {                                                                       \
            uint64_t m = pb_rng_below64(r, i + 1);                                                 \
            T t = a[i];                                                                            \
            a[i] = a[m];                                                                           \
            a[m] = t;                                                                              \
        }                                                                                          \
    }
MS_ITEM_FUNCS(uint32_t)
MS_ITEM_FUNCS(uint64_t)

/* for (i = 0; i < count; i++) BODY (the rest of the arguments), on `threads` OpenMP threads when
 * there is more than one, else a plain loop: one thread never enters the
 * OpenMP runtime (the sample path calls a wide merge per level, per
 * permutation: millions of times in a battery). */
#define MS_FOR(threads, i, count, ...)                                                             \
    do {                                                                                           \
        const int ms_threads_ = (threads);                                                         \
        const uint64_t ms_count_ = (count);                                                        \
        if (ms_threads_ > 1) {                                                                     \
            _Pragma("omp parallel for num_threads(ms_threads_) schedule(static)")                  \
            for (uint64_t i = 0; i < ms_count_; i++) __VA_ARGS__;                                 \
        } else {                                                                                   \
            for (uint64_t i = 0; i < ms_count_; i++) __VA_ARGS__;                                 \
        }                                                                                          \
    } while (0)

/* A wide merge's plan: per chunk of bits, the A and B items taken before
 * it, and where the merge stops (the first bit that asks an exhausted
 * run). ones[] and zeros[] have a slot a chunk. */
typedef struct ms_plan {
    uint64_t chunks, stop;
    uint64_t stop_z, stop_o; /* items of A and of B output before the stop */
    uint64_t *zeros, *ones;  /* items of A and of B output before chunk c */
} ms_plan;

static void ms_plan_make(const ms_ctx *c, uint64_t pos, uint64_t n1, uint64_t len, ms_plan *pl)
{
    uint64_t nbits = len + 1; /* the stop comes at bit len at the latest */
    pl->chunks = (nbits + MS_CHUNK_BITS - 1) / MS_CHUNK_BITS;
    double t0 = c->prof ? omp_get_wtime() : 0;
    /* The ones of each chunk, in parallel (bits past nbits not counted). */
    MS_FOR(c->threads, ch, pl->chunks, {
        uint64_t ones = 0, first = ch * MS_CHUNK_BITS;
        uint64_t bits = nbits - first < MS_CHUNK_BITS ? nbits - first : MS_CHUNK_BITS;
        for (uint64_t b = 0; b * 128 < bits; b++) {
            philox4x32_ctr_t w = ms_bits_block(c, pos, ch * MS_CHUNK_BLOCKS + b);
            uint64_t in = bits - b * 128 < 128 ? bits - b * 128 : 128;
            for (unsigned q = 0; q < 4; q++) {
                uint64_t take = in > 32u * q ? (in - 32u * q < 32 ? in - 32u * q : 32) : 0;
                uint32_t word = take == 32 ? w.v[q] : w.v[q] & (uint32_t)((UINT64_C(1) << take) - 1);
                ones += (uint64_t)__builtin_popcount(word);
            }
        }
        pl->ones[ch] = ones; /* this chunk's count for now; the prefix below */
        pl->zeros[ch] = bits - ones;
    });
    double t1 = c->prof ? omp_get_wtime() : 0;
    if (c->prof) {
#pragma omp atomic
        c->prof[MS_P_COUNT] += t1 - t0;
    }
    /* Prefix over the chunks; the stop's chunk, then its bit. */
    uint64_t z = 0, o = 0, n2 = len - n1;
    pl->stop = len, pl->stop_z = n1, pl->stop_o = n2;
    for (uint64_t ch = 0; ch < pl->chunks; ch++) {
        uint64_t zc = pl->zeros[ch], oc = pl->ones[ch];
        pl->zeros[ch] = z, pl->ones[ch] = o;
        if (z + zc > n1 || o + oc > n2) {
            /* The stop is in this chunk: walk its bits. */
            uint64_t p = ch * MS_CHUNK_BITS;
            philox4x32_ctr_t w = {{0, 0, 0, 0}};
            for (;; p++) {
                if (p % 128 == 0) w = ms_bits_block(c, pos, p / 128);
                unsigned bit = ms_bit(&w, (unsigned)(p % 128));
                if (bit ? o == n2 : z == n1) break;
                bit ? o++ : z++;
            }
            pl->stop = p, pl->stop_z = z, pl->stop_o = o;
            pl->chunks = ch + 1;
            if (c->prof) {
#pragma omp atomic
                c->prof[MS_P_PREFIX] += omp_get_wtime() - t1;
            }
            return;
        }
        z += zc, o += oc;
    }
}

/* The wide merges' stores may bypass the cache where the target allows
 * (x86's movnti; PB_MERGE_NT=0 turns it off, for comparison): dst is
 * written once and read only by the next level, so this saves reading
 * each line of it before writing (a third of a level's memory traffic,
 * where the level is bound by memory: all cores on one socket). The
 * chunk's sfence orders them before the level ends. The output is the
 * same either way. */
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#define MS_STREAM_uint64_t(p, v) _mm_stream_si64((long long *)(p), (long long)(v))
#define MS_STREAM_uint32_t(p, v) _mm_stream_si32((int *)(p), (int)(v))
#define MS_SFENCE() _mm_sfence()
#else
#define MS_STREAM_uint64_t(p, v) (*(p) = (v))
#define MS_STREAM_uint32_t(p, v) (*(p) = (v))
#define MS_SFENCE() ((void)0)
#endif

/* Outputs [p, end) of a wide merge (p on a block), A's next or B's next
 * by each bit, without a branch: both are read (B's clamped to its last
 * item once used up; A's next at n1 is B's first, in the array) and the
 * bit selects. */
#define MS_WRITE_FUNCS(T, NAME, STORE)                                                             \
    static void NAME(const ms_ctx *c, uint64_t pos, const T *A, const T *B, uint64_t n2,   \
                             T *dst, uint64_t z, uint64_t o, uint64_t p, uint64_t end)             \
    {                                                                                              \
        while (p < end) {                                                                          \
            philox4x32_ctr_t w = ms_bits_block(c, pos, p / 128);                                   \
            for (unsigned q = 0; q < 4 && p < end; q++) {                                          \
                uint32_t word = w.v[q];                                                            \
                unsigned m = end - p < 32 ? (unsigned)(end - p) : 32;                              \
                T *out = dst + p;                                                                  \
                if (m == 32 && n2 - o > 32) { /* B not used up in this word: no clamp */            \
                    for (unsigned t = 0; t < 32; t++, word >>= 1) {                                \
                        uint64_t bit = word & 1;                                                   \
                        T mask = (T)0 - (T)bit;                                                    \
                        STORE(out + t, (B[o] & mask) | (A[z] & ~mask));                            \
                        o += bit;                                                                  \
                        z += bit ^ 1;                                                              \
                    }                                                                              \
                    p += 32;                                                                       \
                    continue;                                                                      \
                }                                                                                  \
                for (unsigned t = 0; t < m; t++, word >>= 1) {                                     \
                    uint64_t bit = word & 1;                                                       \
                    T mask = (T)0 - (T)bit;                                                        \
                    T av = A[z], bv = B[o - (o == n2)];                                            \
                    out[t] = (bv & mask) | (av & ~mask);                                           \
                    o += bit;                                                                      \
                    z += bit ^ 1;                                                                  \
                }                                                                                  \
                p += m;                                                                            \
            }                                                                                      \
        }                                                                                          \
        MS_SFENCE();                                                                               \
    }
#define MS_STORE(p, v) (*(p) = (v))
MS_WRITE_FUNCS(uint32_t, ms_write_uint32_t, MS_STORE)
MS_WRITE_FUNCS(uint64_t, ms_write_uint64_t, MS_STORE)
MS_WRITE_FUNCS(uint32_t, ms_write_nt_uint32_t, MS_STREAM_uint32_t)
MS_WRITE_FUNCS(uint64_t, ms_write_nt_uint64_t, MS_STREAM_uint64_t)

#define MS_WIDE_FUNCS(T)                                                                           \
    static void ms_wide_##T(const ms_ctx *c, const ms_plan *pl, uint64_t pos, const T *src, T *dst, \
                            uint64_t n1, uint64_t len)                                            \
    {                                                                                              \
        const T *A = src, *B = src + n1;                                                           \
        double t0 = c->prof ? omp_get_wtime() : 0;                                                 \
        MS_FOR(c->threads, ch, pl->chunks, {                                                       \
            uint64_t p = ch * MS_CHUNK_BITS; /* chunks start on a block */                         \
            uint64_t end = p + MS_CHUNK_BITS < pl->stop ? p + MS_CHUNK_BITS : pl->stop;             \
            (c->nt ? ms_write_nt_##T : ms_write_##T)(c, pos, A, B, len - n1, dst, pl->zeros[ch],   \
                                                     pl->ones[ch], p, end);                        \
        });                                                                                        \
        double t1 = c->prof ? omp_get_wtime() : 0;                                                 \
        /* The rest of the run not used up, in order: it follows the stop. */                      \
        const T *rest = pl->stop_z == n1 ? B + pl->stop_o : A + pl->stop_z;                        \
        uint64_t nrest = len - pl->stop;                                                           \
        if (c->threads > 1 && nrest >= MS_TASK_MIN) {                                              \
            MS_FOR(c->threads, i, nrest, dst[pl->stop + i] = rest[i]);                             \
        } else {                                                                                   \
            memcpy(dst + pl->stop, rest, nrest * sizeof(T));                                       \
        }                                                                                          \
        /* Fisher-Yates insertions from the stream past the bits' blocks. */                       \
        uint64_t ipos = pos + (len + 1 + 127) / 128;                                               \
        pb_rng r;                                                                                  \
        pb_cs_open(&r, c->seed, c->sample, ipos);                                                  \
        for (uint64_t i = pl->stop; i < len; i++) {                                                \
            uint64_t m = pb_rng_below64(&r, i + 1);                                                \
            T t = dst[i];                                                                          \
            dst[i] = dst[m];                                                                       \
            dst[m] = t;                                                                            \
        }                                                                                          \
        pb_cs_close(&r, c->sample, ipos);                                                          \
        if (c->prof) {                                                                             \
            double t2 = omp_get_wtime();                                                           \
            _Pragma("omp atomic") c->prof[MS_P_WRITE] += t1 - t0;                                  \
            _Pragma("omp atomic") c->prof[MS_P_REST] += t2 - t1;                                   \
        }                                                                                          \
    }
MS_WIDE_FUNCS(uint32_t)
MS_WIDE_FUNCS(uint64_t)

/* Start of block j (j = 2^k gives n). */
static uint64_t ms_bound(const ms_ctx *c, uint64_t j)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)j * c->n) >> c->k);
}

/* Block [lo, hi): first brought into the cache by a sequential pass (the
 * copy from the array when the blocks work in tmp, else a read of a word a
 * cache line), so that Fisher-Yates's random reads hit the cache instead
 * of missing to memory for each line first touched. */
static void ms_block(const ms_ctx *c, uint64_t lo, uint64_t hi)
{
    uint64_t pos = pb_cs_pos(PB_CS_BLOCK, 0, lo << PB_CS_SPAN_BITS);
    size_t ib = c->item_bytes;
    char *blk = (char *)c->a + lo * ib;
    if (c->in != c->a) {
        memcpy(blk, (const char *)c->in + lo * ib, (hi - lo) * ib);
    } else {
        const volatile char *v = blk;
        for (size_t o = 0; o < (hi - lo) * ib; o += 64) (void)v[o];
    }
    pb_rng r;
    pb_cs_open(&r, c->seed, c->sample, pos);
    pb_fisher_yates(blk, hi - lo, c->item_bytes, &r);
    pb_cs_close(&r, c->sample, pos);
}

static void ms_merge(const ms_ctx *c, unsigned level, uint64_t s, uint64_t mid, uint64_t e)
{
    if (mid == s || mid == e) return; /* an empty run: nothing to merge */
    uint64_t pos = pb_cs_pos(PB_CS_MERGE, level, s << PB_CS_SPAN_BITS);
    pb_rng r;
    pb_cs_open(&r, c->seed, c->sample, pos);
    if (c->item_bytes == 4) ms_merge_uint32_t((uint32_t *)c->a + s, mid - s, e - s, &r);
    else ms_merge_uint64_t((uint64_t *)c->a + s, mid - s, e - s, &r);
    pb_cs_close(&r, c->sample, pos);
}

/* Shuffles blocks [m 2^level, (m + 1) 2^level), the subtree of merge m of
 * `level` (level 0: one block). */
static void ms_tree(const ms_ctx *c, unsigned level, uint64_t m)
{
    uint64_t s = ms_bound(c, m << level), e = ms_bound(c, (m + 1) << level);
    if (level == 0) {
        ms_block(c, s, e);
        return;
    }
    if (c->threads > 1 && e - s >= MS_TASK_MIN) {
#pragma omp task
        ms_tree(c, level - 1, 2 * m);
        ms_tree(c, level - 1, 2 * m + 1);
#pragma omp taskwait
    } else {
        ms_tree(c, level - 1, 2 * m);
        ms_tree(c, level - 1, 2 * m + 1);
    }
    ms_merge(c, level, s, ms_bound(c, (2 * m + 1) << (level - 1)), e);
}

/* Levels of merges for n items and blocks of at most `block`: 2^k blocks. */
static unsigned ms_levels(uint64_t n, uint64_t block)
{
    unsigned k = 0;
    while ((n + (UINT64_C(1) << k) - 1) >> k > block) k++;
    return k;
}

/* Whether n items make a wide merge (then a second buffer of n items is
 * needed): the top merge, the largest, is one when n >= wide_merge. */
static bool ms_has_wide(uint64_t n, const pb_params *p)
{
    return ms_levels(n, (uint64_t)p->v[P_BLOCK]) > 0 && n >= (uint64_t)p->v[P_WIDE];
}

/* Wide merge m of `level` from src into dst, on c's team. */
static void ms_wide_one(const ms_ctx *c, unsigned level, uint64_t m, const void *src, void *dst, ms_plan *pl)
{
    size_t ib = c->item_bytes;
    uint64_t s = ms_bound(c, m << level), e = ms_bound(c, (m + 1) << level);
    uint64_t mid = ms_bound(c, (2 * m + 1) << (level - 1));
    if (mid == s || mid == e) { /* an empty run: the other is the merge */
        memcpy((char *)dst + s * ib, (const char *)src + s * ib, (e - s) * ib);
        return;
    }
    uint64_t pos = pb_cs_pos(PB_CS_MERGE, level, s << PB_CS_SPAN_BITS);
    ms_plan_make(c, pos, mid - s, e - s, pl);
    pb_cs_note(c->sample, pos, pos + (e - s + 1 + 127) / 128);
    if (ib == 4) ms_wide_uint32_t(c, pl, pos, (const uint32_t *)src + s, (uint32_t *)dst + s, mid - s, e - s);
    else ms_wide_uint64_t(c, pl, pos, (const uint64_t *)src + s, (uint64_t *)dst + s, mid - s, e - s);
}

/* Every merge of `level`: one after another on the whole team where the
 * merges are fewer than the threads and large (the top levels), else
 * spread over the team a merge a thread (on one thread, one after another
 * with the caller's plan). The output is the same. pl: a plan of
 * most_chunks slots. */
static int ms_wide_level(const ms_ctx *c, unsigned level, const void *src, void *dst, ms_plan *pl,
                         uint64_t most_chunks)
{
    uint64_t merges = UINT64_C(1) << (c->k - level);
    bool team = c->threads > 1 && merges < (uint64_t)c->threads && ms_bound(c, UINT64_C(1) << level) >= MS_TASK_MIN;
    if (team || c->threads == 1 || merges == 1) {
        ms_ctx one = *c;
        if (!team) one.threads = 1;
        for (uint64_t m = 0; m < merges; m++) ms_wide_one(&one, level, m, src, dst, pl);
        return 0;
    }
    int failed = 0;
    ms_ctx one = *c;
    one.threads = 1;
#pragma omp parallel num_threads(c->threads) reduction(| : failed)
    {
        ms_plan mine = {.zeros = malloc(most_chunks * sizeof(uint64_t)), .ones = malloc(most_chunks * sizeof(uint64_t))};
        failed = !mine.zeros || !mine.ones;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t m = 0; m < merges; m++)
            if (!failed) ms_wide_one(&one, level, m, src, dst, &mine);
        free(mine.zeros), free(mine.ones);
    }
    return failed ? -1 : 0;
}

/* tmp: n items when ms_has_wide (else unused). -1: out of memory for a
 * wide merge's plan. */
static int ms_shuffle(void *a, void *tmp, uint64_t n, unsigned item_bytes, const pb_params *p, int threads,
                      uint64_t seed, uint64_t sample, bool phases, bool nt)
{
    if (n <= 1) return 0;
    threads = pb_cs_team(threads, n);
    double prof[MS_P_N] = {0}, t0 = phases ? omp_get_wtime() : 0;
    ms_ctx c = {.seed = seed, .sample = sample, .n = n, .k = ms_levels(n, (uint64_t)p->v[P_BLOCK]),
                .item_bytes = item_bytes, .a = a, .in = a, .threads = threads, .prof = phases ? prof : NULL,
                .nt = nt};
    /* The first wide level (k + 1: none); a level's merges are all within
     * an item of merge 0's size, and sizes grow up the tree. */
    unsigned lw = c.k + 1;
    if (ms_has_wide(n, p))
        for (unsigned L = 1; L <= c.k; L++)
            if (ms_bound(&c, UINT64_C(1) << L) >= (uint64_t)p->v[P_WIDE]) {
                lw = L;
                break;
            }
    /* An odd number of wide levels: the blocks and in-place merges work in
     * tmp (each block copied there as it is shuffled, while it is in the
     * cache anyway), so that the last wide level writes the array; no copy
     * back. */
    if (lw <= c.k && (c.k + 1 - lw) % 2 == 1) c.a = tmp;
    /* The subtrees below the wide levels, in place, as tasks; with
     * PB_MERGE_PHASES, all the blocks, then each level (the same output). */
    uint64_t trees = UINT64_C(1) << (c.k + 1 - lw);
    if (phases) {
        uint64_t blocks = UINT64_C(1) << c.k;
        double t = omp_get_wtime();
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
        for (uint64_t j = 0; j < blocks; j++) ms_block(&c, ms_bound(&c, j), ms_bound(&c, j + 1));
        double u = omp_get_wtime();
        fprintf(stderr, "cpu-merge-shuffle phases: n=%llu threads=%d blocks=%llu %.1f ms", (unsigned long long)n,
                threads, (unsigned long long)blocks, (u - t) * 1e3);
        for (unsigned L = 1; L < lw; L++) {
            uint64_t merges = UINT64_C(1) << (c.k - L);
            t = u;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
            for (uint64_t m = 0; m < merges; m++)
                ms_merge(&c, L, ms_bound(&c, m << L), ms_bound(&c, (2 * m + 1) << (L - 1)), ms_bound(&c, (m + 1) << L));
            u = omp_get_wtime();
            fprintf(stderr, " | L%u in place %.1f", L, (u - t) * 1e3);
        }
    } else if (threads > 1 && (c.k > 0 || trees > 1)) {
#pragma omp parallel num_threads(threads)
#pragma omp single
        for (uint64_t m = 0; m < trees; m++) {
#pragma omp task
            ms_tree(&c, lw - 1, m);
        }
    } else {
        for (uint64_t m = 0; m < trees; m++) ms_tree(&c, lw - 1, m);
    }
    int rc = 0;
    if (lw <= c.k) {
        /* The wide levels, alternating between the two buffers, the last
         * into the array. */
        uint64_t most = (n + 1 + MS_CHUNK_BITS - 1) / MS_CHUNK_BITS + 1;
        ms_plan pl = {.zeros = malloc(most * sizeof(uint64_t)), .ones = malloc(most * sizeof(uint64_t))};
        rc = pl.zeros && pl.ones ? 0 : -1;
        void *src = c.a, *dst = c.a == a ? tmp : a;
        for (unsigned L = lw; L <= c.k && !rc; L++) {
            double t = phases ? omp_get_wtime() : 0;
            for (int i = 0; i < MS_P_N; i++) prof[i] = 0;
            rc = ms_wide_level(&c, L, src, dst, &pl, most);
            if (phases)
                fprintf(stderr, " | L%u wide %.1f (count %.1f, prefix %.1f, write %.1f, rest %.1f)", L,
                        (omp_get_wtime() - t) * 1e3, prof[MS_P_COUNT] * 1e3, prof[MS_P_PREFIX] * 1e3,
                        prof[MS_P_WRITE] * 1e3, prof[MS_P_REST] * 1e3);
            void *x = src;
            src = dst, dst = x;
        }
        free(pl.zeros), free(pl.ones);
    }
    if (phases)
        fprintf(stderr, " | total %.1f ms%s\n", (omp_get_wtime() - t0) * 1e3,
                lw <= c.k && threads > 1 ? " (wide phases: summed over merges run at once)" : "");
    return rc;
}

/* ---- module ---- */

static uint64_t footprint(const pb_point *pt)
{
    return pb_shuffle_footprint_inplace(pt) + (ms_has_wide(pt->n, pt->params) ? pt->n * pt->item_bytes : 0);
}

static bool ms_phases, ms_nt = true; /* PB_MERGE_PHASES, PB_MERGE_NT (read by prepare) */

/* The wide merges' second buffer, touched once here so its pages are
 * mapped before the timed samples. */
static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    const char *ph = getenv("PB_MERGE_PHASES");
    ms_phases = ph && *ph && *ph != '0';
    const char *nt = getenv("PB_MERGE_NT");
    ms_nt = !(nt && *nt == '0');
    if (pb_shuffle_prepare_inplace(pt, state, err)) return -1;
    pb_shuffle_buffers *b = *state;
    if (ms_has_wide(pt->n, &b->params)) {
        size_t bytes = (size_t)pt->n * pt->item_bytes;
        b->extra = malloc(bytes);
        if (!b->extra) {
            pb_shuffle_release(b);
            return pb_err_set(err, "cpu-merge-shuffle: out of memory for the wide merges' buffer (%zu bytes)", bytes);
        }
        int threads = pb_cs_team(pt->threads, pt->n);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (size_t i = 0; i < bytes; i += 4096) ((char *)b->extra)[i] = 0;
    }
    return 0;
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    pb_shuffle_buffers *b = state;
    if (ms_shuffle(b->out, b->extra, b->pt.n, b->pt.item_bytes, &b->params, b->pt.threads, b->pt.seed, sample,
                   ms_phases, ms_nt))
        return pb_err_set(err, "cpu-merge-shuffle: out of memory for a wide merge's plan");
    return 0;
}

/* Permutation j: the shuffle of the identity for sample first + j by the
 * same code, one permutation per thread (with a second buffer of its own
 * when its n makes wide merges). */
static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    int threads = pb_cs_threads(p->v[P_THREADS]), failed = 0;
    bool wide = ms_has_wide(n, p);
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        uint32_t *tmp = wide ? malloc((size_t)n * sizeof *tmp) : NULL;
        failed = wide && !tmp;
#pragma omp for schedule(dynamic, 16)
        for (uint64_t j = 0; j < count; j++) {
            if (failed) continue;
            uint32_t *a = out + j * n;
            for (uint32_t i = 0; i < n; i++) a[i] = i;
            failed = ms_shuffle(a, tmp, n, 4, p, 1, seed, first + j, false, false) != 0;
        }
        free(tmp);
    }
    return failed ? pb_err_set(err, "cpu-merge-shuffle: out of memory for a sample permutation") : 0;
}

PB_SHUFFLE_MODULE(merge_shuffle, "cpu-merge-shuffle", pb_shuffle_cpu_inplace_hooks, sample_perms,
    .summary = "MergeShuffle (Bacher et al.): parallel Fisher-Yates blocks, random-bit merges "
               "level by level (OpenMP tasks), the top ones by the whole team out of place; same "
               "output for any thread count",
    PB_PARAMS(params), .max_n = PB_CS_MAX_N, .footprint = footprint, .prepare = prepare, .run = run);

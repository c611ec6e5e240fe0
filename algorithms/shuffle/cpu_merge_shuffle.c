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
 * place into a second buffer (the levels alternate between the two): the
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
 * only, so the output is the same for any thread count. */
#include <omp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
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

typedef struct ms_ctx {
    uint64_t seed, sample, n;
    unsigned k; /* 2^k blocks */
    unsigned item_bytes;
    void *a;
    void *tmp; /* n items: the wide merges' other buffer (NULL without them) */
    int threads;
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

#define MS_ITEM_FUNCS(T)                                                                           \
    static void ms_merge_##T(T *a, uint64_t n1, uint64_t n, pb_rng *r)                             \
    {                                                                                              \
        uint64_t i = 0, j = n1;                                                                    \
        uint32_t bits = 0;                                                                         \
        int left = 0;                                                                              \
        for (;;) {                                                                                 \
            if (left == 0) {                                                                       \
                bits = pb_rng_u32(r);                                                              \
                left = 32;                                                                         \
            }                                                                                      \
            uint32_t bit = bits & 1;                                                               \
            bits >>= 1;                                                                            \
            left--;                                                                                \
            if (bit) {                                                                             \
                if (j == n) break;                                                                 \
                T t = a[i];                                                                        \
                a[i] = a[j];                                                                       \
                a[j] = t;                                                                          \
                j++;                                                                               \
            } else if (i == j) {                                                                   \
                break;                                                                             \
            }                                                                                      \
            i++;                                                                                   \
        }                                                                                          \
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
            return;
        }
        z += zc, o += oc;
    }
}

#define MS_WIDE_FUNCS(T)                                                                           \
    static void ms_wide_##T(const ms_ctx *c, const ms_plan *pl, uint64_t pos, const T *src, T *dst, \
                            uint64_t n1, uint64_t len)                                            \
    {                                                                                              \
        const T *A = src, *B = src + n1;                                                           \
        MS_FOR(c->threads, ch, pl->chunks, {                                                       \
            uint64_t z = pl->zeros[ch], o = pl->ones[ch], p = ch * MS_CHUNK_BITS;                  \
            uint64_t end = p + MS_CHUNK_BITS < pl->stop ? p + MS_CHUNK_BITS : pl->stop;             \
            philox4x32_ctr_t w = {{0, 0, 0, 0}};                                                   \
            for (; p < end; p++) {                                                                 \
                if (p % 128 == 0) w = ms_bits_block(c, pos, p / 128); /* chunks start on a block */  \
                dst[p] = ms_bit(&w, (unsigned)(p % 128)) ? B[o++] : A[z++];                        \
            }                                                                                      \
        });                                                                                        \
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
    }
MS_WIDE_FUNCS(uint32_t)
MS_WIDE_FUNCS(uint64_t)

/* Start of block j (j = 2^k gives n). */
static uint64_t ms_bound(const ms_ctx *c, uint64_t j)
{
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)j * c->n) >> c->k);
}

static void ms_block(const ms_ctx *c, uint64_t lo, uint64_t hi)
{
    uint64_t pos = pb_cs_pos(PB_CS_BLOCK, 0, lo << PB_CS_SPAN_BITS);
    pb_rng r;
    pb_cs_open(&r, c->seed, c->sample, pos);
    pb_fisher_yates((char *)c->a + lo * c->item_bytes, hi - lo, c->item_bytes, &r);
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
                      uint64_t seed, uint64_t sample)
{
    if (n <= 1) return 0;
    threads = pb_cs_team(threads, n);
    ms_ctx c = {.seed = seed, .sample = sample, .n = n, .k = ms_levels(n, (uint64_t)p->v[P_BLOCK]),
                .item_bytes = item_bytes, .a = a, .tmp = tmp, .threads = threads};
    /* The first wide level (k + 1: none); a level's merges are all within
     * an item of merge 0's size, and sizes grow up the tree. */
    unsigned lw = c.k + 1;
    if (ms_has_wide(n, p))
        for (unsigned L = 1; L <= c.k; L++)
            if (ms_bound(&c, UINT64_C(1) << L) >= (uint64_t)p->v[P_WIDE]) {
                lw = L;
                break;
            }
    /* The subtrees below the wide levels, in place, as tasks. */
    uint64_t trees = UINT64_C(1) << (c.k + 1 - lw);
    if (threads > 1 && (c.k > 0 || trees > 1)) {
#pragma omp parallel num_threads(threads)
#pragma omp single
        for (uint64_t m = 0; m < trees; m++) {
#pragma omp task
            ms_tree(&c, lw - 1, m);
        }
    } else {
        for (uint64_t m = 0; m < trees; m++) ms_tree(&c, lw - 1, m);
    }
    if (lw > c.k) return 0;
    /* The wide levels, alternating between a and tmp. */
    uint64_t most = (n + 1 + MS_CHUNK_BITS - 1) / MS_CHUNK_BITS + 1;
    ms_plan pl = {.zeros = malloc(most * sizeof(uint64_t)), .ones = malloc(most * sizeof(uint64_t))};
    int rc = pl.zeros && pl.ones ? 0 : -1;
    void *src = a, *dst = tmp;
    for (unsigned L = lw; L <= c.k && !rc; L++) {
        rc = ms_wide_level(&c, L, src, dst, &pl, most);
        void *t = src;
        src = dst, dst = t;
    }
    if (!rc && src != a) {
        size_t ib = item_bytes, per = (n + (uint64_t)threads - 1) / (uint64_t)threads;
        MS_FOR(threads, t, (uint64_t)threads, {
            uint64_t lo = t * per, hi = lo + per < n ? lo + per : n;
            if (lo < hi) memcpy((char *)a + lo * ib, (const char *)src + lo * ib, (hi - lo) * ib);
        });
    }
    free(pl.zeros), free(pl.ones);
    return rc;
}

/* ---- module ---- */

static uint64_t footprint(const pb_point *pt)
{
    return pb_shuffle_footprint_inplace(pt) + (ms_has_wide(pt->n, pt->params) ? pt->n * pt->item_bytes : 0);
}

/* The wide merges' second buffer, touched once here so its pages are
 * mapped before the timed samples. */
static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    if (pb_shuffle_prepare_inplace(pt, state, err)) return -1;
    pb_shuffle_buffers *b = *state;
    if (ms_has_wide(pt->n, &b->params)) {
        size_t bytes = (size_t)pt->n * pt->item_bytes;
        b->extra = malloc(bytes);
        if (!b->extra) {
            pb_shuffle_release(b);
            return pb_err_set(err, "merge-shuffle: out of memory for the wide merges' buffer (%zu bytes)", bytes);
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
    if (ms_shuffle(b->out, b->extra, b->pt.n, b->pt.item_bytes, &b->params, b->pt.threads, b->pt.seed, sample))
        return pb_err_set(err, "merge-shuffle: out of memory for a wide merge's plan");
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
            failed = ms_shuffle(a, tmp, n, 4, p, 1, seed, first + j) != 0;
        }
        free(tmp);
    }
    return failed ? pb_err_set(err, "merge-shuffle: out of memory for a sample permutation") : 0;
}

const pb_module pb_module_merge_shuffle = {
    .name = "merge-shuffle",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "MergeShuffle (Bacher et al.): parallel Fisher-Yates blocks, random-bit merges "
               "level by level (OpenMP tasks), the top ones by the whole team out of place; same "
               "output for any thread count",
    .params = PB_PARAMS(params),
    .max_n = PB_CS_MAX_N,
    .footprint = footprint,
    .prepare = prepare,
    .run = run,
    .result = pb_shuffle_result,
    .release = pb_shuffle_release,
    .sample_perms = sample_perms,
    .refresh = pb_shuffle_refresh,
    .fingerprint = pb_shuffle_fingerprint,
};

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
 * Merges of one level run in parallel as tasks; the last merges are
 * sequential (the algorithm's span is O(n)).
 *
 * Randomness (algorithms/shuffle/cpu_streams.h): block [lo, hi) draws from
 * (BLOCK, 0, lo << 14); the merge of [s, e) at level L from (MERGE, L,
 * s << 14), its bits one at a time from 32-bit words (the unused rest of the
 * last word is dropped, never handed on). Blocks, and merges of one level,
 * are disjoint, so no bit is drawn twice; the tree depends on n and `block`
 * only, so the output is the same for any thread count. */
#include <omp.h>
#include <stdlib.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_leaf.h"

enum { P_THREADS, P_BLOCK };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"block", PB_PARAM_INT, 1 << 16, 1, 1 << 30, NULL,
     "largest block shuffled by Fisher-Yates before the merges"},
};

#define MS_TASK_MIN (UINT64_C(1) << 14) /* merge subtrees this large become tasks */

typedef struct ms_ctx {
    uint64_t seed, sample, n;
    unsigned k; /* 2^k blocks */
    unsigned item_bytes;
    void *a;
    int threads;
} ms_ctx;

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

static void ms_shuffle(void *a, uint64_t n, unsigned item_bytes, const pb_params *p, int threads,
                       uint64_t seed, uint64_t sample)
{
    if (n <= 1) return;
    threads = pb_cs_team(threads, n);
    ms_ctx c = {.seed = seed, .sample = sample, .n = n, .k = 0, .item_bytes = item_bytes,
                .a = a, .threads = threads};
    uint64_t block = (uint64_t)p->v[P_BLOCK];
    while ((n + (UINT64_C(1) << c.k) - 1) >> c.k > block) c.k++;
    if (threads > 1 && c.k > 0) {
#pragma omp parallel num_threads(threads)
#pragma omp single
        ms_tree(&c, c.k, 0);
    } else {
        ms_tree(&c, c.k, 0);
    }
}

/* ---- module ---- */

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    ms_shuffle(b->out, b->pt.n, b->pt.item_bytes, &b->params, b->pt.threads, b->pt.seed, sample);
    return 0;
}

/* Permutation j: the shuffle of the identity for sample first + j by the
 * same code, one permutation per thread. */
static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    (void)err;
    int threads = pb_cs_threads(p->v[P_THREADS]);
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16)
    for (uint64_t j = 0; j < count; j++) {
        uint32_t *a = out + j * n;
        for (uint32_t i = 0; i < n; i++) a[i] = i;
        ms_shuffle(a, n, 4, p, 1, seed, first + j);
    }
    return 0;
}

const pb_module pb_module_merge_shuffle = {
    .name = "merge-shuffle",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "MergeShuffle (Bacher et al.): parallel Fisher-Yates blocks, random-bit merges "
               "level by level (OpenMP tasks); same output for any thread count",
    .params = PB_PARAMS(params),
    .max_n = PB_CS_MAX_N,
    .footprint = pb_shuffle_footprint_inplace,
    .prepare = pb_shuffle_prepare_inplace,
    .run = run,
    .result = pb_shuffle_result,
    .release = pb_shuffle_release,
    .sample_perms = sample_perms,
    .refresh = pb_shuffle_refresh,
    .fingerprint = pb_shuffle_fingerprint,
};

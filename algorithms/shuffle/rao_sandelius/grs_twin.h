/* The GPU Rao-Sandelius shuffle (docs/gpu-rao-sandelius.md)
 * as a C model: the algorithm and every random word it draws, so that a GPU
 * module (gpu-rao-sandelius) can be held to it bit for bit.
 *
 *   1. key: item i (its index in the input) draws a key_bits-bit label from
 *      its own Philox byte; the items are stably sorted by it (on a GPU, a
 *      radix sort of key_bits bits, coalesced passes). Each run of equal
 *      labels is a bucket, in label order.
 *   2. each bucket is shuffled exactly, recursively: a segment of at most
 *      `small` items by Fisher-Yates (a thread's registers on a GPU);
 *      a larger one is split stably by a level_bits-bit label that each
 *      position p of it draws at level l (the segment's depth), and each
 *      part goes on at level l + 1. A bucket that fits shared memory is
 *      split there; one that does not (rare: its size is random) is split
 *      the same way in global memory, so the result never depends on where.
 *
 * Labels (tags key and level) are bytes: the label at p is the top bits of
 * byte p & 3 of word (p >> 2) & 3 of the Philox4x32-10 block at counter
 * (p >> 4, w1, sample, sample >> 32 | tag << 30), sixteen labels a block;
 * Fisher-Yates's draws (tag fy) are words: word p & 3 of the block at
 * (p >> 2, retry, sample, ...). The key is made from the seed; p is an
 * item index (key), a position (levels, Fisher-Yates), w1 the level or a
 * Fisher-Yates retry: no byte or word is ever drawn twice (segments of one
 * level are disjoint in positions), so every draw is independent of every
 * other. Labels of 2^b values (b <= 8) are a byte's top b bits (exactly
 * uniform); Fisher-Yates's bounded draws use Lemire's method, a rejected
 * word giving way to the next retry's.
 *
 * Exactly uniform (docs/gpu-rao-sandelius.md): labels are independent and
 * uniform, a stable split by them followed by independent uniform shuffles
 * of the parts is a uniform shuffle, and the stopping rule (a segment's
 * size and depth) looks at nothing else. */
#ifndef PB_GRS_TWIN_H
#define PB_GRS_TWIN_H

#include <stdint.h>

#include <Random123/philox.h>

#include "core/err.h"
#include "core/hd.h"
#include "core/lemire.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Items and samples the counters can name: positions below 2^34 (p >> 2
 * fills word 0), samples below 2^62 (the tag takes word 3's top 2 bits). */
#define PB_GRS_MAX_ITEMS (UINT64_C(1) << 34)
#define PB_GRS_MAX_SAMPLE (UINT64_C(1) << 62)
#define PB_GRS_MAX_KEY_BITS 8    /* labels are bytes: 256 buckets at most */
/* The automatic first sort takes at most 8 bits: one pass of 256 labels on
 * the GPU (which draws labels by item index, so it cannot split the first
 * sort into passes); later levels by position labels do the rest. */
#define PB_GRS_AUTO_KEY_BITS 8
#define PB_GRS_MAX_LEVEL_BITS 8  /* labels are bytes: 256 parts a split at most */
/* Depth at which a segment is shuffled by Fisher-Yates whatever its size
 * (a segment reaches it only if 64 splits in a row sent it whole to one
 * part: never, but the GPU's loop is bounded). */
#define PB_GRS_MAX_LEVELS 64

enum pb_grs_tag { PB_GRS_TAG_KEY = 0, PB_GRS_TAG_LEVEL = 1, PB_GRS_TAG_FY = 2 };

/* The shape of a shuffle: the first sort's label bits, a split's label
 * bits, and the size at which Fisher-Yates takes over. */
typedef struct pb_grs_shape {
    unsigned key_bits;   /* 0 .. PB_GRS_MAX_KEY_BITS: 2^key_bits buckets */
    unsigned level_bits; /* 1 .. PB_GRS_MAX_LEVEL_BITS */
    uint32_t small;      /* >= 1 */
} pb_grs_shape;

PB_HDI philox4x32_key_t pb_grs_key(uint64_t seed)
{
    philox4x32_key_t k = {{(uint32_t)seed ^ 0x7f4a7c15u, (uint32_t)(seed >> 32) ^ 0x85ebca6bu}};
    return k;
}

/* The word at p of stream (w1, tag) of a sample. */
PB_HDI uint32_t pb_grs_word(philox4x32_key_t k, uint64_t p, uint32_t w1, uint64_t sample,
                            uint32_t tag)
{
    philox4x32_ctr_t c = {{(uint32_t)(p >> 2), w1, (uint32_t)sample,
                           (uint32_t)(sample >> 32) | tag << 30}};
    return philox4x32(c, k).v[p & 3];
}

/* The label byte at p of stream (w1, tag), its top `bits` (1 .. 8). */
PB_HDI uint32_t pb_grs_label(philox4x32_key_t k, uint64_t p, uint32_t w1, uint64_t sample, uint32_t tag,
                             unsigned bits)
{
    philox4x32_ctr_t c = {{(uint32_t)(p >> 4), w1, (uint32_t)sample,
                           (uint32_t)(sample >> 32) | tag << 30}};
    uint32_t w = philox4x32(c, k).v[(p >> 2) & 3];
    return ((w >> (8 * (p & 3))) & 0xffu) >> (8 - bits);
}

/* Item i's first label (key_bits of them; 0 when key_bits is 0). */
PB_HDI uint32_t pb_grs_item_key(philox4x32_key_t k, uint64_t i, uint64_t sample, unsigned bits)
{
    return bits ? pb_grs_label(k, i, 0, sample, PB_GRS_TAG_KEY, bits) : 0;
}

/* The label position p draws when its segment splits at depth `level`. */
PB_HDI uint32_t pb_grs_level_label(philox4x32_key_t k, uint64_t p, uint32_t level,
                                   uint64_t sample, unsigned bits)
{
    return pb_grs_label(k, p, level, sample, PB_GRS_TAG_LEVEL, bits);
}

/* Fisher-Yates's draw in [0, range) for step t of the segment at s: the
 * word at position s + t, then the retries' words at the same position. */
PB_HDI uint32_t pb_grs_fy_pick(philox4x32_key_t k, uint64_t pos, uint32_t range, uint64_t sample)
{
    uint32_t j = 0;
    for (uint32_t retry = 0; retry < 64; retry++)
        if (pb_lemire_pick(pb_grs_word(k, pos, retry, sample, PB_GRS_TAG_FY), range, &j)) return j;
    return j; /* 64 rejections in a row: below 2^-600 for the sizes used */
}

/* key_bits for n items so that a bucket holds about `target` on average
 * (0 for n <= target; at most PB_GRS_AUTO_KEY_BITS). */
unsigned pb_grs_key_bits_for(uint64_t n, uint64_t target);

/* The shape parameters of every module that runs this algorithm (grs-twin,
 * gpu-rao-sandelius), in this order, as pb_param_spec initialisers;
 * level_max: the largest level_bits the module takes. */
#define PB_GRS_SHAPE_PARAMS(level_max)                                                                             \
    {"key_bits", PB_PARAM_INT, -1, -1, PB_GRS_MAX_KEY_BITS, NULL,                                                \
     "label bits of the first sort: 2^key_bits buckets (-1: up to 8, as many as put about `target` items in a bucket)"}, \
        {"target", PB_PARAM_INT, 8192, 1, 1LL << 30, NULL,                                                       \
         "items a bucket holds on average when key_bits is -1; on the GPU, levels run over the whole array "    \
         "until segments hold about this many (what a block's shared memory takes)"},                             \
        {"level_bits", PB_PARAM_INT, 8, 1, (level_max), NULL,                                                    \
         "label bits of each split inside a bucket: 2^level_bits parts"},                                        \
        {"small", PB_PARAM_INT, 64, 1, 1LL << 30, NULL, "segments of at most this many items are shuffled by Fisher-Yates"}

/* The shape for n items from those four parameters' resolved values
 * (v[0] key_bits, v[1] target, v[2] level_bits, v[3] small). */
static inline pb_grs_shape pb_grs_shape_of(const long long *v, uint64_t n)
{
    pb_grs_shape s;
    s.key_bits = v[0] < 0 ? pb_grs_key_bits_for(n, (uint64_t)v[1]) : (unsigned)v[0];
    s.level_bits = (unsigned)v[2];
    s.small = (uint32_t)v[3];
    return s;
}

/* Every word the model draws, for the bit-reuse test: (tag, w1, p). */
typedef struct pb_grs_trace {
    void (*word)(void *ctx, uint32_t tag, uint32_t w1, uint64_t p);
    void *ctx;
} pb_grs_trace;

/* What the shuffle did besides the output. */
typedef struct pb_grs_stats {
    uint64_t buckets;       /* non-empty buckets of the first sort */
    uint64_t largest;       /* the largest of them */
    uint64_t splits;        /* segments split by a level label */
    uint32_t deepest;       /* the deepest level a split ran at */
    uint64_t fisher_yates;  /* segments shuffled by Fisher-Yates */
} pb_grs_stats;

/* Shuffles n items of item_bytes from in to out (distinct buffers). 0, or
 * -1 with err set (a shape out of range, too many items, a sample past
 * 2^62, no memory). trace and stats may be NULL. */
int pb_grs_twin_shuffle(const void *in, void *out, uint64_t n, unsigned item_bytes,
                         const pb_grs_shape *shape, uint64_t seed, uint64_t sample,
                         const pb_grs_trace *trace, pb_grs_stats *stats, pb_err *err);

/* The model's pieces, which pb_grs_twin_shuffle runs in its order and the
 * L2 order's model (l2s_twin.h) in another: the same splits and the same
 * Fisher-Yates, so the same output whatever the order. */

/* Levels the GPU modules split over the whole array before finishing
 * segments one a block: while a segment holds more than max(target,
 * small) items on average (and the splits' bits stay below 40). */
unsigned pb_grs_plan_levels(const pb_grs_shape *shape, uint64_t n, uint64_t target);

/* Working memory for segments of up to n items of ib bytes. */
typedef struct pb_grs_work {
    uint32_t *label;
    char *scratch, *tmp;
    uint64_t *sub; /* a split's part ends: 2^PB_GRS_MAX_LEVEL_BITS */
    void *stack;
    size_t cap;
    unsigned ib;
} pb_grs_work;

int pb_grs_work_init(pb_grs_work *w, uint64_t n, unsigned ib, pb_err *err);
void pb_grs_work_free(pb_grs_work *w);

/* A stable split of the m items of src (positions s .. s + m - 1 of the
 * permutation) into dst by the labels of `bits` (0: none, dst = src) that
 * the positions draw from stream (tag, w1); the first sort is tag KEY, w1
 * 0, s 0 (items by index). ends[q]: the end of part q, relative to s, for
 * q < 2^bits. */
void pb_grs_twin_split(const void *src, void *dst, uint64_t s, uint64_t m, unsigned bits, uint32_t tag,
                       uint32_t w1, philox4x32_key_t k, uint64_t sample, const pb_grs_trace *trace,
                       pb_grs_work *w, uint64_t *ends);

/* The segment of the m items at a (positions s .. s + m - 1) at depth
 * `level`, shuffled exactly in place, as the model does each bucket:
 * Fisher-Yates when small, else a split and its parts one level deeper.
 * 0, or -1 with err set (no memory). */
int pb_grs_twin_finish(void *a, uint64_t s, uint64_t m, uint32_t level, const pb_grs_shape *shape,
                       philox4x32_key_t k, uint64_t sample, const pb_grs_trace *trace, pb_grs_stats *stats,
                       pb_grs_work *w, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

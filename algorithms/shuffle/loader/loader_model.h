/* The shuffles machine-learning data loaders use, modelled as their
 * documentation and code describe them (docs/loader-shuffles.md cites the
 * versions): each writes order[t] = the index of the item it emits t-th,
 * for one epoch over items 0 .. n-1 read in order.
 *
 *   buffer   a streaming shuffle buffer of B items. Fill rule `tfdata`
 *            (tf.data shuffle, torchdata Shuffler, Hugging Face
 *            IterableDataset.shuffle: the same distribution): the first B
 *            items fill it, then each output is a uniform pick among the B
 *            held, whose place the next item takes; at the end the rest
 *            come out in uniform order. Fill rule `webdataset` (WebDataset
 *            shuffle(bufsize, initial)): each step reads one item, and a
 *            second while fewer than B are held, then emits a uniform pick
 *            among all held (the new ones too) once at least `initial` are.
 *   shard    the items in shards of L (the last one short), the shard
 *            order uniform, each shard read in order into a buffer as
 *            above (Hugging Face's shard-order shuffle, WebDataset's
 *            shardshuffle, then the buffer).
 *   mosaic   MosaicML Streaming's py1s and py1e over shards of L and C
 *            canonical nodes: the shard order uniform, cut into C equal
 *            parts (a shard may be split between two), the spans of each
 *            part reordered; py1s then shuffles each span; py1e shuffles
 *            each span, moves each item by a uniform shift whose range is
 *            set by a block size drawn in [0.75 B, 1.25 B), and sorts.
 *
 * Every random choice goes through pb_ld_draws, so the same code draws
 * from a Philox stream in the modules and from an enumeration of every
 * choice in the known-answer tests (tests/test_loader_shuffles.c). */
#ifndef PB_LOADER_MODEL_H
#define PB_LOADER_MODEL_H

#include <stdint.h>

#include "core/rng.h"

typedef struct pb_ld_draws {
    uint32_t (*below)(void *ctx, uint32_t range); /* uniform in [0, range), range >= 1 */
    double (*unit)(void *ctx);                    /* uniform in [0, 1) */
    void *ctx;
} pb_ld_draws;

typedef enum pb_ld_fill { PB_LD_FILL_TFDATA, PB_LD_FILL_WEBDATASET } pb_ld_fill;
typedef enum pb_ld_mosaic_algo { PB_LD_PY1S, PB_LD_PY1E } pb_ld_mosaic_algo;

#define PB_LD_FILL_CHOICES "tfdata|webdataset"
#define PB_LD_MOSAIC_CHOICES "py1s|py1e"

typedef struct pb_ld_buffer {
    uint32_t size;    /* B >= 1 */
    pb_ld_fill fill;
    uint32_t initial; /* webdataset: items held before the first output (min'd with B) */
} pb_ld_buffer;

typedef struct pb_ld_mosaic {
    pb_ld_mosaic_algo algo;
    uint32_t shard; /* L >= 1 */
    uint32_t nodes; /* C >= 1 canonical nodes */
    uint32_t block; /* py1e's shuffle block size >= 1 */
} pb_ld_mosaic;

/* The scratch each needs, in 32-bit words (mosaic: bytes). */
uint64_t pb_ld_buffer_scratch(uint64_t n, const pb_ld_buffer *b);
uint64_t pb_ld_shard_scratch(uint64_t n, uint32_t shard, const pb_ld_buffer *b);
uint64_t pb_ld_mosaic_scratch_bytes(uint64_t n, const pb_ld_mosaic *m);

/* The buffer shuffle of the stream in[0 .. n) (NULL: the items in order). */
void pb_ld_buffer_shuffle(const uint32_t *in, uint32_t n, const pb_ld_buffer *b, uint32_t *order,
                          uint32_t *scratch, pb_ld_draws *d);
/* Shards of `shard` items in uniform order, then the buffer. */
void pb_ld_shard_shuffle(uint32_t n, uint32_t shard, const pb_ld_buffer *b, uint32_t *order, uint32_t *scratch,
                         pb_ld_draws *d);
/* py1s or py1e; scratch of pb_ld_mosaic_scratch_bytes. */
void pb_ld_mosaic_shuffle(uint32_t n, const pb_ld_mosaic *m, uint32_t *order, void *scratch, pb_ld_draws *d);

/* Draws from the Philox stream of (seed, sample): r is their state. */
void pb_ld_philox_draws(pb_rng *r, uint64_t seed, uint64_t sample, pb_ld_draws *d);

#endif

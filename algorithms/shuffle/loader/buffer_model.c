/* The buffer and shard shuffles of loader_model.h. */
#include "algorithms/shuffle/loader/loader_model.h"

uint64_t pb_ld_buffer_scratch(uint64_t n, const pb_ld_buffer *b)
{
    (void)n;
    return (uint64_t)b->size + 1;
}

uint64_t pb_ld_shard_scratch(uint64_t n, uint32_t shard, const pb_ld_buffer *b)
{
    return (n + shard - 1) / shard + n + pb_ld_buffer_scratch(n, b);
}

/* Emits a uniform pick among the `held` items and closes the gap with the
 * last one (WebDataset's pick; for the tf.data rule the order inside the
 * buffer does not matter, only that the pick is uniform). */
static uint32_t pick(uint32_t *buf, uint32_t *held, pb_ld_draws *d)
{
    uint32_t j = d->below(d->ctx, *held), v = buf[j];
    buf[j] = buf[--*held];
    return v;
}

void pb_ld_buffer_shuffle(const uint32_t *in, uint32_t n, const pb_ld_buffer *b, uint32_t *order,
                          uint32_t *buf, pb_ld_draws *d)
{
    uint32_t held = 0, read = 0, t = 0;
#define NEXT() (in ? in[read++] : read++)
    if (b->fill == PB_LD_FILL_TFDATA) {
        while (read < n && held < b->size) buf[held++] = NEXT();
        /* Full: the pick's place goes to the next item, which was not a
         * candidate for this pick (torchdata swaps it in after choosing,
         * tf.data refills before the next call). */
        while (read < n) {
            uint32_t j = d->below(d->ctx, held);
            order[t++] = buf[j];
            buf[j] = NEXT();
        }
    } else {
        uint32_t initial = b->initial < b->size ? b->initial : b->size;
        while (read < n) {
            buf[held++] = NEXT();
            /* While the buffer grows it takes two items a step, so it
             * fills while emitting; the new items are candidates at once. */
            if (held < b->size && read < n) buf[held++] = NEXT();
            if (held >= initial) order[t++] = pick(buf, &held, d);
        }
    }
#undef NEXT
    while (held) order[t++] = pick(buf, &held, d);
}

void pb_ld_shard_shuffle(uint32_t n, uint32_t shard, const pb_ld_buffer *b, uint32_t *order, uint32_t *scratch,
                         pb_ld_draws *d)
{
    uint32_t shards = (uint32_t)(((uint64_t)n + shard - 1) / shard);
    uint32_t *perm = scratch, *stream = scratch + shards, *buf = stream + n;
    for (uint32_t s = 0; s < shards; s++) perm[s] = s;
    for (uint32_t i = shards; i > 1; i--) {
        uint32_t j = d->below(d->ctx, i), x = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = x;
    }
    uint32_t t = 0;
    for (uint32_t s = 0; s < shards; s++) {
        uint64_t first = (uint64_t)perm[s] * shard, end = first + shard < n ? first + shard : n;
        for (uint64_t i = first; i < end; i++) stream[t++] = (uint32_t)i;
    }
    pb_ld_buffer_shuffle(stream, n, b, order, buf, d);
}

static uint32_t philox_below(void *ctx, uint32_t range) { return pb_rng_below32(ctx, range); }
static double philox_unit(void *ctx) { return (double)(pb_rng_u64(ctx) >> 11) * 0x1p-53; }

void pb_ld_philox_draws(pb_rng *r, uint64_t seed, uint64_t sample, pb_ld_draws *d)
{
    pb_rng_init(r, seed, sample);
    *d = (pb_ld_draws){philox_below, philox_unit, r};
}

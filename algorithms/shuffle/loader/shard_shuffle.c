/* shard-shuffle: shards of L items read in a uniform order, each in order,
 * through a shuffle buffer (Hugging Face's shard-order shuffle and buffer,
 * WebDataset's shardshuffle and shuffle; loader_model.h,
 * docs/loader-shuffles.md). Approximately uniform: the buffer is all that
 * mixes items of one shard. */
#include "algorithms/shuffle/loader/loader_module.h"

enum { P_THREADS = PB_LD_P_THREADS, P_SHARD, P_BUFFER, P_FILL, P_INITIAL };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"shard", PB_PARAM_INT, 1000, 1, UINT32_MAX, NULL, "items a shard (L; the last one may be short)"},
    PB_LD_BUFFER_PARAMS,
};

static uint64_t scratch_bytes(const pb_params *p, uint64_t n)
{
    pb_ld_buffer b = pb_ld_buffer_of(p, P_BUFFER);
    return 4 * pb_ld_shard_scratch(n, (uint32_t)p->v[P_SHARD], &b);
}

static void shuffle(const pb_params *p, uint32_t n, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    pb_ld_buffer b = pb_ld_buffer_of(p, P_BUFFER);
    pb_ld_shard_shuffle(n, (uint32_t)p->v[P_SHARD], &b, order, scratch, d);
}

PB_LD_MODULE(shard_shuffle, "cpu-shard-shuffle",
             "a data loader's shard shuffle: shards of L in uniform order, then a buffer of B "
             "(Hugging Face, WebDataset); approximately uniform",
             params, pb_ld_no_check, scratch_bytes, shuffle);

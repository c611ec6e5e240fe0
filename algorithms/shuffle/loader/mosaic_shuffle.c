/* mosaic-shuffle: MosaicML Streaming's py1s and py1e block shuffles over
 * shards of L items and C canonical nodes (loader_model.h,
 * docs/loader-shuffles.md). Approximately uniform: py1s never mixes two
 * shards, py1e only within about a block. */
#include "algorithms/shuffle/loader/loader_module.h"

enum { P_THREADS = PB_LD_P_THREADS, P_ALGO, P_SHARD, P_NODES, P_BLOCK };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"algo", PB_PARAM_ENUM, PB_LD_PY1E, 0, 0, PB_LD_MOSAIC_CHOICES,
     "py1s: shuffle within each shard; py1e: shifts within about a block, then sort"},
    {"shard", PB_PARAM_INT, 1000, 1, UINT32_MAX, NULL, "items a shard (L; the last one may be short)"},
    {"nodes", PB_PARAM_INT, 1, 1, 1 << 20, NULL, "canonical nodes (C): the shard order cut into C parts"},
    {"block", PB_PARAM_INT, 1 << 18, 1, 1 << 30, NULL, "py1e's shuffle block size"},
};

static pb_ld_mosaic mosaic_of(const pb_params *p)
{
    return (pb_ld_mosaic){(pb_ld_mosaic_algo)p->v[P_ALGO], (uint32_t)p->v[P_SHARD], (uint32_t)p->v[P_NODES],
                          (uint32_t)p->v[P_BLOCK]};
}

/* Streaming refuses a canonical node without samples (py1e raises). */
static int check(const pb_params *p, uint64_t n, pb_err *err)
{
    if ((uint64_t)p->v[P_NODES] > n && n > 0)
        return pb_err_set(err, "cpu-mosaic-shuffle: nodes = %lld leaves a canonical node without items at n = %llu",
                          p->v[P_NODES], (unsigned long long)n);
    return 0;
}

static uint64_t scratch_bytes(const pb_params *p, uint64_t n)
{
    pb_ld_mosaic m = mosaic_of(p);
    return pb_ld_mosaic_scratch_bytes(n, &m);
}

static void shuffle(const pb_params *p, uint32_t n, uint32_t *order, void *scratch, pb_ld_draws *d)
{
    pb_ld_mosaic m = mosaic_of(p);
    pb_ld_mosaic_shuffle(n, &m, order, scratch, d);
}

PB_LD_MODULE(mosaic_shuffle, "cpu-mosaic-shuffle",
             "MosaicML Streaming's py1s / py1e shuffles over shards of L and C canonical nodes; "
             "approximately uniform",
             params, check, scratch_bytes, shuffle);

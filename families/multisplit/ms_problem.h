/* A multisplit problem point on the host: the resolved bucket identifier, the
 * generated input, and (computed on first use) the C twin's answer that
 * every module's output is compared against.
 *
 * Every multisplit-family module declares PB_MS_COMMON_PARAMS first, so the
 * shared code finds them at fixed indices. The point's item width selects
 * key-only (4 bytes: u32 keys) or key-value (8 bytes: u32 key + u32 value)
 * multisplit; values are the keys' input positions, which makes stability
 * visible in the output. */
#ifndef PB_MS_PROBLEM_H
#define PB_MS_PROBLEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/module.h"
#include "core/rng.h"
#include "families/multisplit/ms_bucket.h"
#include "families/multisplit/ms_family.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_ms_param {
    PB_MS_P_BUCKETS, /* m */
    PB_MS_P_BUCKET,  /* pb_bucket_kind */
    PB_MS_P_SHIFT,   /* radix buckets: the digit's lowest bit */
    PB_MS_P_DIST,    /* pb_ms_dist */
    PB_MS_P_ALPHA,   /* alpha-uniform: percent of keys spread uniformly */
    PB_MS_NCOMMON
};

typedef enum pb_ms_dist { PB_MS_UNIFORM, PB_MS_BINOMIAL, PB_MS_ALPHA } pb_ms_dist;

#define PB_MS_COMMON_PARAMS                                                                        \
    {"buckets", PB_PARAM_INT, 32, 2, PB_MS_MAX_BUCKETS, NULL, "number of buckets m"},              \
        {"bucket", PB_PARAM_ENUM, PB_BUCKET_DELTA, 0, 0, PB_BUCKET_CHOICES,                        \
         "bucket identifier: k/delta, k, (k>>shift)&(m-1), or m-1 range splitters"},               \
        {"shift", PB_PARAM_INT, 0, 0, 31, NULL, "radix buckets: lowest bit of the digit"},         \
        {"dist", PB_PARAM_ENUM, PB_MS_UNIFORM, 0, 0, "uniform|binomial|alpha",                     \
         "keys over buckets: uniform, binomial B(m-1, 1/2), alpha-uniform"},                       \
        {"alpha", PB_PARAM_INT, 25, 0, 100, NULL,                                                  \
         "alpha-uniform: percent of keys uniform over buckets, the rest in one random bucket"}

typedef struct pb_ms_problem {
    uint64_t n;
    bool pairs;          /* key-value (item_bytes 8) */
    uint64_t seed;
    pb_bucket_kind kind;
    pb_ms_dist dist;
    uint32_t m;
    uint32_t splitters[PB_MS_MAX_BUCKETS]; /* range buckets: m - 1 ascending */
    pb_bucket_fn fn;     /* fn.splitters points at the array above */
    uint32_t *keys;      /* input, n */
    uint32_t *vals;      /* input, n, pairs only: vals[i] = i */

    /* The twin's answer, filled by pb_ms_twin_answer(). */
    uint32_t *twin_keys, *twin_vals;
    uint64_t offsets[PB_MS_MAX_BUCKETS + 1]; /* bucket b is [offsets[b], offsets[b+1]) */
    bool have_twin;
} pb_ms_problem;

/* Checks the common parameters (radix: m a power of two and shift + log2 m <=
 * 32; identity and radix need no more), builds the bucket identifier and
 * generates the input from pt->seed. The same point always gives the same
 * input, whoever generates it. Threads: OpenMP, all cores. */
int pb_ms_problem_init(pb_ms_problem *p, const pb_point *pt, pb_err *err);
void pb_ms_problem_free(pb_ms_problem *p);

/* Only validates the parameters (for footprint/plan checks and CLI errors). */
int pb_ms_params_check(const pb_params *params, pb_err *err);

/* Host bytes pb_ms_problem_init and the twin answer will hold. */
uint64_t pb_ms_problem_host_bytes(const pb_point *pt);

/* The C twin: the stable multisplit (counting sort by bucket id) of the
 * problem's input, computed once and kept in the problem. */
int pb_ms_twin_answer(pb_ms_problem *p, pb_err *err);

/* Stable contract: out equals the twin bit for bit (keys, and values for
 * pairs). The error names the first differing position. */
int pb_ms_check_stable(pb_ms_problem *p, const uint32_t *keys, const uint32_t *vals, pb_err *err);

/* Unstable contract: every key in [offsets[b], offsets[b+1]) has bucket b,
 * the offsets equal the twin's, and each bucket holds the same multiset of
 * (key, value) items as the input (an order-independent 64-bit fingerprint per
 * bucket). */
int pb_ms_check_contract(pb_ms_problem *p, const uint32_t *keys, const uint32_t *vals,
                         pb_err *err);

/* Sorted contract (full or reduced-bit radix sorts used as multisplits):
 * keys ascending in the sort's bits [0, end_bit), a permutation of the input,
 * and stable among equal sort keys (values = input positions ascending). */
int pb_ms_check_sorted(pb_ms_problem *p, const uint32_t *keys, const uint32_t *vals,
                       unsigned end_bit, pb_err *err);

/* The sorted contract's one answer: the input stably sorted on bits
 * [0, end_bit) of the keys (values following), in fresh arrays (vals NULL
 * for key-only points). */
int pb_ms_sorted_answer(const pb_ms_problem *p, unsigned end_bit, uint32_t **keys, uint32_t **vals,
                        pb_err *err);

/* The stable multisplit itself, for the CPU modules and tests: out arrays of
 * n, offsets of m + 1. `threads` 1 is the sequential twin; more use OpenMP
 * (per-thread histograms over contiguous chunks, scan, scatter), with the
 * same result. */
void pb_ms_split(const pb_bucket_fn *fn, const uint32_t *keys, const uint32_t *vals, uint64_t n,
                 uint32_t *out_keys, uint32_t *out_vals, uint64_t *offsets, int threads);

/* Below this many items the generator, the split and the checks run on the
 * calling thread: waking a team costs more than it saves. Results never
 * depend on it. */
#define PB_MS_PAR_MIN (UINT64_C(1) << 15)

/* The one bucket alpha-uniform inputs pile their non-uniform keys into,
 * drawn once from the seed. */
uint32_t pb_ms_heavy_bucket(const pb_ms_problem *p);

/* The bucket the generator drew for key i (the same draw it made), so a
 * test can check that every key landed in the bucket it was drawn for.
 * `alpha` is the point's alpha parameter. */
uint32_t pb_ms_drawn_bucket(const pb_ms_problem *p, uint64_t i, uint32_t alpha);

/* The fingerprint of one item: order-independent sums and xors of it tell
 * whether two sets of items are the same multiset. */
static inline uint64_t pb_ms_item_mix(uint32_t key, uint32_t val)
{
    return pb_mix64((uint64_t)key << 32 | val);
}

#ifdef __cplusplus
}
#endif

#endif

/* The POV-shuffle in C (algorithms/shuffle/pov/pov.h): the pov-shuffle module
 * (OpenMP over virtual blocks) and the twin the CUDA kernel must equal bit
 * for bit. Items are item_bytes wide: 4 or 8, or records of R bytes
 * (families/shuffle/shuffle_items.h), each moved whole by memcpy, so the
 * permutation does not depend on the width. */
#ifndef PB_POV_TWIN_H
#define PB_POV_TWIN_H

#include <stdint.h>

#include "algorithms/shuffle/pov/pov.h"
#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the parameters hold at n (else err says which does not). */
int pb_pov_check(uint64_t n, const pb_pov_params *p, pb_err *err);

/* sigma of an iteration (pov.h, pb_pov_block_key): the nblocks blocks in
 * order of their keys, by an LSD radix sort (keys drawn on `threads`
 * OpenMP threads). -1: out of memory for the keys. */
int pb_pov_assign(uint32_t *sigma, uint64_t nblocks, uint64_t seed, uint64_t sample, uint32_t it, int threads);

/* One iteration's layout: sigma (P entries) and the offset. */
int pb_pov_layout(uint64_t n, const pb_pov_params *p, uint64_t seed, uint64_t sample, uint32_t it, int threads,
                  uint32_t *sigma, uint64_t *off, pb_err *err);

/* Shuffles a[0, n) in place: every iteration, virtual blocks on `threads`
 * OpenMP threads (1: the calling thread), the same output for any count.
 * sigma: scratch of ceil(n / block) entries. */
int pb_pov_shuffle(void *a, uint64_t n, unsigned item_bytes, const pb_pov_params *p, uint64_t seed,
                   uint64_t sample, int threads, uint32_t *sigma, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

/* What the multisplit tests share (tests/multisplit/test_multisplit*.c):
 * parameters, a problem made from them, a key buffer. */
#ifndef PB_TESTS_MS_HELPERS_H
#define PB_TESTS_MS_HELPERS_H

#include <stdint.h>

#include "config/params.h"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_problem.h"

pb_params ms_params(uint32_t m, pb_bucket_kind kind, uint32_t shift, pb_ms_dist dist,
               uint32_t alpha);
int ms_init(pb_ms_problem *p, uint64_t n, unsigned item, uint64_t seed, const pb_params *par);
uint32_t *xalloc(uint64_t n);

#endif

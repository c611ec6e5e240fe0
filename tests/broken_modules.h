/* Test-only broken modules (tests/broken_modules.c, and on the GPU
 * tests/gpu_broken_modules.cu): the harness must report each one failed. */
#ifndef PB_TEST_BROKEN_MODULES_H
#define PB_TEST_BROKEN_MODULES_H

#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The call of broken-once that is wrong: with one warm-up, sample 6. */
#define PB_BROKEN_ONCE_CALL 8

extern const pb_module pb_broken_noop, pb_broken_half, pb_broken_stale, pb_broken_once,
    pb_broken_stale_noref;
void pb_broken_once_reset(void);

/* Its sample hook's sample (from 0) that is not a permutation. */
#define PB_BROKEN_SAMPLE_ROW 70000
extern const pb_module pb_broken_sample;

#ifdef PB_HAVE_CUDA
/* GPU: writes nothing; writes the first half of the output only; copies
 * the input and gives record 0 record 1's tail. */
extern const pb_module pb_broken_gpu_noop, pb_broken_gpu_half, pb_broken_gpu_split;
#endif

#ifdef __cplusplus
}
#endif

#endif

/* Permutations for the statistics tests: drawn through a module's sample
 * hook (the battery's path), and written to a file in one of
 * quality/perm_io.h's formats (the external-input tests). */
#ifndef PB_TEST_PERM_FILES_H
#define PB_TEST_PERM_FILES_H

#include <stdbool.h>
#include <stdint.h>

#include "quality/perm_io.h"

/* count permutations of n from `module`'s sample hook, permutation j drawn
 * for sample j of `seed` (malloc'd; NULL on failure, said on stderr), with
 * default parameters but `set` ("name=value" or NULL) and, when
 * `one_thread`, threads = 1 where the module has that parameter. */
uint32_t *pb_test_draw(const char *module, const char *set, bool one_thread, uint32_t n, uint64_t seed,
                       uint64_t count);

/* Writes them to path in format f; nonzero on failure. */
int pb_test_write_perms(const char *path, const uint32_t *p, uint32_t n, uint64_t count, pb_perm_format f);

#endif

/* The hooks most quality tests share. A test's state is usually one
 * stats/ accumulator (pb_chisq, pb_dups, ...) that is allocated, filled by
 * its own init, asked for one result and freed; these macros write those
 * hooks once, so a test file holds only what makes it different: when it
 * applies, how its accumulator is initialised, and its descriptor. */
#ifndef PB_QTEST_STATE_H
#define PB_QTEST_STATE_H

#include <stdlib.h>

#include "quality/qtests/qtest.h"

/* `static int NAME(...)`, a pb_qtest init hook: allocates a TYPE `t` and
 * fills it with INIT, an expression over t, n, samples, s and err that is
 * non-zero on failure (then err says why and nothing is kept). */
#define PB_QTEST_STATE_INIT(NAME, TYPE, INIT)                                                      \
    static int NAME(void **state, uint32_t n, uint64_t samples, const pb_qsettings *s,             \
                    pb_err *err)                                                                   \
    {                                                                                              \
        (void)n, (void)samples, (void)s;                                                           \
        TYPE *t = malloc(sizeof *t);                                                               \
        if (!t) return pb_err_set(err, "out of memory");                                           \
        if (INIT) {                                                                                \
            free(t);                                                                               \
            return -1;                                                                             \
        }                                                                                          \
        *state = t;                                                                                \
        return 0;                                                                                  \
    }

/* `static int add(...)` over an accumulator whose add cannot fail. */
#define PB_QTEST_STATE_ADD_VOID(ADD)                                                               \
    static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)                \
    {                                                                                              \
        (void)err;                                                                                 \
        ADD(state, perms, count);                                                                  \
        return 0;                                                                                  \
    }

/* `static void finish(...)` for a test of one result, RESULT(t, alpha, r),
 * and `static void release(...)` calling FREE(t) before freeing t. */
#define PB_QTEST_STATE_ONE_RESULT(RESULT, FREE)                                                    \
    static void finish(void *state, size_t which, const pb_qsettings *s, pb_test_result *r)        \
    {                                                                                              \
        (void)which;                                                                               \
        RESULT(state, s->alpha, r);                                                                \
    }                                                                                              \
    static void release(void *state)                                                               \
    {                                                                                              \
        if (!state) return;                                                                        \
        FREE(state);                                                                               \
        free(state);                                                                               \
    }

/* The hooks of a pb_qtest descriptor under the names the macros above
 * give them (a test with its own hooks names them so too). */
#define PB_QTEST_STATE_HOOKS                                                                       \
    .applies = applies, .init = init, .add = add, .finish = finish, .release = release

#endif

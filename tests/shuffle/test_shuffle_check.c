/* The shuffle family's contract check must reject what is not a permutation
 * of the input, or every module test built on it could not fail. */
#include <stdlib.h>

#include "families/shuffle/shuffle_items.h"
#include "tests/test.h"

TEST_IMPL(shuffle_check_catches)
{
    enum { N = 1000 };
    uint64_t a[N];
    uint32_t b[N];
    pb_err err;
    pb_shuffle_fill(a, N, 8);
    pb_shuffle_fill(b, N, 4);
    ASSERT(pb_shuffle_check(a, N, 8, &err) == 0);
    ASSERT(pb_shuffle_check(b, N, 4, &err) == 0);
    for (uint64_t i = 0; i < N; i++) {
        ASSERT_EQ_U64(pb_shuffle_item_index(a[i], 8), i);
        ASSERT_EQ_U64(pb_shuffle_item_index(b[i], 4), i);
        ASSERT(a[i] != i); /* items are not their indices */
    }
    /* A swap is still a permutation. */
    uint64_t t = a[3];
    a[3] = a[500], a[500] = t;
    ASSERT(pb_shuffle_check(a, N, 8, &err) == 0);

    a[10] = a[11]; /* duplicate */
    ASSERT(pb_shuffle_check(a, N, 8, &err) != 0);
    ASSERT_CONTAINS(err.msg, "appears twice");
    pb_shuffle_fill(a, N, 8);
    a[999] = pb_shuffle_item(N, 8); /* an item from beyond the input */
    ASSERT(pb_shuffle_check(a, N, 8, &err) != 0);
    ASSERT_CONTAINS(err.msg, "position 999");
    for (uint64_t i = 0; i < N; i++) a[i] = i; /* indices instead of items */
    ASSERT(pb_shuffle_check(a, N, 8, &err) != 0);
    memset(b, 0, sizeof b); /* untouched, zeroed output */
    ASSERT(pb_shuffle_check(b, N, 4, &err) != 0);
    ASSERT(pb_shuffle_check(b, 0, 4, &err) == 0); /* n = 0: trivially fine */
    return 0;
}

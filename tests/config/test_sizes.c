/* The size syntax of sweeps: lists, ranges with offsets, and the messages
 * for what is malformed. */
#include "config/sizes.h"
#include "tests/test.h"

static int parse(const char *text, uint64_t *out, size_t *n, pb_err *err)
{
    *n = 0;
    return pb_sizes_parse(text, out, n, PB_MAX_SIZES, err);
}

TEST_IMPL(sizes_expressions)
{
    uint64_t v;
    pb_err err;
    ASSERT(pb_size_expr("1000", &v, &err) == 0); ASSERT_EQ_U64(v, 1000);
    ASSERT(pb_size_expr("2^20", &v, &err) == 0); ASSERT_EQ_U64(v, 1u << 20);
    ASSERT(pb_size_expr("2^29+1", &v, &err) == 0); ASSERT_EQ_U64(v, (1u << 29) + 1);
    ASSERT(pb_size_expr("2^10-1", &v, &err) == 0); ASSERT_EQ_U64(v, 1023);
    ASSERT(pb_size_expr("3*2^20", &v, &err) == 0); ASSERT_EQ_U64(v, 3u << 20);
    ASSERT(pb_size_expr("10^6", &v, &err) == 0); ASSERT_EQ_U64(v, 1000000);
    ASSERT(pb_size_expr("0", &v, &err) == 0); ASSERT_EQ_U64(v, 0);
    ASSERT(pb_size_expr("2^62", &v, &err) == 0); ASSERT_EQ_U64(v, UINT64_C(1) << 62);
    return 0;
}

TEST_IMPL(sizes_lists_and_ranges)
{
    uint64_t s[PB_MAX_SIZES];
    size_t n;
    pb_err err;
    ASSERT(parse("1000, 2^20, 2^25", s, &n, &err) == 0);
    ASSERT_EQ_U64(n, 3);
    ASSERT_EQ_U64(s[0], 1000); ASSERT_EQ_U64(s[1], 1u << 20); ASSERT_EQ_U64(s[2], 1u << 25);

    /* The papers' sweep: the factor scales 2^k and keeps the +1. */
    ASSERT(parse("2^8+1 .. 2^29+1 *8", s, &n, &err) == 0);
    ASSERT_EQ_U64(n, 8);
    for (size_t i = 0; i < n; i++) ASSERT_EQ_U64(s[i], (UINT64_C(1) << (8 + 3 * i)) + 1);

    ASSERT(parse("2^10 .. 2^14", s, &n, &err) == 0); /* default *2 */
    ASSERT_EQ_U64(n, 5);
    ASSERT_EQ_U64(s[4], 1u << 14);

    ASSERT(parse("1000 .. 5000 +1000", s, &n, &err) == 0);
    ASSERT_EQ_U64(n, 5);
    ASSERT_EQ_U64(s[4], 5000);

    /* An end that the factor does not reach exactly: stop below it. */
    ASSERT(parse("2^4 .. 100 *4", s, &n, &err) == 0);
    ASSERT_EQ_U64(n, 2);
    ASSERT_EQ_U64(s[1], 64);

    ASSERT(parse("2^8-1..2^12-1 *16, 7", s, &n, &err) == 0); /* '..' without spaces */
    ASSERT_EQ_U64(n, 3);
    ASSERT_EQ_U64(s[0], 255); ASSERT_EQ_U64(s[1], 4095); ASSERT_EQ_U64(s[2], 7);
    return 0;
}

TEST_IMPL(sizes_errors)
{
    uint64_t s[PB_MAX_SIZES];
    size_t n;
    pb_err err;
    ASSERT(parse("2^^8", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "bad size expression '2^^8': expected a number at '^8'");
    ASSERT(parse("12x", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "unexpected character at 'x'");
    ASSERT(parse("2^8 + 1", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "without spaces");
    ASSERT(parse("2^8+1 .. 2^20 *8", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "same offset (+1 and +0)");
    ASSERT(parse("2^20 .. 2^10", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "first size is above the last");
    ASSERT(parse("1 .. 10 /2", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "step '/2'");
    ASSERT(parse("1 .. 10 *1", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "factor must be at least 2");
    ASSERT(parse("2^70", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "too large");
    ASSERT(parse("", s, &n, &err) != 0);
    ASSERT(parse("5, ,6", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "empty item");
    ASSERT(parse("2^10,", s, &n, &err) != 0); /* a trailing comma */
    ASSERT_CONTAINS(err.msg, "empty item in size list '2^10,'");
    ASSERT(parse("2^10,,2^12", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "empty item in size list '2^10,,2^12'");
    ASSERT(parse(", 2^10", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "empty item");
    ASSERT(parse("1 .. 2^30 +1", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "too many sizes");
    ASSERT(parse("1-5", s, &n, &err) != 0);
    ASSERT_CONTAINS(err.msg, "negative size");
    return 0;
}

/* Findings of the fuzz campaign (docs/fuzzing.md), each once wrong. */
TEST_IMPL(sizes_hostile)
{
    uint64_t s[PB_MAX_SIZES], v;
    size_t n;
    pb_err err;
    /* 2^64 and 2^64+1 wrapped to 0 and 1 digit by digit, and were taken. */
    ASSERT(pb_size_expr("18446744073709551616", &v, &err) != 0);
    ASSERT_CONTAINS(err.msg, "number too large");
    ASSERT(pb_size_expr("5-18446744073709551617", &v, &err) != 0);
    ASSERT_CONTAINS(err.msg, "number too large");
    ASSERT(pb_size_expr("4611686018427387904", &v, &err) == 0); /* 2^62, the largest */
    ASSERT_EQ_U64(v, UINT64_C(1) << 62);
    ASSERT(pb_size_expr("4611686018427387905", &v, &err) != 0);
    /* 1^e and 0^e were computed by e multiplications: centuries. */
    ASSERT(pb_size_expr("1^4611686018427387904", &v, &err) == 0);
    ASSERT_EQ_U64(v, 1);
    ASSERT(pb_size_expr("0^4611686018427387904", &v, &err) == 0);
    ASSERT_EQ_U64(v, 0);
    ASSERT(pb_size_expr("0^0", &v, &err) == 0);
    ASSERT_EQ_U64(v, 1);
    /* An offset of 2^62 + 2^62 overflowed int64_t before it was checked. */
    ASSERT(pb_size_expr("1+2^62+2^62", &v, &err) != 0);
    ASSERT_CONTAINS(err.msg, "offset too large");
    ASSERT(pb_size_expr("2^62-2^62-2^62", &v, &err) != 0);
    ASSERT_CONTAINS(err.msg, "offset too large");
    /* An item longer than the word buffer was cut, and its start parsed. */
    char item[1200];
    memset(item, ' ', sizeof item);
    item[0] = '1';
    memcpy(item + sizeof item - 6, ".. 16", 6);
    ASSERT(parse(item, s, &n, &err) == 0);
    ASSERT_EQ_U64(n, 5); /* 1, 2, 4, 8, 16 */
    ASSERT_EQ_U64(s[4], 16);
    return 0;
}

TEST_IMPL(sizes_format)
{
    char b[48];
    ASSERT(strcmp(pb_size_format(1u << 20, b, sizeof b), "2^20") == 0);
    ASSERT(strcmp(pb_size_format((1u << 29) + 1, b, sizeof b), "2^29+1") == 0);
    ASSERT(strcmp(pb_size_format(1023, b, sizeof b), "2^10-1") == 0);
    ASSERT(strcmp(pb_size_format(1000, b, sizeof b), "1000") == 0);
    return 0;
}

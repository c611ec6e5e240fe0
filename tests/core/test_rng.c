/* Known answers for the Philox streams (Random123's published vectors), and
 * the bounded-integer draw: in range, unbiased, streams apart. */
#include <gsl/gsl_cdf.h>

#include "core/rng.h"
#include "tests/test.h"

TEST_IMPL(rng_philox_kat)
{
    /* Random123 tests/kat_vectors, "philox4x32 10": counter, key, result. */
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x408f276d,
         0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0, 0xd16cfe09,
         0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int i = 0; i < 3; i++) {
        pb_rng r;
        uint64_t seed = (uint64_t)kat[i][5] << 32 | kat[i][4];
        uint64_t stream = (uint64_t)kat[i][3] << 32 | kat[i][2];
        pb_rng_init(&r, seed, stream);
        r.ctr.v[0] = kat[i][0];
        r.ctr.v[1] = kat[i][1];
        for (int w = 0; w < 4; w++) ASSERT_EQ_U64(pb_rng_u32(&r), kat[i][6 + w]);
    }
    /* Our stream (seed 0, stream 0) starts with the all-zero vector. */
    pb_rng r;
    pb_rng_init(&r, 0, 0);
    ASSERT_EQ_U64(pb_rng_u64(&r), UINT64_C(0x6627e8d5e169c58d));
    return 0;
}

TEST_IMPL(rng_bounded_uniform)
{
    /* A range that does not divide 2^32 evenly: a biased draw (plain modulo
     * of a 32-bit word by 3*2^30) would favour the low third twice over. */
    const uint32_t range = 3u << 30;
    enum { CELLS = 3, DRAWS = 300000 };
    uint64_t count[CELLS] = {0};
    pb_rng r;
    pb_rng_init(&r, 12345, 1);
    for (int i = 0; i < DRAWS; i++) {
        uint32_t v = pb_rng_below32(&r, range);
        ASSERT(v < range);
        count[v / (1u << 30)]++;
    }
    double chi2 = 0, e = DRAWS / (double)CELLS;
    for (int c = 0; c < CELLS; c++) chi2 += (count[c] - e) * (count[c] - e) / e;
    ASSERT(gsl_cdf_chisq_Q(chi2, CELLS - 1) > 1e-6);

    /* 64-bit ranges: in range, and both halves of a range above 2^63 hit. */
    uint64_t big = (UINT64_C(1) << 63) + 12345, high = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t v = pb_rng_below64(&r, big);
        ASSERT(v < big);
        high += v >= big / 2;
    }
    ASSERT(high > 4700 && high < 5300);
    for (int i = 0; i < 1000; i++) ASSERT(pb_rng_below64(&r, 1) == 0);
    return 0;
}

TEST_IMPL(rng_streams_differ)
{
    /* Streams of one seed, and seeds of one stream, share no words. */
    pb_rng a, b, c;
    pb_rng_init(&a, 7, 0);
    pb_rng_init(&b, 7, 1);
    pb_rng_init(&c, 8, 0);
    int same_ab = 0, same_ac = 0;
    for (int i = 0; i < 64; i++) {
        uint32_t x = pb_rng_u32(&a), y = pb_rng_u32(&b), z = pb_rng_u32(&c);
        same_ab += x == y;
        same_ac += x == z;
    }
    ASSERT(same_ab == 0 && same_ac == 0);
    return 0;
}

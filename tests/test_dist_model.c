/* The distributed shuffle's C model (issue 22; algorithms/shuffle/distributed/dist_twin.h):
 *  - a valid permutation of whole items at awkward sizes, on 1, 2, 3, 5 and
 *    8 devices, u32, u64 and records;
 *  - on one device it is the bijective shuffle of the whole array;
 *  - the counts: every source sends what its slice holds, every device's
 *    part is what the destinations say, and devices' parts in order hold
 *    the items with that destination in global order (so the result does
 *    not depend on how the array was split);
 *  - destinations are uniform over the devices and independent of each
 *    other (chi-square of pairs);
 *  - the permutation is uniform: chi-square over all 24 permutations of 4
 *    items and 720 of 6, on 2 and 3 devices. */
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/distributed/dist_twin.h"
#include "families/shuffle/shuffle_items.h"
#include "stats/lehmer.h"
#include "tests/support/chi_square.h"
#include "tests/test.h"

TEST_IMPL(dist_model_valid)
{
    static const uint64_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 1023, 1024, 1025, 65537};
    static const uint32_t devs[] = {1, 2, 3, 5, 8};
    static const unsigned widths[] = {4, 8, 64};
    for (size_t w = 0; w < 3; w++)
        for (size_t d = 0; d < sizeof devs / sizeof devs[0]; d++)
            for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
                uint64_t n = sizes[k];
                unsigned ib = widths[w];
                pb_err err;
                pb_dist_counts c;
                char *in = malloc(n * ib + 1), *out = malloc(n * ib + 1), *ref = malloc(n * ib + 1);
                ASSERT(in && out && ref);
                pb_shuffle_fill(in, n, ib);
                ASSERT(pb_dist_twin_shuffle(in, out, n, ib, devs[d], PB_BIJ_VARPHILOX, 24, 5, 3, &c, &err) == 0);
                if (pb_shuffle_check(out, n, ib, &err)) {
                    fprintf(stderr, "n=%llu G=%u item=%u: %s\n", (unsigned long long)n, devs[d], ib, err.msg);
                    return 1;
                }
                /* The counts add up: each source sends its slice, each
                 * device gets its part, the parts make n. */
                uint64_t total = 0;
                for (uint32_t s = 0; s < devs[d]; s++) {
                    uint64_t sent = 0, got = 0;
                    for (uint32_t t = 0; t < devs[d]; t++)
                        sent += c.counts[s * devs[d] + t], got += c.counts[t * devs[d] + s];
                    ASSERT(sent == pb_dist_slice(n, devs[d], s + 1) - pb_dist_slice(n, devs[d], s));
                    ASSERT(got == c.part[s]);
                    total += got;
                }
                ASSERT(total == n);
                /* One device: the bijective shuffle of the whole array. */
                if (devs[d] == 1) {
                    pb_bijective_twin_shuffle(in, ref, n, ib, PB_BIJ_VARPHILOX, 24, 5, pb_dist_stream(3, 0));
                    ASSERT(memcmp(out, ref, n * ib) == 0);
                }
                free(in), free(out), free(ref);
            }
    return 0;
}

/* Device t's part of the output holds exactly the items whose destination
 * is t, and their order before the device's shuffle is global order: the
 * model on the identity, each part's items read back through the device's
 * own bijective shuffle of the sorted list of its items. */
TEST_IMPL(dist_model_parts)
{
    const uint64_t n = 10007;
    const uint32_t G = 3;
    uint32_t *in = malloc(n * 4), *out = malloc(n * 4), *want = malloc(n * 4), *mine = malloc(n * 4);
    ASSERT(in && out && want && mine);
    for (uint32_t i = 0; i < n; i++) in[i] = i;
    pb_dist_counts c;
    pb_err err;
    ASSERT(pb_dist_twin_shuffle(in, out, n, 4, G, PB_BIJ_VARPHILOX, 24, 77, 9, &c, &err) == 0);
    uint64_t start = 0;
    for (uint32_t t = 0; t < G; t++) {
        uint64_t m = 0;
        for (uint32_t i = 0; i < n; i++)
            if (pb_dist_dest(77, 9, i, G) == t) mine[m++] = i;
        ASSERT(m == c.part[t]);
        pb_bijective_twin_shuffle(mine, want, m, 4, PB_BIJ_VARPHILOX, 24, 77, pb_dist_stream(9, t));
        ASSERT(memcmp(out + start, want, m * 4) == 0);
        start += m;
    }
    free(in), free(out), free(want), free(mine);
    return 0;
}

/* Destinations: each device equally often, and consecutive items'
 * destinations independent (pairs (dest(i), dest(i + 1)) uniform over
 * G^2), for G = 2, 3 and 8, over 10^6 items and two samples. */
TEST_IMPL(dist_model_destinations)
{
    static const uint32_t devs[] = {2, 3, 8};
    for (size_t d = 0; d < 3; d++) {
        uint32_t G = devs[d];
        unsigned one[8] = {0}, pair[64] = {0};
        const uint64_t N = 1000000;
        for (uint64_t s = 0; s < 2; s++) {
            uint32_t prev = pb_dist_dest(1, s, 0, G);
            for (uint64_t i = 1; i <= N / 2; i++) {
                uint32_t x = pb_dist_dest(1, s, i, G);
                ASSERT(x < G);
                one[x]++, pair[prev * G + x]++;
                prev = x;
            }
        }
        char what[64];
        snprintf(what, sizeof what, "destinations over %u devices", G);
        ASSERT(pb_test_chi_square(what, one, G, (double)N) == 0);
        snprintf(what, sizeof what, "destination pairs over %u devices", G);
        ASSERT(pb_test_chi_square(what, pair, G * G, (double)N) == 0);
    }
    /* Another seed, another sample: other destinations. */
    unsigned same = 0;
    for (uint64_t i = 0; i < 1000; i++) same += pb_dist_dest(1, 0, i, 8) == pb_dist_dest(2, 0, i, 8);
    ASSERT(same < 200);
    same = 0;
    for (uint64_t i = 0; i < 1000; i++) same += pb_dist_dest(1, 0, i, 8) == pb_dist_dest(1, 1, i, 8);
    ASSERT(same < 200);
    return 0;
}

/* Every permutation of 4 and of 6 items equally often, on 2 and 3 devices. */
TEST_IMPL(dist_model_uniform)
{
    static const unsigned ns[] = {4, 6};
    static const uint32_t devs[] = {2, 3};
    for (size_t a = 0; a < 2; a++)
        for (size_t d = 0; d < 2; d++) {
            unsigned n = ns[a], cells = n == 4 ? 24 : 720, draws = cells * 200;
            unsigned *count = calloc(cells, sizeof *count);
            uint32_t in[6], out[6];
            ASSERT(count);
            for (uint32_t i = 0; i < n; i++) in[i] = i;
            for (unsigned s = 0; s < draws; s++) {
                pb_err err;
                ASSERT(pb_dist_twin_shuffle(in, out, n, 4, devs[d], PB_BIJ_VARPHILOX, 24, 2026, s, NULL, &err) == 0);
                count[pb_lehmer_rank(out, n)]++;
            }
            char what[64];
            snprintf(what, sizeof what, "%u items over %u devices", n, devs[d]);
            ASSERT(pb_test_chi_square(what, count, cells, draws) == 0);
            free(count);
        }
    return 0;
}

TEST_IMPL(dist_model_bad_args)
{
    uint32_t a[4] = {0, 1, 2, 3}, b[4];
    pb_err err;
    ASSERT(pb_dist_twin_shuffle(a, b, 4, 4, 0, PB_BIJ_VARPHILOX, 24, 1, 0, NULL, &err) != 0);
    ASSERT_CONTAINS(err.msg, "0 devices");
    ASSERT(pb_dist_twin_shuffle(a, b, 4, 4, 65, PB_BIJ_VARPHILOX, 24, 1, 0, NULL, &err) != 0);
    ASSERT(pb_dist_twin_shuffle(a, b, 4, 4, 2, PB_BIJ_VARPHILOX, 24, 1, PB_DIST_MAX_SAMPLE, NULL, &err) != 0);
    return 0;
}

/* One block serves four items: pb_dist_dest4 equals pb_dist_dest item by
 * item, for device counts 1 .. 64 and for a range that rejects a quarter
 * of the words (3 x 2^30), so the retries are taken often. */
TEST_IMPL(dist_model_dest4)
{
    static const uint32_t ranges[] = {1, 2, 3, 5, 8, 64, 3u << 30};
    long retried = 0;
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++)
        for (uint64_t b = 0; b < 20000; b++) {
            uint64_t block = b * UINT64_C(0x9e3779b97f4a7c1) >> 3; /* spread over 61 bits */
            uint32_t d[4];
            pb_dist_dest4(99, b % 7, block, ranges[r], d);
            for (int q = 0; q < 4; q++) {
                ASSERT(d[q] < ranges[r]);
                ASSERT(d[q] == pb_dist_dest(99, b % 7, 4 * block + (uint64_t)q, ranges[r]));
            }
            if (ranges[r] == 3u << 30) {
                philox4x32_ctr_t c = {{(uint32_t)block, (uint32_t)(block >> 32), (uint32_t)(b % 7), 0}};
                philox4x32_ctr_t w = philox4x32(c, pb_dist_key(99));
                uint32_t j;
                for (int q = 0; q < 4; q++) retried += !pb_lemire_pick(w.v[q], ranges[r], &j);
            }
        }
    printf("%ld words rejected and drawn again of 80000 at range 3 x 2^30\n", retried);
    ASSERT(retried > 15000); /* a quarter, give or take */
    return 0;
}

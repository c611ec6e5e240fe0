/* Record items: shuffle items of R bytes that must move whole.
 *  - the family check catches a record whose bytes did not travel together
 *    (one tail byte changed, tails swapped, words swapped within a record),
 *    as well as a duplicate or foreign record;
 *  - fingerprints cover every byte of a record (a record is its 64-bit
 *    words), and the values of 1- to 8-byte items are the ones they were;
 *  - every CPU module that takes records gives a valid permutation of whole
 *    records at awkward sizes for each record width, and the same
 *    permutation it gives 8-byte items from the same seed (the width moves
 *    bytes, never decides where they go): for pov-shuffle at several
 *    shapes and thread counts, so its C twin holds for records;
 *  - modules that do not say they take records are not asked to. */
#include <stdlib.h>

#include "algorithms/shuffle/bijective/bijective_twin.h"
#include "algorithms/shuffle/pov/pov_twin.h"
#include "config/params.h"
#include "core/fingerprint.h"
#include "families/shuffle/shuffle_family.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/support/record_widths.h"
#include "tests/test.h"

TEST_IMPL(records_check_catches)
{
    enum { N = 1000 };
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    ASSERT(nw >= 4); /* rec16, rec64, rec256, rec1024 at least */
    for (size_t w = 0; w < nw; w++) {
        unsigned R = widths[w];
        ASSERT(pb_shuffle_is_record(R));
        unsigned char *a = malloc((size_t)N * R), *t = malloc(R);
        ASSERT(a && t);
        pb_err err;
        pb_shuffle_fill(a, N, R);
        ASSERT(pb_shuffle_check(a, N, R, &err) == 0);
        /* Two whole records swapped: still a permutation of records. */
        memcpy(t, a + 3 * R, R), memcpy(a + 3 * R, a + 500 * R, R), memcpy(a + 500 * R, t, R);
        ASSERT(pb_shuffle_check(a, N, R, &err) == 0);
        /* One byte of one record's tail (its last byte) changed. */
        a[7 * R + R - 1] ^= 0x10;
        ASSERT(pb_shuffle_check(a, N, R, &err) != 0);
        ASSERT_CONTAINS(err.msg, "position 7");
        ASSERT_CONTAINS(err.msg, "did not travel together");
        a[7 * R + R - 1] ^= 0x10;
        ASSERT(pb_shuffle_check(a, N, R, &err) == 0);
        /* Heads kept, tails exchanged: each record holds another's tail. */
        memcpy(t, a + 10 * R + 8, R - 8), memcpy(a + 10 * R + 8, a + 20 * R + 8, R - 8),
            memcpy(a + 20 * R + 8, t, R - 8);
        ASSERT(pb_shuffle_check(a, N, R, &err) != 0);
        ASSERT_CONTAINS(err.msg, "position 10");
        pb_shuffle_fill(a, N, R);
        /* Two words of one record exchanged (its bytes, in another order). */
        memcpy(t, a + 42 * R, 8), memcpy(a + 42 * R, a + 42 * R + 8, 8), memcpy(a + 42 * R + 8, t, 8);
        ASSERT(pb_shuffle_check(a, N, R, &err) != 0);
        pb_shuffle_fill(a, N, R);
        /* A whole record twice. */
        memcpy(a + 11 * R, a + 12 * R, R);
        ASSERT(pb_shuffle_check(a, N, R, &err) != 0);
        ASSERT_CONTAINS(err.msg, "appears twice");
        /* Zeroed output, and n = 0. */
        memset(a, 0, (size_t)N * R);
        ASSERT(pb_shuffle_check(a, N, R, &err) != 0);
        ASSERT(pb_shuffle_check(a, 0, R, &err) == 0);
        free(a), free(t);
    }
    return 0;
}

TEST_IMPL(records_fingerprint)
{
    enum { N = 777 };
    /* 1- to 8-byte items: the definition (the sum of each element's term)
     * and the values pinned before records came, so records changed none. */
    unsigned char bytes[N * 8];
    for (size_t i = 0; i < sizeof bytes; i++) bytes[i] = (unsigned char)(i * 131 + 7);
    static const unsigned widths[] = {1, 2, 4, 8};
    static const uint64_t pinned[] = {UINT64_C(0x299b71f8379b759d), UINT64_C(0x8a4a57eb50e091fc),
                                      UINT64_C(0x9a7ea88aaaa518d1), UINT64_C(0xeb8efc8cb88038f7)};
    for (size_t w = 0; w < 4; w++) {
        uint64_t sum = 0;
        for (uint64_t i = 0; i < N; i++) {
            uint64_t v = 0;
            memcpy(&v, bytes + i * widths[w], widths[w]); /* little-endian, as the module reads it */
            sum += pb_fp_term(i, v);
        }
        ASSERT_EQ_U64(pb_fingerprint(bytes, N, widths[w]), sum);
        ASSERT_EQ_U64(pb_fingerprint(bytes, N, widths[w]), pinned[w]);
    }
    unsigned rw[8];
    size_t nw = record_widths(rw, 8);
    for (size_t w = 0; w < nw; w++) {
        unsigned R = rw[w];
        unsigned char *a = malloc((size_t)N * R);
        ASSERT(a);
        pb_shuffle_fill(a, N, R);
        uint64_t fp = pb_fingerprint(a, N, R);
        /* A record is its words. */
        ASSERT_EQ_U64(fp, pb_fingerprint(a, (uint64_t)N * (R / 8), 8));
        /* Every byte counts: the first, and the last of a tail. */
        a[0] ^= 1;
        ASSERT(pb_fingerprint(a, N, R) != fp);
        a[0] ^= 1;
        a[(size_t)N * R - 1] ^= 0x80;
        ASSERT(pb_fingerprint(a, N, R) != fp);
        a[(size_t)N * R - 1] ^= 0x80;
        ASSERT_EQ_U64(pb_fingerprint(a, N, R), fp);
        /* Two whole records exchanged: same bytes, another order. */
        unsigned char *t = malloc(R);
        ASSERT(t);
        memcpy(t, a, R), memcpy(a, a + 5 * R, R), memcpy(a + 5 * R, t, R);
        ASSERT(pb_fingerprint(a, N, R) != fp);
        free(t), free(a);
    }
    return 0;
}

/* The CPU modules of the shuffle family that take records; the ones the
 * family lists must be among them, so the tests below cannot pass empty. */
static size_t record_modules(const pb_module **mods, size_t most)
{
    size_t k = 0;
    for (size_t i = 0; i < pb_module_count() && k < most; i++) {
        const pb_module *m = pb_module_at(i);
        if (m->device == PB_DEVICE_CPU && m->family == &pb_family_shuffle && pb_module_takes(m, 256))
            mods[k++] = m;
    }
    return k;
}

static int has(const pb_module *const *mods, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(mods[i]->name, name) == 0) return 1;
    return 0;
}

TEST_IMPL(records_cpu_valid)
{
    const pb_module *mods[64];
    size_t nm = record_modules(mods, 64);
    ASSERT(has(mods, nm, "cpu-fisher-yates") && has(mods, nm, "cpu-copy") && has(mods, nm, "cpu-gather") &&
           has(mods, nm, "cpu-pov-shuffle"));
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (size_t w = 0; w < nw; w++) {
        unsigned R = widths[w];
        /* 0, 1, 2, 2^k - 1, 2^k, 2^k + 1, odd, and 8 MiB of records plus
         * one (beyond the caches of the CI machines). */
        uint64_t big = (UINT64_C(1) << 23) / R + 1;
        const uint64_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 4097, 10007, big};
        for (size_t i = 0; i < nm; i++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                pb_err err;
                /* Two runs: in place, the second shuffles the first's output. */
                if (pb_drive_module(mods[i], sizes[s], R, 99, 2, 2, NULL, &err)) {
                    fprintf(stderr, "%s n=%llu item=%u: %s\n", mods[i]->name, (unsigned long long)sizes[s], R,
                            err.msg);
                    return 1;
                }
            }
    }
    return 0;
}

/* The input index of each output item (records: from word 0). */
static void indices(const void *out, uint64_t n, unsigned bytes, uint64_t *idx)
{
    for (uint64_t i = 0; i < n; i++) {
        uint64_t item;
        memcpy(&item, (const unsigned char *)out + i * bytes, 8);
        idx[i] = pb_shuffle_item_index(item, 8);
    }
}

TEST_IMPL(records_same_permutation)
{
    const pb_module *mods[64];
    size_t nm = record_modules(mods, 64);
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    static const uint64_t sizes[] = {2, 33, 1025, 65537};
    for (size_t i = 0; i < nm; i++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint64_t n = sizes[s];
            void *ref;
            pb_err err;
            uint64_t *want = malloc(n * 8), *got = malloc(n * 8);
            ASSERT(want && got);
            /* Three runs, so in-place modules compose three samples. */
            if (pb_drive_module(mods[i], n, 8, 5, 3, 2, &ref, &err)) {
                fprintf(stderr, "%s n=%llu u64: %s\n", mods[i]->name, (unsigned long long)n, err.msg);
                return 1;
            }
            indices(ref, n, 8, want);
            free(ref);
            for (size_t w = 0; w < nw; w++) {
                void *out;
                if (pb_drive_module(mods[i], n, widths[w], 5, 3, 2, &out, &err)) {
                    fprintf(stderr, "%s n=%llu item=%u: %s\n", mods[i]->name, (unsigned long long)n, widths[w],
                            err.msg);
                    return 1;
                }
                indices(out, n, widths[w], got);
                free(out);
                if (memcmp(want, got, n * 8) != 0) {
                    fprintf(stderr, "%s n=%llu: %u-byte records go elsewhere than 8-byte items\n", mods[i]->name,
                            (unsigned long long)n, widths[w]);
                    return 1;
                }
            }
            free(want), free(got);
        }
    return 0;
}

/* pb_pov_shuffle, pov-shuffle's code and gpu-pov-shuffle's twin: on
 * records, at shapes that split the deck unevenly (one-item blocks, a deck
 * smaller than a block, the largest virtual block), on one thread (and on
 * three for rec256), the permutation of 8-byte items, every record whole. */
TEST_IMPL(records_pov_twin)
{
    static const pb_pov_params shapes[] = {{4, 64, 4}, {1, 1, 1}, {3, 3, 5}, {2, 7, 3}, {1, 4096, 1}, {2, 64, 64}};
    static const uint64_t sizes[] = {0, 1, 2, 63, 65, 4097, 10007};
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint64_t n = sizes[s];
            pb_err err;
            uint64_t *items = malloc(n * 8 + 8), *want = malloc(n * 8 + 8), *got = malloc(n * 8 + 8);
            uint32_t *sigma = malloc((n + 1) * sizeof *sigma);
            ASSERT(items && want && got && sigma);
            pb_shuffle_fill(items, n, 8);
            ASSERT(pb_pov_shuffle(items, n, 8, &shapes[sh], 77, 3, 1, sigma, &err) == 0);
            indices(items, n, 8, want);
            for (size_t w = 0; w < nw; w++)
                for (int threads = 1; threads <= 3; threads += 2) {
                    unsigned R = widths[w];
                    /* Three threads at the README's width only: the split
                     * of the work is not the width's business. */
                    if (threads > 1 && R != 256) continue;
                    unsigned char *a = malloc((size_t)n * R + 1);
                    ASSERT(a);
                    pb_shuffle_fill(a, n, R);
                    ASSERT(pb_pov_shuffle(a, n, R, &shapes[sh], 77, 3, threads, sigma, &err) == 0);
                    if (pb_shuffle_check(a, n, R, &err)) {
                        fprintf(stderr, "pov %u,%u,%u n=%llu item=%u: %s\n", shapes[sh].iterations, shapes[sh].block,
                                shapes[sh].vblock, (unsigned long long)n, R, err.msg);
                        return 1;
                    }
                    indices(a, n, R, got);
                    ASSERT(memcmp(want, got, n * 8) == 0);
                    free(a);
                }
            free(items), free(want), free(got), free(sigma);
        }
    return 0;
}

/* pb_bijective_twin_shuffle, the twin bijective0/1/2 are checked against
 * on records (tests/shuffle/test_gpu_records.c): whole records, to the places it
 * sends 8-byte items, with either bijection. */
TEST_IMPL(records_bijective_twin)
{
    static const uint64_t sizes[] = {1, 2, 3, 33, 1025, 65537};
    unsigned widths[8];
    size_t nw = record_widths(widths, 8);
    for (int kind = 0; kind < 2; kind++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            uint64_t n = sizes[s];
            uint64_t *in8 = malloc(n * 8), *out8 = malloc(n * 8), *got = malloc(n * 8);
            ASSERT(in8 && out8 && got);
            pb_shuffle_fill(in8, n, 8);
            pb_bijective_twin_shuffle(in8, out8, n, 8, (pb_bij_kind)kind, 24, 31, 2);
            for (size_t w = 0; w < nw; w++) {
                unsigned R = widths[w];
                unsigned char *in = malloc((size_t)n * R), *out = malloc((size_t)n * R);
                pb_err err;
                ASSERT(in && out);
                pb_shuffle_fill(in, n, R);
                pb_bijective_twin_shuffle(in, out, n, R, (pb_bij_kind)kind, 24, 31, 2);
                ASSERT(pb_shuffle_check(out, n, R, &err) == 0);
                indices(out, n, R, got);
                for (uint64_t i = 0; i < n; i++) ASSERT_EQ_U64(got[i], pb_shuffle_item_index(out8[i], 8));
                free(in), free(out);
            }
            free(in8), free(out8), free(got);
        }
    return 0;
}

/* Who takes what: the default is scalars only, and a width no item kind
 * has is taken by no module. The CLI refuses a sweep asking a module for
 * items it does not take (tests/app/cli_errors.sh: record_not_taken). */
TEST_IMPL(records_module_items)
{
    const pb_module *fy = pb_module_find("cpu-fisher-yates"), *rs = pb_module_find("cpu-rao-sandelius");
    ASSERT(fy && rs);
    ASSERT(pb_module_takes(fy, 8) && pb_module_takes(fy, 4) && pb_module_takes(fy, 256));
    ASSERT(pb_module_takes(rs, 8) && pb_module_takes(rs, 4) && !pb_module_takes(rs, 256));
    ASSERT(!pb_module_takes(fy, 12) && !pb_module_takes(fy, 0));
    char buf[128];
    ASSERT(strcmp(pb_module_items_text(rs, buf, sizeof buf), "u64, u32") == 0);
    ASSERT_CONTAINS(pb_module_items_text(fy, buf, sizeof buf), "rec256");
    /* Modules of other families take their own scalars, as before. */
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        ASSERT(pb_module_takes(m, m->family->items[0].bytes));
    }
    return 0;
}

/* pb_gen_perms: permutations made outside permbench, for the tests of
 * `permbench quality --input`. It shares no code with permbench (only the
 * C library), so what the battery says of its output is said of a stranger.
 *
 *   pb_gen_perms KIND N COUNT FORMAT SEED > FILE
 *
 *   KIND    good:  Fisher-Yates driven by xoshiro256** (seeded through
 *                  splitmix64) with Lemire's unbiased bounded integers;
 *           lcg16: Fisher-Yates driven by a 16-bit LCG, x = 25173 x + 13849
 *                  mod 2^16, j = x mod (i + 1): the textbook way to get a
 *                  shuffle wrong (short period, low bits of period 2^k)
 *   FORMAT  u32 | u64 (little-endian rows of N integers) | text (a line a row)
 *
 * Rows go to stdout a few at a time, so a pipe into permbench streams. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t v, int k) { return (v << k) | (v >> (64 - k)); }

static uint64_t xoshiro(uint64_t s[4])
{
    uint64_t r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rotl(s[3], 45);
    return r;
}

/* Uniform in [0, bound): Lemire's multiply-and-reject on 32 bits. */
static uint32_t bounded(uint64_t s[4], uint32_t bound)
{
    uint64_t m = (uint64_t)(uint32_t)(xoshiro(s) >> 32) * bound;
    if ((uint32_t)m < bound) {
        uint32_t floor = (uint32_t)-bound % bound;
        while ((uint32_t)m < floor) m = (uint64_t)(uint32_t)(xoshiro(s) >> 32) * bound;
    }
    return (uint32_t)(m >> 32);
}

static void put(const uint32_t *p, uint32_t n, const char *fmt)
{
    if (strcmp(fmt, "text") == 0) {
        for (uint32_t i = 0; i < n; i++) printf("%" PRIu32 "%c", p[i], i + 1 < n ? ' ' : '\n');
        return;
    }
    unsigned w = strcmp(fmt, "u64") == 0 ? 8 : 4;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char b[8] = {0};
        for (unsigned k = 0; k < 4; k++) b[k] = (unsigned char)(p[i] >> (8 * k));
        fwrite(b, 1, w, stdout);
    }
}

int main(int argc, char **argv)
{
    if (argc != 6 || (strcmp(argv[1], "good") && strcmp(argv[1], "lcg16")) ||
        (strcmp(argv[4], "u32") && strcmp(argv[4], "u64") && strcmp(argv[4], "text"))) {
        fprintf(stderr, "usage: pb_gen_perms good|lcg16 N COUNT u32|u64|text SEED\n");
        return 2;
    }
    uint32_t n = (uint32_t)strtoul(argv[2], NULL, 10);
    uint64_t count = strtoull(argv[3], NULL, 10), seed = strtoull(argv[5], NULL, 10);
    int good = strcmp(argv[1], "good") == 0;
    uint64_t s[4], sm = seed;
    for (int k = 0; k < 4; k++) s[k] = splitmix64(&sm);
    uint32_t x = (uint32_t)seed & 0xffff;
    uint32_t *p = malloc((size_t)n * sizeof *p);
    if (!p || n < 1) return 2;
    for (uint64_t r = 0; r < count; r++) {
        for (uint32_t i = 0; i < n; i++) p[i] = i;
        for (uint32_t i = n - 1; i > 0; i--) {
            uint32_t j;
            if (good) {
                j = bounded(s, i + 1);
            } else {
                x = (25173u * x + 13849u) & 0xffffu;
                j = x % (i + 1);
            }
            uint32_t t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        put(p, n, argv[4]);
    }
    free(p);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
}

/* rao-sandelius: the divide-and-conquer shuffle of Rao (1961) and Sandelius
 * (1962), as an MSD radix sort on random keys (OpenMP tasks).
 *
 * Every element of a node draws a random digit of `radix_bits` bits; a
 * stable counting scatter groups the node by digit into 2^radix_bits
 * children, which are shuffled recursively, in parallel; nodes of at most
 * `cutoff` elements are shuffled by Fisher-Yates. The in-order concatenation
 * of the children is uniform: it is the sort of the elements by infinite
 * random keys, ties (equal prefixes) broken by the recursion.
 *
 * Data ping-pongs between the array and a scratch copy level by level (a
 * node of level L reads the array when L is even, the scratch when odd); a
 * leaf in the scratch is shuffled into the array by the inside-out form of
 * Fisher-Yates, so the result always ends in the array (in place, with n
 * items of scratch and n digit bytes).
 *
 * Nodes of at least 2^17 elements that hold more than a 2T-th of the array
 * (T threads) split with every thread (counts per chunk, a prefix over
 * (digit, chunk), a parallel stable scatter); the others split sequentially
 * in their own task: children of at least 2^12 elements become tasks.
 *
 * Randomness (algorithms/shuffle/cpu_streams.h): the digit of the t-th
 * element of node [lo, hi) of level L is digit t of blocks lo, lo + 1, ...
 * of (DIGITS, L); a leaf [lo, hi) of level L draws from (LEAF, L, lo << 14)
 * on (it makes its blocks 8 at a time, so up to 7 past the last it uses,
 * far inside the 2^14 blocks an item its range holds). Nodes of one level
 * are disjoint, so no bit is drawn twice; and since a stable scatter has
 * one result however it is split into chunks, the output depends on
 * (seed, sample) only, never on the thread count or schedule.
 *
 * Speed: eight-bit digits are a Philox block's bytes copied
 * whole, counted into four histograms; the scatter goes through 64-byte
 * lines a digit stored non-temporally (wc = 1); a leaf is read through
 * before its Fisher-Yates, which draws from its stream's words made 8
 * Philox blocks at a time with AVX-512 or AVX2 where the CPU has them
 * (algorithms/shuffle/rao_sandelius/rs_leaf.h: the words, the draws and so the
 * permutation are shuffle_leaf.h's, bit for bit), and prefetches the
 * items of the leaf after it as it goes. Together these made the leaves
 * about three times faster and the run faster than the host's
 * random-gather ceiling, tbb-gather (docs/measured.md).
 * PB_RS_PHASES=1 prints the phases' times to stderr; PB_RS_NT=0 stores the
 * lines by plain stores, PB_RS_PF=0 leaves out the next leaf's prefetch,
 * PB_RS_ISA=avx2 or generic caps the leaves' Philox (to compare); the
 * output is the same every way. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_hooks.h"
#include "families/shuffle/shuffle_leaf.h"
#include "algorithms/shuffle/rao_sandelius/rs_leaf.h"

enum { P_THREADS, P_RADIX_BITS, P_CUTOFF, P_WC };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"radix_bits", PB_PARAM_INT, 8, 1, 8, NULL,
     "bits of the random digit that picks a sub-array (2^bits sub-arrays per split)"},
    {"cutoff", PB_PARAM_INT, 4096, 1, 1 << 24, NULL,
     "sub-arrays of at most this many items are shuffled by Fisher-Yates"},
    {"wc", PB_PARAM_BOOL, 1, 0, 1, NULL,
     "scatter through 64-byte write-combining lines a digit, stored non-temporally on x86 (same output; "
     "0 = an item a store)"},
};

#define RS_PAR_MIN (UINT64_C(1) << 17)  /* split with all threads from here */
#define RS_TASK_MIN (UINT64_C(1) << 12) /* a child this large becomes a task */
#define RS_MAX_RADIX 256

typedef struct rs_ctx {
    uint64_t seed, sample;
    unsigned bits, dpw, dpb; /* digit bits; digits per 32-bit word, per block */
    uint64_t cutoff;
    uint64_t par_min; /* nodes this large split with all threads */
    unsigned item_bytes;
    void *a, *b; /* the array (holds the result) and the scratch */
    uint8_t *dig;
    int threads;
    bool wc;      /* write-combining scatter */
    bool nt;      /* its lines stored non-temporally (PB_RS_NT, default on where the target has them) */
    double *prof; /* PB_RS_PHASES: phase times (rs_prof), else NULL */
    rs_philox_fill_fn fill; /* the leaves' Philox (rs_leaf.h: AVX-512, AVX2 or plain C) */
    bool prefetch; /* a leaf prefetches the next (PB_RS_PF, default on) */
} rs_ctx;

/* PB_RS_PHASES=1: run() prints each phase's time to stderr. The splits
 * with every thread are timed by the wall clock (count, prefix, scatter);
 * the sequential splits and the leaves, which run in tasks side by side,
 * by the time each thread spends in them, summed over the threads (so they
 * compare with the wall times times the thread count). */
enum { RS_P_DIGITS, RS_P_PREFIX, RS_P_SCATTER, RS_P_N };
#define RS_PROF_LEVELS 8
/* prof[2 * level * RS_P_N + phase]: the parallel splits' wall time at
 * level; prof[(2 * level + 1) * RS_P_N + phase]: the sequential splits'
 * summed thread time; prof[RS_PROF_LEAF]: the leaves' summed thread time,
 * prof[RS_PROF_LEAF + 1] their count, prof[RS_PROF_LEAF + 2] the nodes split,
 * prof[RS_PROF_LEAF + 3] the part of the leaves' time in rs_leaf_fetch. */
#define RS_PROF_LEAF (2 * RS_PROF_LEVELS * RS_P_N)
#define RS_PROF_SIZE (RS_PROF_LEAF + 4)

static void rs_prof_add(const rs_ctx *c, unsigned level, bool par, unsigned phase, double t)
{
    if (level >= RS_PROF_LEVELS) level = RS_PROF_LEVELS - 1;
    double *x = &c->prof[(2 * level + !par) * RS_P_N + phase];
#pragma omp atomic
    *x += t;
}

/* ---- per item width: the scatter (the leaves are algorithms/shuffle/rao_sandelius/rs_leaf.h) ---- */

/* The scatter, straight (wc = 0: an item a store, 2^bits store streams
 * at once) or through write-combining lines (wc = 1, the default): each
 * digit gathers RS_WC_BYTES of its items in a small buffer (all of them
 * together 16 KiB: L1) and they go out together, so every cache line of
 * dst is written whole, once. Below, the lines copied by plain stores
 * (PB_RS_NT=0, or a target without non-temporal stores: slower than the
 * straight scatter, docs/measured.md); after, by non-temporal ones
 * (the default). The items of a digit keep their order either way, so the
 * output is the same. */
#define RS_WC_BYTES 64
#define RS_ITEM_FUNCS(T)                                                                           \
    static void rs_scatter_##T(const T *restrict src, T *restrict dst, const uint8_t *restrict d,  \
                               uint64_t n, uint64_t *restrict off)                                 \
    {                                                                                              \
        for (uint64_t p = 0; p < n; p++) dst[off[d[p]]++] = src[p];                                \
    }                                                                                              \
    static void rs_scatter_wc_##T(const T *restrict src, T *restrict dst, const uint8_t *restrict d, \
                                  uint64_t n, uint64_t *restrict off, unsigned radix)              \
    {                                                                                              \
        enum { W = RS_WC_BYTES / sizeof(T) };                                                      \
        _Alignas(64) T line[RS_MAX_RADIX][W];                                                      \
        unsigned fill[RS_MAX_RADIX] = {0};                                                         \
        for (uint64_t p = 0; p < n; p++) {                                                         \
            unsigned v = d[p];                                                                     \
            line[v][fill[v]++] = src[p];                                                           \
            if (fill[v] == W) {                                                                    \
                memcpy(dst + off[v], line[v], sizeof line[v]);                                     \
                off[v] += W;                                                                       \
                fill[v] = 0;                                                                       \
            }                                                                                      \
        }                                                                                          \
        for (unsigned v = 0; v < radix; v++) {                                                     \
            memcpy(dst + off[v], line[v], fill[v] * sizeof(T));                                    \
            off[v] += fill[v];                                                                     \
        }                                                                                          \
    }
RS_ITEM_FUNCS(uint32_t)
RS_ITEM_FUNCS(uint64_t)

/* The scatter through write-combining lines that leave by non-temporal
 * stores (nt = 1, the default, where the target has them: x86's movntdq).
 * The line buffer of digit v mirrors the cache line of dst its next item
 * goes to, so a full buffer is a whole aligned line of dst and goes out in
 * four 16-byte stores that do not read the line first (a plain store does:
 * a third of the traffic of a split bound by memory) and do not evict the
 * caches' contents. The first line of a digit's range (part of it may
 * belong to the range before) and the last are written by plain stores;
 * a line shared with another chunk is so written by both. The items of a
 * digit keep their order, so the output is the scatter's. */
#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#define RS_HAVE_NT 1
static inline void rs_stream_line(void *dst, const void *src)
{
    const __m128i *s = src;
    __m128i *d = dst;
    _mm_stream_si128(d, _mm_load_si128(s));
    _mm_stream_si128(d + 1, _mm_load_si128(s + 1));
    _mm_stream_si128(d + 2, _mm_load_si128(s + 2));
    _mm_stream_si128(d + 3, _mm_load_si128(s + 3));
}
#define RS_SFENCE() _mm_sfence()
#else
#define RS_HAVE_NT 0
static inline void rs_stream_line(void *dst, const void *src) { memcpy(dst, src, RS_WC_BYTES); }
#define RS_SFENCE() ((void)0)
#endif

#define RS_NT_FUNCS(T)                                                                             \
    static void rs_scatter_nt_##T(const T *restrict src, T *restrict dst, const uint8_t *restrict d, \
                                  uint64_t n, uint64_t *restrict off, unsigned radix)              \
    {                                                                                              \
        enum { W = RS_WC_BYTES / sizeof(T) };                                                      \
        _Alignas(64) T line[RS_MAX_RADIX][W];                                                      \
        uint8_t fill[RS_MAX_RADIX], first[RS_MAX_RADIX];                                           \
        T *at[RS_MAX_RADIX]; /* dst's line that line[v] mirrors */                                \
        for (unsigned v = 0; v < radix; v++) {                                                     \
            uintptr_t x = (uintptr_t)(dst + off[v]);                                               \
            unsigned f = (unsigned)(x % RS_WC_BYTES / sizeof(T));                                  \
            at[v] = dst + off[v] - f;                                                              \
            fill[v] = first[v] = (uint8_t)f;                                                       \
        }                                                                                          \
        for (uint64_t p = 0; p < n; p++) {                                                         \
            unsigned v = d[p], f = fill[v];                                                        \
            line[v][f++] = src[p];                                                                 \
            if (f == W) {                                                                          \
                if (first[v]) {                                                                    \
                    memcpy(at[v] + first[v], line[v] + first[v], (W - first[v]) * sizeof(T));      \
                    first[v] = 0;                                                                  \
                } else {                                                                           \
                    rs_stream_line(at[v], line[v]);                                                \
                }                                                                                  \
                at[v] += W;                                                                        \
                f = 0;                                                                             \
            }                                                                                      \
            fill[v] = (uint8_t)f;                                                                  \
        }                                                                                          \
        for (unsigned v = 0; v < radix; v++) {                                                     \
            memcpy(at[v] + first[v], line[v] + first[v], (fill[v] - first[v]) * sizeof(T));       \
            off[v] = (uint64_t)(at[v] + fill[v] - dst);                                            \
        }                                                                                          \
        RS_SFENCE();                                                                               \
    }
RS_NT_FUNCS(uint32_t)
RS_NT_FUNCS(uint64_t)

/* An environment switch that is on unless set to 0. */
static bool rs_env_on(const char *name)
{
    const char *e = getenv(name);
    return !(e && *e == '0');
}

static int rs_nt_on(void) { return RS_HAVE_NT && rs_env_on("PB_RS_NT"); }

static void *at(const rs_ctx *c, void *base, uint64_t i)
{
    return (char *)base + i * c->item_bytes;
}

/* Eight-bit digits (the default): the bytes of a block in memory order
 * are its digits in draw order (word k's digit j is its byte j, little
 * endian), so a block is copied whole; four histograms take turns so that
 * a run of one digit does not chain its increments. */
static void rs_digits8(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t t0, uint64_t t1,
                       uint64_t *restrict count)
{
    uint8_t *restrict d = c->dig + lo;
    uint64_t pos0 = pb_cs_pos(PB_CS_DIGITS, level, lo + t0 / 16), pos = pos0;
    uint32_t h[4][256];
    memset(h, 0, sizeof h);
    uint64_t t = t0;
    for (; t + 16 <= t1; t += 16, pos++) {
        philox4x32_ctr_t w = pb_cs_block_quiet(c->seed, c->sample, pos);
        for (int k = 0; k < 4; k++) {
            uint32_t x = w.v[k];
            uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16), (uint8_t)(x >> 24)};
            memcpy(d + t + 4 * k, b, 4);
            h[0][b[0]]++;
            h[1][b[1]]++;
            h[2][b[2]]++;
            h[3][b[3]]++;
        }
        /* flush before a histogram can wrap (2^32 items) */
        if (((t - t0) & ((UINT64_C(1) << 30) - 1)) == (UINT64_C(1) << 30) - 16) {
            for (unsigned v = 0; v < 256; v++) count[v] += (uint64_t)h[0][v] + h[1][v] + h[2][v] + h[3][v];
            memset(h, 0, sizeof h);
        }
    }
    if (t < t1) {
        philox4x32_ctr_t w = pb_cs_block_quiet(c->seed, c->sample, pos++);
        for (unsigned j = 0; t < t1; j++, t++) {
            uint8_t v = (uint8_t)(w.v[j / 4] >> (8 * (j % 4)));
            d[t] = v;
            h[0][v]++;
        }
    }
    for (unsigned v = 0; v < 256; v++) count[v] += (uint64_t)h[0][v] + h[1][v] + h[2][v] + h[3][v];
    pb_cs_note(c->sample, pos0, pos);
}

/* Digits of elements [t0, t1) of node [lo, hi) of `level` (t0 a multiple of
 * the digits per block), into dig[lo + t], counted into count[]. */
static void rs_digits(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t t0, uint64_t t1,
                      uint64_t *restrict count)
{
    if (c->bits == 8) {
        rs_digits8(c, level, lo, t0, t1, count);
        return;
    }
    uint8_t *restrict d = c->dig + lo;
    const uint32_t mask = (1u << c->bits) - 1;
    const unsigned bits = c->bits, dpw = c->dpw;
    uint64_t pos = pb_cs_pos(PB_CS_DIGITS, level, lo + t0 / c->dpb);
    uint64_t t = t0;
    for (; t + c->dpb <= t1; pos++) {
        philox4x32_ctr_t w = pb_cs_block(c->seed, c->sample, pos);
        for (int k = 0; k < 4; k++) {
            uint32_t x = w.v[k];
            for (unsigned j = 0; j < dpw; j++, x >>= bits) {
                uint8_t v = (uint8_t)(x & mask);
                d[t++] = v;
                count[v]++;
            }
        }
    }
    if (t < t1) {
        philox4x32_ctr_t w = pb_cs_block(c->seed, c->sample, pos++);
        for (int k = 0; k < 4 && t < t1; k++) {
            uint32_t x = w.v[k];
            for (unsigned j = 0; j < dpw && t < t1; j++, x >>= bits) {
                uint8_t v = (uint8_t)(x & mask);
                d[t++] = v;
                count[v]++;
            }
        }
    }
}

static void rs_scatter(const rs_ctx *c, const void *src, void *dst, uint64_t lo, uint64_t t0,
                       uint64_t t1, uint64_t *off)
{
    const uint8_t *d = c->dig + lo + t0;
    unsigned radix = 1u << c->bits;
    if (c->wc && c->nt && c->item_bytes == 4)
        rs_scatter_nt_uint32_t((const uint32_t *)src + lo + t0, (uint32_t *)dst + lo, d, t1 - t0, off, radix);
    else if (c->wc && c->nt)
        rs_scatter_nt_uint64_t((const uint64_t *)src + lo + t0, (uint64_t *)dst + lo, d, t1 - t0, off, radix);
    else if (c->wc && c->item_bytes == 4)
        rs_scatter_wc_uint32_t((const uint32_t *)src + lo + t0, (uint32_t *)dst + lo, d, t1 - t0, off, radix);
    else if (c->wc)
        rs_scatter_wc_uint64_t((const uint64_t *)src + lo + t0, (uint64_t *)dst + lo, d, t1 - t0, off, radix);
    else if (c->item_bytes == 4)
        rs_scatter_uint32_t((const uint32_t *)src + lo + t0, (uint32_t *)dst + lo, d, t1 - t0, off);
    else
        rs_scatter_uint64_t((const uint64_t *)src + lo + t0, (uint64_t *)dst + lo, d, t1 - t0, off);
}

/* A leaf [lo, hi) of `level`: Fisher-Yates in the array, or from the
 * scratch into the array (odd levels), drawing the words of its stream a
 * buffer at a time (rs_leaf.h: the permutation shuffle_leaf.h makes of the
 * same stream), and prefetching as it goes the items of the leaf [nlo, nhi)
 * of the same level that runs next on this thread (none where nlo = nhi). */
static void rs_leaf_run(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi, uint64_t nlo,
                        uint64_t nhi)
{
    uint64_t m = hi - lo, pos = pb_cs_pos(PB_CS_LEAF, level, lo << PB_CS_SPAN_BITS);
    if (m > UINT32_MAX) { /* ranges past 32 bits: shuffle_leaf.h's own draws */
        pb_rng r;
        pb_cs_open(&r, c->seed, c->sample, pos);
        if (level & 1) {
            if (c->item_bytes == 4) pb_fisher_yates_inside_out_u32(at(c, c->b, lo), at(c, c->a, lo), m, &r);
            else pb_fisher_yates_inside_out_u64(at(c, c->b, lo), at(c, c->a, lo), m, &r);
        } else {
            pb_fisher_yates(at(c, c->a, lo), m, c->item_bytes, &r);
        }
        pb_cs_close(&r, c->sample, pos);
        return;
    }
    rs_draws d;
    rs_draws_open(&d, c->fill, c->seed, c->sample, pos);
    if (nhi > nlo && c->prefetch) {
        const char *next = (const char *)(level & 1 ? c->b : c->a);
        rs_draws_prefetch_next(&d, next + nlo * c->item_bytes, next + nhi * c->item_bytes,
                               c->item_bytes);
    }
    if (level & 1) {
        if (c->item_bytes == 4) rs_fisher_yates_inside_out_u32(at(c, c->b, lo), at(c, c->a, lo), m, &d);
        else rs_fisher_yates_inside_out_u64(at(c, c->b, lo), at(c, c->a, lo), m, &d);
    } else {
        if (c->item_bytes == 4) rs_fisher_yates_u32(at(c, c->a, lo), m, &d);
        else rs_fisher_yates_u64(at(c, c->a, lo), m, &d);
    }
    rs_draws_close(&d);
}

/* A leaf's items were just written by its parent's scatter, which sent
 * them to memory (non-temporal stores) or out of the core's caches, and
 * Fisher-Yates's random reads would each wait a full miss on the first
 * touch of a line: a sequential pass over the leaf first brings it in
 * with the prefetchers' help (on the 2-core development host, the leaves
 * of 2^26 + 1 u64 take 0.6x the time so; software prefetches of the next
 * leaf instead, or as well, did worse while the draws were slow). Since
 * the leaves draw faster (rs_leaf.h), the leaf before prefetches a leaf's
 * lines while it draws, a few at each refill of its words (rs_leaf_run;
 * on the 16-core host at 2^26 + 1 u64, leaves 250 -> 213 thread-ms), and
 * this pass, then cheap, still brings in the first leaf of each parent. */
static void rs_leaf_fetch(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi)
{
    const char *base = level & 1 ? c->b : c->a;
    const uint32_t *w = (const uint32_t *)(base + lo * c->item_bytes);
    uint64_t words = (hi - lo) * c->item_bytes / 4;
    uint32_t x = 0;
    for (uint64_t i = 0; i < words; i += 16) x ^= w[i];
    __asm__ volatile("" : : "r"(x));
}

static void rs_leaf(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi, uint64_t nlo,
                    uint64_t nhi)
{
    double t0 = c->prof ? omp_get_wtime() : 0, t1 = 0;
    rs_leaf_fetch(c, level, lo, hi);
    if (c->prof) t1 = omp_get_wtime();
    rs_leaf_run(c, level, lo, hi, nlo, nhi);
    if (c->prof) {
        double t = omp_get_wtime() - t0;
#pragma omp atomic
        c->prof[RS_PROF_LEAF + 3] += t1 - t0;
#pragma omp atomic
        c->prof[RS_PROF_LEAF] += t;
#pragma omp atomic
        c->prof[RS_PROF_LEAF + 1] += 1;
    }
}

/* Splits [lo, hi) of `level` from src into dst with every thread: start[k]
 * receives the offset of child k (start[radix] = size). */
static int rs_split_parallel(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi,
                             const void *src, void *dst, uint64_t *start)
{
    uint64_t size = hi - lo, radix = UINT64_C(1) << c->bits;
    /* At least RS_TASK_MIN, then up to whole blocks of digits: a chunk
     * reads the digits of its elements from the blocks it starts on, so
     * every chunk must start on a block boundary whatever the thread count
     * (rounding first and raising to the floor after broke that where the
     * digits a block, 40, 24 or 20, do not divide the floor). */
    uint64_t chunk = size / (4 * (uint64_t)c->threads) + 1;
    if (chunk < RS_TASK_MIN) chunk = RS_TASK_MIN;
    chunk = (chunk + c->dpb - 1) / c->dpb * c->dpb;
    uint64_t nch = (size + chunk - 1) / chunk;
    uint64_t *cnt = calloc(nch * radix, sizeof *cnt);
    if (!cnt) return -1;
    double tp = c->prof ? omp_get_wtime() : 0;
#pragma omp taskloop grainsize(1)
    for (uint64_t ch = 0; ch < nch; ch++) {
        uint64_t t0 = ch * chunk, t1 = t0 + chunk < size ? t0 + chunk : size;
        rs_digits(c, level, lo, t0, t1, cnt + ch * radix);
    }
    if (c->prof) {
        double t = omp_get_wtime();
        rs_prof_add(c, level, true, RS_P_DIGITS, t - tp);
        tp = t;
    }
    uint64_t run = 0;
    for (uint64_t d = 0; d < radix; d++) {
        start[d] = run;
        for (uint64_t ch = 0; ch < nch; ch++) {
            uint64_t k = cnt[ch * radix + d];
            cnt[ch * radix + d] = run;
            run += k;
        }
    }
    start[radix] = run;
    if (c->prof) {
        double t = omp_get_wtime();
        rs_prof_add(c, level, true, RS_P_PREFIX, t - tp);
        tp = t;
    }
#pragma omp taskloop grainsize(1)
    for (uint64_t ch = 0; ch < nch; ch++) {
        uint64_t t0 = ch * chunk, t1 = t0 + chunk < size ? t0 + chunk : size;
        rs_scatter(c, src, dst, lo, t0, t1, cnt + ch * radix);
    }
    if (c->prof) rs_prof_add(c, level, true, RS_P_SCATTER, omp_get_wtime() - tp);
    free(cnt);
    return 0;
}

/* Whether a node of `size` items at `level` is a leaf (Fisher-Yates). */
static bool rs_is_leaf(const rs_ctx *c, unsigned level, uint64_t size)
{
    return size <= c->cutoff || level >= PB_CS_MAX_LEVEL;
}

static void rs_node(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi)
{
    uint64_t size = hi - lo, radix = UINT64_C(1) << c->bits;
    if (rs_is_leaf(c, level, size)) {
        rs_leaf(c, level, lo, hi, hi, hi);
        return;
    }
    const void *src = level & 1 ? c->b : c->a;
    void *dst = level & 1 ? c->a : c->b;
    uint64_t start[RS_MAX_RADIX + 1];
    if (c->threads > 1 && size >= c->par_min &&
        rs_split_parallel(c, level, lo, hi, src, dst, start) == 0) {
        /* split */
    } else {
        uint64_t count[RS_MAX_RADIX] = {0};
        double tp = c->prof ? omp_get_wtime() : 0;
        rs_digits(c, level, lo, 0, size, count);
        if (c->prof) {
            double t = omp_get_wtime();
            rs_prof_add(c, level, false, RS_P_DIGITS, t - tp);
            tp = t;
        }
        uint64_t run = 0;
        for (uint64_t d = 0; d < radix; d++) {
            start[d] = run;
            run += count[d];
            count[d] = start[d];
        }
        start[radix] = run;
        rs_scatter(c, src, dst, lo, 0, size, count);
        if (c->prof) rs_prof_add(c, level, false, RS_P_SCATTER, omp_get_wtime() - tp);
    }
    if (c->prof) {
#pragma omp atomic
        c->prof[RS_PROF_LEAF + 2] += 1;
    }
    for (uint64_t d = 0; d < radix; d++) {
        uint64_t clo = lo + start[d], chi = lo + start[d + 1];
        if (chi == clo) continue;
        if (c->threads > 1 && chi - clo >= RS_TASK_MIN) {
#pragma omp task firstprivate(clo, chi)
            rs_node(c, level + 1, clo, chi);
        } else if (rs_is_leaf(c, level + 1, chi - clo)) {
            /* A leaf run here prefetches the next child's items when that
             * is a leaf run here too (not a node, not a task). */
            uint64_t e = d + 1;
            while (e < radix && start[e + 1] == start[e]) e++; /* the next child that has items */
            uint64_t nlo = lo + start[e], nhi = e < radix ? lo + start[e + 1] : nlo;
            if (!rs_is_leaf(c, level + 1, nhi - nlo) || (c->threads > 1 && nhi - nlo >= RS_TASK_MIN))
                nhi = nlo;
            rs_leaf(c, level + 1, clo, chi, nlo, nhi);
        } else {
            rs_node(c, level + 1, clo, chi);
        }
    }
}

/* Shuffles a[0, n) in place with scratch b (n items) and dig (n bytes). */
static void rs_shuffle(void *a, void *b, uint8_t *dig, uint64_t n, unsigned item_bytes,
                       const pb_params *p, int threads, uint64_t seed, uint64_t sample, double *prof)
{
    rs_ctx c = {
        .seed = seed,
        .sample = sample,
        .bits = (unsigned)p->v[P_RADIX_BITS],
        .cutoff = (uint64_t)p->v[P_CUTOFF],
        .item_bytes = item_bytes,
        .a = a,
        .b = b,
        .dig = dig,
        .threads = pb_cs_team(threads, n),
        .wc = p->v[P_WC] != 0,
        .prof = prof,
        .nt = rs_nt_on(),
        .fill = rs_philox_pick(),
        .prefetch = rs_env_on("PB_RS_PF"),
    };
    threads = c.threads;
    c.dpw = 32 / c.bits;
    c.dpb = 4 * c.dpw;
    /* A node splits with every thread when it is large and holds more than
     * a 2T-th of the array (there are too few of its size to keep the
     * threads busy as separate tasks); the others split sequentially, in
     * their own task. */
    c.par_min = n / (2 * (uint64_t)threads);
    if (c.par_min < RS_PAR_MIN) c.par_min = RS_PAR_MIN;
    if (n <= 1) return;
    if (threads > 1 && n > c.cutoff) {
#pragma omp parallel num_threads(threads)
#pragma omp single
        rs_node(&c, 0, 0, n);
    } else {
        rs_node(&c, 0, 0, n);
    }
}

/* ---- module ---- */

static bool rs_phases; /* PB_RS_PHASES (read by prepare) */

static void rs_prof_print(const double *prof, double wall, uint64_t n, int threads)
{
    static const char *const name[RS_P_N] = {"digits", "prefix", "scatter"};
    fprintf(stderr, "cpu-rao-sandelius phases (n=%llu, %d threads): total %.1f ms wall\n", (unsigned long long)n,
            threads, 1e3 * wall);
    for (unsigned l = 0; l < RS_PROF_LEVELS; l++)
        for (unsigned par = 0; par < 2; par++) {
            const double *x = &prof[(2 * l + par) * RS_P_N];
            if (x[0] + x[1] + x[2] == 0) continue;
            fprintf(stderr, "  level %u %s:", l, par ? "sequential splits (thread ms)" : "team split (wall ms)");
            for (unsigned k = 0; k < RS_P_N; k++)
                if (!par || k != RS_P_PREFIX) fprintf(stderr, " %s %.1f", name[k], 1e3 * x[k]);
            fprintf(stderr, "\n");
        }
    fprintf(stderr, "  leaves (thread ms): %.1f (fetch %.1f) in %.0f leaves; %.0f nodes split\n",
            1e3 * prof[RS_PROF_LEAF], 1e3 * prof[RS_PROF_LEAF + 3], prof[RS_PROF_LEAF + 1],
            prof[RS_PROF_LEAF + 2]);
}

static uint64_t footprint(const pb_point *pt) { return pt->n * (2 * (uint64_t)pt->item_bytes + 1); }

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
    const char *ph = getenv("PB_RS_PHASES");
    rs_phases = ph && *ph && *ph != '0';
    pb_shuffle_buffers *b;
    if (pb_shuffle_buffers_new(pt, false, &b, err)) return -1;
    size_t bytes = (size_t)pt->n * (pt->item_bytes + 1);
    b->extra = malloc(bytes ? bytes : 1);
    if (!b->extra) {
        pb_shuffle_release(b);
        return pb_err_set(err, "cannot allocate %zu bytes of scratch", bytes);
    }
    /* First touch from the threads that will use it. */
    char *x = b->extra;
#pragma omp parallel for num_threads(pt->threads) schedule(static)
    for (size_t i = 0; i < bytes; i += 4096) x[i] = 0;
    *state = b;
    return 0;
}

static int run(void *state, uint64_t sample, pb_err *err)
{
    (void)err;
    pb_shuffle_buffers *b = state;
    uint64_t n = b->pt.n;
    char *scratch = b->extra;
    double prof[RS_PROF_SIZE] = {0}, t0 = rs_phases ? omp_get_wtime() : 0;
    rs_shuffle(b->out, scratch, (uint8_t *)scratch + n * b->pt.item_bytes, n, b->pt.item_bytes,
               &b->params, b->pt.threads, b->pt.seed, sample, rs_phases ? prof : NULL);
    if (rs_phases) rs_prof_print(prof, omp_get_wtime() - t0, n, pb_cs_team(b->pt.threads, n));
    return 0;
}

/* Permutation j: the shuffle of the identity for sample first + j, by the
 * same code (one permutation per thread; the result does not depend on the
 * thread count). */
static int sample_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    int threads = pb_cs_threads(p->v[P_THREADS]), failed = 0;
#pragma omp parallel num_threads(threads) reduction(| : failed)
    {
        uint32_t *b = malloc(((size_t)n + 1) * sizeof *b);
        uint8_t *dig = malloc((size_t)n + 1);
        if (!b || !dig) failed = 1;
#pragma omp for schedule(dynamic, 16)
        for (uint64_t j = 0; j < count; j++) {
            if (failed) continue;
            uint32_t *a = out + j * n;
            for (uint32_t i = 0; i < n; i++) a[i] = i;
            rs_shuffle(a, b, dig, n, 4, p, 1, seed, first + j, NULL);
        }
        free(b);
        free(dig);
    }
    return failed ? pb_err_set(err, "out of memory") : 0;
}

PB_SHUFFLE_MODULE(rao_sandelius, "cpu-rao-sandelius", pb_shuffle_cpu_inplace_hooks, sample_perms,
    .summary = "Rao-Sandelius divide and conquer: random digits, stable scatter, parallel "
               "recursion (OpenMP tasks), Fisher-Yates leaves; same output for any thread count",
    PB_PARAMS(params), .max_n = PB_CS_MAX_N, .footprint = footprint, .prepare = prepare, .run = run);

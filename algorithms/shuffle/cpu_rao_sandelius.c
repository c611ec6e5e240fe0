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
 * of (DIGITS, L); a leaf [lo, hi) of level L draws from (LEAF, L, lo << 14).
 * Nodes of one level are disjoint, so no bit is drawn twice; and since a
 * stable scatter has one result however it is split into chunks, the output
 * depends on (seed, sample) only, never on the thread count or schedule. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "algorithms/shuffle/cpu_streams.h"
#include "core/module.h"
#include "families/shuffle/shuffle_buffers.h"
#include "families/shuffle/shuffle_leaf.h"

enum { P_THREADS, P_RADIX_BITS, P_CUTOFF, P_WC };

static const pb_param_spec params[] = {
    PB_PARAM_THREADS,
    {"radix_bits", PB_PARAM_INT, 8, 1, 8, NULL,
     "bits of the random digit that picks a sub-array (2^bits sub-arrays per split)"},
    {"cutoff", PB_PARAM_INT, 4096, 1, 1 << 24, NULL,
     "sub-arrays of at most this many items are shuffled by Fisher-Yates"},
    {"wc", PB_PARAM_BOOL, 0, 0, 1, NULL,
     "scatter through 64-byte write-combining lines a digit (same output; 0.85x on the 2-core dev machine, "
     "so off by default)"},
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
    bool wc; /* write-combining scatter */
} rs_ctx;

/* ---- per item width: the scatter (the leaves are families/shuffle/shuffle_leaf.h) ---- */

/* The scatter, straight (wc = 0, the default: an item a store, 2^bits
 * store streams at once) or through write-combining lines (wc = 1: on the
 * 2-core development machine 0.85x the straight one at 2^26 + 1 u64,
 * results/reference/xeon-2core-dev/rs-wc; not yet measured on 16 cores): each
 * digit gathers RS_WC_BYTES of its items in a small buffer (all of them
 * together 16 KiB: L1) and they go out as one contiguous copy, so every
 * cache line of dst is written whole, once. The items of a digit keep
 * their order either way, so the output is the same. */
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

static void *at(const rs_ctx *c, void *base, uint64_t i)
{
    return (char *)base + i * c->item_bytes;
}

/* Digits of elements [t0, t1) of node [lo, hi) of `level` (t0 a multiple of
 * the digits per block), into dig[lo + t], counted into count[]. */
static void rs_digits(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t t0, uint64_t t1,
                      uint64_t *restrict count)
{
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
    if (c->wc && c->item_bytes == 4)
        rs_scatter_wc_uint32_t((const uint32_t *)src + lo + t0, (uint32_t *)dst + lo, d, t1 - t0, off, radix);
    else if (c->wc)
        rs_scatter_wc_uint64_t((const uint64_t *)src + lo + t0, (uint64_t *)dst + lo, d, t1 - t0, off, radix);
    else if (c->item_bytes == 4)
        rs_scatter_uint32_t((const uint32_t *)src + lo + t0, (uint32_t *)dst + lo, d, t1 - t0, off);
    else
        rs_scatter_uint64_t((const uint64_t *)src + lo + t0, (uint64_t *)dst + lo, d, t1 - t0, off);
}

/* A leaf [lo, hi) of `level`: Fisher-Yates in the array, or from the
 * scratch into the array (odd levels). */
static void rs_leaf(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi)
{
    uint64_t m = hi - lo, pos = pb_cs_pos(PB_CS_LEAF, level, lo << PB_CS_SPAN_BITS);
    pb_rng r;
    pb_cs_open(&r, c->seed, c->sample, pos);
    if (level & 1) {
        if (c->item_bytes == 4) pb_fisher_yates_inside_out_u32(at(c, c->b, lo), at(c, c->a, lo), m, &r);
        else pb_fisher_yates_inside_out_u64(at(c, c->b, lo), at(c, c->a, lo), m, &r);
    } else {
        pb_fisher_yates(at(c, c->a, lo), m, c->item_bytes, &r);
    }
    pb_cs_close(&r, c->sample, pos);
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
#pragma omp taskloop grainsize(1)
    for (uint64_t ch = 0; ch < nch; ch++) {
        uint64_t t0 = ch * chunk, t1 = t0 + chunk < size ? t0 + chunk : size;
        rs_digits(c, level, lo, t0, t1, cnt + ch * radix);
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
#pragma omp taskloop grainsize(1)
    for (uint64_t ch = 0; ch < nch; ch++) {
        uint64_t t0 = ch * chunk, t1 = t0 + chunk < size ? t0 + chunk : size;
        rs_scatter(c, src, dst, lo, t0, t1, cnt + ch * radix);
    }
    free(cnt);
    return 0;
}

static void rs_node(const rs_ctx *c, unsigned level, uint64_t lo, uint64_t hi)
{
    uint64_t size = hi - lo, radix = UINT64_C(1) << c->bits;
    if (size <= c->cutoff || level >= PB_CS_MAX_LEVEL) {
        rs_leaf(c, level, lo, hi);
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
        rs_digits(c, level, lo, 0, size, count);
        uint64_t run = 0;
        for (uint64_t d = 0; d < radix; d++) {
            start[d] = run;
            run += count[d];
            count[d] = start[d];
        }
        start[radix] = run;
        rs_scatter(c, src, dst, lo, 0, size, count);
    }
    for (uint64_t d = 0; d < radix; d++) {
        uint64_t clo = lo + start[d], chi = lo + start[d + 1];
        if (chi == clo) continue;
        if (c->threads > 1 && chi - clo >= RS_TASK_MIN) {
#pragma omp task firstprivate(clo, chi)
            rs_node(c, level + 1, clo, chi);
        } else {
            rs_node(c, level + 1, clo, chi);
        }
    }
}

/* Shuffles a[0, n) in place with scratch b (n items) and dig (n bytes). */
static void rs_shuffle(void *a, void *b, uint8_t *dig, uint64_t n, unsigned item_bytes,
                       const pb_params *p, int threads, uint64_t seed, uint64_t sample)
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

static uint64_t footprint(const pb_point *pt) { return pt->n * (2 * (uint64_t)pt->item_bytes + 1); }

static int prepare(const pb_point *pt, void **state, pb_err *err)
{
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
    rs_shuffle(b->out, scratch, (uint8_t *)scratch + n * b->pt.item_bytes, n, b->pt.item_bytes,
               &b->params, b->pt.threads, b->pt.seed, sample);
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
            rs_shuffle(a, b, dig, n, 4, p, 1, seed, first + j);
        }
        free(b);
        free(dig);
    }
    return failed ? pb_err_set(err, "out of memory") : 0;
}

const pb_module pb_module_rao_sandelius = {
    .name = "rao-sandelius",
    .family = &pb_family_shuffle,
    .device = PB_DEVICE_CPU,
    .flags = PB_MOD_SEEDED | PB_MOD_INPLACE,
    .summary = "Rao-Sandelius divide and conquer: random digits, stable scatter, parallel "
               "recursion (OpenMP tasks), Fisher-Yates leaves; same output for any thread count",
    .params = PB_PARAMS(params),
    .max_n = PB_CS_MAX_N,
    .footprint = footprint,
    .prepare = prepare,
    .run = run,
    .result = pb_shuffle_result,
    .release = pb_shuffle_release,
    .sample_perms = sample_perms,
    .refresh = pb_shuffle_refresh,
    .fingerprint = pb_shuffle_fingerprint,
};

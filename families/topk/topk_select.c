/* The CPU top-k (see topk_select.h): candidate buffers with a running
 * threshold, quickselect, and the radix sorts the twin and the check use.
 *
 * What depends on the candidate type (64-bit candidates of 32-bit keys, or
 * pb_topk_wide ones of 64-bit keys) is written once for both by macros: the
 * quickselect, the scan and the radix sort. The row and thread logic is
 * written once, on untyped buffers, and reaches the typed parts through a
 * topk_kind. */
#include "families/topk/topk_select.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- quickselect ---- */

/* Quickselect in descending order: a median-of-three pivot and the
 * branch-free Lomuto partition (Alexandrescu, "Lomuto's comeback", 2020:
 * every element is swapped with the boundary and the boundary advances by
 * a comparison's 0 or 1), since the branches of a Hoare partition on random
 * keys mispredict about half the time. After a budget of partitions that a
 * well-behaved run never spends, the remaining range is sorted, so the worst
 * case stays O(n log n). T: the candidate type. */
#define TOPK_QUICKSELECT(name, T)                                                                  \
    static void name##_insertion(T *a, size_t n)                                                   \
    {                                                                                              \
        for (size_t i = 1; i < n; i++) {                                                           \
            T v = a[i];                                                                            \
            size_t j = i;                                                                          \
            for (; j > 0 && a[j - 1] < v; j--) a[j] = a[j - 1];                                    \
            a[j] = v;                                                                              \
        }                                                                                          \
    }                                                                                              \
    static int name##_cmp_desc(const void *x, const void *y)                                       \
    {                                                                                              \
        T a = *(const T *)x, b = *(const T *)y;                                                    \
        return (a < b) - (a > b);                                                                  \
    }                                                                                              \
    static T name##_median3(T x, T y, T z)                                                         \
    {                                                                                              \
        if (x < y) {                                                                               \
            if (y < z) return y;                                                                   \
            return x < z ? z : x;                                                                  \
        }                                                                                          \
        if (x < z) return x;                                                                       \
        return y < z ? z : y;                                                                      \
    }                                                                                              \
    void name(T *a, size_t n, size_t k)                                                            \
    {                                                                                              \
        if (k == 0 || k >= n) return;                                                              \
        size_t lo = 0, hi = n - 1, t = k - 1;                                                      \
        int budget = 64;                                                                           \
        for (size_t m = n; m > 1; m >>= 1) budget += 2;                                            \
        while (lo < hi) {                                                                          \
            if (hi - lo < 16) {                                                                    \
                name##_insertion(a + lo, hi - lo + 1);                                             \
                return;                                                                            \
            }                                                                                      \
            if (budget-- == 0) {                                                                   \
                qsort(a + lo, hi - lo + 1, sizeof *a, name##_cmp_desc);                            \
                return;                                                                            \
            }                                                                                      \
            /* The median of three to a[hi]. */                                                    \
            size_t mid = lo + (hi - lo) / 2;                                                       \
            T x = name##_median3(a[lo], a[mid], a[hi]);                                            \
            size_t p = x == a[lo] ? lo : x == a[mid] ? mid : hi;                                   \
            a[p] = a[hi];                                                                          \
            a[hi] = x;                                                                             \
            /* [lo, s) > x, [s, i) < x (values are distinct). */                                   \
            size_t s = lo;                                                                         \
            for (size_t i = lo; i < hi; i++) {                                                     \
                T v = a[i];                                                                        \
                a[i] = a[s];                                                                       \
                a[s] = v;                                                                          \
                s += v > x;                                                                        \
            }                                                                                      \
            a[hi] = a[s];                                                                          \
            a[s] = x;                                                                              \
            if (t == s) return;                                                                    \
            if (t < s)                                                                             \
                hi = s - 1;                                                                        \
            else                                                                                   \
                lo = s + 1;                                                                        \
        }                                                                                          \
    }
TOPK_QUICKSELECT(pb_topk_select_top, uint64_t)
TOPK_QUICKSELECT(pb_topk_select_top_wide, pb_topk_wide)

/* ---- the scan: one function per (dtype, direction), so the hot loop has
 * no branch on either ---- */

typedef size_t (*scan_fn)(const void *row, uint64_t lo, uint64_t hi, size_t k, void *buf,
                          size_t cap);

/* Candidates of row[lo, hi) not below the threshold go to buf; a full
 * buffer (cap > k) is cut back to its k best, the k-th becoming the
 * threshold. Returns min(k, hi - lo): buf then holds the chunk's best. A
 * buffer that can hold the whole chunk (cap = hi - lo <= k) never fills
 * early. Once the threshold is high most values fall short of it: blocks of
 * 64 are first tested alone (no candidate of a block none of whose values
 * may reach the threshold's key can pass), a loop the compiler vectorises.
 * V: the row's words, K: order keys, C: candidates (PACK, PACK_OKEY and
 * TOP their packing, key and quickselect); OKEY: the order key of the
 * value b. The block test: PRE, true for every value b whose order key may
 * reach the threshold's, with `pre` (of type PRE_T) made from the
 * threshold's key th by PRE_OF: for 32-bit keys the key compare itself;
 * fp64 compares doubles instead (SSE2, the baseline, has no 64-bit integer
 * compare, so a key compare would not vectorise). */
#define TOPK_BLOCK 64
#define TOPK_SCAN(name, V, K, C, PACK, PACK_OKEY, TOP, OKEY, PRE_T, PRE_OF, PRE)                   \
    static size_t name(const void *row_, uint64_t lo, uint64_t hi, size_t k, void *buf_,           \
                       size_t cap)                                                                 \
    {                                                                                              \
        const V *row = row_;                                                                       \
        C *buf = buf_;                                                                             \
        size_t m = 0;                                                                              \
        C t = 0;                                                                                   \
        uint64_t i = lo;                                                                           \
        while (i < hi) {                                                                           \
            uint64_t stop = hi - i > TOPK_BLOCK ? i + TOPK_BLOCK : hi;                             \
            if (stop - i == TOPK_BLOCK) {                                                          \
                K th = PACK_OKEY(t);                                                               \
                PRE_T pre = PRE_OF(th);                                                            \
                unsigned any = 0;                                                                  \
                for (unsigned j = 0; j < TOPK_BLOCK; j++) {                                        \
                    V b = row[i + j];                                                              \
                    any |= (PRE);                                                                  \
                }                                                                                  \
                if (!any) {                                                                        \
                    i = stop;                                                                      \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            for (; i < stop; i++) {                                                                \
                V b = row[i];                                                                      \
                C v = PACK(OKEY, (uint32_t)i);                                                     \
                if (v < t) continue;                                                               \
                buf[m++] = v;                                                                      \
                if (m == cap && cap > k) {                                                         \
                    TOP(buf, m, k);                                                                \
                    m = k;                                                                         \
                    t = buf[k - 1];                                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (m > k) {                                                                               \
            TOP(buf, m, k);                                                                        \
            m = k;                                                                                 \
        }                                                                                          \
        return m;                                                                                  \
    }
/* u64's block test compares the keys' high words (32-bit compares, which
 * vectorise): a key whose high word is below the threshold's is below it. */
static inline uint32_t high_word(uint64_t th)
{
    return (uint32_t)(th >> 32);
}
/* fp64's block test on the high words too: the high word of a number's
 * key is the fp32 rule applied to the value's high word (its sign and
 * exponent are there), and infinities and NaNs (exponent all ones, which
 * a NaN's canonical key needs its low word to tell) always pass. */
static inline uint32_t f64_key_high(uint64_t b)
{
    uint32_t h = (uint32_t)(b >> 32);
    return h ^ ((uint32_t)((int32_t)h >> 31) | 0x80000000u);
}
static inline unsigned f64_special(uint64_t b)
{
    return ((uint32_t)(b >> 32) & 0x7fffffffu) >= 0x7ff00000u;
}
#define TOPK_SCAN32(name, OKEY)                                                                    \
    TOPK_SCAN(name, uint32_t, uint32_t, uint64_t, pb_topk_pack, pb_topk_pack_okey,                 \
              pb_topk_select_top, OKEY, uint32_t, (uint32_t), (uint32_t)(OKEY) >= pre)
/* Both test the keys' high words (32-bit compares, which vectorise). */
#define TOPK_SCAN64(name, OKEY, PRE_T, PRE_OF, PRE)                                                \
    TOPK_SCAN(name, uint64_t, uint64_t, pb_topk_wide, pb_topk_pack64, pb_topk_pack64_okey,         \
              pb_topk_select_top_wide, OKEY, PRE_T, PRE_OF, PRE)
TOPK_SCAN32(scan_f32_largest, pb_topk_key_bits(b))
TOPK_SCAN32(scan_f32_smallest, ~pb_topk_key_bits(b))
TOPK_SCAN32(scan_u32_largest, b)
TOPK_SCAN32(scan_u32_smallest, ~b)
TOPK_SCAN32(scan_i32_largest, b ^ 0x80000000u)
TOPK_SCAN32(scan_i32_smallest, ~(b ^ 0x80000000u))
TOPK_SCAN32(scan_f16_largest, pb_topk_okey_of(b, PB_TOPK_F16, 1))
TOPK_SCAN32(scan_f16_smallest, pb_topk_okey_of(b, PB_TOPK_F16, 0))
TOPK_SCAN32(scan_bf16_largest, pb_topk_okey_of(b, PB_TOPK_BF16, 1))
TOPK_SCAN32(scan_bf16_smallest, pb_topk_okey_of(b, PB_TOPK_BF16, 0))
TOPK_SCAN64(scan_f64_largest, pb_topk_key_f64_bits(b), uint32_t, high_word,
            f64_special(b) | (f64_key_high(b) >= pre))
TOPK_SCAN64(scan_f64_smallest, ~pb_topk_key_f64_bits(b), uint32_t, high_word,
            f64_special(b) | (~f64_key_high(b) >= pre))
TOPK_SCAN64(scan_u64_largest, b, uint32_t, high_word, (uint32_t)(b >> 32) >= pre)
TOPK_SCAN64(scan_u64_smallest, ~b, uint32_t, high_word, (uint32_t)(~b >> 32) >= pre)

/* Candidates buf[lo, hi) of `row` to vals[lo, hi) and idx[lo, hi): each
 * candidate's index and the row's value there. */
static void emit32(const void *row_, const void *buf_, size_t lo, size_t hi, void *vals_,
                   uint32_t *idx)
{
    const uint32_t *row = row_;
    const uint64_t *buf = buf_;
    uint32_t *vals = vals_;
    for (size_t j = lo; j < hi; j++) {
        uint32_t i = pb_topk_pack_idx(buf[j]);
        idx[j] = i;
        vals[j] = row[i];
    }
}

static void emit64(const void *row_, const void *buf_, size_t lo, size_t hi, void *vals_,
                   uint32_t *idx)
{
    const uint64_t *row = row_;
    const pb_topk_wide *buf = buf_;
    uint64_t *vals = vals_;
    for (size_t j = lo; j < hi; j++) {
        uint32_t i = pb_topk_pack64_idx(buf[j]);
        idx[j] = i;
        vals[j] = row[i];
    }
}

/* The typed parts one problem's selection uses. */
typedef struct topk_kind {
    size_t word, cand; /* bytes of a value's word and of a candidate */
    scan_fn scan;
    void (*top)(void *buf, size_t n, size_t k);
    void (*emit)(const void *row, const void *buf, size_t lo, size_t hi, void *vals, uint32_t *idx);
} topk_kind;

static void top32(void *buf, size_t n, size_t k)
{
    pb_topk_select_top(buf, n, k);
}
static void top64(void *buf, size_t n, size_t k)
{
    pb_topk_select_top_wide(buf, n, k);
}

static scan_fn pick_scan(const pb_topk_problem *p)
{
    if (p->dtype == PB_TOPK_U32) return p->largest ? scan_u32_largest : scan_u32_smallest;
    if (p->dtype == PB_TOPK_I32) return p->largest ? scan_i32_largest : scan_i32_smallest;
    if (p->dtype == PB_TOPK_F16) return p->largest ? scan_f16_largest : scan_f16_smallest;
    if (p->dtype == PB_TOPK_BF16) return p->largest ? scan_bf16_largest : scan_bf16_smallest;
    if (p->dtype == PB_TOPK_F64) return p->largest ? scan_f64_largest : scan_f64_smallest;
    if (p->dtype == PB_TOPK_U64) return p->largest ? scan_u64_largest : scan_u64_smallest;
    return p->largest ? scan_f32_largest : scan_f32_smallest;
}

static topk_kind kind_of(const pb_topk_problem *p)
{
    bool wide = pb_topk_dtype_is64(p->dtype);
    topk_kind k = {pb_topk_word_bytes(p->dtype), pb_topk_cand_bytes(p->dtype), pick_scan(p),
                   wide ? top64 : top32, wide ? emit64 : emit32};
    return k;
}

/* ---- workspace ---- */

static uint64_t min64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}
static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* A buffer of k + max(k, 1024) candidates: each cut-back to k then admits at
 * least as many new ones as it cost (amortised O(1) per admitted value),
 * and small k do not cut back every few values. */
static uint64_t cap_for_k(uint64_t k)
{
    return k + max64(k, 1024);
}

static bool split_mode(uint64_t rows, int threads)
{
    return threads > 1 && rows < (uint64_t)threads;
}

static uint64_t per_thread(uint64_t rows, uint64_t max_len, uint64_t k, int threads)
{
    uint64_t cap = cap_for_k(min64(k, max_len));
    if (!split_mode(rows, threads)) return min64(cap, max_len);
    uint64_t chunk = (max_len + (uint64_t)threads - 1) / (uint64_t)threads;
    /* A row too short to split is scanned by one thread, whole. */
    return min64(cap, max64(chunk, min64(max_len, PB_TOPK_SPLIT_MIN)));
}

uint64_t pb_topk_ws_bytes(const pb_point *pt, int threads)
{
    if (threads < 1) threads = omp_get_num_procs();
    uint64_t rows = (uint64_t)pt->params->v[PB_TOPK_P_ROWS];
    uint64_t k = (uint64_t)pt->params->v[PB_TOPK_P_K];
    uint64_t max_len = pt->n + (pt->params->v[PB_TOPK_P_RAGGED] ? pt->n / 2 : 0);
    uint64_t cand = pb_topk_cand_bytes((int)pt->params->v[PB_TOPK_P_DTYPE]);
    return (uint64_t)threads * (per_thread(rows, max_len, k, threads) * cand + sizeof(size_t));
}

int pb_topk_ws_init(pb_topk_ws *ws, const pb_topk_problem *p, int threads, pb_err *err)
{
    memset(ws, 0, sizeof *ws);
    if (threads < 1) threads = omp_get_max_threads();
    ws->threads = threads;
    ws->split = split_mode(p->rows, threads);
    ws->per = (size_t)per_thread(p->rows, p->max_len, p->k, threads);
    size_t cells = (size_t)threads * ws->per;
    ws->buf = malloc((cells ? cells : 1) * pb_topk_cand_bytes(p->dtype));
    ws->counts = calloc((size_t)threads, sizeof *ws->counts);
    if (!ws->buf || !ws->counts) {
        pb_topk_ws_free(ws);
        return pb_err_set(err, "out of memory for %d top-k buffers of %zu candidates", threads,
                          ws->per);
    }
    return 0;
}

void pb_topk_ws_free(pb_topk_ws *ws)
{
    free(ws->buf);
    free(ws->counts);
    ws->buf = NULL;
    ws->counts = NULL;
}

/* ---- selection ---- */

/* Element i of an array of `bytes`-wide elements. */
static void *at(void *a, uint64_t i, size_t bytes)
{
    return (char *)a + i * bytes;
}
static const void *cat(const void *a, uint64_t i, size_t bytes)
{
    return (const char *)a + i * bytes;
}

/* Values row[lo, hi) to vals[lo, hi), indices lo .. hi - 1 to idx[lo, hi):
 * a k that covers the row takes all of it, in row order. */
static void copy_range(const void *row, uint64_t lo, uint64_t hi, size_t word, void *vals,
                       uint32_t *idx)
{
    memcpy(at(vals, lo, word), cat(row, lo, word), (size_t)(hi - lo) * word);
    for (uint64_t i = lo; i < hi; i++) idx[i] = (uint32_t)i;
}

/* Row r on the calling thread alone, with buf[per]. */
static void row_one_thread(const pb_topk_problem *p, uint64_t r, const topk_kind *kd, void *buf,
                           size_t per, void *vals, uint32_t *idx)
{
    const void *row = cat(p->data, p->begin[r], kd->word);
    uint64_t len = pb_topk_row_len(p, r), o = p->out_off[r];
    size_t keff = (size_t)(p->out_off[r + 1] - o);
    if (keff == 0) return;
    if (keff == len) {
        copy_range(row, 0, len, kd->word, at(vals, o, kd->word), idx + o);
        return;
    }
    size_t m = kd->scan(row, 0, len, keff, buf, (size_t)min64(per, len));
    kd->emit(row, buf, 0, m, at(vals, o, kd->word), idx + o);
}

/* Row r with every thread: a chunk each, then the best of their bests. */
static void row_split(const pb_topk_problem *p, uint64_t r, const topk_kind *kd, pb_topk_ws *ws,
                      void *vals, uint32_t *idx)
{
    const void *row = cat(p->data, p->begin[r], kd->word);
    uint64_t len = pb_topk_row_len(p, r), o = p->out_off[r];
    size_t keff = (size_t)(p->out_off[r + 1] - o);
    size_t per = ws->per, cb = kd->cand;
    for (int t = 0; t < ws->threads; t++) ws->counts[t] = 0;
#pragma omp parallel num_threads(ws->threads)
    {
        /* Chunk c in buffer c, whatever team OpenMP grants: the buffers are
         * sized for the chunks of ws->threads. */
        uint64_t T = (uint64_t)ws->threads, chunk = (len + T - 1) / T;
        for (uint64_t c = (uint64_t)omp_get_thread_num(); c < T;
             c += (uint64_t)omp_get_num_threads()) {
            uint64_t lo = min64(c * chunk, len), hi = min64(lo + chunk, len);
            if (lo < hi)
                ws->counts[c] = kd->scan(row, lo, hi, keff, at(ws->buf, c * per, cb),
                                         (size_t)min64(per, hi - lo));
        }
    }
    size_t m = ws->counts[0];
    for (int t = 1; t < ws->threads; t++) {
        memmove(at(ws->buf, m, cb), at(ws->buf, (size_t)t * per, cb), ws->counts[t] * cb);
        m += ws->counts[t];
    }
    kd->top(ws->buf, m, keff);
    void *v = at(vals, o, kd->word);
#pragma omp parallel num_threads(ws->threads) if (keff >= PB_TOPK_PAR_MIN)
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        kd->emit(row, ws->buf, keff * t / nt, keff * (t + 1) / nt, v, idx + o);
    }
}

void pb_topk_select(const pb_topk_problem *p, pb_topk_ws *ws, void *vals, uint32_t *idx)
{
    topk_kind kind = kind_of(p);
    const topk_kind *kd = &kind;
    if (!ws->split) {
        pb_topk_ws *w = ws;
        bool par = w->threads > 1 && p->elems >= PB_TOPK_PAR_MIN;
#pragma omp parallel for schedule(dynamic, 1) num_threads(w->threads) if (par)
        for (uint64_t r = 0; r < p->rows; r++) {
            void *buf = at(w->buf, (size_t)omp_get_thread_num() * w->per, kd->cand);
            row_one_thread(p, r, kd, buf, w->per, vals, idx);
        }
        return;
    }
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r);
        size_t keff = (size_t)(p->out_off[r + 1] - p->out_off[r]);
        if (len < PB_TOPK_SPLIT_MIN) {
            row_one_thread(p, r, kd, ws->buf, ws->per, vals, idx);
        } else if (keff == len) {
            /* The whole row: a parallel copy. */
            const void *row = cat(p->data, p->begin[r], kd->word);
            void *v = at(vals, p->out_off[r], kd->word);
            uint32_t *ix = idx + p->out_off[r];
#pragma omp parallel num_threads(ws->threads)
            {
                uint64_t nt = (uint64_t)omp_get_num_threads(), t = (uint64_t)omp_get_thread_num();
                copy_range(row, len * t / nt, len * (t + 1) / nt, kd->word, v, ix);
            }
        } else {
            row_split(p, r, kd, ws, vals, idx);
        }
    }
}

/* ---- radix sorts ---- */

#define TOPK_RADIX_SORT(name, T, BYTES)                                                            \
    void name(T *a, T *tmp, size_t n)                                                              \
    {                                                                                              \
        if (n < 64) {                                                                              \
            for (size_t i = 1; i < n; i++) {                                                       \
                T v = a[i];                                                                        \
                size_t j = i;                                                                      \
                for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];                                \
                a[j] = v;                                                                          \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        size_t count[BYTES][256];                                                                  \
        memset(count, 0, sizeof count);                                                            \
        for (size_t i = 0; i < n; i++)                                                             \
            for (unsigned d = 0; d < BYTES; d++) count[d][(a[i] >> (8 * d)) & 255]++;              \
        T *src = a, *dst = tmp;                                                                    \
        for (unsigned d = 0; d < BYTES; d++) {                                                     \
            /* A digit every value shares orders nothing. */                                       \
            if (count[d][(src[0] >> (8 * d)) & 255] == n) continue;                                \
            size_t run = 0;                                                                        \
            for (unsigned b = 0; b < 256; b++) {                                                   \
                size_t c = count[d][b];                                                            \
                count[d][b] = run;                                                                 \
                run += c;                                                                          \
            }                                                                                      \
            for (size_t i = 0; i < n; i++) dst[count[d][(src[i] >> (8 * d)) & 255]++] = src[i];    \
            T *s = src;                                                                            \
            src = dst;                                                                             \
            dst = s;                                                                               \
        }                                                                                          \
        if (src != a) memcpy(a, src, n * sizeof *a);                                               \
    }
TOPK_RADIX_SORT(pb_topk_sort_u32, uint32_t, 4)
TOPK_RADIX_SORT(pb_topk_sort_u64, uint64_t, 8)
/* Candidates use 96 bits: the top 32 are zero, never a digit. */
TOPK_RADIX_SORT(pb_topk_sort_wide, pb_topk_wide, 12)

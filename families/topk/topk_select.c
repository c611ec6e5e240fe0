/* The CPU top-k (see topk_select.h): candidate buffers with a running
 * threshold, quickselect, and the radix sorts the twin and the check use. */
#include "families/topk/topk_select.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- quickselect ---- */

static void insertion_desc(uint64_t *a, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint64_t v = a[i];
        size_t j = i;
        for (; j > 0 && a[j - 1] < v; j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

static int cmp_desc(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a < b) - (a > b);
}

static uint64_t median3(uint64_t x, uint64_t y, uint64_t z)
{
    if (x < y) {
        if (y < z) return y;
        return x < z ? z : x;
    }
    if (x < z) return x;
    return y < z ? z : y;
}

/* Quickselect in descending order: a median-of-three pivot and the
 * branch-free Lomuto partition (Alexandrescu, "Lomuto's comeback", 2020:
 * every element is swapped with the boundary and the boundary advances by
 * a comparison's 0 or 1), since the branches of a Hoare partition on random
 * keys mispredict about half the time. After a budget of partitions that a
 * well-behaved run never spends, the remaining range is sorted, so the worst
 * case stays O(n log n). */
void pb_topk_select_top(uint64_t *a, size_t n, size_t k)
{
    if (k == 0 || k >= n) return;
    size_t lo = 0, hi = n - 1, t = k - 1;
    int budget = 64;
    for (size_t m = n; m > 1; m >>= 1) budget += 2;
    while (lo < hi) {
        if (hi - lo < 16) {
            insertion_desc(a + lo, hi - lo + 1);
            return;
        }
        if (budget-- == 0) {
            qsort(a + lo, hi - lo + 1, sizeof *a, cmp_desc);
            return;
        }
        /* The median of three to a[hi]. */
        size_t mid = lo + (hi - lo) / 2;
        uint64_t x = median3(a[lo], a[mid], a[hi]);
        size_t p = x == a[lo] ? lo : x == a[mid] ? mid : hi;
        a[p] = a[hi];
        a[hi] = x;
        /* [lo, s) > x, [s, i) < x (values are distinct). */
        size_t s = lo;
        for (size_t i = lo; i < hi; i++) {
            uint64_t v = a[i];
            a[i] = a[s];
            a[s] = v;
            s += v > x;
        }
        a[hi] = a[s];
        a[s] = x;
        if (t == s) return;
        if (t < s)
            hi = s - 1;
        else
            lo = s + 1;
    }
}

/* ---- the scan: one function per (dtype, direction), so the hot loop has
 * no branch on either ---- */

typedef size_t (*scan_fn)(const uint32_t *row, uint64_t lo, uint64_t hi, size_t k, uint64_t *buf,
                          size_t cap);

/* Candidates of row[lo, hi) not below the threshold go to buf; a full
 * buffer (cap > k) is cut back to its k best, the k-th becoming the
 * threshold. Returns min(k, hi - lo): buf then holds the chunk's best. A
 * buffer that can hold the whole chunk (cap = hi - lo <= k) never fills
 * early. Once the threshold is high most values fall short of it: blocks of
 * 64 are first tested on the order key alone (no candidate of a block whose
 * keys are all below the threshold's can pass), a loop the compiler
 * vectorises. */
#define TOPK_BLOCK 64
#define TOPK_SCAN(name, OKEY)                                                                      \
    static size_t name(const uint32_t *row, uint64_t lo, uint64_t hi, size_t k, uint64_t *buf,     \
                       size_t cap)                                                                 \
    {                                                                                              \
        size_t m = 0;                                                                              \
        uint64_t t = 0;                                                                            \
        uint64_t i = lo;                                                                           \
        while (i < hi) {                                                                           \
            uint64_t stop = hi - i > TOPK_BLOCK ? i + TOPK_BLOCK : hi;                             \
            if (stop - i == TOPK_BLOCK) {                                                          \
                uint32_t th = pb_topk_pack_okey(t), any = 0;                                       \
                for (unsigned j = 0; j < TOPK_BLOCK; j++) {                                        \
                    uint32_t b = row[i + j];                                                       \
                    any |= (uint32_t)(OKEY) >= th;                                                 \
                }                                                                                  \
                if (!any) {                                                                        \
                    i = stop;                                                                      \
                    continue;                                                                      \
                }                                                                                  \
            }                                                                                      \
            for (; i < stop; i++) {                                                                \
                uint32_t b = row[i];                                                               \
                uint64_t v = pb_topk_pack(OKEY, (uint32_t)i);                                      \
                if (v < t) continue;                                                               \
                buf[m++] = v;                                                                      \
                if (m == cap && cap > k) {                                                         \
                    pb_topk_select_top(buf, m, k);                                                 \
                    m = k;                                                                         \
                    t = buf[k - 1];                                                                \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if (m > k) {                                                                               \
            pb_topk_select_top(buf, m, k);                                                         \
            m = k;                                                                                 \
        }                                                                                          \
        return m;                                                                                  \
    }
TOPK_SCAN(scan_f32_largest, pb_topk_key_bits(b))
TOPK_SCAN(scan_f32_smallest, ~pb_topk_key_bits(b))
TOPK_SCAN(scan_u32_largest, b)
TOPK_SCAN(scan_u32_smallest, ~b)
TOPK_SCAN(scan_i32_largest, b ^ 0x80000000u)
TOPK_SCAN(scan_i32_smallest, ~(b ^ 0x80000000u))
TOPK_SCAN(scan_f16_largest, pb_topk_okey_of(b, PB_TOPK_F16, 1))
TOPK_SCAN(scan_f16_smallest, pb_topk_okey_of(b, PB_TOPK_F16, 0))
TOPK_SCAN(scan_bf16_largest, pb_topk_okey_of(b, PB_TOPK_BF16, 1))
TOPK_SCAN(scan_bf16_smallest, pb_topk_okey_of(b, PB_TOPK_BF16, 0))

static scan_fn pick_scan(const pb_topk_problem *p)
{
    if (p->dtype == PB_TOPK_U32) return p->largest ? scan_u32_largest : scan_u32_smallest;
    if (p->dtype == PB_TOPK_I32) return p->largest ? scan_i32_largest : scan_i32_smallest;
    if (p->dtype == PB_TOPK_F16) return p->largest ? scan_f16_largest : scan_f16_smallest;
    if (p->dtype == PB_TOPK_BF16) return p->largest ? scan_bf16_largest : scan_bf16_smallest;
    return p->largest ? scan_f32_largest : scan_f32_smallest;
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
    return (uint64_t)threads * (per_thread(rows, max_len, k, threads) * 8 + sizeof(size_t));
}

int pb_topk_ws_init(pb_topk_ws *ws, const pb_topk_problem *p, int threads, pb_err *err)
{
    memset(ws, 0, sizeof *ws);
    if (threads < 1) threads = omp_get_max_threads();
    ws->threads = threads;
    ws->split = split_mode(p->rows, threads);
    ws->per = (size_t)per_thread(p->rows, p->max_len, p->k, threads);
    size_t cells = (size_t)threads * ws->per;
    ws->buf = malloc((cells ? cells : 1) * sizeof *ws->buf);
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

static void emit(const uint32_t *row, const uint64_t *buf, size_t m, uint32_t *vals, uint32_t *idx)
{
    for (size_t j = 0; j < m; j++) {
        uint32_t i = pb_topk_pack_idx(buf[j]);
        idx[j] = i;
        vals[j] = row[i];
    }
}

/* A row whose k covers it: every value, in row order. */
static void whole_row(const uint32_t *row, uint64_t len, uint32_t *vals, uint32_t *idx)
{
    for (uint64_t i = 0; i < len; i++) {
        idx[i] = (uint32_t)i;
        vals[i] = row[i];
    }
}

/* Row r on the calling thread alone, with buf[per]. */
static void row_one_thread(const pb_topk_problem *p, uint64_t r, scan_fn scan, uint64_t *buf,
                           size_t per, uint32_t *vals, uint32_t *idx)
{
    const uint32_t *row = p->data + p->begin[r];
    uint64_t len = pb_topk_row_len(p, r), o = p->out_off[r];
    size_t keff = (size_t)(p->out_off[r + 1] - o);
    if (keff == 0) return;
    if (keff == len) {
        whole_row(row, len, vals + o, idx + o);
        return;
    }
    size_t m = scan(row, 0, len, keff, buf, (size_t)min64(per, len));
    emit(row, buf, m, vals + o, idx + o);
}

/* Row r with every thread: a chunk each, then the best of their bests. */
static void row_split(const pb_topk_problem *p, uint64_t r, scan_fn scan, pb_topk_ws *ws,
                      uint32_t *vals, uint32_t *idx)
{
    const uint32_t *row = p->data + p->begin[r];
    uint64_t len = pb_topk_row_len(p, r), o = p->out_off[r];
    size_t keff = (size_t)(p->out_off[r + 1] - o);
    size_t per = ws->per;
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
                ws->counts[c] =
                    scan(row, lo, hi, keff, ws->buf + c * per, (size_t)min64(per, hi - lo));
        }
    }
    size_t m = ws->counts[0];
    for (int t = 1; t < ws->threads; t++) {
        memmove(ws->buf + m, ws->buf + (size_t)t * per, ws->counts[t] * sizeof *ws->buf);
        m += ws->counts[t];
    }
    pb_topk_select_top(ws->buf, m, keff);
    const uint64_t *buf = ws->buf;
#pragma omp parallel for schedule(static) num_threads(ws->threads) if (keff >= PB_TOPK_PAR_MIN)
    for (size_t j = 0; j < keff; j++) {
        uint32_t i = pb_topk_pack_idx(buf[j]);
        idx[o + j] = i;
        vals[o + j] = row[i];
    }
}

void pb_topk_select(const pb_topk_problem *p, pb_topk_ws *ws, uint32_t *vals, uint32_t *idx)
{
    scan_fn scan = pick_scan(p);
    if (!ws->split) {
        pb_topk_ws *w = ws;
        bool par = w->threads > 1 && p->elems >= PB_TOPK_PAR_MIN;
#pragma omp parallel for schedule(dynamic, 1) num_threads(w->threads) if (par)
        for (uint64_t r = 0; r < p->rows; r++) {
            uint64_t *buf = w->buf + (size_t)omp_get_thread_num() * w->per;
            row_one_thread(p, r, scan, buf, w->per, vals, idx);
        }
        return;
    }
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r);
        size_t keff = (size_t)(p->out_off[r + 1] - p->out_off[r]);
        if (len < PB_TOPK_SPLIT_MIN) {
            row_one_thread(p, r, scan, ws->buf, ws->per, vals, idx);
        } else if (keff == len) {
            /* The whole row: a parallel copy. */
            const uint32_t *row = p->data + p->begin[r];
            uint32_t *v = vals + p->out_off[r], *ix = idx + p->out_off[r];
#pragma omp parallel for schedule(static) num_threads(ws->threads)
            for (uint64_t i = 0; i < len; i++) {
                ix[i] = (uint32_t)i;
                v[i] = row[i];
            }
        } else {
            row_split(p, r, scan, ws, vals, idx);
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

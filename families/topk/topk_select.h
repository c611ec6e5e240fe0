/* The CPU top-k: the C twin every top-k module is checked against, and the
 * OpenMP module omp-topk.
 *
 * Each value becomes a 64-bit candidate (order key << 32 | ~index): all
 * candidates of a row are distinct, their order is the rank order with ties
 * at equal keys broken towards the smaller index, and the k largest
 * candidates are one well-defined set. So every way of splitting the work
 * (thread count, chunking) selects the same indices, and the twin is
 * reproducible to the bit.
 *
 * That set is the `ties = lowest-index` answer (topk_problem.h): every key
 * above the k-th, then the keys equal to it in increasing index order
 * (equal in topk_key.h's order: all NaNs tie, -0.0 ranks below +0.0). So
 * one code serves both settings: with `any` it is one of the allowed
 * answers, with `lowest-index` the only one. Tests check this against a
 * brute force (sort by key descending, index ascending; take k).
 *
 * A thread scans its rows (or its chunk of a long row) keeping a buffer of
 * candidates not below a running threshold; when the buffer is full, a
 * quickselect keeps its k largest and the k-th becomes the threshold (so
 * O(k) memory and O(n) time per scan). Rows run in parallel when there are
 * at least as many rows as threads; otherwise each long row (>= 2^15 values)
 * is split into one chunk per thread, and a final quickselect over the
 * threads' candidates picks the row's k. That final selection is sequential:
 * O(threads * k) work, which dominates once k approaches n / threads.
 *
 * 64-bit keys (fp64, u64) make 96-bit candidates, (order key << 32 |
 * ~index) in an unsigned __int128 (pb_topk_wide; GCC and Clang, as
 * core/rng.h uses), with the same order and so the same answer. The scan,
 * the quickselect and the radix sort are written once a candidate type;
 * the row and thread logic is shared. */
#ifndef PB_TOPK_SELECT_H
#define PB_TOPK_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "families/topk/topk_problem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows shorter than this are never split across threads. */
#define PB_TOPK_SPLIT_MIN (UINT64_C(1) << 15)

/* A candidate: larger is better; distinct within a row. */
static inline uint64_t pb_topk_pack(uint32_t okey, uint32_t idx)
{
    return (uint64_t)okey << 32 | (uint32_t)~idx;
}
static inline uint32_t pb_topk_pack_idx(uint64_t c)
{
    return ~(uint32_t)c;
}
static inline uint32_t pb_topk_pack_okey(uint64_t c)
{
    return (uint32_t)(c >> 32);
}

/* A candidate of a 64-bit order key: the same packing in 96 bits. */
__extension__ typedef unsigned __int128 pb_topk_wide;

static inline pb_topk_wide pb_topk_pack64(uint64_t okey, uint32_t idx)
{
    return (pb_topk_wide)okey << 32 | (uint32_t)~idx;
}
static inline uint32_t pb_topk_pack64_idx(pb_topk_wide c)
{
    return ~(uint32_t)c;
}
static inline uint64_t pb_topk_pack64_okey(pb_topk_wide c)
{
    return (uint64_t)(c >> 32);
}

/* Bytes of a candidate of the dtype's keys: 8, or 16 for 64-bit keys. */
static inline size_t pb_topk_cand_bytes(int dtype)
{
    return pb_topk_dtype_is64(dtype) ? sizeof(pb_topk_wide) : sizeof(uint64_t);
}

/* The scratch of pb_topk_select for one problem and thread count, allocated
 * before timing starts. */
typedef struct pb_topk_ws {
    void *buf;      /* threads * per candidates (uint64_t, or pb_topk_wide for 64-bit keys) */
    size_t per;     /* candidates one thread's buffer holds */
    size_t *counts; /* split rows: candidates each thread kept */
    int threads;
    bool split; /* fewer rows than threads: long rows are split */
} pb_topk_ws;

int pb_topk_ws_init(pb_topk_ws *ws, const pb_topk_problem *p, int threads, pb_err *err);
void pb_topk_ws_free(pb_topk_ws *ws);
/* Bytes pb_topk_ws_init allocates at most for a point (k, rows, n). */
uint64_t pb_topk_ws_bytes(const pb_point *pt, int threads);

/* Writes every row's min(k, length) largest (by order key) into vals/idx in
 * the problem's output layout (vals in the dtype's words: uint32_t, or
 * uint64_t for 64-bit dtypes); the order within a row is unspecified. */
void pb_topk_select(const pb_topk_problem *p, pb_topk_ws *ws, void *vals, uint32_t *idx);

/* Rearranges a[0, n) (1 <= k < n, distinct values) so that a[0, k) holds
 * the k largest, a[k - 1] the smallest of them. */
void pb_topk_select_top(uint64_t *a, size_t n, size_t k);
void pb_topk_select_top_wide(pb_topk_wide *a, size_t n, size_t k);

/* Ascending LSD radix sorts (8-bit digits, constant digits skipped); tmp has
 * n elements. The wide sort orders candidates: their low 96 bits. */
void pb_topk_sort_u32(uint32_t *a, uint32_t *tmp, size_t n);
void pb_topk_sort_u64(uint64_t *a, uint64_t *tmp, size_t n);
void pb_topk_sort_wide(pb_topk_wide *a, pb_topk_wide *tmp, size_t n);

#ifdef __cplusplus
}
#endif

#endif

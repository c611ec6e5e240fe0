/* The paper's algorithms on the GPU with one warp a tile: lane p is the
 * DMM's processor p and owns bank p (row p of the 32 x m matrix, the words
 * (c * 32 + p) of each array). This is the simulator's code (dmm/
 * dmm_rowsort.c, dmm_layout.c, dmm_sort.c, dmm_permute.c) with the
 * processor loop turned into the lanes: the same steps in the same order,
 * each a shared-memory load or store of the warp, so the simulator's step
 * and conflict counts are predictions of this kernel's, and its output
 * (the partition's order within a label included) is the kernel's.
 *
 * Arrays are line offsets into the block's shared memory; `cur` names the
 * one holding the data and `other` the scratch, swapped by every step that
 * moves the data from one to the other. Steps where lanes touch other
 * lanes' banks (conversions, the permutation's deliveries) are fenced by
 * __syncwarp, which also orders them with the lane-local steps around
 * them. */
#ifndef PB_GPU_TILE_PAPER_CUH
#define PB_GPU_TILE_PAPER_CUH

#include <stdint.h>

#include "dmm/dmm_tile.h"

namespace pb_paper {

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ uint32_t &at(uint32_t *sm, int base, int c)
{
    return sm[(base + c) * 32 + (int)lane_id()];
}

struct pair {
    int cur, other;
    __device__ void swap()
    {
        int t = cur;
        cur = other;
        other = t;
    }
};

/* Stable counting sort by label of every segment of len words of the
 * lane's row, cur -> other, counters at line cnt (dmm_rowsort.c). */
__device__ inline void count_sort(uint32_t *sm, pair &a, int n, int len, bool desc, int cnt)
{
    for (int s0 = 0; s0 < n; s0 += len) {
        for (int k = 0; k < 32; k++) at(sm, cnt, k) = 0;
        for (int t = 0; t < len; t++) {
            const uint32_t l = pb_tile_label(at(sm, a.cur, s0 + t));
            const uint32_t c = at(sm, cnt, (int)l);
            at(sm, cnt, (int)l) = c + 1;
        }
        uint32_t run = (uint32_t)s0;
        for (int k = 0; k < 32; k++) {
            const int kk = desc ? 31 - k : k;
            const uint32_t c = at(sm, cnt, kk);
            at(sm, cnt, kk) = run;
            run += c;
        }
        for (int t = 0; t < len; t++) {
            const uint32_t v = at(sm, a.cur, s0 + t), l = pb_tile_label(v);
            const uint32_t pos = at(sm, cnt, (int)l);
            at(sm, a.other, (int)pos) = v;
            at(sm, cnt, (int)l) = pos + 1;
        }
    }
    a.swap();
}

/* One level of the bottom-up merge sort, cur -> other (dmm_rowsort.c):
 * the runs' heads in registers, one store an output word and one load of
 * the next word of the run it came from. */
__device__ inline void merge_level(uint32_t *sm, const pair &a, int n, int run, bool desc)
{
    for (int a0 = 0; a0 < n; a0 += 2 * run) {
        const int b0 = a0 + run, end = a0 + 2 * run;
        uint32_t va = at(sm, a.cur, a0), vb = at(sm, a.cur, b0);
        int ia = a0, ib = b0;
        for (int t = a0; t < end; t++) {
            const bool take_a = ia < b0 && (ib >= end || !(desc ? vb > va : vb < va));
            at(sm, a.other, t) = take_a ? va : vb;
            if (take_a)
                ia++;
            else
                ib++;
            if (t + 1 == end) break;
            const int next = take_a ? ia : ib, lim = take_a ? b0 : end;
            if (next < lim) {
                const uint32_t v = at(sm, a.cur, next);
                if (take_a)
                    va = v;
                else
                    vb = v;
            }
        }
    }
}

/* Every lane sorts each segment of len of its row; LABELS: by label
 * (counting sort), else by the whole word (merge sort). */
template <bool LABELS>
__device__ void rowsort(uint32_t *sm, pair &a, int n, int len, bool desc, int cnt)
{
    if constexpr (LABELS) {
        count_sort(sm, a, n, len, desc, cnt);
    } else {
        (void)cnt;
        for (int run = 1; run < len; run *= 2) {
            merge_level(sm, a, n, run, desc);
            a.swap();
        }
    }
}

/* The diagonal conversion of dmm_layout.c for wide blocks (g <= nb, the
 * only shape a tile needs: g <= 32 <= m): R2C moves (r, u g + v) of a
 * g-row group's block to (v, r q + u), q = nb / g; C2R back. */
__device__ inline void convert(uint32_t *sm, pair &a, int n, int g, int nb, bool r2c)
{
    const int lane = (int)lane_id(), r = lane % g, G = lane - r, q = nb / g;
    __syncwarp();
    for (int b0 = 0; b0 < n; b0 += nb)
        for (int s = 0; s < nb; s++) {
            const int t = s % g, u = s / g;
            int c, r2, c2;
            if (r2c) {
                c = u * g + (t + r) % g;
                r2 = c % g;
                c2 = r * q + c / g;
            } else {
                c = ((t + r) % g) * q + u;
                r2 = c / q;
                c2 = (c % q) * g + r;
            }
            const uint32_t v = sm[(a.cur + b0 + c) * 32 + lane];
            sm[(a.other + b0 + c2) * 32 + G + r2] = v;
        }
    __syncwarp();
    a.swap();
}

/* The columns of the 32 x n matrix sorted (32 <= n): transpose the 32 x 32
 * blocks, sort row segments of 32, transpose back (dmm_layout.c). */
template <bool LABELS> __device__ void colsort(uint32_t *sm, pair &a, int n, bool desc, int cnt)
{
    convert(sm, a, n, 32, 32, true);
    rowsort<LABELS>(sm, a, n, 32, desc, cnt);
    convert(sm, a, n, 32, 32, false);
}

/* Lemma 1 on every group of g rows (dmm_sort.c). */
template <bool LABELS>
__device__ void lemma1(uint32_t *sm, pair &a, int n, int g, bool desc, int cnt)
{
    const bool alt = desc != (((lane_id() % (unsigned)g) & 1u) != 0);
    for (int round = 0; round < 2; round++) {
        rowsort<LABELS>(sm, a, n, n, alt, cnt);
        convert(sm, a, n, g, n, true);
        rowsort<LABELS>(sm, a, n, n, desc, cnt);
        convert(sm, a, n, g, n, false);
    }
    rowsort<LABELS>(sm, a, n, n, desc, cnt);
}

/* Theorem 1 on the whole 32 x n matrix, super-rows of g, `rounds` rounds
 * (pb_dmm_thm1_superrow / pb_dmm_thm1_rounds on the host), ascending. */
template <bool LABELS>
__device__ void thm1(uint32_t *sm, pair &a, int n, int g, int rounds, int cnt)
{
    const bool alt = ((lane_id() / (unsigned)g) & 1u) != 0;
    lemma1<LABELS>(sm, a, n, g, false, cnt);
    for (int r = 0; r < rounds; r++) {
        colsort<LABELS>(sm, a, n, false, cnt);
        lemma1<LABELS>(sm, a, n, g, alt, cnt);
    }
    colsort<LABELS>(sm, a, n, false, cnt);
    rowsort<LABELS>(sm, a, n, n, false, cnt);
}

/* Section 3's colouring permutation (dmm_permute.c) without preprocessing:
 * the tile's items at line src, slots at line slot, delivered to line out.
 * A slot word is (round + 1) << 16 | the item's column. Pending items are
 * bits of registers (M / 32 words, indexed by unrolled loops). Returns the
 * rounds (PB_TILE_PAPER_MAX_ROUNDS + 1 if the fallback ran). */
template <int M>
__device__ unsigned colors(uint32_t *sm, int src, int slot, int out, uint32_t seed)
{
    const unsigned lane = lane_id();
    uint32_t pend[M / 32];
#pragma unroll
    for (int i = 0; i < M / 32; i++) pend[i] = ~0u;
    for (int k = 0; k < M; k++) at(sm, slot, k) = 0;
    __syncwarp();
    unsigned round = 0;
    for (;; round++) {
        uint32_t left = 0;
#pragma unroll
        for (int i = 0; i < M / 32; i++) left |= pend[i];
        if (!__any_sync(~0u, left != 0)) break;
        if (round == PB_TILE_PAPER_MAX_ROUNDS) {
#pragma unroll
            for (int i = 0; i < M / 32; i++)
                for (int b = 0; b < 32; b++)
                    if ((pend[i] >> b) & 1u) {
                        const uint32_t v = at(sm, src, i * 32 + b), d = pb_tile_dest(v);
                        sm[out * 32 + (int)d] = v;
                    }
            round++;
            break;
        }
        const uint32_t tag = round + 1;
        /* Filing: each pending item into its colour's slot if free. */
#pragma unroll
        for (int i = 0; i < M / 32; i++) {
            uint32_t pw = pend[i];
            for (int b = 0; b < 32; b++) {
                if (!((pw >> b) & 1u)) continue;
                const uint32_t v = at(sm, src, i * 32 + b), d = pb_tile_dest(v);
                const uint32_t h = pb_tile_color_hash(seed, round, d % 32u, (uint32_t)M);
                const int col = (int)((d / 32u - h) & (uint32_t)(M - 1));
                const uint32_t s = at(sm, slot, col);
                if ((s >> 16) != tag) {
                    at(sm, slot, col) = tag << 16 | (uint32_t)(i * 32 + b);
                    pw &= ~(1u << b);
                }
            }
            pend[i] = pw;
        }
        /* Delivery: in step k every lane sends its item of colour k; items
         * of one colour bound for one bank would share their line, so none
         * share a bank. */
        for (int k = 0; k < M; k++) {
            const uint32_t s = at(sm, slot, k);
            if ((s >> 16) == tag) {
                const uint32_t v = at(sm, src, (int)(s & 0xffffu));
                sm[out * 32 + (int)pb_tile_dest(v)] = v;
            }
        }
    }
    __syncwarp();
    (void)lane;
    return round;
}

/* Shared memory of the kernels: two arrays of the tile (and 32 counter
 * lines for the partition); three for the permutation (items, slots,
 * output). */
constexpr size_t sort_smem(int m, bool labels) { return (size_t)(2 * m + (labels ? 32 : 0)) * 128; }
constexpr size_t permute_smem(int m) { return (size_t)3 * m * 128; }

/* Partition (LABELS) or sort of one tile a warp: load it as the matrix's
 * column-major layout (item i at line i / 32, bank i % 32), Theorem 1 into
 * row-major order, convert to column-major (the tile's linear order),
 * store. */
template <int M, bool LABELS>
__device__ __forceinline__ void sort_tile(const uint32_t *in, uint32_t *out, int g, int rounds)
{
    extern __shared__ uint32_t sm[];
    const size_t base = (size_t)blockIdx.x * 32 * M;
    const unsigned lane = lane_id();
    for (int j = 0; j < M; j++) at(sm, 0, j) = __ldcg(in + base + j * 32 + lane);
    __syncwarp();
    pair a = {0, M};
    thm1<LABELS>(sm, a, M, g, rounds, 2 * M);
    convert(sm, a, M, 32, M, true);
    for (int j = 0; j < M; j++) __stcg(out + base + j * 32 + lane, at(sm, a.cur, j));
}

/* Permutation of one tile a warp by the colouring rounds; the hash seed of
 * a tile is pb_tile_paper_seed(seed, tile), as in the simulator's model. */
template <int M>
__device__ __forceinline__ void permute_tile(const uint32_t *in, uint32_t *out, uint64_t seed)
{
    extern __shared__ uint32_t sm[];
    const size_t base = (size_t)blockIdx.x * 32 * M;
    const unsigned lane = lane_id();
    for (int j = 0; j < M; j++) at(sm, 0, j) = __ldcg(in + base + j * 32 + lane);
    __syncwarp();
    colors<M>(sm, 0, M, 2 * M, pb_tile_paper_seed(seed, blockIdx.x));
    for (int j = 0; j < M; j++) __stcg(out + base + j * 32 + lane, at(sm, 2 * M, j));
}

} // namespace pb_paper

#endif

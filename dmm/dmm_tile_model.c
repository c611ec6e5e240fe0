#include "dmm/dmm_tile_model.h"

#include <stdlib.h>
#include <string.h>

#include "dmm/dmm_permute.h"
#include "dmm/dmm_sort.h"
#include "dmm/dmm_tile.h"

static const char *const method_names[] = {"scatter", "pad", "split", "paper", "cub"};

const char *pb_tile_method_name(pb_tile_method m)
{
    return m < PB_TILE_NMETHODS ? method_names[m] : "?";
}

bool pb_tile_method_applies(pb_tile_op op, pb_tile_method method)
{
    return !(op == PB_TILE_SORT && method == PB_TILE_PAD) && op < PB_TILE_NOPS &&
           method < PB_TILE_NMETHODS;
}

bool pb_tile_method_modelled(pb_tile_method method) { return method != PB_TILE_CUB; }

enum { W = PB_TILE_W, WARPS = PB_TILE_WARPS };

/* A warp's ballot over its 32 lanes' predicates. */
static uint32_t ballot(const uint32_t *pred)
{
    uint32_t b = 0;
    for (unsigned l = 0; l < W; l++) b |= (pred[l] & 1u) << l;
    return b;
}

/* The shared-memory word a tile position is kept at (pad: one word of
 * padding after every 32). */
static size_t slot_of(size_t pos, bool pad) { return pad ? pos + pos / W : pos; }

/* ---- scatter and pad ----------------------------------------------------
 * One stable scatter pass by digit (item >> shift) & 31, as the kernel:
 * warp w owns lines w*L .. w*L+L-1 of `x` (the pass's input order). Per
 * line, five ballots give each lane the mask of its digit's lanes (rank in
 * the line) and the count of the digit equal to its lane index (lane b
 * keeps the warp's running count of digit b). Shared memory: lane b stores
 * its warp's count of b; warp 0 loads the W counts and stores the bases
 * (bucket start + earlier warps' counts); a lane loads its digit's base
 * (equal digits share the word) and stores its item at base + offset.
 * from_buf: the pass first loads its lines from the buffer. */
static void scatter_pass(pb_dmm *d, uint32_t *x, unsigned m, unsigned shift, bool pad,
                         bool from_buf, size_t cnt)
{
    const unsigned L = m / WARPS;
    uint32_t *off = malloc((size_t)W * m * sizeof *off);
    uint32_t run[WARPS][W];
    if (!off) {
        d->st.races++;
        return;
    }
    if (from_buf)
        for (unsigned j = 0; j < m; j++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned l = 0; l < W; l++) pb_dmm_ld(d, l, slot_of((size_t)j * W + l, pad));
            pb_dmm_end(d);
            for (unsigned l = 0; l < W; l++) x[j * W + l] = (uint32_t)pb_dmm_got(d, l);
        }
    for (unsigned w = 0; w < WARPS; w++) {
        memset(run[w], 0, sizeof run[w]);
        for (unsigned i = 0; i < L; i++) {
            const unsigned j = w * L + i;
            uint32_t dig[W], bits[W], bal[5];
            for (unsigned l = 0; l < W; l++) dig[l] = (x[j * W + l] >> shift) & 31u;
            for (unsigned k = 0; k < 5; k++) {
                for (unsigned l = 0; l < W; l++) bits[l] = dig[l] >> k;
                bal[k] = ballot(bits);
            }
            uint32_t add[W];
            for (unsigned l = 0; l < W; l++) {
                uint32_t peers = ~0u, same = ~0u;
                for (unsigned k = 0; k < 5; k++) {
                    peers &= (dig[l] >> k & 1u) ? bal[k] : ~bal[k];
                    same &= (l >> k & 1u) ? bal[k] : ~bal[k];
                }
                off[j * W + l] = run[w][dig[l]] + pb_tile_popc(peers & ((1u << l) - 1u));
                add[l] = pb_tile_popc(same);
            }
            for (unsigned l = 0; l < W; l++) run[w][l] += add[l];
        }
    }
    for (unsigned w = 0; w < WARPS; w++) {
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned l = 0; l < W; l++) pb_dmm_st(d, l, pb_dmm_at(d, cnt, l, w), run[w][l]);
        pb_dmm_end(d);
    }
    /* Warp 0: lane b loads the counts of b, scans over b with shuffles, and
     * stores each warp's base of b. */
    uint32_t v[WARPS][W], tot[W], start[W];
    for (unsigned w = 0; w < WARPS; w++) {
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned l = 0; l < W; l++) pb_dmm_ld(d, l, pb_dmm_at(d, cnt, l, w));
        pb_dmm_end(d);
        for (unsigned l = 0; l < W; l++) v[w][l] = (uint32_t)pb_dmm_got(d, l);
    }
    for (unsigned l = 0; l < W; l++) {
        tot[l] = 0;
        for (unsigned w = 0; w < WARPS; w++) tot[l] += v[w][l];
    }
    for (unsigned l = 0, s = 0; l < W; l++) start[l] = s, s += tot[l];
    for (unsigned w = 0; w < WARPS; w++) {
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned l = 0; l < W; l++) {
            pb_dmm_st(d, l, pb_dmm_at(d, cnt, l, w), start[l]);
            start[l] += v[w][l];
        }
        pb_dmm_end(d);
    }
    for (unsigned w = 0; w < WARPS; w++)
        for (unsigned i = 0; i < L; i++) {
            const unsigned j = w * L + i;
            uint32_t base[W];
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned l = 0; l < W; l++)
                pb_dmm_ld(d, l, pb_dmm_at(d, cnt, (x[j * W + l] >> shift) & 31u, w));
            pb_dmm_end(d);
            for (unsigned l = 0; l < W; l++) base[l] = (uint32_t)pb_dmm_got(d, l);
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned l = 0; l < W; l++)
                pb_dmm_st(d, l, slot_of(base[l] + off[j * W + l], pad), x[j * W + l]);
            pb_dmm_end(d);
        }
    free(off);
}

/* The permutation's scatter: each item straight to its destination. */
static void scatter_dest(pb_dmm *d, const uint32_t *x, unsigned m, bool pad)
{
    for (unsigned j = 0; j < m; j++) {
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned l = 0; l < W; l++)
            pb_dmm_st(d, l, slot_of(pb_tile_dest(x[j * W + l]), pad), x[j * W + l]);
        pb_dmm_end(d);
    }
}

/* The final loads: line by line into out (then stored to global memory). */
static void read_back(pb_dmm *d, size_t base, uint32_t *out, unsigned m, bool pad)
{
    for (unsigned j = 0; j < m; j++) {
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned l = 0; l < W; l++)
            pb_dmm_ld(d, l, base * W + slot_of((size_t)j * W + l, pad));
        pb_dmm_end(d);
        for (unsigned l = 0; l < W; l++) out[j * W + l] = (uint32_t)pb_dmm_got(d, l);
    }
}

/* ---- split --------------------------------------------------------------
 * One pass by a key bit: per line a ballot of the ones; zeros (rank r0 =
 * lane - r1 among the line's zeros) at A0 + r0, ones (rank r1) at
 * N - 1 - (32 j - A0 + r1), A0 the zeros in earlier lines: the warp's own
 * earlier lines plus the earlier warps' totals, which lane 0 of each warp
 * stores and every warp loads (lanes 0..WARPS-1, one word each). */
static void split_pass(pb_dmm *d, uint32_t *x, unsigned m, pb_tile_op op, unsigned pass,
                       bool from_buf, size_t zline)
{
    const unsigned L = m / WARPS, N = W * m;
    if (from_buf)
        for (unsigned j = 0; j < m; j++) {
            pb_dmm_begin(d, PB_DMM_LD);
            for (unsigned l = 0; l < W; l++) pb_dmm_ld(d, l, (size_t)j * W + l);
            pb_dmm_end(d);
            for (unsigned l = 0; l < W; l++) x[j * W + l] = (uint32_t)pb_dmm_got(d, l);
        }
    uint32_t ones[PB_TILE_MAX_M], zw[WARPS];
    for (unsigned j = 0; j < m; j++) {
        uint32_t bits[W];
        for (unsigned l = 0; l < W; l++) {
            uint32_t v = x[j * W + l];
            bits[l] = op == PB_TILE_PARTITION ? pb_tile_split_bit_partition(v, pass)
                      : op == PB_TILE_SORT    ? pb_tile_split_bit_sort(v, pass)
                                              : pb_tile_split_bit_permute(v, pass);
        }
        ones[j] = ballot(bits);
    }
    for (unsigned w = 0; w < WARPS; w++) {
        zw[w] = 0;
        for (unsigned i = 0; i < L; i++) zw[w] += W - pb_tile_popc(ones[w * L + i]);
        pb_dmm_begin(d, PB_DMM_ST);
        pb_dmm_st(d, 0, pb_dmm_at(d, zline, w, 0), zw[w]);
        pb_dmm_end(d);
    }
    for (unsigned w = 0; w < WARPS; w++) {
        uint32_t got[WARPS], a0 = 0;
        pb_dmm_begin(d, PB_DMM_LD);
        for (unsigned l = 0; l < WARPS; l++) pb_dmm_ld(d, l, pb_dmm_at(d, zline, l, 0));
        pb_dmm_end(d);
        for (unsigned l = 0; l < WARPS; l++) got[l] = (uint32_t)pb_dmm_got(d, l);
        for (unsigned l = 0; l < w; l++) a0 += got[l];
        for (unsigned i = 0; i < L; i++) {
            const unsigned j = w * L + i;
            pb_dmm_begin(d, PB_DMM_ST);
            for (unsigned l = 0; l < W; l++) {
                uint32_t r1 = pb_tile_popc(ones[j] & ((1u << l) - 1u)), r0 = l - r1;
                uint32_t pos = (ones[j] >> l & 1u) ? N - 1 - (W * j - a0 + r1) : a0 + r0;
                pb_dmm_st(d, l, pos, x[j * W + l]);
            }
            pb_dmm_end(d);
            a0 += W - pb_tile_popc(ones[j]);
        }
    }
}

static unsigned split_passes(pb_tile_op op, unsigned m)
{
    if (op == PB_TILE_PARTITION) return PB_TILE_SPLIT_PARTITION_PASSES;
    if (op == PB_TILE_SORT) return 32;
    return pb_tile_log2(W * m);
}

/* ---- the paper's ---------------------------------------------------------
 * One warp a tile: its 32 lanes are the DMM's processors. Arrays (lines):
 * X = [0, m), T = [m, 2m), then the counters (partition: 32 lines) or the
 * slots and the output (permute: m lines each). */
static int paper_tile(pb_dmm *d, pb_tile_op op, unsigned m, const uint32_t *in, uint32_t *out,
                      uint32_t hash_seed, unsigned *rounds)
{
    const size_t X = 0, T = m, AUX = 2 * (size_t)m;
    for (unsigned j = 0; j < m; j++) {
        pb_dmm_begin(d, PB_DMM_ST);
        for (unsigned l = 0; l < W; l++) pb_dmm_st(d, l, pb_dmm_at(d, X, l, j), in[j * W + l]);
        pb_dmm_end(d);
    }
    pb_dmm_pair a = {X, T};
    if (op == PB_TILE_PERMUTE) {
        pb_dmm_dest ds = {PB_TILE_DEST_SHIFT, 0x1fffu, true};
        pb_dmm_colors cfg = {hash_seed, false, false, 0, PB_TILE_PAPER_MAX_ROUNDS, true};
        /* No preprocessing: it is for w > m (rows grouped into m x m
         * squares); a tile has m >= w. Slots at T, output after them. */
        unsigned r = pb_dmm_permute_colors(d, &ds, &a, T, AUX, m, &cfg);
        if (rounds) *rounds = r;
        if (r == 0) return -1;
        read_back(d, AUX, out, m, false);
        return 0;
    }
    pb_dmm_order o = {op == PB_TILE_PARTITION, PB_TILE_LABEL_SHIFT, W, AUX};
    bool desc[W] = {false};
    pb_dmm_thm1(d, &o, &a, m, W, desc);
    /* Sorted in row-major order (bank 0's words first): to the tile's
     * linear order. */
    pb_dmm_convert(d, &a, m, W, m, PB_DMM_R2C);
    read_back(d, a.cur, out, m, false);
    return 0;
}

int pb_tile_model_tile(pb_tile_op op, pb_tile_method method, unsigned m, const uint32_t *in,
                       uint32_t *out, uint32_t hash_seed, pb_dmm_stats *st, unsigned *rounds,
                       pb_err *err)
{
    if (!pb_tile_m_ok(m)) return pb_err_set(err, "tile model: m = %u is not 32, 64, 128 or 256", m);
    if (!pb_tile_method_applies(op, method) || !pb_tile_method_modelled(method))
        return pb_err_set(err, "tile model: no model of %s/%s", pb_tile_op_name(op),
                          pb_tile_method_name(method));
    if (rounds) *rounds = 0;
    const unsigned N = W * m;
    /* Lines: the buffer (padded: m + m/32), then WARPS lines of counters.
     * The paper's: 3m lines + 32. */
    const size_t buf_lines = (size_t)m + m / W, cnt = buf_lines;
    pb_dmm d;
    uint32_t *x = malloc(N * sizeof *x);
    if (!x || pb_dmm_init(&d, W, method == PB_TILE_PAPER ? 3 * (size_t)m + W : buf_lines + WARPS)) {
        free(x);
        return pb_err_set(err, "tile model: out of memory");
    }
    memcpy(x, in, N * sizeof *x);
    int rc = 0;
    const bool pad = method == PB_TILE_PAD;
    switch (method) {
    case PB_TILE_SCATTER:
    case PB_TILE_PAD:
        if (op == PB_TILE_PERMUTE) {
            scatter_dest(&d, x, m, pad);
        } else if (op == PB_TILE_PARTITION) {
            scatter_pass(&d, x, m, PB_TILE_LABEL_SHIFT, pad, false, cnt);
        } else {
            for (unsigned p = 0; p < PB_TILE_SORT_PASSES; p++)
                scatter_pass(&d, x, m, p * PB_TILE_SORT_DIGIT_BITS, false, p > 0, cnt);
        }
        read_back(&d, 0, out, m, pad);
        break;
    case PB_TILE_SPLIT: {
        unsigned passes = split_passes(op, m);
        for (unsigned p = 0; p < passes; p++) split_pass(&d, x, m, op, p, p > 0, cnt);
        read_back(&d, 0, out, m, false);
        break;
    }
    case PB_TILE_PAPER:
        rc = paper_tile(&d, op, m, in, out, hash_seed, rounds);
        if (rc) pb_err_set(err, "tile model: the paper's permutation did not finish");
        break;
    default:
        break;
    }
    st->ld_steps += d.st.ld_steps;
    st->st_steps += d.st.st_steps;
    st->ld_conflicts += d.st.ld_conflicts;
    st->st_conflicts += d.st.st_conflicts;
    st->accesses += d.st.accesses;
    st->races += d.st.races;
    pb_dmm_free(&d);
    free(x);
    return rc;
}

int pb_tile_predict(pb_tile_op op, pb_tile_method method, pb_tile_pattern pat, unsigned m,
                    uint64_t seed, uint64_t first, uint64_t tiles, pb_tile_prediction *pr,
                    pb_err *err)
{
    memset(pr, 0, sizeof *pr);
    pr->correct = true;
    const unsigned N = W * m;
    uint32_t *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    int rc = (in && out) ? 0 : pb_err_set(err, "tile model: out of memory");
    for (uint64_t t = first; rc == 0 && t < first + tiles; t++) {
        unsigned rounds = 0;
        pb_tile_gen(op, pat, m, seed, t, in);
        rc = pb_tile_model_tile(op, method, m, in, out, pb_tile_paper_seed(seed, t), &pr->st,
                                &rounds, err);
        if (rc) break;
        /* The paper's partition leaves each label's items in an order of
         * its own: compared as multisets per label there. */
        long bad = pb_tile_compare(op, m, in, out, pb_tile_method_exact(op, method));
        if (bad == -2) rc = pb_err_set(err, "tile model: out of memory");
        pr->correct = pr->correct && bad == -1;
        if (rounds > pr->max_rounds) pr->max_rounds = rounds;
        pr->tiles++;
    }
    free(in);
    free(out);
    return rc;
}

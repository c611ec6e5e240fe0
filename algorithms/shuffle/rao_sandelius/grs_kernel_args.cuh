/* What the GPU Rao-Sandelius kernels share (gpu_rao_sandelius.cu): their
 * shapes, their arguments, the labels drawn from Philox and a warp's
 * lanes of one label. Included by gpu_rao_sandelius.cu alone, through the
 * stages' headers (grs_passes.cuh, grs_segment.cuh): its kernels are the
 * module's own (an unnamed namespace), as in one file. */
#ifndef PB_GRS_KERNEL_ARGS_CUH
#define PB_GRS_KERNEL_ARGS_CUH

#include <stdint.h>

#include <cub/cub.cuh>

#include "algorithms/shuffle/rao_sandelius/grs_twin.h"

namespace {

constexpr int MAXL = 256; /* labels of a split at most (8 bits) */
constexpr uint32_t NONE = 0xffffffffu;

/* The segment kernel: BT threads; segments of at least BIG items are
 * split by the whole block. */
constexpr int BT = 512, NW = BT / 32;
constexpr uint32_t BIG = 1024;

/* The multisplit passes: PT threads, IPL items a lane, TILE a tile. */
constexpr int PT = 256, PNW = PT / 32, IPL = 16, CH = 32 * IPL, TILE = PNW * CH;

struct grs_args {
    philox4x32_key_t k;
    uint64_t first; /* the sample of permutation 0 */
    uint64_t n;     /* items a permutation */
    unsigned lb;
    uint32_t small, cap;
};

/* One multisplit pass: labels of `bits` from stream (w1, tag); segments of
 * at most `small` items (0: none, the first sort) pass through whole.
 * Block b moves tile tile0 + b, and position P of the output goes to
 * dst[P - dst_base]: the L2 order (gpu-l2-shuffle) moves one group of
 * segments a launch into a slot holding the group from its start; both
 * 0 for a pass over the whole array. */
struct pass_args {
    philox4x32_key_t k;
    uint64_t first, n;
    uint32_t w1, tag, bits, small, nseg;
    uint32_t tile0, dst_base;
};

__device__ __forceinline__ uint32_t word_of(const philox4x32_ctr_t &r, uint32_t w)
{
    return w == 0 ? r.v[0] : w == 1 ? r.v[1] : w == 2 ? r.v[2] : r.v[3];
}

/* lab[p - lo] for positions lo <= p < hi of a permutation's stream (w1,
 * tag) at `sample`, as pb_grs_label: the top `bits` of byte p & 3 of word
 * (p >> 2) & 3 of block p >> 4, sixteen labels a Philox block (a word's
 * four at once: a shift and a mask keep each byte's top bits). Threads
 * tid, tid + nt, ... share the blocks. */
__device__ void draw_labels(uint8_t *lab, uint64_t lo, uint64_t hi, philox4x32_key_t k, uint32_t w1, uint32_t tag,
                            uint64_t sample, uint32_t bits, unsigned tid, unsigned nt)
{
    if (hi <= lo) return;
    const uint32_t mask = 0x01010101u * ((1u << bits) - 1);
    const uint64_t g0 = lo >> 4, g1 = (hi - 1) >> 4;
    for (uint64_t q = g0 + tid; q <= g1; q += nt) {
        philox4x32_ctr_t c = {{(uint32_t)q, w1, (uint32_t)sample, (uint32_t)(sample >> 32) | tag << 30}};
        philox4x32_ctr_t r = philox4x32(c, k);
        const uint64_t p0 = 16 * q;
        const bool whole = p0 >= lo && p0 + 16 <= hi;
#pragma unroll
        for (uint32_t w = 0; w < 4; w++) {
            const uint32_t x = (word_of(r, w) >> (8 - bits)) & mask;
#pragma unroll
            for (uint32_t b = 0; b < 4; b++) {
                const uint64_t p = p0 + 4 * w + b;
                if (whole || (p >= lo && p < hi)) lab[p - lo] = (uint8_t)(x >> (8 * b));
            }
        }
    }
}

/* The lanes of a warp whose label equals this lane's (labels of `bits`
 * bits; lanes with valid false take part in no set): a ballot a bit, as
 * CUB's radix ranking does; __match_any_sync was the first version's, and
 * the slowest step of every split (its cost grows with the distinct
 * labels in the warp). */
__device__ __forceinline__ unsigned match_label(uint32_t L, bool valid, uint32_t bits)
{
    unsigned m = __ballot_sync(0xffffffffu, valid);
    for (uint32_t b = 0; b < bits; b++) {
        const unsigned x = __ballot_sync(0xffffffffu, (L >> b) & 1u);
        m &= (L >> b) & 1u ? x : ~x;
    }
    return m;
}

/* A block's exclusive sum of one value a thread: CUB's, by warp scans. */
template <int NT> using block_scan = cub::BlockScan<unsigned, NT, cub::BLOCK_SCAN_WARP_SCANS>;

} // namespace

#endif

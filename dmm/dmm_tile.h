/* What the GPU tile kernels (algorithms/tile/) and their simulator models
 * (dmm_tile_model.h) must compute identically: the tile's item encoding,
 * the split method's key bits, and the hash of the colouring permutation.
 * Host and device inline functions only.
 *
 * A tile is 32 x m 32-bit items (w = 32 banks of 4 bytes, m from 32 to
 * 256), item i at shared-memory word i: bank i % 32, line i / 32.
 *   partition: the label is the top 5 bits (item >> 27);
 *   permute:   the destination index in the tile is item >> 19 (13 bits);
 *   sort:      the whole item is the key. */
#ifndef PB_DMM_TILE_H
#define PB_DMM_TILE_H

#include <stdint.h>

#ifdef __CUDACC__
#define PB_DMM_HD static inline __host__ __device__
#else
#define PB_DMM_HD static inline
#endif

#define PB_TILE_W 32u
#define PB_TILE_LABEL_SHIFT 27u
#define PB_TILE_DEST_SHIFT 19u
#define PB_TILE_MIN_M 32u
#define PB_TILE_MAX_M 256u
/* Warps a block of the scatter, pad and split kernels (one tile a block);
 * the paper's kernels run one warp a tile, the DMM's w processors. */
#define PB_TILE_WARPS 8u
/* The scatter method's radix sort: 5-bit digits, the last one 2 bits. */
#define PB_TILE_SORT_DIGIT_BITS 5u
#define PB_TILE_SORT_PASSES 7u

PB_DMM_HD unsigned pb_tile_popc(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return (unsigned)__popc(x);
#else
    return (unsigned)__builtin_popcount(x);
#endif
}

PB_DMM_HD uint32_t pb_tile_label(uint32_t item) { return item >> PB_TILE_LABEL_SHIFT; }
PB_DMM_HD uint32_t pb_tile_dest(uint32_t item) { return item >> PB_TILE_DEST_SHIFT; }

/* The split method sorts by one bit a pass, stores a pass's zeros forward
 * from the tile's start and its ones backward from its end; in every line
 * (32 consecutive items) the zeros then fill a run of consecutive banks and
 * the ones the other banks, for any input. The ones come out reversed, so
 * after passes over bits 0..k-1 (least significant first) the classes stand
 * in reflected Gray-code order: sorting Gray(x) = x ^ (x >> 1) puts them in
 * the order of x. A class is also reversed once per pass whose bit it has
 * set; partition classes (one label, many items) must keep their input
 * order, so a first pass over the parity of Gray(label) makes every class's
 * count of set bits even. It leaves the order of classes alone: Gray^-1 of
 * (g << 1 | parity(g)) is Gray^-1(g) << 1. Sort and permute keys are
 * distinct or equal items, whose order within a class is invisible. */
#define PB_TILE_SPLIT_PARTITION_PASSES 6u

/* The keys' bits come straight from item ^ (item >> 1): bit b of it is
 * bit b of Gray(item >> s) for any field starting at s, so Gray(label) bit
 * k is bit 27 + k, Gray(dest) bit k bit 19 + k. The parity of Gray(label)
 * telescopes to the label's lowest bit (bit 27 of the item). */
PB_DMM_HD uint32_t pb_tile_split_bit_partition(uint32_t item, unsigned pass)
{
    return pass == 0 ? (item >> PB_TILE_LABEL_SHIFT) & 1u
                     : ((item ^ (item >> 1)) >> (PB_TILE_LABEL_SHIFT - 1 + pass)) & 1u;
}

PB_DMM_HD uint32_t pb_tile_split_bit_sort(uint32_t item, unsigned pass)
{
    return ((item ^ (item >> 1)) >> pass) & 1u;
}

PB_DMM_HD uint32_t pb_tile_split_bit_permute(uint32_t item, unsigned pass)
{
    return ((item ^ (item >> 1)) >> (PB_TILE_DEST_SHIFT + pass)) & 1u;
}

/* log2(m) for the power-of-two m of a tile. */
PB_DMM_HD unsigned pb_tile_log2(uint32_t m)
{
    unsigned l = 0;
    while ((1u << l) < m) l++;
    return l;
}

/* Murmur3's finaliser. */
PB_DMM_HD uint32_t pb_tile_hash32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

/* The paper permutation's hash seed for tile `tile` of a run seeded `seed`. */
PB_DMM_HD uint32_t pb_tile_paper_seed(uint64_t seed, uint64_t tile)
{
    return (uint32_t)(seed ^ (seed >> 32)) + (uint32_t)tile * 0x9e3779b9u;
}

/* Rounds after which the paper permutation stores what is left directly
 * (never reached in practice: each round leaves about the square of the
 * fraction left before; the count is reported). */
#define PB_TILE_PAPER_MAX_ROUNDS 64u

/* The colouring permutation's hash of destination row `row` in `round`,
 * into [0, n) (n a power of two). */
PB_DMM_HD uint32_t pb_tile_color_hash(uint32_t seed, uint32_t round, uint32_t row, uint32_t n)
{
    return pb_tile_hash32(seed ^ pb_tile_hash32(round * 0x9e3779b9u + row)) & (n - 1u);
}

#endif

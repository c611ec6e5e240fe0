/* radik's tuning: the sizes and thresholds its kernels are built with,
 * in one place, as CUB keeps a tuning policy apart from its agents. Plain
 * C macros, since the host-side model (radik_digit.h) and the tests read
 * the digit and sample sizes too.
 *
 * Two kinds. The algorithm's constants (the digit, the sample, the
 * thresholds) are the same on every GPU: the host model reproduces the
 * kernels with them. The kernels' shapes are per-architecture policies, as
 * CUB's tuning_*.cuh: PB_RADIK_<ARCH>_<NAME> for Hopper (900: measured on
 * H100 and H200), Ampere and Ada (800) and Turing (750), each taking an
 * older one's value unless it says otherwise, and PB_RADIK_<NAME> the
 * policy of the architecture the code is compiled for (__CUDA_ARCH__). */
#ifndef PB_RADIK_TUNING_H
#define PB_RADIK_TUNING_H

#include "core/arch_policy.h"

/* ---- the digit and the sample (radik_digit.h) ---- */

#define PB_RADIK_BITS 13
#define PB_RADIK_BINS (1u << PB_RADIK_BITS)
/* Scaled digit: |d| < 2^EXACT_BITS binned exactly, then 2^MANT bins per
 * octave; positive d above the middle bin, negative below. */
#define PB_RADIK_EXACT_BITS 8
#define PB_RADIK_MANT 7
#define PB_RADIK_MID (PB_RADIK_BINS / 2)
/* 64-bit keys: 6 mantissa bits, so that the 3840 bins a side fit MID. */
#define PB_RADIK_MANT64 6
#define PB_RADIK_LOG_BINS64 \
    ((1u << PB_RADIK_EXACT_BITS) + ((64u - PB_RADIK_EXACT_BITS) << PB_RADIK_MANT64))

/* The sample (scaling reference and pre-filter), and the rows the filter
 * considers. */
#define PB_RADIK_SAMPLE 2048
#define PB_RADIK_FILTER_MIN (1u << 16)
/* A threshold is used when it keeps at most 1/PB_RADIK_FILTER_KEEP of the
 * sample: beyond that the candidates cost about what a second read does. */
#define PB_RADIK_FILTER_KEEP 16

/* ---- the policies ---- */

/* Hopper: the values every measurement in docs/topk-radik.md was made
 * with. */
#define PB_RADIK_900_BLOCK 256
#define PB_RADIK_900_ITEMS 8
#define PB_RADIK_900_FITEMS 16
#define PB_RADIK_900_REFINE_ITEMS 56
#define PB_RADIK_900_REFINE_LIST 512
#define PB_RADIK_900_PRESAMPLE_ITEMS 2
#define PB_RADIK_900_FBUF_BYTES (1536 * 8)
/* Ampere and Ada: Hopper's shapes. Their registers a thread and their
 * 48 KiB of static shared memory a block are Hopper's; what differs (fewer
 * SMs, 100-164 KiB of shared memory an SM, smaller L2) sets how many blocks
 * are resident, which radik asks the occupancy API for at set-up. Not yet
 * measured on those GPUs (docs/architectures.md). */
#define PB_RADIK_800_BLOCK PB_RADIK_900_BLOCK
#define PB_RADIK_800_ITEMS PB_RADIK_900_ITEMS
#define PB_RADIK_800_FITEMS PB_RADIK_900_FITEMS
#define PB_RADIK_800_REFINE_ITEMS PB_RADIK_900_REFINE_ITEMS
#define PB_RADIK_800_REFINE_LIST PB_RADIK_900_REFINE_LIST
#define PB_RADIK_800_PRESAMPLE_ITEMS PB_RADIK_900_PRESAMPLE_ITEMS
#define PB_RADIK_800_FBUF_BYTES PB_RADIK_900_FBUF_BYTES
/* Turing: Ampere's (64 KiB of shared memory an SM holds the filter pass's
 * 12 KiB buffer and histogram at several blocks an SM). */
#define PB_RADIK_750_BLOCK PB_RADIK_800_BLOCK
#define PB_RADIK_750_ITEMS PB_RADIK_800_ITEMS
#define PB_RADIK_750_FITEMS PB_RADIK_800_FITEMS
#define PB_RADIK_750_REFINE_ITEMS PB_RADIK_800_REFINE_ITEMS
#define PB_RADIK_750_REFINE_LIST PB_RADIK_800_REFINE_LIST
#define PB_RADIK_750_PRESAMPLE_ITEMS PB_RADIK_800_PRESAMPLE_ITEMS
#define PB_RADIK_750_FBUF_BYTES PB_RADIK_800_FBUF_BYTES

/* The policy of the code being compiled. Host code (and the host model)
 * launches what the device runs, so every value the host reads (the block,
 * the items of a partition, the refine and presample sizes) must be the
 * same in every policy, checked below; the device-only ones (the filter
 * buffer, the refine list) may differ. A policy that changes a
 * host-visible value needs radik's set-up to choose the launch by the PTX
 * version its kernels run (pb_gpu_code_of), as CUB's dispatch does. */
#define PB_RADIK_POLICY(name) PB_ARCH_POLICY(PB_RADIK, name)
#define PB_RADIK_SAME_HOST_VIEW(a, b)                                                              \
    (PB_RADIK_##a##_BLOCK == PB_RADIK_##b##_BLOCK && PB_RADIK_##a##_ITEMS == PB_RADIK_##b##_ITEMS && \
     PB_RADIK_##a##_FITEMS == PB_RADIK_##b##_FITEMS &&                                             \
     PB_RADIK_##a##_REFINE_ITEMS == PB_RADIK_##b##_REFINE_ITEMS &&                                 \
     PB_RADIK_##a##_PRESAMPLE_ITEMS == PB_RADIK_##b##_PRESAMPLE_ITEMS)
#if !PB_RADIK_SAME_HOST_VIEW(900, 800) || !PB_RADIK_SAME_HOST_VIEW(900, 750)
#error "gpu-radik's policies differ in a value the host launches with: dispatch on the code's PTX version first"
#endif

/* ---- the multi-pass kernels ---- */

#define PB_RADIK_BLOCK PB_RADIK_POLICY(BLOCK)
#define PB_RADIK_ITEMS PB_RADIK_POLICY(ITEMS)
#define PB_RADIK_PART (PB_RADIK_BLOCK * PB_RADIK_ITEMS) /* elements a partition */
#define PB_RADIK_SAMPLE_ITEMS (PB_RADIK_SAMPLE / PB_RADIK_BLOCK)
#define PB_RADIK_SCALE_MIN (1u << 15) /* shorter rows are not scaled */

/* The filter pass reads more keys a thread: its work per key is a compare.
 * 16-bit values stay packed two to a 32-bit word, so the same 16 words a
 * thread hold 32 of them: a partition of 16-bit values is twice as long,
 * read as 16-byte packs of eight. */
#define PB_RADIK_FITEMS PB_RADIK_POLICY(FITEMS)
#define PB_RADIK_FPART (PB_RADIK_BLOCK * PB_RADIK_FITEMS)
#define PB_RADIK_FITEMS16 (2 * PB_RADIK_FITEMS)
#define PB_RADIK_FPART16 (PB_RADIK_BLOCK * PB_RADIK_FITEMS16)
/* A sampled threshold shared by more than 1/PB_RADIK_TIE_STRICT of the
 * sample filters strictly (tie_aware) even when it is selective. */
#define PB_RADIK_TIE_STRICT 64
/* radik's `refine`: a long row's filter threshold is read from a sample
 * eight times larger (PB_RADIK_REFINE_SAMPLE keys: the 2048 sorted ones and
 * PB_RADIK_REFINE_ITEMS more a thread), so that it keeps about an eighth
 * as many candidates. Only the extra keys at or above the small sample's
 * threshold are kept (a few dozen: at most PB_RADIK_REFINE_LIST), and
 * ranked by counting, not sorted. 32-bit words only (16-bit values too):
 * the extra keys are held in registers across the small sample's sort. */
#define PB_RADIK_REFINE_ITEMS PB_RADIK_POLICY(REFINE_ITEMS)
#define PB_RADIK_REFINE_SAMPLE (PB_RADIK_SAMPLE + PB_RADIK_BLOCK * PB_RADIK_REFINE_ITEMS)
#define PB_RADIK_REFINE_LIST PB_RADIK_POLICY(REFINE_LIST)
#define PB_RADIK_REFINE_MIN (1u << 25)
/* pb_radik_presample's keys a thread: few, so that each thread's chain of
 * random reads is short and many blocks share the row's 16384. */
#define PB_RADIK_PRESAMPLE_ITEMS PB_RADIK_POLICY(PRESAMPLE_ITEMS)
#define PB_RADIK_PRESAMPLE_PART (PB_RADIK_BLOCK * PB_RADIK_PRESAMPLE_ITEMS)

/* The filter pass's shared memory: the histogram, and a staging buffer for
 * candidates, flushed past half full with one reservation of the row's
 * counter a flush: a reservation a warp would serialise the whole grid on
 * one address (2^20 of them on a 2^29 row). The buffer is 12 KiB: 1536
 * candidates of 32-bit keys, 768 of 64-bit ones (the pass's static shared
 * memory stays below 48 KiB). */
#define PB_RADIK_FBUF_BYTES PB_RADIK_POLICY(FBUF_BYTES)

/* How far ahead of its reads a filter block asks L2 for a row of 16-bit
 * values (radik's `l2_prefetch`, sm_90 and later: one bulk prefetch a
 * partition, holding no registers): this many partitions beyond the one it
 * has loaded into registers. Its register loads alone keep about one
 * partition a block in flight, too little for the read to reach DRAM's
 * rate; two more of every resident block stay well within L2. Rows of
 * 32-bit keys measured slower with it, and the cluster kernels too (at
 * their start and two batches ahead), at every target batch shape: they ask
 * for nothing ahead (docs/topk-radik.md). */
#define PB_RADIK_L2_AHEAD 2

/* ---- the cluster path (radik_cluster.cuh) ---- */

/* Hopper's only: clusters exist from sm_90 (radik_cluster.cu). */

/* 512 threads, two blocks an SM: with 1024-thread blocks (one an SM) too
 * few clusters of eight fitted at once for a batch of 16 rows, and the
 * last row waited for a second wave (docs/measured.md). */
#define PB_RADIK_CL_BLOCK 512
/* Packs a thread loads before it uses them (64 KiB in flight a block). */
#define PB_RADIK_CL_BATCH 8
/* A row's blocks (both kernels): at most PB_RADIK_CL_MAXC, past the
 * portable eight where the GPU holds such clusters (Hopper holds sixteen),
 * chosen at set-up by a cost (radik_blocks.h): the waves of clusters
 * the batch takes (cudaOccupancyMaxActiveClusters: a GPC holds only whole
 * clusters, so fewer fit than the SMs' count of blocks says) times a
 * block's time: its fixed work (the sample, the rounds, the barriers: as
 * long as reading PB_RADIK_CL_FIXED_BYTES), its part of the row (twice
 * as long where a wave puts two blocks on an SM), and
 * PB_RADIK_CL_BLOCK_BYTES for each block of the cluster (a round reads
 * every block's histogram). Powers of two used to be the only sizes, and a
 * batch one cluster past what fits waited a whole second wave. The
 * constants fit a sweep of every count at the target batch shapes
 * (docs/topk-radik.md). */
#define PB_RADIK_CL_MAXC 16
#define PB_RADIK_CL_FIXED_BYTES (1u << 17)
#define PB_RADIK_CL_BLOCK_BYTES (1u << 14)
/* ... and at k = 1, where a block's only cluster work is block 0's read
 * of its best key (fitted to a sweep of every count at k = 1). */
#define PB_RADIK_CL_BEST_BLOCK_BYTES (1u << 12)
/* The candidates a block keeps (an index and a raw value each: 6 bytes,
 * 48 KiB of dynamic shared memory), and the ties among them it ranks by
 * index (lowest-index). */
#define PB_RADIK_CL_CAP 8192
#define PB_RADIK_CL_TIES 512
/* `cluster = auto` takes the path for rows up to this long, and up to
 * PB_RADIK_CL_ONE_MAX in batches of fewer than four rows (radik.cu). */
#define PB_RADIK_CL_MAXLEN (1u << 22)
#define PB_RADIK_CL_ONE_MAX (1u << 20)

/* The cluster path for word keys (radik_cluster_w.cuh): the candidates a
 * block keeps (an order key and an index each: 64 KiB of dynamic shared
 * memory for 32-bit keys, 48 KiB for 64-bit ones). */
#define PB_RADIK_CLW_CAP(K) (sizeof(K) == 4 ? 8192u : 4096u)
#define PB_RADIK_CLW_DYN_SMEM(K) ((size_t)PB_RADIK_CLW_CAP(K) * (sizeof(K) + 4))
/* `cluster = auto` takes it for rows of at most this many keys (radik.cu). */
#define PB_RADIK_CLW_MAXLEN (1u << 20)

#endif

/* How a radik kernel reads a row: one element, aligned packs of four
 * (with the offset padding of a misaligned row), and a row's partitions
 * of the input and of its candidates. */
#ifndef PB_RADIK_LOAD_CUH
#define PB_RADIK_LOAD_CUH

#include "algorithms/topk/radik/radik_args.cuh"

/* Asks L2 for bytes [p, p + n) ahead of their reads: one bulk prefetch
 * on sm_90 and later (nothing held, nothing waited for; radik's
 * `l2_prefetch`), nothing before. p and n are multiples of 16, and the
 * bytes lie within what the caller's own loads read. */
__device__ __forceinline__ void pb_radik_l2_prefetch(const void *p, uint32_t n)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (n) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(n) : "memory");
#else
    (void)p, (void)n;
#endif
}

/* Raw value i of the batch (zero-extended for 16-bit types), streamed. */
template <class K>
__device__ __forceinline__ K pb_radik_at(const pb_radik_args<K> &a, bool is16, uint64_t i)
{
    return is16 ? (K)__ldcs(a.data16 + i) : __ldcs(a.data + i);
}

/* The pack of four values from element e (a multiple of 4): one 16-byte
 * load, or an 8-byte one of 16-bit values. */
__device__ __forceinline__ uint4 pb_radik_pack(const pb_radik_args<uint32_t> &a, bool is16,
                                               uint64_t e)
{
    if (!is16) return __ldcs(reinterpret_cast<const uint4 *>(a.data + e));
    uint2 h = __ldcs(reinterpret_cast<const uint2 *>(a.data16 + e));
    return make_uint4(h.x & 0xffffu, h.x >> 16, h.y & 0xffffu, h.y >> 16);
}

/* ... or two 16-byte loads of 64-bit values (element e is 32-byte aligned). */
__device__ __forceinline__ pb_radik_pack64 pb_radik_pack(const pb_radik_args<uint64_t> &a, bool,
                                                         uint64_t e)
{
    const ulonglong2 *q = reinterpret_cast<const ulonglong2 *>(a.data + e);
    pb_radik_pack64 x;
    x.a = __ldcs(q);
    x.b = __ldcs(q + 1);
    return x;
}

__device__ __forceinline__ uint4 pb_radik_pack_zero(uint32_t) { return make_uint4(0, 0, 0, 0); }
__device__ __forceinline__ pb_radik_pack64 pb_radik_pack_zero(uint64_t)
{
    pb_radik_pack64 x;
    x.a = x.b = make_ulonglong2(0, 0);
    return x;
}

/* A pack's four values. */
__device__ __forceinline__ void pb_radik_unpack(const uint4 &x, uint32_t (&raw)[4])
{
    raw[0] = x.x, raw[1] = x.y, raw[2] = x.z, raw[3] = x.w;
}
__device__ __forceinline__ void pb_radik_unpack(const pb_radik_pack64 &x, uint64_t (&raw)[4])
{
    raw[0] = x.a.x, raw[1] = x.a.y, raw[2] = x.b.x, raw[3] = x.b.y;
}

/* Whether row r is read as aligned packs from (begin & ~3). */
template <class K>
__device__ __forceinline__ bool pb_radik_packed(const pb_radik_args<K> &a, uint64_t begin)
{
    return a.pad || (begin & 3) == 0;
}

__host__ __device__ __forceinline__ uint32_t pb_radik_nparts(uint64_t len)
{
    return (uint32_t)((len + PB_RADIK_PART - 1) / PB_RADIK_PART);
}

/* The elements an input pass reads of row `row`: packed reads start at the
 * aligned address at or left of the row. */
template <class K>
__device__ __forceinline__ uint64_t pb_radik_span(const pb_radik_args<K> &a, uint32_t row)
{
    uint64_t b = a.begin[row];
    return a.end[row] - (pb_radik_packed(a, b) ? (b & ~UINT64_C(3)) : b);
}

template <class K>
__device__ __forceinline__ uint32_t pb_radik_input_nparts(const pb_radik_args<K> &a, uint32_t row)
{
    return pb_radik_nparts(pb_radik_span(a, row));
}

/* Whether the filter pass reads row r's 16-bit values as aligned packs of
 * eight from (begin & ~7). */
template <class K>
__device__ __forceinline__ bool pb_radik_packed16(const pb_radik_args<K> &a, uint64_t begin)
{
    return a.pad || (begin & 7) == 0;
}

/* Partitions of row `row`, in state r, in the filter pass (0 unless it
 * filters): of FPART values, or of FPART16 16-bit ones, which packed reads
 * take from (begin & ~7). */
template <class K>
__device__ __forceinline__ uint32_t pb_radik_filter_parts(const pb_radik_args<K> &a, uint32_t row,
                                                          const typename pb_radik_kt<K>::row &r)
{
    if (r.mode != PB_RADIK_FILTER) return 0;
    if (pb_radik_is16(a)) {
        uint64_t b = a.begin[row];
        uint64_t span = a.end[row] - (pb_radik_packed16(a, b) ? (b & ~UINT64_C(7)) : b);
        return (uint32_t)((span + PB_RADIK_FPART16 - 1) / PB_RADIK_FPART16);
    }
    return (uint32_t)((pb_radik_span(a, row) + PB_RADIK_FPART - 1) / PB_RADIK_FPART);
}

/* Partitions of row `row`, in state r, in a pass over the input or over
 * candidates: 0 for a finished row, one waiting to filter, or one whose
 * next read is the other source. */
template <class K>
__device__ __forceinline__ uint32_t pb_radik_parts(const pb_radik_args<K> &a, uint32_t row,
                                                   const typename pb_radik_kt<K>::row &r,
                                                   bool input)
{
    if (r.mode == PB_RADIK_DONE || r.mode == PB_RADIK_FILTER ||
        r.src != (input ? PB_RADIK_SRC_INPUT : PB_RADIK_SRC_CAND))
        return 0;
    return input ? pb_radik_input_nparts(a, row) : pb_radik_nparts(r.len_in);
}

#endif

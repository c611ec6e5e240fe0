/* The order-preserving 32-bit key of a top-k value, the same inline code on
 * the host (C twin, CPU modules, the check) and on the device (radix select
 * kernels), so that a GPU module and its twin can never disagree about which
 * of two values ranks higher.
 *
 * fp32: the key of x is its bit pattern with the sign bit flipped when x is
 * positive and every bit inverted when x is negative, so that unsigned key
 * order is numeric order: -inf < -1 < -0.0 < +0.0 < 1 < +inf. -0.0 and +0.0
 * get distinct keys (-0.0 ranks just below +0.0), as in a radix sort of the
 * raw bits; no input is ever compared as a float.
 *
 * NaN policy: every NaN (either sign, quiet or signalling, any payload) is
 * first canonicalised to the positive quiet NaN 0x7fc00000, whose key
 * 0xffc00000 is above that of +inf. So NaNs rank above every number and are
 * all equal: they are the first values chosen when selecting the largest and
 * the last when selecting the smallest, as torch.topk treats them. A module
 * may return any NaN bit pattern for a NaN; the check compares keys.
 *
 * u32: the key is the value itself. i32: the value with its sign bit
 * flipped, so that unsigned key order is signed value order.
 *
 * fp16 and bf16 (16-bit values, held zero-extended in a 32-bit word on the
 * host and read as 16 bits on the device): the fp32 rule on 16 bits, NaNs
 * canonicalised to 0x7e00 (fp16) and 0x7fc0 (bf16), so the key is a 16-bit
 * number (zero-extended): a radix select needs 16 bits of digits, not 32.
 * Their order key for smallest is the key's 16-bit complement, so order
 * keys stay below 2^16 too (pb_topk_key_bits_of says how many bits a
 * dtype's order keys have).
 *
 * fp64 and u64 (64-bit values, held in 64-bit words on the host and read
 * as 8 bytes on the device): 64-bit keys and order keys. fp64 follows the
 * fp32 rule on 64 bits (sign bit set for positives, every bit inverted for
 * negatives: -0.0 just below +0.0), every NaN canonicalised to the positive
 * quiet NaN 0x7ff8000000000000, whose key 0xfff8000000000000 is above that
 * of +inf; u64's key is the value. Their order key for smallest is the
 * complement within 64 bits. The functions taking and returning 32-bit
 * words (pb_topk_key_of, pb_topk_okey_of, pb_topk_raw_of, ...) are for the
 * dtypes up to 32 bits, the hot paths of the 32-bit modules; the *64 ones
 * (pb_topk_okey64_of, pb_topk_raw64_of) take any dtype, values and keys
 * widened to 64 bits, for code that serves every dtype.
 *
 * Selecting the smallest is selecting the largest of the order key ~key. */
#ifndef PB_TOPK_KEY_H
#define PB_TOPK_KEY_H

#include <stdint.h>

#if defined(__CUDACC__)
#define PB_TOPK_HD __host__ __device__ __forceinline__
#else
#include <string.h>
#define PB_TOPK_HD static inline
#endif

/* Value types; the `dtype` parameter's choices in this order. */
typedef enum pb_topk_dtype {
    PB_TOPK_F32,
    PB_TOPK_U32,
    PB_TOPK_I32,
    PB_TOPK_F16,
    PB_TOPK_BF16,
    PB_TOPK_F64,
    PB_TOPK_U64,
    PB_TOPK_NDTYPES
} pb_topk_dtype;
#define PB_TOPK_DTYPE_CHOICES "f32|u32|i32|f16|bf16|f64|u64"

/* Whether a dtype's values are 16 or 64 bits wide, and their width in
 * bytes (the bytes one read of the input moves for each value). */
PB_TOPK_HD int pb_topk_dtype_is16(int dtype)
{
    return dtype == PB_TOPK_F16 || dtype == PB_TOPK_BF16;
}
PB_TOPK_HD int pb_topk_dtype_is64(int dtype)
{
    return dtype == PB_TOPK_F64 || dtype == PB_TOPK_U64;
}
PB_TOPK_HD unsigned pb_topk_dtype_bytes(int dtype)
{
    return pb_topk_dtype_is16(dtype) ? 2u : pb_topk_dtype_is64(dtype) ? 8u : 4u;
}
/* The bits a dtype's order keys have: every order key is below 2^bits
 * (64: every 64-bit number may be one). */
PB_TOPK_HD unsigned pb_topk_key_bits_of(int dtype)
{
    return pb_topk_dtype_is16(dtype) ? 16u : pb_topk_dtype_is64(dtype) ? 64u : 32u;
}

#define PB_TOPK_NAN_BITS 0x7fc00000u /* the canonical NaN */
#define PB_TOPK_NAN_KEY 0xffc00000u  /* its key: the largest key any fp32 value has */

/* The key of the fp32 value with bit pattern b. */
PB_TOPK_HD uint32_t pb_topk_key_bits(uint32_t b)
{
    /* Branch-free (selects and a sign mask), so that loops over keys
     * vectorise: negatives are xor-ed with all ones, positives with the
     * sign bit. */
    b = (b & 0x7fffffffu) > 0x7f800000u ? PB_TOPK_NAN_BITS : b;
    return b ^ ((uint32_t)((int32_t)b >> 31) | 0x80000000u);
}

PB_TOPK_HD uint32_t pb_topk_float_bits(float x)
{
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
#endif
}

PB_TOPK_HD uint32_t pb_topk_key(float x)
{
    return pb_topk_key_bits(pb_topk_float_bits(x));
}

/* The canonical NaNs of the 16-bit types (their keys, the bits | 0x8000,
 * are the largest keys of the types). */
#define PB_TOPK_F16_NAN_BITS 0x7e00u
#define PB_TOPK_BF16_NAN_BITS 0x7fc0u

/* The key of a 16-bit float with bit pattern b (the low 16 bits of raw):
 * fp16 (exponent 5 bits) or bf16 (8 bits); inf is 0x7c00 or 0x7f80. */
PB_TOPK_HD uint32_t pb_topk_key16(uint32_t raw, uint32_t inf, uint32_t nan)
{
    uint32_t b = raw & 0xffffu;
    b = (b & 0x7fffu) > inf ? nan : b;
    return b ^ ((b & 0x8000u) ? 0xffffu : 0x8000u);
}

/* The key of a raw value of type `dtype` (a pb_topk_dtype up to 32 bits),
 * held in 32 bits. */
PB_TOPK_HD uint32_t pb_topk_key_of(uint32_t raw, int dtype)
{
    return dtype == PB_TOPK_U32    ? raw
           : dtype == PB_TOPK_I32  ? raw ^ 0x80000000u
           : dtype == PB_TOPK_F16  ? pb_topk_key16(raw, 0x7c00u, PB_TOPK_F16_NAN_BITS)
           : dtype == PB_TOPK_BF16 ? pb_topk_key16(raw, 0x7f80u, PB_TOPK_BF16_NAN_BITS)
                                   : pb_topk_key_bits(raw);
}

/* The 16-bit float whose key is `key` (below 2^16). */
PB_TOPK_HD uint32_t pb_topk_key16_to_bits(uint32_t key)
{
    return (key & 0x8000u) ? (key ^ 0x8000u) : (~key & 0xffffu);
}

/* The order keys of the two 16-bit floats in word w (dtype fp16 or bf16),
 * low half to low half: pb_topk_okey_of's rule on both halves at once, for
 * kernels that histogram 16-bit keys (radik_cluster.cuh): about five
 * instructions a word where the key-by-key rule takes about five a key. A
 * half is a NaN when its magnitude m is above inf's, that is when m plus
 * (0x7fff - inf) reaches bit 15 (no carry crosses into the other half:
 * the sum stays below 2^16); NaN halves become the canonical NaN; then each
 * half is xor-ed with 0xffff (negative) or 0x8000 (positive), and
 * complemented for smallest. */
PB_TOPK_HD uint32_t pb_topk_okey16x2(uint32_t w, int dtype, int largest)
{
    uint32_t inf = dtype == PB_TOPK_F16 ? 0x7c00u : 0x7f80u;
    uint32_t nan = dtype == PB_TOPK_F16 ? PB_TOPK_F16_NAN_BITS : PB_TOPK_BF16_NAN_BITS;
    uint32_t m = w & 0x7fff7fffu;
    uint32_t isnan = ((m + (0x7fffu - inf) * 0x00010001u) >> 15) & 0x00010001u;
    uint32_t nm = isnan * 0xffffu;
    w = (w & ~nm) | ((nan * 0x00010001u) & nm);
    uint32_t flip = (((w >> 15) & 0x00010001u) * 0x7fffu) | 0x80008000u;
    return w ^ (largest ? flip : ~flip);
}

/* The bit pattern of the fp32 value whose key is `key` (a NaN key gives the
 * canonical NaN): what a radix select turns its pivot key back into. */
PB_TOPK_HD uint32_t pb_topk_key_to_bits(uint32_t key)
{
    return (key & 0x80000000u) ? (key ^ 0x80000000u) : ~key;
}

/* The key whose larger values are the ones to select. */
PB_TOPK_HD uint32_t pb_topk_order_key(uint32_t key, int largest)
{
    return largest ? key : ~key;
}

/* A raw value's order key, and back: what every selection compares and what
 * it returns (a NaN's order key gives the canonical NaN). 16-bit types
 * complement within 16 bits, so their order keys stay below 2^16. */
PB_TOPK_HD uint32_t pb_topk_okey_of(uint32_t raw, int dtype, int largest)
{
    uint32_t key = pb_topk_key_of(raw, dtype);
    if (pb_topk_dtype_is16(dtype)) return largest ? key : key ^ 0xffffu;
    return pb_topk_order_key(key, largest);
}

PB_TOPK_HD uint32_t pb_topk_raw_of(uint32_t okey, int dtype, int largest)
{
    if (pb_topk_dtype_is16(dtype)) return pb_topk_key16_to_bits(largest ? okey : okey ^ 0xffffu);
    uint32_t key = pb_topk_order_key(okey, largest);
    return dtype == PB_TOPK_U32   ? key
           : dtype == PB_TOPK_I32 ? key ^ 0x80000000u
                                  : pb_topk_key_to_bits(key);
}

/* ---- 64-bit values and keys ---- */

#define PB_TOPK_F64_NAN_BITS UINT64_C(0x7ff8000000000000) /* the canonical fp64 NaN */
#define PB_TOPK_F64_NAN_KEY UINT64_C(0xfff8000000000000)  /* its key: the largest any fp64 has */
#define PB_TOPK_F64_INF_BITS UINT64_C(0x7ff0000000000000)
#define PB_TOPK_SIGN64 UINT64_C(0x8000000000000000)

/* The key of the fp64 value with bit pattern b: pb_topk_key_bits on 64 bits
 * (branch-free for the same reason). */
PB_TOPK_HD uint64_t pb_topk_key_f64_bits(uint64_t b)
{
    b = (b & ~PB_TOPK_SIGN64) > PB_TOPK_F64_INF_BITS ? PB_TOPK_F64_NAN_BITS : b;
    return b ^ ((uint64_t)((int64_t)b >> 63) | PB_TOPK_SIGN64);
}

/* The bit pattern of the fp64 value whose key is `key` (a NaN key gives the
 * canonical NaN). */
PB_TOPK_HD uint64_t pb_topk_key_f64_to_bits(uint64_t key)
{
    return (key & PB_TOPK_SIGN64) ? (key ^ PB_TOPK_SIGN64) : ~key;
}

/* A 64-bit dtype's (fp64 or u64) order key of a raw value, and back:
 * smallest complements all 64 bits. For code that serves only those two
 * (radik's 64-bit kernels, where dtype is often a constant). */
PB_TOPK_HD uint64_t pb_topk_okey_wide(uint64_t raw, int dtype, int largest)
{
    uint64_t key = dtype == PB_TOPK_U64 ? raw : pb_topk_key_f64_bits(raw);
    return largest ? key : ~key;
}

PB_TOPK_HD uint64_t pb_topk_raw_wide(uint64_t okey, int dtype, int largest)
{
    uint64_t key = largest ? okey : ~okey;
    return dtype == PB_TOPK_U64 ? key : pb_topk_key_f64_to_bits(key);
}

/* A raw value's order key, and back, for every dtype, widened to 64 bits:
 * the 64-bit dtypes' own rule, and the 32-bit functions' answer,
 * zero-extended, for the others (raw is then the 32-bit word,
 * zero-extended). */
PB_TOPK_HD uint64_t pb_topk_okey64_of(uint64_t raw, int dtype, int largest)
{
    if (!pb_topk_dtype_is64(dtype)) return pb_topk_okey_of((uint32_t)raw, dtype, largest);
    return pb_topk_okey_wide(raw, dtype, largest);
}

PB_TOPK_HD uint64_t pb_topk_raw64_of(uint64_t okey, int dtype, int largest)
{
    if (!pb_topk_dtype_is64(dtype)) return pb_topk_raw_of((uint32_t)okey, dtype, largest);
    return pb_topk_raw_wide(okey, dtype, largest);
}

/* Whether the raw value x may have an order key at or above the order key
 * whose raw value (pb_topk_raw_of) is tq: true for every such x and for few
 * others, with one compare and no key conversion, for a pass that skips
 * what cannot pass before converting what might. fp32 values compare as
 * floats: a NaN passes (!(x < t) holds for it), every value passes when t
 * is itself a NaN, and -0.0 and +0.0 compare equal (both pass); u32 values
 * compare as unsigned integers, i32 values as signed ones; 16-bit floats
 * compare by their order keys, every value passing a NaN threshold as for
 * fp32 (radik's filter compares them two at a time as half2 / bfloat162
 * instead: radik/radik_filter_block.cuh). For smallest, the order keys at
 * or above the threshold are the values at or below tq. Dtypes up to 32
 * bits (radik's filter has its own test for fp64 and u64:
 * radik/radik_filter_block.cuh). */
PB_TOPK_HD float pb_topk_bits_float(uint32_t b)
{
#if defined(__CUDA_ARCH__)
    return __uint_as_float(b);
#else
    float x;
    memcpy(&x, &b, sizeof x);
    return x;
#endif
}

PB_TOPK_HD int pb_topk_raw_may_reach(uint32_t x, uint32_t tq, int dtype, int largest)
{
    if (dtype == PB_TOPK_F32) {
        float v = pb_topk_bits_float(x), t = pb_topk_bits_float(tq);
        return largest ? !(v < t) : !(v > t);
    }
    if (dtype == PB_TOPK_I32) return largest ? (int32_t)x >= (int32_t)tq : (int32_t)x <= (int32_t)tq;
    if (pb_topk_dtype_is16(dtype)) {
        /* A threshold key no value has (that of a negative NaN) comes back
         * as a NaN pattern: everything passes, as for fp32. */
        uint32_t inf = dtype == PB_TOPK_F16 ? 0x7c00u : 0x7f80u;
        if ((tq & 0x7fffu) > inf) return 1;
        return pb_topk_okey_of(x, dtype, largest) >= pb_topk_okey_of(tq, dtype, largest);
    }
    return largest ? x >= tq : x <= tq;
}

#endif

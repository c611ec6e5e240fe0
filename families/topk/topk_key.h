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
typedef enum pb_topk_dtype { PB_TOPK_F32, PB_TOPK_U32, PB_TOPK_I32 } pb_topk_dtype;
#define PB_TOPK_DTYPE_CHOICES "f32|u32|i32"

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

/* The key of a raw 32-bit value of type `dtype` (a pb_topk_dtype). */
PB_TOPK_HD uint32_t pb_topk_key_of(uint32_t raw, int dtype)
{
    return dtype == PB_TOPK_U32   ? raw
           : dtype == PB_TOPK_I32 ? raw ^ 0x80000000u
                                  : pb_topk_key_bits(raw);
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
 * it returns (a NaN's order key gives the canonical NaN). */
PB_TOPK_HD uint32_t pb_topk_okey_of(uint32_t raw, int dtype, int largest)
{
    return pb_topk_order_key(pb_topk_key_of(raw, dtype), largest);
}

PB_TOPK_HD uint32_t pb_topk_raw_of(uint32_t okey, int dtype, int largest)
{
    uint32_t key = pb_topk_order_key(okey, largest);
    return dtype == PB_TOPK_U32   ? key
           : dtype == PB_TOPK_I32 ? key ^ 0x80000000u
                                  : pb_topk_key_to_bits(key);
}

/* Whether the raw value x may have an order key at or above the order key
 * whose raw value (pb_topk_raw_of) is tq: true for every such x and for few
 * others, with one compare and no key conversion, for a pass that skips
 * what cannot pass before converting what might. fp32 values compare as
 * floats: a NaN passes (!(x < t) holds for it), every value passes when t
 * is itself a NaN, and -0.0 and +0.0 compare equal (both pass); u32 values
 * compare as unsigned integers, i32 values as signed ones. For smallest,
 * the order keys at or above the threshold are the values at or below tq. */
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
    return largest ? x >= tq : x <= tq;
}

#endif

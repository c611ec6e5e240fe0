/* The bijective shuffle in plain C (Algorithm 1 of Mitchell et al. 2024):
 * evaluate the bijection over the padded domain [0, 2^b), keep the values
 * below m in the order of their positions, gather. This is the C twin of
 * every bijective GPU kernel (their output must equal it bit for bit), the
 * sample-permutation generator of the CPU bijective modules, and the
 * reference the statistics test. */
#ifndef PB_BIJECTIVE_TWIN_H
#define PB_BIJECTIVE_TWIN_H

#include <stdint.h>

#include "algorithms/shuffle/bijective/bijection.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_bij_kind { PB_BIJ_VARPHILOX, PB_BIJ_LCG } pb_bij_kind;

/* The choices of the `bijection` parameter, in pb_bij_kind order. */
#define PB_BIJ_CHOICES "varphilox|lcg"
#define PB_BIJ_DEFAULT_ROUNDS 24

/* The parameters every bijective module takes (pb_param_spec entries, in
 * this order; CPU-parallel ones put `threads` first). */
#define PB_BIJ_PARAMS                                                                              \
    {"bijection", PB_PARAM_ENUM, PB_BIJ_VARPHILOX, 0, 1, PB_BIJ_CHOICES,                           \
     "the bijection: VariablePhilox (Feistel) or LCG"},                                            \
        {"rounds", PB_PARAM_INT, PB_BIJ_DEFAULT_ROUNDS, 1, PB_VARPHILOX_MAX_ROUNDS, NULL,           \
         "VariablePhilox rounds"}

/* The padded domain never has fewer than 2^PB_BIJ_MIN_BITS values: on a
 * 1-bit domain VariablePhilox's left half is empty and every key gives the
 * identity, so m = 2 would never be shuffled, and very small Feistel
 * domains mix poorly. 4 bits is thrust::shuffle's choice too (its Feistel
 * bijection is the same VariablePhilox). */
#define PB_BIJ_MIN_BITS 4

/* One bijection of the padded domain for permutation `stream` of `seed`. */
typedef struct pb_bij {
    pb_bij_kind kind;
    unsigned bits;
    pb_varphilox vp;
    pb_lcg lcg;
} pb_bij;

PB_BIJ_HD unsigned pb_bij_bits(uint64_t m)
{
    unsigned b = pb_domain_bits(m);
    return b < PB_BIJ_MIN_BITS ? PB_BIJ_MIN_BITS : b;
}

PB_BIJ_HD void pb_bij_init(pb_bij *f, pb_bij_kind kind, int rounds, uint64_t m, uint64_t seed,
                           uint64_t stream)
{
    f->kind = kind;
    f->bits = pb_bij_bits(m);
    /* Only one member is used; the other is zeroed, not left undefined. */
    f->lcg.a = f->lcg.c = f->lcg.mask = 0;
    f->vp.left_bits = f->vp.right_bits = f->vp.left_mask = f->vp.right_mask = 0;
    f->vp.rounds = 0;
    if (kind == PB_BIJ_LCG) pb_lcg_init(&f->lcg, f->bits, seed, stream);
    else pb_varphilox_init(&f->vp, f->bits, rounds, seed, stream);
}

PB_BIJ_HD uint64_t pb_bij_apply(const pb_bij *f, uint64_t x)
{
    return f->kind == PB_BIJ_LCG ? pb_lcg_apply(&f->lcg, x) : pb_varphilox_apply(&f->vp, x);
}

/* out[i] = in[source of position i], for m items of item_bytes (4 or 8,
 * or records of any width, each copied whole: the GPU modules' twin for
 * records; the bijective-twin module itself takes scalars only). */
void pb_bijective_twin_shuffle(const void *in, void *out, uint64_t m, unsigned item_bytes,
                               pb_bij_kind kind, int rounds, uint64_t seed, uint64_t stream);

/* The permutation itself: out[i] = the input index that lands at i. */
void pb_bijective_twin_indices(uint32_t *out, uint32_t m, pb_bij_kind kind, int rounds,
                               uint64_t seed, uint64_t stream);

#ifdef __cplusplus
}
#endif

#endif

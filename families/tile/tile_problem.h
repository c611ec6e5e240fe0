/* A tile problem point on the host: n 32-bit items in n / (32 m) tiles, the
 * operation, the method, and the input generated from the seed
 * (dmm/dmm_tile_input.h: the simulator's models run on the same tiles).
 *
 * Every tile-family module declares PB_TILE_COMMON_PARAMS (m, pattern,
 * method) and no other: a GPU module and its C twin (its reference, one
 * twin an operation) then share every parameter by name, as the harness
 * passes them. The point's n must be a positive multiple of 32 m and its
 * item width 4.
 *
 * The contract, checked per tile against the C reference: partition, the
 * stable grouping by label (the paper's method, whose order within a label
 * is its own, must group by label and keep each label's items); sort,
 * ascending; permute, every item at its destination. */
#ifndef PB_TILE_PROBLEM_H
#define PB_TILE_PROBLEM_H

#include <stdbool.h>
#include <stdint.h>

#include "core/module.h"
#include "dmm/dmm_tile_input.h"
#include "dmm/dmm_tile_model.h"
#include "families/tile/tile_family.h"

#ifdef __cplusplus
extern "C" {
#endif

enum pb_tile_param { PB_TILE_P_M, PB_TILE_P_PATTERN, PB_TILE_P_METHOD, PB_TILE_NCOMMON };

/* clang-format off */
#define PB_TILE_COMMON_PARAMS                                                                      \
    {"m", PB_PARAM_INT, 64, 32, 256, NULL,                                                         \
     "columns of the 32 x m tile: 32, 64, 128 or 256 (the tile is 32 m words)"},                   \
    {"pattern", PB_PARAM_ENUM, PB_TILE_UNIFORM, 0, 0, PB_TILE_PATTERN_CHOICES,                     \
     "labels: uniform, skewed (half label 0), onebank (label = lane: a naive scatter's line "      \
     "hits one bank), strided (label = lane / 4: 8-way)"},                                         \
    {"method", PB_PARAM_ENUM, PB_TILE_SCATTER, 0, 0, PB_TILE_METHOD_CHOICES,                       \
     "scatter (straight to the destination), pad (scatter with a word of padding every 32), "      \
     "split (conflict-free one-bit passes), paper (Afshani-Sitchinava, one warp a tile), cub"}
/* clang-format on */

typedef struct pb_tile_problem {
    pb_tile_op op;
    pb_tile_method method;
    pb_tile_pattern pattern;
    unsigned m;
    uint64_t n, tiles, seed;
    uint32_t *in; /* n items */
} pb_tile_problem;

/* Validates the point for (op, method): m a power of two in [32, 256], n a
 * positive multiple of 32 m below 2^32, item width 4, the method defined
 * for the operation. */
int pb_tile_point_check(pb_tile_op op, pb_tile_method method, const pb_point *pt, pb_err *err);

/* Validates and generates the input (OpenMP over tiles; the same input
 * whatever the thread count). */
int pb_tile_problem_init(pb_tile_problem *p, pb_tile_op op, pb_tile_method method,
                         const pb_point *pt, pb_err *err);
void pb_tile_problem_free(pb_tile_problem *p);

/* The contract on an output of n items: 0, or -1 naming the first wrong
 * tile and position. */
int pb_tile_check(const pb_tile_problem *p, const uint32_t *out, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

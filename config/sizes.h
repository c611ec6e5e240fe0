/* The compact size syntax of sweeps.
 *
 *   sizes = 1000, 2^20, 2^25            explicit list
 *   sizes = 2^8+1 .. 2^29+1 *8          geometric range: 2^8+1, 2^11+1, ..., 2^29+1
 *   sizes = 1000 .. 5000 +1000          arithmetic range
 *   sizes = 2^10 .. 2^20                geometric, step *2 by default
 *
 * An expression is numbers joined by '+', '-', '*' and '^' (power), written
 * without spaces; items are separated by commas, the parts of a range by
 * spaces. A geometric step multiplies the leading term of an expression and
 * keeps its trailing offset, which is how the papers sweep 2^k+1. */
#ifndef PB_SIZES_H
#define PB_SIZES_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MAX_SIZES 4096

/* Evaluates one expression. */
int pb_size_expr(const char *text, uint64_t *value, pb_err *err);

/* Parses a whole size list, appending to sizes[*count] (at most `cap`). */
int pb_sizes_parse(const char *text, uint64_t *sizes, size_t *count, size_t cap, pb_err *err);

/* Writes n compactly: "2^20", "2^20+1", "2^20-1", or plain digits. */
const char *pb_size_format(uint64_t n, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif

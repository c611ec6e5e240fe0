/* Permutations as files, the formats `permbench sample` writes and
 * `permbench quality --input` reads: one row per permutation of [0, n),
 *
 *   u32   n little-endian 32-bit integers a row, no header, no separator
 *   u64   the same with 64-bit integers
 *   text  one row a line, the integers in decimal separated by blanks or
 *         commas (sample writes one space); blank lines are skipped
 *   npy   read only: a NumPy .npy file of shape (rows, n) or (n,), C-order
 *         little-endian int32, int64, uint32 or uint64 (quality/npy_header.h),
 *         so np.save(path, perms) is all a Python user writes
 *
 * so that a file is a plain array (numpy.fromfile(f, '<u4').reshape(-1, n))
 * or a plain table, and its rows are its permutations in order. */
#ifndef PB_PERM_IO_H
#define PB_PERM_IO_H

#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pb_perm_format { PB_PERM_U32, PB_PERM_U64, PB_PERM_TEXT, PB_PERM_NPY } pb_perm_format;

#define PB_PERM_FORMATS "u32, u64, text or npy"

const char *pb_perm_format_name(pb_perm_format f);
/* 0 and the format, or -1 with a message naming the accepted ones. */
int pb_perm_format_parse(const char *text, pb_perm_format *f, pb_err *err);
/* Bytes of one row in a binary format; 0 for text and npy (its header says). */
uint64_t pb_perm_row_bytes(pb_perm_format f, uint32_t n);

/* Writes `count` permutations of [0, n) (out[count * n], one after another)
 * to `f` in format `fmt`; the error carries the system's reason. */
int pb_perm_write(FILE *f, const uint32_t *perms, uint32_t n, uint64_t count, pb_perm_format fmt,
                  pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

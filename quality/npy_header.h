/* The header of a NumPy .npy file (format versions 1.0, 2.0 and 3.0, as
 * numpy.lib.format writes them): the magic "\x93NUMPY", the version, the
 * header's length (2 bytes little-endian in 1.0, 4 in 2.0 and 3.0), then a
 * Python dict literal padded with spaces and ended by '\n':
 *
 *   {'descr': '<i8', 'fortran_order': False, 'shape': (1000, 52), }
 *
 * Permutations are read from C-order arrays of little-endian int32, int64,
 * uint32 or uint64, shape (rows, n) or (n,) for one row; anything else is
 * refused with one line saying what the file holds instead. */
#ifndef PB_NPY_HEADER_H
#define PB_NPY_HEADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest header accepted (numpy's own reader refuses past 10000 bytes
 * unless told otherwise). */
#define PB_NPY_MAX_HEADER 65536u

typedef struct pb_npy_header {
    size_t bytes;      /* the whole header: preamble, dict and padding */
    unsigned width;    /* 4 or 8 */
    bool is_signed;
    uint64_t rows;     /* 1 for shape (n,) */
    uint64_t n;        /* items a row */
    char descr[16];    /* as the file spells it, for messages */
} pb_npy_header;

/* The length the header will have, from its first 12 bytes (fewer when
 * `len` is short): 0 and *total, 1 when more bytes are needed to tell, -1
 * with a message (`name`: the input) when it is no .npy preamble. */
int pb_npy_header_size(const unsigned char *buf, size_t len, const char *name, size_t *total, pb_err *err);

/* Parses a whole header buf[0 .. len) (len from pb_npy_header_size). */
int pb_npy_header_parse(const unsigned char *buf, size_t len, const char *name, pb_npy_header *h, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

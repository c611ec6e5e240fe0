/* Reading permutations made outside permbench (quality/perm_io.h's
 * formats) a batch of rows at a time, from a file or a pipe, so the battery
 * streams them as it streams a module's samples and never holds them all.
 *
 * Every row is checked on the way to be a permutation of [0, n); the first
 * that is not stops the reading with one line naming the input, the row
 * (from 1; for text also its line when they differ) and what is wrong:
 *
 *   data.bin: row 7, column 4: value 9 is out of range 0..4
 *   data.bin: row 7, column 4: value 2 repeats column 1
 *   data.bin: row 7 is truncated: 12 of 20 bytes (the input ends)
 *   data.txt: row 7 (line 9) is short: 3 of 5 values
 *   data.txt: row 7 has more than 5 values
 *   data.txt: row 7, column 2: 'x1' is not a number
 *
 * Every byte read goes through SHA-256, and finishing drains the rest of
 * the input into it, so the digest is the whole input's (sha256sum's). */
#ifndef PB_PERM_READER_H
#define PB_PERM_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/sha256.h"
#include "quality/npy_header.h"
#include "quality/perm_io.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_perm_reader {
    FILE *f;
    bool own;           /* opened here, so closed here (not stdin) */
    char name[1024];    /* in messages: the path, or "stdin" for "-" */
    uint32_t n;
    pb_perm_format format;
    uint64_t rows;      /* read and checked so far */
    uint64_t line;      /* text: the line being read */
    pb_sha256 sha;
    unsigned char *buf; /* what was read and not yet parsed: buf[pos .. len) */
    size_t len, pos;
    bool eof;
    int read_errno;     /* a read that failed */
    uint32_t *where;    /* column + 1 of each value in the row being read */
    unsigned width;     /* binary formats: bytes a value */
    bool is_signed;     /* npy int32 / int64: a set top bit is a negative value */
    uint64_t declared;  /* npy: the rows its header declares */
} pb_perm_reader;

/* Opens `path` ("-": standard input) for rows of n in format `fmt`;
 * messages call it `name` (NULL: the path, or "stdin"). For npy the header
 * is read here: its n must be n (n = 0: take the header's, then in r->n),
 * and the rows end where it says (fewer, or bytes after them, are errors). */
int pb_perm_reader_open(pb_perm_reader *r, const char *path, const char *name, uint32_t n,
                        pb_perm_format fmt, pb_err *err);
/* Reads up to `count` more rows into out[count * n]; *got is how many,
 * fewer only where the input ends. -1 for a row that is not a permutation
 * of [0, n) or a read that failed, with the one-line message. */
int pb_perm_reader_read(pb_perm_reader *r, uint32_t *out, uint64_t count, uint64_t *got,
                        pb_err *err);
/* Reads the rest of the input (hashed, not parsed) and gives the SHA-256
 * of all of it and its size in bytes. */
int pb_perm_reader_finish(pb_perm_reader *r, char hex[65], uint64_t *bytes, pb_err *err);
void pb_perm_reader_close(pb_perm_reader *r);

/* The rows an input holds, where that can be known ahead without reading
 * it into memory: a binary regular file by its size (a size that is not a
 * whole number of rows is the truncated-row error), a text regular file by
 * one pass counting its non-blank lines. *known is false for a pipe or a
 * terminal. An input that cannot be opened, or a directory, is an error. */
int pb_perm_count_rows(const char *path, const char *name, uint32_t n, pb_perm_format fmt,
                       uint64_t *rows, bool *known, pb_err *err);

/* An npy input's header, read ahead from a regular file (standard input
 * redirected from one included) without moving it; *known is false for a
 * pipe. The file's size must be the header's and its rows' exactly. */
int pb_perm_npy_probe(const char *path, const char *name, pb_npy_header *h, bool *known, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

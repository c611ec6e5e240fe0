/* Data files: a user's own keys for a sweep (`dist = file:PATH` in a module
 * section). A file is raw little-endian keys of the family's key width, no
 * header: its size must be a whole number of keys, and a point uses its
 * first keys.
 *
 * Parameters are int64 (core/module.h), a path is text, so every path a
 * config names is interned here once and the parameter holds its id
 * (config/params.h encodes and formats it). The table lives as long as the
 * process; entries never move, so a pointer to one stays valid.
 *
 * Checked once before any work (pb_data_file_check, from the family's
 * check_point hook): the file is opened, its size, identity and modification
 * time recorded and its bytes hashed (SHA-256, for results.json: the digest
 * `sha256sum` prints, as quality.json names an external input). A reader
 * later refuses a file whose size, identity or modification time differs
 * from what the check saw, so a point never runs on other data than the
 * plan was checked and recorded for.
 *
 * Bounds: a path is at most PB_DATA_PATH_MAX - 1 characters once resolved
 * and holds no control character (it is quoted in one-line messages and in
 * JSON); at most PB_DATA_FILES_MAX distinct files a process, so a hostile
 * config cannot grow the table past a few MiB. Nothing is allocated from
 * the file's contents: the check hashes through a fixed buffer, the reader
 * reads into the caller's memory. */
#ifndef PB_DATA_FILE_H
#define PB_DATA_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_DATA_PATH_MAX 1024
#define PB_DATA_FILES_MAX 4096

typedef struct pb_data_file {
    /* Absolute; symbolic links resolved when the file existed when it was
     * named (else as joined, and the check says it is missing). */
    char path[PB_DATA_PATH_MAX];
    /* Set by the first successful pb_data_file_check. */
    bool checked;
    uint64_t bytes;
    char sha256[65]; /* of every byte, 64 lowercase hex digits */
    uint64_t dev, ino;
    int64_t mtime_ns;
} pb_data_file;

/* Interns `path`: relative paths are joined to `base_dir` (NULL or "": the
 * current directory) and made absolute. Returns its id (the same for the
 * same resolved file), or -1 with a message. */
long pb_data_file_intern(const char *path, const char *base_dir, pb_err *err);

/* The file of id `id`, or NULL. */
pb_data_file *pb_data_file_at(long id);
/* Files interned so far (ids 0 .. count - 1). */
size_t pb_data_file_count(void);
/* Forgets every file (ids start again at 0), for a process that reads one
 * config after another and holds no parameter value or pointer from the
 * earlier ones: the fuzz harnesses. */
void pb_data_files_clear(void);

/* Checks that the file can be read, is a whole number of key_bytes keys and
 * holds at least `need` of them. The first success records its size,
 * identity and hash; later checks also refuse a file that changed since.
 * `*have` (may be NULL) gets the keys it holds when known. The message
 * names the numbers before the path, so a long path cannot cut them off. */
int pb_data_file_check(pb_data_file *f, unsigned key_bytes, uint64_t need, uint64_t *have,
                       pb_err *err);

/* Streams a file's first keys, in host order: open, then `next` as often
 * as the caller's layout needs (top-k reads row by row into its padded
 * buffer), then close. Reads straight into the caller's memory through
 * stdio's buffer: no allocation of the file's size. */
typedef struct pb_data_reader {
    FILE *fp;
    const pb_data_file *file;
    unsigned key_bytes;
    uint64_t done; /* keys read so far */
} pb_data_reader;

/* Opens f for reading its first `need` keys; checks it first if no check
 * has yet (a test's own problem), and refuses a file that changed since the
 * check or now holds fewer keys. */
int pb_data_reader_open(pb_data_reader *r, pb_data_file *f, unsigned key_bytes, uint64_t need,
                        pb_err *err);
/* The next `count` keys into out (count * key_bytes bytes). */
int pb_data_reader_next(pb_data_reader *r, void *out, uint64_t count, pb_err *err);
void pb_data_reader_close(pb_data_reader *r);

#ifdef __cplusplus
}
#endif

#endif

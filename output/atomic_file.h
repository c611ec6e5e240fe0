/* Files that appear whole or not at all: written under a temporary name
 * beside the final one, flushed to disk, then renamed over it, so a reader
 * (or a run interrupted half-way) never sees half a file. Every failure
 * carries the operating system's reason. */
#ifndef PB_ATOMIC_FILE_H
#define PB_ATOMIC_FILE_H

#include <stdio.h>

#include "core/err.h"

typedef struct pb_afile {
    FILE *f; /* write here between open and commit */
    char path[1100];
    char tmp[1200];
} pb_afile;

int pb_afile_open(pb_afile *a, const char *path, pb_err *err);
/* Flushes, syncs and renames; on any failure removes the temporary file.
 * For the tests of a full disk (which cannot mount a small file system
 * without root): with PERMBENCH_TEST_ENOSPC=NAME in the environment, a
 * commit of a file named NAME (the last part of its path) fails with ENOSPC
 * as a flush to a full disk does. Nothing else reads it. */
int pb_afile_commit(pb_afile *a, pb_err *err);
/* Gives up: closes and removes the temporary file. */
void pb_afile_abort(pb_afile *a);

/* Writes a JSON document (jansson's `flags`) whole or not at all; takes
 * the reference to `root`. */
struct json_t;
int pb_write_json(const char *path, struct json_t *root, size_t flags, pb_err *err);

#endif

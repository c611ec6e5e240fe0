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
/* Flushes, syncs and renames; on any failure removes the temporary file. */
int pb_afile_commit(pb_afile *a, pb_err *err);
/* Gives up: closes and removes the temporary file. */
void pb_afile_abort(pb_afile *a);

/* Writes a JSON document (jansson's `flags`) whole or not at all; takes
 * the reference to `root`. */
struct json_t;
int pb_write_json(const char *path, struct json_t *root, size_t flags, pb_err *err);

#endif

/* For harnesses of readers that take a path, not a buffer: the input
 * written to a file of this process's own (created once, rewritten for
 * every input), so the reader opens, stats and reads a real file. */
#ifndef PB_FUZZ_INPUT_H
#define PB_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

/* The file holding data[0 .. size) under `suffix` (e.g. "results.json"):
 * a per-process directory, so parallel fuzzing jobs never share it. */
static inline const char *pb_fuzz_input_file(const char *suffix, const uint8_t *data, size_t size)
{
    static char dir[256], path[512];
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/pb-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        PB_FUZZ_ASSERT(mkdtemp(dir));
    }
    snprintf(path, sizeof path, "%s/%s", dir, suffix);
    FILE *f = fopen(path, "wb");
    PB_FUZZ_ASSERT(f);
    PB_FUZZ_ASSERT(fwrite(data, 1, size, f) == size);
    PB_FUZZ_ASSERT(fclose(f) == 0);
    return path;
}

#endif

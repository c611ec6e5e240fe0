/* Result directories, shared by `run` and `quality`. */
#ifndef PB_OUTDIR_H
#define PB_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

/* mkdir -p. */
int pb_mkdir_p(const char *path);

/* Whether dir/file exists. */
bool pb_dir_has(const char *dir, const char *file);

/* results/<prefix><name>/<UTC timestamp>, made unique if two runs share a
 * second. */
int pb_results_dir(const char *prefix, const char *name, char *out, size_t len);

#endif

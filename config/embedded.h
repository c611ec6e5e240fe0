/* Files compiled into the binary (cmake/embed.cmake): the default configs
 * and the gnuplot scripts, so permbench works from any directory. */
#ifndef PB_EMBEDDED_H
#define PB_EMBEDDED_H

#include <stddef.h>

typedef struct pb_embedded_file {
    const char *path; /* relative to the source root, e.g. "configs/default.ini" */
    const char *data; /* NUL-terminated */
    size_t len;
} pb_embedded_file;

extern const pb_embedded_file pb_embedded_files[];

const pb_embedded_file *pb_embedded_find(const char *path);

#endif

#include <string.h>

#include "config/embedded.h"

const pb_embedded_file *pb_embedded_find(const char *path)
{
    for (const pb_embedded_file *f = pb_embedded_files; f->path; f++)
        if (strcmp(f->path, path) == 0) return f;
    return NULL;
}

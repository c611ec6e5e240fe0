#include "core/module_aliases.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* Old name, new name; the order of registry/module_list.h. */
static const pb_module_alias aliases[] = {
    /* CPU */
    {"fisher-yates", "cpu-fisher-yates"},
    {"gsl-shuffle", "cpu-gsl-shuffle"},
    {"bijective-twin", "cpu-bijective-twin"},
    {"grs-twin", "cpu-rao-sandelius-twin"},
    {"rao-sandelius", "cpu-rao-sandelius"},
    {"merge-shuffle", "cpu-merge-shuffle"},
    {"tbb-bijective", "cpu-tbb-bijective"},
    {"tbb-sort-shuffle", "cpu-tbb-sort-shuffle"},
    {"pov-shuffle", "cpu-pov-shuffle"},
    {"tbb-gather", "cpu-tbb-gather"},
    {"buffer-shuffle", "cpu-buffer-shuffle"},
    {"shard-shuffle", "cpu-shard-shuffle"},
    {"mosaic-shuffle", "cpu-mosaic-shuffle"},
    {"multisplit-twin", "cpu-multisplit-twin"},
    {"omp-multisplit", "cpu-multisplit"},
    {"omp-topk", "cpu-topk"},
    {"tile-partition-twin", "cpu-tile-partition-twin"},
    {"tile-sort-twin", "cpu-tile-sort-twin"},
    {"tile-permute-twin", "cpu-tile-permute-twin"},
    /* GPU */
    {"bijective0", "gpu-bijective0"},
    {"bijective1", "gpu-bijective1"},
    {"bijective2", "gpu-bijective2"},
    {"dart-throwing", "gpu-dart-throwing"},
    {"sort-shuffle", "gpu-sort-shuffle"},
    {"thrust-shuffle", "gpu-thrust-shuffle"},
    {"dist-shuffle", "gpu-dist-shuffle"},
    {"dist-exchange", "gpu-dist-exchange"},
    {"multisplit", "gpu-multisplit"},
    {"dms", "gpu-dms"},
    {"wms", "gpu-wms"},
    {"bms", "gpu-bms"},
    {"onesweep-ms", "gpu-onesweep-ms"},
    {"rb-sort", "gpu-rb-sort"},
    {"cub-radix-sort", "gpu-cub-radix-sort"},
    {"cub-partition", "gpu-cub-partition"},
    {"scan-split", "gpu-scan-split"},
    {"ms-sort", "gpu-ms-sort"},
    {"ms-histogram", "gpu-ms-histogram"},
    {"cub-histogram", "gpu-cub-histogram"},
    {"tile-partition", "gpu-tile-partition"},
    {"tile-sort", "gpu-tile-sort"},
    {"tile-permute", "gpu-tile-permute"},
    {"radik", "gpu-radik"},
    {"cub-topk", "gpu-cub-topk"},
    {"sort-and-choose", "gpu-sort-and-choose"},
    {"cuda-memcpy", "gpu-cuda-memcpy"},
    {"copy", "gpu-copy"},
    {"gather", "gpu-gather"},
};

#define NALIASES (sizeof aliases / sizeof aliases[0])

/* Whether each old name's note was printed: a run's threads may meet one
 * at once, and the note is still one line. */
static atomic_bool noted[NALIASES];

size_t pb_module_alias_count(void) { return NALIASES; }

const pb_module_alias *pb_module_alias_at(size_t i) { return i < NALIASES ? &aliases[i] : NULL; }

static long index_of_old(const char *name)
{
    for (size_t i = 0; name && i < NALIASES; i++)
        if (strcmp(aliases[i].old_name, name) == 0) return (long)i;
    return -1;
}

const char *pb_module_alias_new(const char *name)
{
    long i = index_of_old(name);
    return i < 0 ? NULL : aliases[i].new_name;
}

const char *pb_module_alias_old(const char *name)
{
    for (size_t i = 0; name && i < NALIASES; i++)
        if (strcmp(aliases[i].new_name, name) == 0) return aliases[i].old_name;
    return NULL;
}

void pb_module_alias_note(const char *old_name)
{
    long i = index_of_old(old_name);
    if (i < 0 || atomic_exchange(&noted[i], true)) return;
    fprintf(stderr, "permbench: note: '%s' is now '%s' (the old name still works; docs/modules.md)\n",
            aliases[i].old_name, aliases[i].new_name);
}

const char *pb_module_alias_label(const char *label, char *buf, size_t len)
{
    if (!label) return label;
    size_t head = strcspn(label, "/");
    for (size_t i = 0; i < NALIASES; i++) {
        const pb_module_alias *a = &aliases[i];
        if (strlen(a->old_name) != head || strncmp(a->old_name, label, head) != 0) continue;
        int w = snprintf(buf, len, "%s%s", a->new_name, label + head);
        return w >= 0 && (size_t)w < len ? buf : label;
    }
    return label;
}

/* Modules' old names: every module name starts with the device it runs on
 * (`cpu-` or `gpu-`), and a module renamed to that scheme keeps its old
 * name as an alias (docs/modules.md). The one table of them lives here, the
 * lowest layer, because every layer meets a module's name: a config's
 * sections and -D (config), lookups (registry), the rows of results
 * written before the rename (output, compare, bench). */
#ifndef PB_MODULE_ALIASES_H
#define PB_MODULE_ALIASES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_module_alias {
    const char *old_name;
    const char *new_name; /* may name a module this build does not have */
} pb_module_alias;

size_t pb_module_alias_count(void);
const pb_module_alias *pb_module_alias_at(size_t i);

/* The new name of an old one, or NULL when `name` is no old name. */
const char *pb_module_alias_new(const char *name);
/* The old name of a new one, or NULL when `name` has none. */
const char *pb_module_alias_old(const char *name);

/* One line on stderr saying `old_name` is now its new name; once a process
 * for each old name, however often it is used. */
void pb_module_alias_note(const char *old_name);

/* A row label or series with its first part (up to '/') an old module
 * name, with that part renamed: "radik/k=32" is "gpu-radik/k=32". Any
 * other label (an instance named "radik-two-read") is returned as is.
 * Returns `label` or `buf`; a result longer than `len` keeps the label. */
const char *pb_module_alias_label(const char *label, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif

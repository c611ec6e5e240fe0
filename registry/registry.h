/* The only code that knows every module and every family of this build:
 * lookups over registry/module_list.h and registry/family_list.h. */
#ifndef PB_REGISTRY_H
#define PB_REGISTRY_H

#include <stdbool.h>

#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A program built on the permbench libraries adds its own modules (before
 * pb_main, app/cli.h): they are listed, run and checked like the built-in
 * ones. 0 on success; -1 if the name is taken or the table (32) is full.
 * tests/ add modules that must be reported failed this way. */
int pb_registry_add(const pb_module *m);

size_t pb_module_count(void);
const pb_module *pb_module_at(size_t i);
const pb_module *pb_module_find(const char *name);
/* As pb_module_find, for a name a user wrote (a config, the command line):
 * an old name (core/module_aliases.h) finds the module it now names, with
 * a note on stderr; NULL when neither finds one (an alias whose module this
 * build does not have, too). */
const pb_module *pb_module_find_named(const char *name);

/* Whether the module can run on this machine; if not, `why` says why
 * ("no CUDA device: ..."). */
bool pb_module_available(const pb_module *m, char *why, size_t whylen);
/* The same for an instance's resolved parameters (a module's own
 * `available` hook may refuse a setting: more devices than present). */
bool pb_module_available_with(const pb_module *m, const pb_params *params, char *why, size_t whylen);

/* The ceiling of kind `b` on `dev` (core/module.h's `bound`), or NULL. */
const pb_module *pb_bound_module(pb_device dev, pb_bound b);

size_t pb_family_count(void);
const pb_family *pb_family_at(size_t i);
const pb_family *pb_family_find(const char *name);
/* "shuffle, multisplit or topk": the family names, for messages. */
const char *pb_family_names_text(char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif

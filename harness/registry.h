/* Lookup over the modules this build contains. */
#ifndef PB_REGISTRY_H
#define PB_REGISTRY_H

#include <stdbool.h>

#include "harness/module.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t pb_module_count(void);
const pb_module *pb_module_at(size_t i);
const pb_module *pb_module_find(const char *name);

/* Whether the module can run on this machine; if not, `why` says why
 * ("no CUDA device: ..."). */
bool pb_module_available(const pb_module *m, char *why, size_t whylen);

/* Index of a parameter in the module's spec array, or -1. */
int pb_module_param_index(const pb_module *m, const char *name);

#ifdef __cplusplus
}
#endif

#endif

/* Results written before a module's rename read under its new name
 * (core/module_aliases.h), so `compare` matches an old run's rows with a
 * new run's, and figures and resumed runs name them as today's do. */
#ifndef PB_RESULTS_NAMES_H
#define PB_RESULTS_NAMES_H

#include <jansson.h>

/* In each row of root["results"] (run or quality results), its label,
 * series, group and module fields with an old module name at their start
 * renamed; and the sweep's reference. Other names are left as they are. */
void pb_results_rename_modules(json_t *root);

#endif

/* Command-line overrides of config keys: `-D SECTION.KEY=VALUE` replaces
 * KEY in [SECTION] (or adds it there) after the file is read and before any
 * dialect looks at it, so an override is checked exactly as the file's own
 * line would be. */
#ifndef PB_INI_OVERRIDE_H
#define PB_INI_OVERRIDE_H

#include <stddef.h>

#include "config/ini.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The overrides every later pb_ini_load_* applies (the strings must outlive
 * the loads); n = 0 clears them. */
void pb_ini_set_overrides(const char *const *defs, size_t n);

/* Whether `def` reads SECTION.KEY=VALUE; a one-line reason if not. */
int pb_ini_override_check(const char *def, pb_err *err);

/* pb_ini_apply_overrides, which the loader calls, is declared in
 * config/ini.h: the loader must not include this header, which includes
 * the loader's (an include cycle, scripts/check-layers.sh). */

#ifdef __cplusplus
}
#endif

#endif

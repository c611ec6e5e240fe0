/* A quality config (`permbench quality`): one [quality] section naming the
 * tests, and one section per module instance as in sweep configs, read by
 * the one INI reader (config/ini.h) into instances (registry/instance.h).
 *
 *   [quality]
 *   title = Release battery
 *   seed = 42
 *   alpha = 0.0001
 *   chisq = 5                   ; n values, the size syntax of sweeps
 *   chisq_samples = 10^6
 *   mmd = 5, 100, 1000
 *   mmd_samples = 10^6
 *   duplicates = 100
 *   duplicates_samples = 10^6
 *   modules = all               ; every module with sample permutations
 *
 *   [varphilox]                 ; the section name is the instance's label
 *   module = bijective2 | bijective-twin   ; the first this machine can run
 *   bijection = varphilox
 *   rounds = 1 .. 32 +1         ; a list: varphilox/rounds=1, ...
 *
 *   [outside]                   ; an external input (quality/qinput.h)
 *   input = perms.u32
 *   n = 5
 *   format = u32
 *
 * Each test of quality/qtests/qtest_list.h takes `<name>` and `<name>_samples`
 * (and its select_key). Every error names the file and line. */
#ifndef PB_QUALITY_CONFIG_H
#define PB_QUALITY_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "core/err.h"
#include "quality/quality_inputs.h"
#include "quality/quality_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

int pb_quality_config_load_file(const char *path, pb_quality_config *cfg, pb_err *err);
int pb_quality_config_load_text(const char *path, const char *name, const char *text,
                                pb_quality_config *cfg, pb_err *err);
void pb_quality_config_free(pb_quality_config *cfg);

#ifdef __cplusplus
}
#endif

#endif

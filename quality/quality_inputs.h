/* External inputs in quality configs: input sections, the config that
 * tests one input (`quality --input`), and the checks before any work. */
#ifndef PB_QUALITY_INPUTS_H
#define PB_QUALITY_INPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "config/ini.h"
#include "core/err.h"
#include "quality/qinput.h"
#include "quality/quality_plan.h"
#include "registry/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Adds the input a section with `input = FILE` names (the loader's, for
 * each such section; the [quality] keys must be applied already). */
int pb_quality_config_add_input(pb_quality_config *cfg, const pb_ini *doc, const pb_ini_section *s,
                                pb_err *err);

/* The external input behind an instance, or NULL for a module's. */
const pb_qinput *pb_quality_config_input(const pb_quality_config *cfg, const pb_instance *in);

/* Makes a loaded config test one external input and nothing else: its
 * module sections and inputs are dropped and the input is its one
 * instance. With `own_tests` (a config the user gave) the tests that run
 * at the input's n keep their sample counts, or take `count` when it is
 * not 0, and none at that n is an error; without (the built-in release
 * battery's settings) every test that applies at n with `count` samples
 * runs, at n alone. */
int pb_quality_config_use_input(pb_quality_config *cfg, const pb_qinput *input, uint64_t count,
                                bool own_tests, pb_err *err);

/* Checks the external inputs left in cfg->inst before any work: each can
 * be opened, and where its rows can be counted ahead (a regular file),
 * none is truncated and it holds the rows its tests need. */
int pb_quality_config_check_inputs(const pb_quality_config *cfg, pb_err *err);

#ifdef __cplusplus
}
#endif

#endif

/* Parsing and printing module parameters against their specs. */
#ifndef PB_PARAMS_H
#define PB_PARAMS_H

#include <stdbool.h>

#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills every parameter with its default. */
void pb_params_defaults(const pb_module *m, pb_params *out);

/* Sets parameter `name` from its text; the error names the parameter, the
 * offending value and what would have been accepted. */
int pb_params_set(const pb_module *m, pb_params *p, const char *name, const char *value,
                  pb_err *err);

/* "a|b|c" -> the index of `value` in it, or -1. */
int pb_choice_index(const char *choices, const char *value);
/* The text of choice `idx` into buf. */
const char *pb_choice_name(const char *choices, long long idx, char *buf, size_t len);

/* One parameter's value as text ("24", "lcg", "yes"). */
const char *pb_param_format(const pb_param_spec *s, long long v, char *buf, size_t len);

/* The accepted range or choices as text ("0..4096", "varphilox|lcg"). */
const char *pb_param_range(const pb_param_spec *s, char *buf, size_t len);

/* Parses a decimal integer (with an optional 2^k form); false if malformed. */
bool pb_parse_ll(const char *text, long long *out);

#ifdef __cplusplus
}
#endif

#endif

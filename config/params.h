/* Parsing and printing module parameters against their specs.
 *
 * Values are int64 (pb_params). An enum whose choices end in PB_CHOICE_FILE
 * (core/module.h) also takes `file:PATH`: the path is interned in the data
 * file table (config/data_file.h) and the value is PB_PARAM_FILE + its id,
 * far above any choice's index, so code that knows only the choices finds
 * it out of range and code that asks pb_param_file gets the file. It prints
 * back as `file:` and the resolved path, so results name the file itself.
 *
 * A choice written `name:X` (other than PB_CHOICE_FILE) takes an argument:
 * `name:F` a fraction in [0, 1] with at most 6 decimals (`masked:0.5`),
 * kept in millionths; any other placeholder a positive integer up to 2^31,
 * in the integer syntax (`few:16`, `few:2^8`). The value is
 * PB_PARAM_ARG_VALUE(choice, argument): at least 256, below PB_PARAM_FILE,
 * so code that knows only the choices finds it out of range too, and
 * pb_param_choice / pb_param_arg take it apart. It prints back canonically
 * (`few:16`, `masked:0.5`), so a printed value parses to the same value. */
#ifndef PB_PARAMS_H
#define PB_PARAMS_H

#include <stdbool.h>

#include "config/data_file.h"
#include "core/module.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fills every parameter with its default. */
void pb_params_defaults(const pb_module *m, pb_params *out);

/* Room for any parameter's text, a resolved `file:` path included. */
#define PB_PARAM_TEXT_MAX (PB_DATA_PATH_MAX + 8)

/* The value of an enum parameter naming data file `id`. */
#define PB_PARAM_FILE (1LL << 40)

/* Sets parameter `name` from its text; the error names the parameter, the
 * offending value and what would have been accepted. A relative `file:`
 * path is resolved against the current directory. */
int pb_params_set(const pb_module *m, pb_params *p, const char *name, const char *value,
                  pb_err *err);
/* The same, resolving a relative `file:` path against base_dir (a config's
 * directory; NULL or "": the current one). */
int pb_params_set_at(const pb_module *m, pb_params *p, const char *name, const char *value,
                     const char *base_dir, pb_err *err);

/* The value of choice `idx` (< 256) with argument `arg` (0 .. 2^32 - 2). */
#define PB_PARAM_ARG_VALUE(idx, arg) ((((long long)(arg) + 1) << 8) | (long long)(idx))
/* An enum value's choice index (a data file's value: -1). */
long long pb_param_choice(long long v);
/* An enum value's argument, or -1 when it has none (a plain choice, a file). */
long long pb_param_arg(long long v);
/* Whether choice `idx` of `choices` takes an argument (is written `name:X`);
 * *fraction says whether it is a fraction (`name:F`). */
bool pb_choice_takes_arg(const char *choices, long long idx, bool *fraction);

/* Whether the enum takes `file:PATH` (its choices end in PB_CHOICE_FILE). */
bool pb_param_takes_file(const pb_param_spec *s);
/* The data file an enum value names, or NULL when it is a choice's index. */
pb_data_file *pb_param_file(long long v);

/* "a|b|c" -> the index of `value` in it, or -1. */
int pb_choice_index(const char *choices, const char *value);
/* The text of choice `idx` into buf. */
const char *pb_choice_name(const char *choices, long long idx, char *buf, size_t len);

/* One parameter's value as text ("24", "lcg", "yes", "file:/abs/keys.bin";
 * PB_PARAM_TEXT_MAX holds any). */
const char *pb_param_format(const pb_param_spec *s, long long v, char *buf, size_t len);

/* The accepted range or choices as text ("0..4096", "varphilox|lcg"). */
const char *pb_param_range(const pb_param_spec *s, char *buf, size_t len);

/* Parses a decimal integer (with an optional 2^k form); false if malformed. */
bool pb_parse_ll(const char *text, long long *out);

#ifdef __cplusplus
}
#endif

#endif

/* `permbench quality --input FILE --n N ...`: the options as an external
 * input (quality/qinput.h), its default sample count, and the lines that
 * say what is tested. */
#ifndef PB_APP_QUALITY_INPUT_H
#define PB_APP_QUALITY_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "quality/quality_config.h"

typedef struct pb_input_opts {
    const char *path, *n, *format, *count, *label; /* as given; NULL: absent */
} pb_input_opts;

/* The options as an input, checked, and --count (0 if absent); 0, or 2
 * with the one-line message printed. */
int pb_input_parse(const pb_input_opts *o, pb_qinput *q, uint64_t *count);

/* Without --count and a config, the sample count is every row of the
 * input, which must then be countable ahead (not a pipe): which tests run
 * depends on it. 0, or 2 with the message printed. */
int pb_input_rows(const pb_qinput *q, uint64_t *count);

/* "# input perms from perms.u32 (u32, n = 5) -> DIR (alpha = ...): chisq
 * (100000 samples) ...", and for the release battery's tests the ones
 * that do not apply at n, with why, on stdout (stderr is for errors). */
void pb_input_header(const pb_quality_config *cfg, const char *dir, bool own_tests);

#endif

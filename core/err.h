/* Error messages that travel up to the one line the CLI prints. */
#ifndef PB_ERR_H
#define PB_ERR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_err {
    char msg[512];
} pb_err;

#if defined(__GNUC__)
#define PB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PB_PRINTF(a, b)
#endif

/* Sets the message (if err is not NULL) and returns -1, so callers can write
 * `return pb_err_set(err, ...)`. */
int pb_err_set(pb_err *err, const char *fmt, ...) PB_PRINTF(2, 3);

/* Prefixes an existing message with more context ("file:line: " ...). */
void pb_err_prefix(pb_err *err, const char *fmt, ...) PB_PRINTF(2, 3);

#ifdef __cplusplus
}
#endif

#endif

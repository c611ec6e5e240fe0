#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int pb_err_set(pb_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

void pb_err_prefix(pb_err *err, const char *fmt, ...)
{
    if (!err) return;
    char head[128], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Concatenate by hand: the message may be cut, which is fine here. */
    size_t h = strlen(head), o = strnlen(old, sizeof err->msg - 1 - h);
    memcpy(err->msg, head, h);
    memcpy(err->msg + h, old, o);
    err->msg[h + o] = '\0';
}

#include "core/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A message is one line whatever it quotes: text from a file (a path
 * recorded in results.json, jansson's "near '...'" excerpt of a broken
 * document) may hold line breaks or other control characters, and each is
 * shown as '?'. The fuzz campaign found both through compare and --resume;
 * doing it here keeps every reader's messages to the rule at once. */
static void one_line(char *msg)
{
    for (; *msg; msg++)
        if ((unsigned char)*msg < 0x20 || *msg == 0x7f) *msg = '?';
}

int pb_err_set(pb_err *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        one_line(err->msg);
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
    one_line(err->msg);
}

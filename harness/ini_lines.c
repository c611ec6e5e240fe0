#include "harness/ini_lines.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "harness/config.h"

char *pb_ini_next_line(pb_ini_lines *in, char *str, int num, bool *too_long)
{
    if (!*in->cursor) return NULL;
    const char *nl = strchr(in->cursor, '\n');
    size_t len = nl ? (size_t)(nl - in->cursor + 1) : strlen(in->cursor);
    size_t whole = len;
    in->line++;
    *too_long = len >= (size_t)num;
    if (*too_long) len = (size_t)num - 1;
    memcpy(str, in->cursor, len);
    str[len] = '\0';
    in->cursor += whole;
    return str;
}

bool pb_ini_section_name(const char *line, char *name, size_t len)
{
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (*p != '[') return false;
    const char *end = strchr(p, ']');
    if (!end) return false;
    snprintf(name, len, "%.*s", (int)(end - p - 1), p + 1);
    return true;
}

bool pb_label_valid(const char *s)
{
    if (!*s || strlen(s) >= PB_LABEL_MAX) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._+-", *s)) return false;
    return true;
}

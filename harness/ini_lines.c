#include "harness/ini_lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

int pb_ini_read_file(const char *path, char **out, char *name, size_t namelen, pb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return pb_err_set(err, "%s: cannot open config: %s", path, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *t = cap > (1u << 24) ? NULL : realloc(text, cap);
            if (!t) {
                fclose(f);
                free(text);
                return pb_err_set(err, "%s: config larger than 16 MiB or out of memory", path);
            }
            text = t;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        return pb_err_set(err, "%s: cannot read config", path);
    }
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        free(text);
        return pb_err_set(err, "%s: not a text file", path);
    }
    const char *base = strrchr(path, '/');
    snprintf(name, namelen, "%s", base ? base + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".ini") == 0) *dot = '\0';
    *out = text;
    return 0;
}

int pb_ini_sections_open(pb_ini_sections *ss, const char *name, int line, pb_err *err)
{
    for (int i = 0; i < ss->n; i++)
        if (strcmp(ss->sec[i].name, name) == 0)
            return pb_err_set(err, "section [%s] appears twice", name);
    if (ss->n == PB_INI_MAX_SECTIONS)
        return pb_err_set(err, "too many module sections (at most %d)", PB_INI_MAX_SECTIONS);
    pb_ini_section *s = &ss->sec[ss->n++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->line = line;
    s->nkeys = 0;
    return 0;
}

int pb_ini_sections_add(pb_ini_sections *ss, const char *section, const char *name,
                        const char *value, int line, pb_err *err)
{
    pb_ini_section *s = NULL;
    for (int i = 0; i < ss->n; i++)
        if (strcmp(ss->sec[i].name, section) == 0) s = &ss->sec[i];
    if (!s) return 0;
    for (int i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i].name, name) == 0)
            return pb_err_set(err, "key '%s' given twice in [%s]", name, section);
    if (s->nkeys == PB_INI_MAX_KEYS) return pb_err_set(err, "too many keys in [%s]", section);
    pb_ini_key *k = &s->keys[s->nkeys++];
    snprintf(k->name, sizeof k->name, "%s", name);
    snprintf(k->value, sizeof k->value, "%s", value);
    k->line = line;
    return 0;
}

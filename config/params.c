#include "config/params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/ini.h"

void pb_params_defaults(const pb_module *m, pb_params *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < m->nparams; i++) out->v[i] = m->params[i].def;
}

int pb_choice_index(const char *choices, const char *value)
{
    size_t vl = strlen(value);
    int idx = 0;
    for (const char *p = choices; p && *p; idx++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == vl && strncmp(p, value, len) == 0) return idx;
        p = bar ? bar + 1 : NULL;
    }
    return -1;
}

const char *pb_choice_name(const char *choices, long long idx, char *buf, size_t len)
{
    const char *p = choices;
    for (long long i = 0; p && i < idx; i++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    if (!p) {
        snprintf(buf, len, "?");
        return buf;
    }
    const char *bar = strchr(p, '|');
    int n = bar ? (int)(bar - p) : (int)strlen(p);
    snprintf(buf, len, "%.*s", n, p);
    return buf;
}

bool pb_parse_ll(const char *text, long long *out)
{
    while (*text == ' ' || *text == '\t') text++;
    if (*text == '\0') return false;
    errno = 0;
    char *end;
    long long v = strtoll(text, &end, 10);
    if (errno) return false;
    if (*end == '^') { /* 2^k */
        char *end2;
        long long e = strtoll(end + 1, &end2, 10);
        if (end2 == end + 1 || v != 2 || e < 0 || e > 62) return false;
        v = 1LL << e;
        end = end2;
    }
    while (*end == ' ' || *end == '\t') end++;
    if (*end) return false;
    *out = v;
    return true;
}

bool pb_param_takes_file(const pb_param_spec *s)
{
    if (s->type != PB_PARAM_ENUM || !s->choices) return false;
    size_t l = strlen(s->choices), ml = strlen(PB_CHOICE_FILE);
    return l >= ml && strcmp(s->choices + l - ml, PB_CHOICE_FILE) == 0;
}

pb_data_file *pb_param_file(long long v)
{
    return v >= PB_PARAM_FILE ? pb_data_file_at((long)(v - PB_PARAM_FILE)) : NULL;
}

int pb_params_set(const pb_module *m, pb_params *p, const char *name, const char *value,
                  pb_err *err)
{
    return pb_params_set_at(m, p, name, value, NULL, err);
}

int pb_params_set_at(const pb_module *m, pb_params *p, const char *name, const char *value,
                     const char *base_dir, pb_err *err)
{
    int i = pb_module_param_index(m, name);
    if (i < 0) {
        char list[256] = "";
        size_t off = 0;
        for (size_t k = 0; k < m->nparams && off < sizeof list; k++)
            off += (size_t)snprintf(list + off, sizeof list - off, "%s%s", k ? ", " : "",
                                    m->params[k].name);
        return pb_err_set(err, "module '%s' has no parameter '%s' (it accepts: %s)", m->name, name,
                          m->nparams ? list : "none");
    }
    const pb_param_spec *s = &m->params[i];
    char range[256];
    switch (s->type) {
    case PB_PARAM_INT: {
        long long v;
        if (!pb_parse_ll(value, &v))
            return pb_err_set(err, "parameter '%s' of '%s': '%s' is not an integer", name,
                              m->name, value);
        if (v < s->min || v > s->max)
            return pb_err_set(err, "parameter '%s' of '%s': %lld is outside %s", name, m->name, v,
                              pb_param_range(s, range, sizeof range));
        p->v[i] = v;
        return 0;
    }
    case PB_PARAM_ENUM: {
        if (pb_param_takes_file(s) && strncmp(value, "file:", 5) == 0) {
            pb_err e;
            long id = pb_data_file_intern(value + 5, base_dir, &e);
            if (id < 0) return pb_err_set(err, "parameter '%s' of '%s': %s", name, m->name, e.msg);
            p->v[i] = PB_PARAM_FILE + id;
            return 0;
        }
        int idx = pb_choice_index(s->choices, value);
        if (idx < 0)
            return pb_err_set(err, "parameter '%s' of '%s': '%s' is not one of %s", name, m->name,
                              value, s->choices);
        p->v[i] = idx;
        return 0;
    }
    case PB_PARAM_BOOL: {
        bool b;
        if (!pb_ini_parse_bool(value, &b))
            return pb_err_set(err, "parameter '%s' of '%s': '%s' is not yes or no", name, m->name,
                              value);
        p->v[i] = b;
        return 0;
    }
    }
    return pb_err_set(err, "parameter '%s': unknown type", name);
}

const char *pb_param_format(const pb_param_spec *s, long long v, char *buf, size_t len)
{
    const pb_data_file *f = s->type == PB_PARAM_ENUM ? pb_param_file(v) : NULL;
    if (f) {
        snprintf(buf, len, "file:%s", f->path);
        return buf;
    }
    switch (s->type) {
    case PB_PARAM_ENUM: return pb_choice_name(s->choices, v, buf, len);
    case PB_PARAM_BOOL: snprintf(buf, len, "%s", v ? "yes" : "no"); return buf;
    case PB_PARAM_INT: break;
    }
    snprintf(buf, len, "%lld", v);
    return buf;
}

const char *pb_param_range(const pb_param_spec *s, char *buf, size_t len)
{
    switch (s->type) {
    case PB_PARAM_ENUM: snprintf(buf, len, "%s", s->choices); break;
    case PB_PARAM_BOOL: snprintf(buf, len, "yes|no"); break;
    case PB_PARAM_INT: snprintf(buf, len, "%lld..%lld", s->min, s->max); break;
    }
    return buf;
}

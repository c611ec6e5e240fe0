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

long long pb_param_choice(long long v)
{
    if (v < 0 || v >= PB_PARAM_FILE) return -1;
    return v < 256 ? v : (v & 255);
}

long long pb_param_arg(long long v)
{
    return v >= 256 && v < PB_PARAM_FILE ? (v >> 8) - 1 : -1;
}

/* Choice idx's text: its start and length (0 when there is none). */
static size_t choice_at(const char *choices, long long idx, const char **at)
{
    const char *p = choices;
    for (long long i = 0; p && i < idx; i++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    *at = p;
    if (!p || idx < 0) return 0;
    const char *bar = strchr(p, '|');
    return bar ? (size_t)(bar - p) : strlen(p);
}

bool pb_choice_takes_arg(const char *choices, long long idx, bool *fraction)
{
    const char *at;
    size_t len = choice_at(choices, idx, &at);
    const char *colon = len ? memchr(at, ':', len) : NULL;
    if (!colon || (len == strlen(PB_CHOICE_FILE) && strncmp(at, PB_CHOICE_FILE, len) == 0))
        return false;
    if (fraction) *fraction = len == (size_t)(colon - at) + 2 && colon[1] == 'F';
    return true;
}

/* "0", "1", "0.25", ".5", "1.000": a fraction in [0, 1] with at most 6
 * decimals, in millionths. */
static bool parse_fraction(const char *t, long long *out)
{
    long long whole = 0, frac = 0, scale = 1000000;
    int digits = 0, decimals = 0;
    if (*t >= '0' && *t <= '9') whole = *t++ - '0', digits++;
    if (*t == '.') {
        for (t++; *t >= '0' && *t <= '9'; t++) {
            if (++decimals > 6) return false;
            scale /= 10;
            frac += (*t - '0') * scale;
        }
        if (!decimals) return false;
    }
    if (*t || digits + decimals == 0) return false;
    long long v = whole * 1000000 + frac;
    if (v > 1000000) return false;
    *out = v;
    return true;
}

/* An argument choice's value: `value` is name:ARG. */
static int set_arg_choice(const pb_module *m, const pb_param_spec *s, pb_params *p, int i,
                          const char *value, pb_err *err)
{
    const char *colon = strchr(value, ':');
    size_t nl = (size_t)(colon - value);
    for (long long idx = 0; idx < 256; idx++) {
        const char *at;
        size_t len = choice_at(s->choices, idx, &at);
        bool fraction;
        if (!at) break;
        if (len <= nl || strncmp(at, value, nl + 1) != 0 ||
            !pb_choice_takes_arg(s->choices, idx, &fraction))
            continue;
        long long a;
        if (fraction ? !parse_fraction(colon + 1, &a)
                     : !pb_parse_ll(colon + 1, &a) || a < 1 || a > (1LL << 31))
            return pb_err_set(err, "parameter '%s' of '%s': '%s' takes %s after '%.*s:', not '%s'",
                              s->name, m->name, value,
                              fraction ? "a fraction in [0, 1] with at most 6 decimals"
                                       : "an integer in 1..2^31",
                              (int)nl, value, colon + 1);
        p->v[i] = PB_PARAM_ARG_VALUE(idx, a);
        return 0;
    }
    return pb_err_set(err, "parameter '%s' of '%s': '%s' is not one of %s", s->name, m->name,
                      value, s->choices);
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
        if (strchr(value, ':')) return set_arg_choice(m, s, p, i, value, err);
        int idx = pb_choice_index(s->choices, value);
        size_t vl = strlen(value);
        for (long long c = 0; idx < 0 && c < 256; c++) { /* `few` for few:L */
            const char *at;
            size_t len = choice_at(s->choices, c, &at);
            if (!at) break;
            if (len > vl && at[vl] == ':' && strncmp(at, value, vl) == 0 &&
                pb_choice_takes_arg(s->choices, c, NULL))
                return pb_err_set(err, "parameter '%s' of '%s': '%s' needs its argument (%.*s)",
                                  name, m->name, value, (int)len, at);
        }
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
    long long arg = s->type == PB_PARAM_ENUM ? pb_param_arg(v) : -1;
    bool fraction = false;
    if (arg >= 0 && pb_choice_takes_arg(s->choices, pb_param_choice(v), &fraction)) {
        const char *at;
        size_t cl = choice_at(s->choices, pb_param_choice(v), &at);
        int nl = (int)((const char *)memchr(at, ':', cl) - at);
        if (!fraction) {
            snprintf(buf, len, "%.*s:%lld", nl, at, arg);
        } else if (arg % 1000000 == 0) {
            snprintf(buf, len, "%.*s:%lld", nl, at, arg / 1000000);
        } else {
            char d[16];
            snprintf(d, sizeof d, "%06lld", arg);
            for (int e = 5; e > 0 && d[e] == '0'; e--) d[e] = '\0';
            snprintf(buf, len, "%.*s:0.%s", nl, at, d);
        }
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

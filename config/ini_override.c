#include "config/ini_override.h"

#include <stdlib.h>
#include <string.h>

static const char *const *defs;
static size_t ndefs;

void pb_ini_set_overrides(const char *const *d, size_t n)
{
    defs = d;
    ndefs = n;
}

/* SECTION.KEY=VALUE: the key is what follows the last '.' before '=', as a
 * section name may hold dots and a key may not. */
static int split(const char *def, char *sec, size_t slen, char *key, size_t klen, const char **value)
{
    const char *eq = strchr(def, '=');
    if (!eq) return -1;
    const char *dot = NULL;
    for (const char *p = def; p < eq; p++)
        if (*p == '.') dot = p;
    if (!dot || dot == def || dot + 1 == eq) return -1;
    if ((size_t)(dot - def) >= slen || (size_t)(eq - dot - 1) >= klen) return -1;
    memcpy(sec, def, (size_t)(dot - def));
    sec[dot - def] = '\0';
    memcpy(key, dot + 1, (size_t)(eq - dot - 1));
    key[eq - dot - 1] = '\0';
    for (char *p = key; *p; p++)
        if (*p == ' ' || *p == '\t' || *p == '[' || *p == ']') return -1;
    *value = eq + 1;
    return 0;
}

int pb_ini_override_check(const char *def, pb_err *err)
{
    char sec[128], key[128];
    const char *value;
    if (split(def, sec, sizeof sec, key, sizeof key, &value))
        return pb_err_set(err, "-D '%s': expected SECTION.KEY=VALUE (for example sweep.sizes=2^20)", def);
    return 0;
}

static int set_key(pb_ini_section *s, const char *key, const char *value, pb_err *err)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i].name, key) == 0) {
            char *v = strdup(value);
            if (!v) return pb_err_set(err, "out of memory");
            free(s->keys[i].value);
            s->keys[i].value = v;
            return 0;
        }
    if (s->nkeys == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        pb_ini_key *k = realloc(s->keys, cap * sizeof *k);
        if (!k) return pb_err_set(err, "out of memory");
        s->keys = k;
        s->cap = cap;
    }
    pb_ini_key *k = &s->keys[s->nkeys];
    k->name = strdup(key);
    k->value = strdup(value);
    k->line = s->line; /* messages point at the section it went into */
    if (!k->name || !k->value) {
        free(k->name);
        free(k->value);
        return pb_err_set(err, "out of memory");
    }
    s->nkeys++;
    return 0;
}

int pb_ini_apply_overrides(pb_ini *doc, pb_err *err)
{
    for (size_t i = 0; i < ndefs; i++) {
        char sec[128], key[128];
        const char *value;
        if (split(defs[i], sec, sizeof sec, key, sizeof key, &value)) return pb_ini_override_check(defs[i], err);
        pb_ini_section *s = NULL;
        if (doc->head.line && doc->head.name && strcmp(doc->head.name, sec) == 0) s = &doc->head;
        for (size_t k = 0; !s && k < doc->nsecs; k++)
            if (strcmp(doc->secs[k].name, sec) == 0) s = &doc->secs[k];
        if (!s) return pb_err_set(err, "-D %s: %s has no section [%s]", defs[i], doc->path, sec);
        if (set_key(s, key, value, err)) return -1;
        /* The document is no longer the file: its hash says so. */
        for (const char *p = defs[i]; *p; p++) doc->hash = (doc->hash ^ (unsigned char)*p) * 0x100000001b3ULL;
    }
    return 0;
}

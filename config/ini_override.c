#include "config/ini_override.h"

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

int pb_ini_override_get(size_t i, char *sec, size_t slen, char *key, size_t klen, const char **value,
                        const char **def)
{
    if (i >= ndefs) return -1;
    *def = defs[i];
    if (split(defs[i], sec, slen, key, klen, value)) {
        sec[0] = key[0] = '\0';
        *value = NULL; /* checked when set; a caller reports it as malformed */
    }
    return 0;
}

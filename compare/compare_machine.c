/* The machine state both runs recorded, flattened to lines for the
 * provenance table: every number, string or truth value under the run's
 * "machine" object, by its path. The object's fields are the measuring
 * side's to name (load average, steal, busy, governor, GPU clocks and
 * throttle reasons, before and after); this file shows whatever is there,
 * so a field added there shows here without an edit. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "compare/compare.h"

static json_t *machine_of(json_t *root)
{
    json_t *m = json_object_get(root, "machine");
    return m ? m : json_object_get(json_object_get(root, "provenance"), "machine");
}

static void text_of(json_t *v, char *buf, size_t len)
{
    if (json_is_string(v)) snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_integer(v)) snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v)) snprintf(buf, len, "%.4g", json_real_value(v));
    else if (json_is_boolean(v)) snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
    else snprintf(buf, len, "-");
    /* One line each: no control characters from the file. */
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
}

static pb_cmp_machine_line *line_for(pb_compare *c, const char *path)
{
    for (size_t i = 0; i < c->nmachine; i++)
        if (strcmp(c->machine[i].what, path) == 0) return &c->machine[i];
    if (c->nmachine == PB_CMP_MACHINE_MAX) return NULL;
    pb_cmp_machine_line *l = &c->machine[c->nmachine++];
    snprintf(l->what, sizeof l->what, "%s", path);
    snprintf(l->base, sizeof l->base, "-");
    snprintf(l->new_, sizeof l->new_, "-");
    return l;
}

/* Every scalar under v, depth first, objects by key and arrays by index. */
static void walk(pb_compare *c, json_t *v, const char *path, bool is_new, int depth)
{
    char sub[96];
    if (json_is_object(v) && depth < 6) {
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x)
        {
            snprintf(sub, sizeof sub, "%s.%s", path, k);
            walk(c, x, sub, is_new, depth + 1);
        }
    } else if (json_is_array(v) && depth < 6) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            snprintf(sub, sizeof sub, "%s[%zu]", path, i);
            walk(c, json_array_get(v, i), sub, is_new, depth + 1);
        }
    } else if (!json_is_object(v) && !json_is_array(v) && !json_is_null(v)) {
        pb_cmp_machine_line *l = line_for(c, path);
        if (l) text_of(v, is_new ? l->new_ : l->base, sizeof l->base);
    }
}

int pb_compare_machine(pb_compare *c, pb_err *err)
{
    json_t *b = machine_of(c->base.root), *n = machine_of(c->new_.root);
    if (!b && !n) return 0;
    c->machine = calloc(PB_CMP_MACHINE_MAX, sizeof *c->machine);
    if (!c->machine) return pb_err_set(err, "out of memory");
    if (b && n) {
        walk(c, b, "machine", false, 0);
        walk(c, n, "machine", true, 0);
        return 0;
    }
    /* One side from a permbench that kept no record: one line says so,
     * and the other side's verdict, rather than every value against "-". */
    pb_cmp_machine_line *l = line_for(c, "machine");
    snprintf(b ? l->new_ : l->base, sizeof l->base, "not recorded");
    snprintf(b ? l->base : l->new_, sizeof l->base, "recorded");
    json_t *busy = json_object_get(b ? b : n, "busy");
    if (busy) {
        l = line_for(c, "machine.busy");
        text_of(busy, b ? l->base : l->new_, sizeof l->base);
    }
    return 0;
}

#include "harness/config.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/ini_lines.h"
#include "harness/params.h"
#include "harness/registry.h"

typedef struct parse_state {
    pb_config *cfg;
    pb_err *err;
    const char *path;
    pb_ini_lines lines; /* the reader's position: the line of every callback */
    bool failed;
    int sweep_line;
    bool seen_sweep;
    char sweep_keys[16][24];
    int nsweep_keys;
    pb_ini_sections secs;
    char family_text[32];
    int reference_line;
} parse_state;

static int fail_at(parse_state *st, int line, const char *fmt, ...) PB_PRINTF(3, 4);

/* Records the first error only (inih goes on calling back after one) and
 * returns 0, which tells inih the line was bad. */
static int fail_at(parse_state *st, int line, const char *fmt, ...)
{
    if (!st->failed) {
        char msg[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        pb_err_set(st->err, "%s:%d: %s", st->path, line, msg);
        st->failed = true;
    }
    return 0;
}

static char *reader(char *str, int num, void *stream)
{
    parse_state *st = stream;
    bool too_long;
    if (!pb_ini_next_line(&st->lines, str, num, &too_long)) return NULL;
    if (too_long) fail_at(st, st->lines.line, "line longer than 199 characters");
    char name[128];
    if (!pb_ini_section_name(str, name, sizeof name)) return str;
    if (strcmp(name, "sweep") == 0) {
        if (st->seen_sweep) fail_at(st, st->lines.line, "section [%s] appears twice", name);
        st->seen_sweep = true;
        st->sweep_line = st->lines.line;
    } else if (!pb_label_valid(name)) {
        fail_at(st, st->lines.line,
                "bad section name [%s]: a label is 1-47 letters, digits, '.', '_', '+' or '-'",
                name);
    } else {
        pb_err e;
        if (pb_ini_sections_open(&st->secs, name, st->lines.line, &e))
            fail_at(st, st->lines.line, "%s", e.msg);
    }
    return str;
}

static const char *const sweep_keys[] = {
    "family",  "sizes",   "item",        "seed",     "warmup",           "min_samples",
    "max_samples", "min_time", "timeout", "flush_cache", "skip_unavailable", "ceilings",
    "plot",    "title",   "reference",
};

static int sweep_key(parse_state *st, const char *name, const char *value)
{
    pb_config *c = st->cfg;
    pb_err e;
    bool known = false;
    for (size_t i = 0; i < sizeof sweep_keys / sizeof sweep_keys[0]; i++)
        known |= strcmp(name, sweep_keys[i]) == 0;
    if (!known)
        return fail_at(st, st->lines.line,
                       "unknown key '%s' in [sweep] (known: family, sizes, item, seed, warmup, "
                       "min_samples, max_samples, min_time, timeout, flush_cache, "
                       "skip_unavailable, ceilings, plot, title, reference)",
                       name);
    /* A repeated key is a mistake, except `sizes`, which inih also hands over
     * again for each continuation line of a long list. */
    if (strcmp(name, "sizes") != 0) {
        for (int i = 0; i < st->nsweep_keys; i++)
            if (strcmp(st->sweep_keys[i], name) == 0)
                return fail_at(st, st->lines.line, "key '%s' given twice in [sweep]", name);
        if (st->nsweep_keys < 16) snprintf(st->sweep_keys[st->nsweep_keys++], 24, "%s", name);
    }

    long long v;
    bool b;
    char *end;
    if (strcmp(name, "family") == 0) {
        if (strcmp(value, "shuffle") == 0) c->family = PB_FAMILY_SHUFFLE;
        else if (strcmp(value, "multisplit") == 0) c->family = PB_FAMILY_MULTISPLIT;
        else if (strcmp(value, "topk") == 0) c->family = PB_FAMILY_TOPK;
        else return fail_at(st, st->lines.line, "family '%s' is not shuffle, multisplit or topk", value);
        snprintf(st->family_text, sizeof st->family_text, "%s", value);
    } else if (strcmp(name, "sizes") == 0) {
        if (pb_sizes_parse(value, c->sizes, &c->nsizes, PB_MAX_SIZES, &e))
            return fail_at(st, st->lines.line, "%s", e.msg);
    } else if (strcmp(name, "item") == 0) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s", value);
        c->nitems = 0;
        char *save = NULL;
        for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
            /* Multisplit names its two widths: 32-bit keys, or key-value pairs. */
            unsigned bytes = strcmp(t, "u32") == 0 || strcmp(t, "keys") == 0   ? 4
                             : strcmp(t, "u64") == 0 || strcmp(t, "pairs") == 0 ? 8
                                                                              : 0;
            if (!bytes)
                return fail_at(st, st->lines.line, "item type '%s' is not u32, u64, keys or pairs",
                               t);
            if (c->nitems == 2 || (c->nitems == 1 && c->items[0] == bytes))
                return fail_at(st, st->lines.line, "item list '%s': give each width once", value);
            c->items[c->nitems++] = bytes;
        }
        if (!c->nitems) return fail_at(st, st->lines.line, "empty item list");
    } else if (strcmp(name, "seed") == 0) {
        errno = 0;
        unsigned long long s = strtoull(value, &end, 0);
        if (errno || end == value || *end || value[0] == '-')
            return fail_at(st, st->lines.line, "seed '%s' is not an unsigned 64-bit integer", value);
        c->seed = s;
    } else if (strcmp(name, "warmup") == 0 || strcmp(name, "min_samples") == 0 ||
               strcmp(name, "max_samples") == 0) {
        long long lo = strcmp(name, "warmup") == 0 ? 0 : 1;
        if (!pb_parse_ll(value, &v) || v < lo || v > 1000000)
            return fail_at(st, st->lines.line, "%s '%s' is not an integer in range", name, value);
        if (strcmp(name, "warmup") == 0) c->warmup = (int)v;
        else if (strcmp(name, "min_samples") == 0) c->min_samples = (int)v;
        else c->max_samples = (int)v;
    } else if (strcmp(name, "min_time") == 0 || strcmp(name, "timeout") == 0) {
        errno = 0;
        double d = strtod(value, &end);
        while (*end == ' ') end++;
        if (errno || end == value || (*end && strcmp(end, "s") != 0) || !(d >= 0) || d > 86400)
            return fail_at(st, st->lines.line, "%s '%s' is not a time in seconds", name, value);
        if (strcmp(name, "min_time") == 0) c->min_time = d;
        else c->timeout = d;
    } else if (strcmp(name, "flush_cache") == 0 || strcmp(name, "skip_unavailable") == 0) {
        if (!pb_parse_bool(value, &b))
            return fail_at(st, st->lines.line, "%s '%s' is not yes or no", name, value);
        if (strcmp(name, "flush_cache") == 0) c->flush_cache = b;
        else c->skip_unavailable = b;
    } else if (strcmp(name, "ceilings") == 0) {
        if (strcmp(value, "auto") == 0) c->ceilings_auto = true;
        else if (strcmp(value, "none") == 0) c->ceilings_auto = false;
        else return fail_at(st, st->lines.line, "ceilings '%s' is not auto or none", value);
    } else if (strcmp(name, "plot") == 0) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s", value);
        c->nplots = 0;
        char *save = NULL;
        for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
            if (strcmp(t, "none") == 0) continue;
            static const char *const kinds[] = {"throughput", "throughput-pow2", "pct-copy",
                                                "axis", "axis-speedup", "axis-time"};
            bool ok = false;
            for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) ok |= strcmp(t, kinds[k]) == 0;
            if (!ok)
                return fail_at(st, st->lines.line,
                               "plot kind '%s' is not throughput, throughput-pow2, pct-copy, axis, "
                               "axis-speedup, axis-time or none",
                               t);
            if (c->nplots == PB_MAX_PLOTS)
                return fail_at(st, st->lines.line, "too many plot kinds in '%s'", value);
            snprintf(c->plots[c->nplots++], 32, "%s", t);
        }
    } else if (strcmp(name, "title") == 0) {
        snprintf(c->title, sizeof c->title, "%s", value);
    } else if (strcmp(name, "reference") == 0) {
        if (!pb_label_valid(value))
            return fail_at(st, st->lines.line, "reference '%s' is not a label", value);
        snprintf(c->reference, sizeof c->reference, "%s", value);
        st->reference_line = st->lines.line;
    }
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (st->failed) return 1;
    if (section[0] == '\0')
        return fail_at(st, st->lines.line, "key '%s' outside any section (start with [sweep])", name);
    if (strcmp(section, "sweep") == 0) return sweep_key(st, name, value);
    pb_err e;
    if (pb_ini_sections_add(&st->secs, section, name, value, st->lines.line, &e))
        return fail_at(st, st->lines.line, "%s", e.msg);
    return 1;
}

/* Splits a comma-separated list in place; returns the number of items. */
static int split_list(char *buf, char **items, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ' || *t == '\t') t++;
        char *e = t + strlen(t);
        while (e > t && (e[-1] == ' ' || e[-1] == '\t')) *--e = '\0';
        if (n == max) return max + 1;
        items[n++] = t;
    }
    return n;
}

/* Turns a raw section into its instances: finds its module and sets its
 * parameters, each error naming the line of the offending key. A parameter
 * given as a list makes one instance per value. */
static int resolve_section(parse_state *st, const pb_ini_section *s)
{
    pb_config *cfg = st->cfg;
    pb_err e;
    const char *modname = s->name;
    int modline = s->line;
    const pb_ini_key *axis = NULL;
    for (int i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        if (strcmp(k->name, "module") == 0) {
            modname = k->value;
            modline = k->line;
        } else if (strchr(k->value, ',')) {
            if (axis)
                return fail_at(st, k->line,
                               "[%s] already varies '%s'; one list-valued parameter per section",
                               s->name, axis->name), -1;
            axis = k;
        }
    }
    const pb_module *m = pb_module_find(modname);
    if (!m)
        return fail_at(st, modline, "unknown module '%s' in [%s] (see 'permbench list')", modname,
                       s->name), -1;
    pb_instance base;
    memset(&base, 0, sizeof base);
    snprintf(base.label, sizeof base.label, "%s", s->name);
    snprintf(base.series, sizeof base.series, "%s", s->name);
    base.mod = m;
    base.line = s->line;
    pb_params_defaults(m, &base.params);
    for (int i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        if (strcmp(k->name, "module") == 0 || k == axis) continue;
        if (pb_params_set(m, &base.params, k->name, k->value, &e))
            return fail_at(st, k->line, "%s", e.msg), -1;
        base.given |= 1u << pb_module_param_index(m, k->name);
    }
    char buf[sizeof axis->value], *vals[PB_MAX_INSTANCES];
    int nv = 1;
    if (axis) {
        snprintf(buf, sizeof buf, "%s", axis->value);
        nv = split_list(buf, vals, PB_MAX_INSTANCES);
        if (nv > PB_MAX_INSTANCES) nv = PB_MAX_INSTANCES + 1;
    }
    for (int j = 0; j < nv; j++) {
        if (cfg->ninst == PB_MAX_INSTANCES)
            return fail_at(st, axis ? axis->line : s->line,
                           "too many module instances (at most %d after expanding lists)",
                           PB_MAX_INSTANCES), -1;
        pb_instance *in = &cfg->inst[cfg->ninst];
        *in = base;
        if (axis) {
            const char *v = vals[j];
            if (!*v) return fail_at(st, axis->line, "empty value in the list '%s'", axis->value), -1;
            if (pb_params_set(m, &in->params, axis->name, v, &e))
                return fail_at(st, axis->line, "%s", e.msg), -1;
            in->given |= 1u << pb_module_param_index(m, axis->name);
            if (strlen(axis->name) >= sizeof in->axis || strlen(v) >= sizeof in->axis_value)
                return fail_at(st, axis->line, "list value '%s' is too long", v), -1;
            memcpy(in->axis, axis->name, strlen(axis->name) + 1);
            memcpy(in->axis_value, v, strlen(v) + 1);
            int w = snprintf(in->label, sizeof in->label, "%s/%s=%s", s->name, axis->name, v);
            if (w < 0 || (size_t)w >= sizeof in->label)
                return fail_at(st, axis->line, "label '%s/%s=%s' is too long", s->name, axis->name,
                               v), -1;
            for (int k = 0; k < j; k++)
                if (strcmp(vals[k], v) == 0)
                    return fail_at(st, axis->line, "value '%s' appears twice in '%s'", v,
                                   axis->name), -1;
        }
        cfg->ninst++;
    }
    return 0;
}

uint64_t pb_fnv1a64(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

int pb_config_load_text(const char *path, const char *name, const char *text, pb_config *cfg,
                        pb_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    parse_state *st = calloc(1, sizeof *st);
    if (!st) return pb_err_set(err, "out of memory");
    st->cfg = cfg;
    st->err = err;
    st->path = path;
    st->lines.cursor = text;
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    snprintf(cfg->name, sizeof cfg->name, "%s", name);
    cfg->seed = 1;
    cfg->warmup = 1;
    cfg->min_samples = 10;
    cfg->max_samples = 1000;
    cfg->min_time = 0.5;
    cfg->timeout = 60;
    cfg->flush_cache = true;
    cfg->ceilings_auto = true;
    snprintf(cfg->plots[0], 32, "throughput");
    cfg->nplots = 1;

    int rc = ini_parse_stream(reader, st, handler, st);
    if (!st->failed && rc > 0) {
        pb_err_set(err, "%s:%d: malformed line (expected [section], key = value, or a comment)",
                   path, rc);
        st->failed = true;
    } else if (!st->failed && rc < 0) {
        pb_err_set(err, "%s: cannot parse (inih error %d)", path, rc);
        st->failed = true;
    }
    if (!st->failed && !st->seen_sweep) {
        pb_err_set(err, "%s: missing [sweep] section", path);
        st->failed = true;
    }
    if (!st->failed && cfg->nsizes == 0) {
        pb_err_set(err, "%s:%d: [sweep] has no 'sizes'", path, st->sweep_line);
        st->failed = true;
    }
    if (!st->failed && st->secs.n == 0) {
        pb_err_set(err, "%s: no module sections (add one per module instance, e.g. [fisher-yates])",
                   path);
        st->failed = true;
    }
    for (int i = 0; !st->failed && i < st->secs.n; i++) resolve_section(st, &st->secs.sec[i]);
    if (!st->failed && cfg->reference[0]) {
        bool hit = false;
        for (size_t i = 0; i < cfg->ninst; i++)
            hit |= strcmp(cfg->inst[i].label, cfg->reference) == 0 ||
                   strcmp(cfg->inst[i].series, cfg->reference) == 0;
        if (!hit) {
            pb_err_set(err, "%s:%d: reference '%s' is not a section of this file", path,
                       st->reference_line, cfg->reference);
            st->failed = true;
        }
    }

    /* The family: given, or that of the first algorithm (ceilings serve all). */
    if (!st->failed && !st->family_text[0]) {
        cfg->family = cfg->inst[0].mod->family;
        for (size_t i = 0; i < cfg->ninst; i++)
            if (!(cfg->inst[i].mod->flags & PB_MOD_CEILING)) {
                cfg->family = cfg->inst[i].mod->family;
                break;
            }
    }
    for (size_t i = 0; !st->failed && i < cfg->ninst; i++) {
        const pb_instance *in = &cfg->inst[i];
        if (in->mod->family != cfg->family && !(in->mod->flags & PB_MOD_CEILING)) {
            pb_err_set(err, "%s:%d: module '%s' in [%s] is a %s module; this sweep's family is %s",
                       path, in->line, in->mod->name, in->label, pb_family_name(in->mod->family),
                       pb_family_name(cfg->family));
            st->failed = true;
        }
    }
    for (size_t i = 0; !st->failed && i < cfg->nsizes; i++)
        if (cfg->sizes[i] == 0) {
            pb_err_set(err, "%s: size 0 cannot be timed; sweep sizes start at 1", path);
            st->failed = true;
        }
    if (!st->failed && cfg->max_samples < cfg->min_samples) {
        pb_err_set(err, "%s: max_samples (%d) is below min_samples (%d)", path, cfg->max_samples,
                   cfg->min_samples);
        st->failed = true;
    }
    if (!st->failed && cfg->nitems == 0) {
        /* The papers' shuffles move 8-byte items; multisplit and top-k keys are 32-bit. */
        cfg->items[0] = cfg->family == PB_FAMILY_SHUFFLE ? 8 : 4;
        cfg->nitems = 1;
    }
    bool failed = st->failed;
    free(st);
    if (failed) return -1;
    cfg->text = strdup(text);
    if (!cfg->text) return pb_err_set(err, "out of memory");
    cfg->hash = pb_fnv1a64(text, strlen(text));
    return 0;
}

int pb_config_load_file(const char *path, pb_config *cfg, pb_err *err)
{
    char *text, name[128];
    if (pb_ini_read_file(path, &text, name, sizeof name, err)) return -1;
    int rc = pb_config_load_text(path, name, text, cfg, err);
    free(text);
    return rc;
}

void pb_config_free(pb_config *cfg)
{
    free(cfg->text);
    cfg->text = NULL;
}

int pb_config_only(pb_config *cfg, const char *list, pb_err *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    bool keep[PB_MAX_INSTANCES] = {0};
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        bool hit = false;
        for (size_t i = 0; i < cfg->ninst; i++)
            if (strcmp(cfg->inst[i].label, t) == 0 || strcmp(cfg->inst[i].series, t) == 0 ||
                strcmp(cfg->inst[i].mod->name, t) == 0)
                keep[i] = hit = true;
        if (!hit) {
            if (pb_module_find(t))
                return pb_err_set(err, "--only: module '%s' is not in %s", t, cfg->path);
            return pb_err_set(err, "--only: unknown module or label '%s' (see 'permbench list')",
                              t);
        }
    }
    size_t o = 0;
    for (size_t i = 0; i < cfg->ninst; i++)
        if (keep[i]) cfg->inst[o++] = cfg->inst[i];
    cfg->ninst = o;
    if (o == 0) return pb_err_set(err, "--only: empty list");
    return 0;
}

static void add_ceiling(pb_config *cfg, const char *modname)
{
    const pb_module *m = pb_module_find(modname);
    if (!m || cfg->ninst == PB_MAX_INSTANCES) return;
    for (size_t i = 0; i < cfg->ninst; i++)
        if (cfg->inst[i].mod == m || strcmp(cfg->inst[i].label, modname) == 0) return;
    /* Ceilings run first, so every later row can show its ratio at once. */
    memmove(&cfg->inst[1], &cfg->inst[0], cfg->ninst * sizeof cfg->inst[0]);
    pb_instance *in = &cfg->inst[0];
    memset(in, 0, sizeof *in);
    snprintf(in->label, sizeof in->label, "%s", modname);
    snprintf(in->series, sizeof in->series, "%s", modname);
    in->mod = m;
    in->automatic = true;
    pb_params_defaults(m, &in->params);
    cfg->ninst++;
}

void pb_config_add_ceilings(pb_config *cfg)
{
    if (!cfg->ceilings_auto) return;
    bool dev[2] = {false, false};
    for (size_t i = 0; i < cfg->ninst; i++) dev[cfg->inst[i].mod->device] = true;
    /* Added in reverse, each at the front: copy ends up first. */
    if (dev[PB_DEVICE_GPU]) {
        if (cfg->family == PB_FAMILY_SHUFFLE) add_ceiling(cfg, "gather");
        add_ceiling(cfg, "copy");
    }
    if (dev[PB_DEVICE_CPU]) {
        if (cfg->family == PB_FAMILY_SHUFFLE) add_ceiling(cfg, "cpu-gather");
        add_ceiling(cfg, "cpu-copy");
    }
}

const char *pb_instance_params_text(const pb_instance *in, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < in->mod->nparams && off < len; i++) {
        char v[64];
        const pb_param_spec *s = &in->mod->params[i];
        off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? " " : "", s->name,
                                pb_param_format(s, in->params.v[i], v, sizeof v));
    }
    return buf;
}

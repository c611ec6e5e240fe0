#include "registry/instance.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"
#include "config/sizes.h"
#include "core/module_aliases.h"
#include "registry/registry.h"

/* `module = a | b | ...`: the first of these that this build has and this
 * machine can run, else the first this build has (whose unavailability is
 * then reported as for any module), else NULL. So one config can name a GPU
 * module and its CPU twin, and run wherever it is. */
static const pb_module *find_module(const char *names)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", names);
    const pb_module *first = NULL;
    char *save = NULL;
    for (char *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
        while (*t == ' ' || *t == '\t') t++;
        for (size_t l = strlen(t); l && (t[l - 1] == ' ' || t[l - 1] == '\t');) t[--l] = '\0';
        const pb_module *m = pb_module_find_named(t);
        if (!m) continue;
        if (pb_module_available(m, NULL, 0)) return m;
        if (!first) first = m;
    }
    return first;
}

/* Whether a key's value is a list, an axis: it has a ',', or a ".." where a
 * range can be (an integer parameter's). A `file:` path may hold "..", and
 * an enum never has ranges, so only integers (and unknown parameters, to
 * be refused as such) read ".." as one. */
static bool is_list(const pb_module *m, const pb_ini_key *k)
{
    if (strchr(k->value, ',')) return true;
    if (!strstr(k->value, "..")) return false;
    int i = pb_module_param_index(m, k->name);
    return i < 0 || m->params[i].type == PB_PARAM_INT;
}

/* Where a key's relative paths start: the config's directory for a line of
 * the file, the current directory for -D on the command line. */
static const char *base_dir(const pb_ini *doc, const pb_ini_key *k)
{
    return k->from_command_line ? "" : doc->dir;
}

static pb_instance *grow(pb_instances *list)
{
    if (list->n == list->cap) {
        size_t cap = list->cap ? 2 * list->cap : 32;
        pb_instance *v = realloc(list->v, cap * sizeof *v);
        if (!v) return NULL;
        list->v = v;
        list->cap = cap;
    }
    return &list->v[list->n];
}

/* An axis's values: each item of the list, integer ranges expanded, each
 * checked against the parameter; and the text each is labelled with:
 * integers in decimal, other values as written, except a data file, whose
 * path would not fit a label (letters, digits, "._+-"): the k-th file of
 * the list is `file<k>` (results give its path in the instance's params);
 * and a choice with an argument, written canonically with '-' for ':'
 * (`few:016` is `few-16`, `masked:.5` is `masked-0.5`). */
typedef struct axis_list {
    long long *v;
    char (*text)[32];
    size_t n;
} axis_list;

static int axis_add(axis_list *out, size_t *cap, const pb_param_spec *s, long long v,
                    const char *text, pb_err *err)
{
    for (size_t k = 0; k < out->n; k++)
        if (out->v[k] == v || strcmp(out->text[k], text) == 0) {
            char shown[PB_PARAM_TEXT_MAX];
            return pb_err_set(err, "value '%s' appears twice in '%s'",
                              pb_param_file(v) ? pb_param_format(s, v, shown, sizeof shown) : text,
                              s->name);
        }
    if (out->n == PB_MAX_INSTANCES)
        return pb_err_set(err, "too many module instances (at most %d after expanding lists)",
                          PB_MAX_INSTANCES);
    if (out->n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        long long *nv = realloc(out->v, c * sizeof *nv);
        if (nv) out->v = nv;
        char(*nt)[32] = nv ? realloc(out->text, c * sizeof *nt) : NULL;
        if (!nt) return pb_err_set(err, "out of memory");
        out->text = nt;
        *cap = c;
    }
    out->v[out->n] = v;
    snprintf(out->text[out->n], sizeof out->text[0], "%s", text);
    out->n++;
    return 0;
}

static int axis_values(const pb_module *m, const pb_ini_key *axis, const char *dir,
                       pb_params *scratch, axis_list *out, pb_err *err)
{
    char **words;
    size_t nwords;
    memset(out, 0, sizeof *out);
    if (pb_ini_words(axis->value, &words, &nwords, err)) return -1;
    int pi = pb_module_param_index(m, axis->name);
    if (pi < 0) { /* the message names what it accepts */
        pb_params_set(m, scratch, axis->name, words[0], err);
        pb_ini_words_free(words, nwords);
        return -1;
    }
    bool integer = m->params[pi].type == PB_PARAM_INT;
    size_t cap = 0, files = 0;
    int rc = 0;
    for (size_t w = 0; w < nwords && !rc; w++) {
        uint64_t range[PB_MAX_INSTANCES + 1];
        size_t nr = 0;
        bool is_range = integer && strstr(words[w], "..");
        if (is_range) {
            pb_err e;
            if (pb_sizes_parse(words[w], range, &nr, PB_MAX_INSTANCES + 1, &e)) {
                rc = pb_err_set(err, "%s: %s", axis->name, e.msg);
                break;
            }
        } else {
            nr = 1;
        }
        for (size_t r = 0; r < nr && !rc; r++) {
            char text[32];
            const char *value = words[w];
            if (is_range) {
                snprintf(text, sizeof text, "%llu", (unsigned long long)range[r]);
                value = text;
            }
            if ((rc = pb_params_set_at(m, scratch, axis->name, value, dir, err))) break;
            long long v = scratch->v[pi];
            if (pb_param_file(v)) snprintf(text, sizeof text, "file%zu", ++files);
            else if (integer) snprintf(text, sizeof text, "%lld", v);
            else if (pb_param_arg(v) >= 0) { /* canonical, ':' (no label's) as '-' */
                char shown[PB_PARAM_TEXT_MAX];
                snprintf(text, sizeof text, "%s",
                         pb_param_format(&m->params[pi], v, shown, sizeof shown));
                for (char *c = text; *c; c++)
                    if (*c == ':') *c = '-';
            }
            else if (snprintf(text, sizeof text, "%s", value) >= (int)sizeof text)
                rc = pb_err_set(err, "list value '%s' is too long", value);
            if (!rc) rc = axis_add(out, &cap, &m->params[pi], v, text, err);
        }
    }
    pb_ini_words_free(words, nwords);
    if (rc) {
        free(out->v);
        free(out->text);
        memset(out, 0, sizeof *out);
    }
    return rc;
}

int pb_instances_add_section(pb_instances *list, const pb_ini *doc, const pb_ini_section *s,
                             pb_err *err)
{
    pb_err e;
    const char *modname = s->name;
    int modline = s->line;
    const pb_ini_key *mk = pb_ini_find(s, "module");
    if (mk) {
        modname = mk->value;
        modline = mk->line;
    }
    const pb_module *m = find_module(modname);
    if (!m)
        return pb_ini_fail(err, doc, modline, "unknown module '%s' in [%s] (see 'permbench list')",
                           modname, s->name);
    /* `seeds`: the harness's, one value (a list of seeds counts is no axis). */
    const pb_ini_key *sk = pb_ini_find(s, "seeds");
    long long seeds = 0;
    if (sk && (!pb_parse_ll(sk->value, &seeds) || seeds < 1 || seeds > PB_MAX_SEEDS))
        return pb_ini_fail(err, doc, sk->line, "seeds '%s' in [%s] is not an integer in 1 .. %d",
                           sk->value, s->name, PB_MAX_SEEDS);
    const pb_ini_key *axis = NULL;
    for (size_t i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        if (k == mk || k == sk || !is_list(m, k)) continue;
        if (axis)
            return pb_ini_fail(err, doc, k->line,
                               "[%s] already varies '%s'; one list-valued parameter per section",
                               s->name, axis->name);
        axis = k;
    }
    pb_instance base;
    memset(&base, 0, sizeof base);
    snprintf(base.label, sizeof base.label, "%s", s->name);
    snprintf(base.series, sizeof base.series, "%s", s->name);
    base.mod = m;
    base.line = s->line;
    base.seeds = (int)seeds;
    base.seeds_line = sk ? sk->line : 0;
    pb_params_defaults(m, &base.params);
    for (size_t i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        if (k == mk || k == sk || k == axis) continue;
        if (pb_params_set_at(m, &base.params, k->name, k->value, base_dir(doc, k), &e))
            return pb_ini_fail(err, doc, k->line, "%s", e.msg);
        base.given |= 1u << pb_module_param_index(m, k->name);
    }
    if (!axis) {
        pb_instance *in = list->n < PB_MAX_INSTANCES ? grow(list) : NULL;
        if (!in)
            return pb_ini_fail(err, doc, s->line,
                               "too many module instances (at most %d after expanding lists)",
                               PB_MAX_INSTANCES);
        *in = base;
        list->n++;
        return 0;
    }
    axis_list vals;
    pb_params scratch = base.params;
    if (axis_values(m, axis, base_dir(doc, axis), &scratch, &vals, &e))
        return pb_ini_fail(err, doc, axis->line, "%s", e.msg);
    int pi = pb_module_param_index(m, axis->name);
    int rc = 0;
    for (size_t j = 0; j < vals.n && !rc; j++) {
        pb_instance *in = list->n < PB_MAX_INSTANCES ? grow(list) : NULL;
        if (!in) {
            rc = pb_ini_fail(err, doc, axis->line,
                             "too many module instances (at most %d after expanding lists)",
                             PB_MAX_INSTANCES);
            break;
        }
        *in = base;
        in->params.v[pi] = vals.v[j]; /* checked by axis_values */
        in->given |= 1u << pi;
        if (strlen(axis->name) >= sizeof in->axis) {
            rc = pb_ini_fail(err, doc, axis->line, "parameter name '%s' is too long for an axis",
                             axis->name);
            break;
        }
        snprintf(in->axis, sizeof in->axis, "%s", axis->name);
        snprintf(in->axis_value, sizeof in->axis_value, "%s", vals.text[j]);
        int w = snprintf(in->label, sizeof in->label, "%s/%s=%s", s->name, axis->name, vals.text[j]);
        if (w < 0 || (size_t)w >= sizeof in->label) {
            rc = pb_ini_fail(err, doc, axis->line, "label '%s/%s=%s' is too long", s->name,
                             axis->name, vals.text[j]);
            break;
        }
        list->n++;
    }
    free(vals.v);
    free(vals.text);
    return rc;
}

pb_instance *pb_instances_insert(pb_instances *list, size_t index, const pb_module *m)
{
    if (index > list->n || !grow(list)) return NULL;
    memmove(&list->v[index + 1], &list->v[index], (list->n - index) * sizeof list->v[0]);
    pb_instance *in = &list->v[index];
    memset(in, 0, sizeof *in);
    snprintf(in->label, sizeof in->label, "%s", m->name);
    snprintf(in->series, sizeof in->series, "%s", m->name);
    in->mod = m;
    in->automatic = true;
    pb_params_defaults(m, &in->params);
    list->n++;
    return in;
}

/* Whether `name`, as a user wrote it, names `have` (a label or series):
 * the same text, or either with an old module name where the other has
 * its new one (a config's old section [radik] and -D gpu-radik.k=..., or
 * the other way round). The old name the user wrote gets its note. */
static bool names(const char *have, const char *name)
{
    if (strcmp(have, name) == 0) return true;
    char a[PB_LABEL_MAX], b[PB_LABEL_MAX];
    const char *ca = pb_module_alias_label(have, a, sizeof a), *cb = pb_module_alias_label(name, b, sizeof b);
    if ((ca == have && cb == name) || strcmp(ca, cb) != 0) return false;
    if (cb != name) {
        snprintf(b, sizeof b, "%.*s", (int)strcspn(name, "/"), name);
        pb_module_alias_note(b);
    }
    return true;
}

long pb_instances_find(const pb_instances *list, const char *label)
{
    for (size_t i = 0; i < list->n; i++)
        if (strcmp(list->v[i].label, label) == 0 || strcmp(list->v[i].series, label) == 0)
            return (long)i;
    for (size_t i = 0; i < list->n; i++)
        if (names(list->v[i].label, label) || names(list->v[i].series, label)) return (long)i;
    return -1;
}

int pb_instances_only(pb_instances *list, const char *only, const char *path, pb_err *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", only);
    bool *keep = calloc(list->n ? list->n : 1, sizeof *keep);
    if (!keep) return pb_err_set(err, "out of memory");
    int rc = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        bool hit = false;
        for (size_t i = 0; i < list->n; i++)
            if (names(list->v[i].label, t) || names(list->v[i].series, t) || names(list->v[i].mod->name, t))
                keep[i] = hit = true;
        if (hit) continue;
        if (pb_module_find_named(t)) rc = pb_err_set(err, "--only: module '%s' is not in %s", t, path);
        else rc = pb_err_set(err, "--only: unknown module or label '%s' (see 'permbench list')", t);
    }
    size_t o = 0;
    for (size_t i = 0; !rc && i < list->n; i++)
        if (keep[i]) list->v[o++] = list->v[i];
    free(keep);
    if (rc) return rc;
    list->n = o;
    if (o == 0) return pb_err_set(err, "--only: empty list");
    return 0;
}

int pb_instances_available(pb_instances *list, bool skip, const char *path, const char *head,
                           void (*skipped)(const pb_instance *in, const char *why, void *user),
                           void *user, pb_err *err)
{
    size_t o = 0;
    for (size_t i = 0; i < list->n; i++) {
        pb_instance *in = &list->v[i];
        char why[256] = "";
        pb_params resolved;
        pb_instance_resolved_params(in, &resolved);
        if (pb_module_available_with(in->mod, &resolved, why, sizeof why)) {
            list->v[o++] = *in;
            continue;
        }
        if (!skip) {
            char where[1100];
            if (in->line) snprintf(where, sizeof where, "%s:%d: [%s] module", path, in->line, in->label);
            else snprintf(where, sizeof where, "%s: module", path);
            return pb_err_set(err, "%s '%s' cannot run here: %s (set skip_unavailable = yes in [%s] to skip it)",
                              where, in->mod->name, why, head);
        }
        if (skipped) skipped(in, why, user);
    }
    list->n = o;
    if (o == 0) return pb_err_set(err, "%s: no module of this config can run here", path);
    return 0;
}

void pb_instances_free(pb_instances *list)
{
    free(list->v);
    memset(list, 0, sizeof *list);
}

int pb_instance_threads(const pb_instance *in)
{
    if (in->mod->device == PB_DEVICE_GPU) return 0;
    int i = pb_module_param_index(in->mod, "threads");
    if (i < 0) return 1;
    long long t = in->params.v[i];
    return t > 0 ? (int)t : omp_get_num_procs();
}

void pb_instance_resolved_params(const pb_instance *in, pb_params *out)
{
    *out = in->params;
    int ti = pb_module_param_index(in->mod, "threads");
    if (ti >= 0) out->v[ti] = pb_instance_threads(in);
}

const char *pb_instance_params_text(const pb_instance *in, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < in->mod->nparams && off < len; i++) {
        char v[PB_PARAM_TEXT_MAX];
        const pb_param_spec *s = &in->mod->params[i];
        off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", i ? " " : "", s->name,
                                pb_param_format(s, in->params.v[i], v, sizeof v));
    }
    return buf;
}

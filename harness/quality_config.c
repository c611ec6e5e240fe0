#include "harness/quality_config.h"

#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/ini_lines.h"
#include "harness/params.h"
#include "harness/registry.h"
#include "stats/chisq.h"
#include "stats/duplicates.h"
#include "stats/lehmer.h"

const char *const pb_qtest_key[PB_QT_KINDS] = {"chisq", "mmd", "duplicates"};

#define MAX_SAMPLES (UINT64_C(1) << 40)
#define MAX_DUP_SAMPLES (UINT64_C(1) << 28) /* 16 bytes each: 4 GiB */

typedef struct parse_state {
    pb_quality_config *cfg;
    pb_err *err;
    const char *path;
    pb_ini_lines lines; /* the reader's position: the line of every callback */
    bool failed;
    bool seen_quality;
    int quality_line;
    char seen_keys[24][24];
    int nseen;
    int samples_line[PB_QT_KINDS];
    pb_ini_sections secs;
} parse_state;

static int fail_at(parse_state *st, int line, const char *fmt, ...) PB_PRINTF(3, 4);

/* Records the first error only and returns 0 (inih: the line was bad). */
static int fail_at(parse_state *st, int line, const char *fmt, ...)
{
    if (!st->failed) {
        char msg[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (line > 0) pb_err_set(st->err, "%s:%d: %s", st->path, line, msg);
        else pb_err_set(st->err, "%s: %s", st->path, msg);
        st->failed = true;
    }
    return 0;
}

/* Hands inih one line at a time (harness/ini_lines.h), so every callback
 * knows its line, and sees section headers even of sections without keys. */
static char *reader(char *str, int num, void *stream)
{
    parse_state *st = stream;
    bool too_long;
    if (!pb_ini_next_line(&st->lines, str, num, &too_long)) return NULL;
    if (too_long) fail_at(st, st->lines.line, "line longer than 199 characters");
    char name[128];
    if (!pb_ini_section_name(str, name, sizeof name)) return str;
    if (strcmp(name, "quality") == 0) {
        if (st->seen_quality) fail_at(st, st->lines.line, "section [quality] appears twice");
        st->seen_quality = true;
        st->quality_line = st->lines.line;
    } else if (strcmp(name, "sweep") == 0) {
        fail_at(st, st->lines.line, "[sweep] belongs to 'permbench run' configs; a quality config "
                              "has a [quality] section");
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

static const char known_keys[] =
    "title, seed, alpha, lambda, batch, gate, skip_unavailable, modules, plot, chisq, "
    "chisq_samples, mmd, mmd_samples, mmd_bounds, duplicates, duplicates_samples";

static int test_kind(const char *name, bool *samples)
{
    for (int k = 0; k < PB_QT_KINDS; k++) {
        size_t l = strlen(pb_qtest_key[k]);
        if (strncmp(name, pb_qtest_key[k], l) != 0) continue;
        if (name[l] == '\0') return *samples = false, k;
        if (strcmp(name + l, "_samples") == 0) return *samples = true, k;
    }
    return -1;
}

static int parse_double(const char *value, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(value, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (errno || end == value || *end || !isfinite(d)) return -1;
    *out = d;
    return 0;
}

static int quality_key(parse_state *st, const char *name, const char *value)
{
    pb_quality_config *c = st->cfg;
    pb_err e;
    bool is_samples = false;
    int kind = test_kind(name, &is_samples);
    static const char *const simple[] = {"title", "seed",  "alpha",   "lambda",    "batch",
                                         "gate",  "skip_unavailable", "modules", "plot",
                                         "mmd_bounds"};
    bool known = kind >= 0;
    for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++) known |= strcmp(name, simple[i]) == 0;
    if (!known) return fail_at(st, st->lines.line, "unknown key '%s' in [quality] (known: %s)", name, known_keys);

    /* A test's n list may continue on indented lines (inih hands each over
     * again under the same key); any other key given twice is a mistake. */
    if (!(kind >= 0 && !is_samples)) {
        for (int i = 0; i < st->nseen; i++)
            if (strcmp(st->seen_keys[i], name) == 0)
                return fail_at(st, st->lines.line, "key '%s' given twice in [quality]", name);
        if (st->nseen < 24) snprintf(st->seen_keys[st->nseen++], 24, "%s", name);
    }

    if (kind >= 0 && !is_samples) {
        pb_qtest_spec *t = &c->test[kind];
        uint64_t v[PB_Q_MAX_N + 1];
        size_t nv = 0;
        if (pb_sizes_parse(value, v, &nv, PB_Q_MAX_N + 1, &e))
            return fail_at(st, st->lines.line, "%s: %s", name, e.msg);
        for (size_t i = 0; i < nv; i++) {
            bool dup = false;
            for (size_t j = 0; j < t->nn; j++) dup |= t->ns[j] == v[i];
            if (dup) continue;
            if (t->nn == PB_Q_MAX_N)
                return fail_at(st, st->lines.line, "%s: at most %d values of n", name, PB_Q_MAX_N);
            t->ns[t->nn++] = v[i];
        }
        if (!t->line) t->line = st->lines.line;
    } else if (kind >= 0) {
        uint64_t v;
        if (pb_size_expr(value, &v, &e)) return fail_at(st, st->lines.line, "%s: %s", name, e.msg);
        if (v < 1 || v > MAX_SAMPLES)
            return fail_at(st, st->lines.line, "%s = %llu: samples must be 1 .. 2^40", name,
                           (unsigned long long)v);
        c->test[kind].samples = v;
        st->samples_line[kind] = st->lines.line;
    } else if (strcmp(name, "title") == 0) {
        snprintf(c->title, sizeof c->title, "%s", value);
    } else if (strcmp(name, "seed") == 0) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(value, &end, 0);
        if (errno || end == value || *end || value[0] == '-')
            return fail_at(st, st->lines.line, "seed '%s' is not an unsigned 64-bit integer", value);
        c->seed = s;
    } else if (strcmp(name, "alpha") == 0) {
        double a;
        if (parse_double(value, &a) || !(a > 0 && a <= 0.5))
            return fail_at(st, st->lines.line, "alpha '%s' is not a level in (0, 0.5]", value);
        c->alpha = a;
    } else if (strcmp(name, "lambda") == 0) {
        double l;
        if (parse_double(value, &l) || !(l > 0 && l <= 1000))
            return fail_at(st, st->lines.line, "lambda '%s' is not a number in (0, 1000]", value);
        c->lambda = l;
    } else if (strcmp(name, "batch") == 0) {
        uint64_t v;
        if (pb_size_expr(value, &v, &e) || v < 1 || v > (UINT64_C(1) << 24))
            return fail_at(st, st->lines.line, "batch '%s' is not a count of permutations in 1 .. 2^24",
                           value);
        c->batch = v;
    } else if (strcmp(name, "gate") == 0 || strcmp(name, "skip_unavailable") == 0) {
        bool b;
        if (!pb_parse_bool(value, &b)) return fail_at(st, st->lines.line, "%s '%s' is not yes or no", name, value);
        if (name[0] == 'g') c->gate = b;
        else c->skip_unavailable = b;
    } else if (strcmp(name, "modules") == 0) {
        if (strcmp(value, "none") == 0) c->modules = PB_QMOD_NONE;
        else if (strcmp(value, "all") == 0) c->modules = PB_QMOD_ALL;
        else if (strcmp(value, "cpu") == 0) c->modules = PB_QMOD_CPU;
        else if (strcmp(value, "gpu") == 0) c->modules = PB_QMOD_GPU;
        else return fail_at(st, st->lines.line, "modules '%s' is not none, all, cpu or gpu", value);
    } else if (strcmp(name, "plot") == 0) {
        if (strcmp(value, "none") == 0) c->plot = false;
        else if (strcmp(value, "sweep") == 0) c->plot = true;
        else return fail_at(st, st->lines.line, "plot '%s' is not sweep or none", value);
    } else if (strcmp(name, "mmd_bounds") == 0) {
        char buf[200];
        snprintf(buf, sizeof buf, "%s", value);
        c->hoeffding = c->clt = false;
        char *save = NULL;
        for (char *t = strtok_r(buf, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
            if (strcmp(t, "hoeffding") == 0) c->hoeffding = true;
            else if (strcmp(t, "clt") == 0) c->clt = true;
            else return fail_at(st, st->lines.line, "mmd bound '%s' is not hoeffding or clt", t);
        }
        if (!c->hoeffding && !c->clt) return fail_at(st, st->lines.line, "mmd_bounds is empty");
    }
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    if (st->failed) return 1;
    if (section[0] == '\0')
        return fail_at(st, st->lines.line, "key '%s' outside any section (start with [quality])", name);
    if (strcmp(section, "quality") == 0) return quality_key(st, name, value);
    pb_err e;
    if (pb_ini_sections_add(&st->secs, section, name, value, st->lines.line, &e))
        return fail_at(st, st->lines.line, "%s", e.msg);
    return 1;
}

static int add_instance(parse_state *st, int line, pb_qinstance **out)
{
    pb_quality_config *c = st->cfg;
    if (c->ninst == PB_Q_MAX_INSTANCES)
        return fail_at(st, line, "too many module instances (at most %d)", PB_Q_MAX_INSTANCES), -1;
    *out = &c->inst[c->ninst++];
    memset(*out, 0, sizeof **out);
    return 0;
}

/* `module = a | b | ...`: the first of these that this build has and this
 * machine can run, else the first this build has (whose unavailability is
 * then reported as for any module), else NULL. So a figure config can name
 * a GPU module and its CPU twin, and run wherever it is. */
static const pb_module *find_module(const char *names)
{
    char buf[200];
    snprintf(buf, sizeof buf, "%s", names);
    const pb_module *first = NULL;
    char *save = NULL;
    for (char *t = strtok_r(buf, "|", &save); t; t = strtok_r(NULL, "|", &save)) {
        while (*t == ' ' || *t == '\t') t++;
        for (size_t l = strlen(t); l && (t[l - 1] == ' ' || t[l - 1] == '\t');) t[--l] = '\0';
        const pb_module *m = pb_module_find(t);
        if (!m) continue;
        char why[256];
        if (pb_module_available(m, why, sizeof why)) return m;
        if (!first) first = m;
    }
    return first;
}

/* A section becomes one instance, or one per value of the parameter it
 * gives a list for. */
static int resolve_section(parse_state *st, const pb_ini_section *s)
{
    pb_err e;
    const char *modname = s->name;
    int modline = s->line;
    const pb_ini_key *list = NULL;
    for (int i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        if (strcmp(k->name, "module") == 0) {
            modname = k->value;
            modline = k->line;
        } else if (strchr(k->value, ',') || strstr(k->value, "..")) {
            if (list)
                return fail_at(st, k->line,
                               "[%s] gives lists for '%s' and '%s': one parameter per section "
                               "may take a list",
                               s->name, list->name, k->name), -1;
            list = k;
        }
    }
    const pb_module *m = find_module(modname);
    if (!m)
        return fail_at(st, modline, "unknown module '%s' in [%s] (see 'permbench list')", modname,
                       s->name), -1;
    if (m->family != PB_FAMILY_SHUFFLE || !m->sample_perms)
        return fail_at(st, modline,
                       "module '%s' in [%s] cannot draw sample permutations: quality tests "
                       "shuffle modules with a sample-permutation path",
                       m->name, s->name), -1;
    pb_params base;
    pb_params_defaults(m, &base);
    unsigned given = 0;
    for (int i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        if (strcmp(k->name, "module") == 0 || k == list) continue;
        if (pb_params_set(m, &base, k->name, k->value, &e)) return fail_at(st, k->line, "%s", e.msg), -1;
        given |= 1u << pb_module_param_index(m, k->name);
    }
    uint64_t values[PB_Q_MAX_INSTANCES + 1];
    size_t nv = 0;
    if (list) {
        int pi = pb_module_param_index(m, list->name);
        if (pi < 0) {
            pb_params_set(m, &base, list->name, list->value, &e); /* names what it accepts */
            return fail_at(st, list->line, "%s", e.msg), -1;
        }
        if (m->params[pi].type != PB_PARAM_INT)
            return fail_at(st, list->line,
                           "parameter '%s' of '%s' takes one value; only integer parameters may "
                           "take a list",
                           list->name, m->name), -1;
        if (pb_sizes_parse(list->value, values, &nv, PB_Q_MAX_INSTANCES + 1, &e))
            return fail_at(st, list->line, "%s: %s", list->name, e.msg), -1;
    }
    for (size_t v = 0; v < (list ? nv : 1); v++) {
        pb_qinstance *qi;
        if (add_instance(st, s->line, &qi)) return -1;
        qi->in.mod = m;
        qi->in.line = s->line;
        qi->in.params = base;
        qi->in.given = given;
        snprintf(qi->group, sizeof qi->group, "%s", s->name);
        if (!list) {
            snprintf(qi->in.label, sizeof qi->in.label, "%s", s->name);
            continue;
        }
        char text[32];
        snprintf(text, sizeof text, "%llu", (unsigned long long)values[v]);
        if (pb_params_set(m, &qi->in.params, list->name, text, &e))
            return fail_at(st, list->line, "%s", e.msg), -1;
        qi->in.given |= 1u << pb_module_param_index(m, list->name);
        snprintf(qi->param, sizeof qi->param, "%s", list->name);
        qi->value = (long long)values[v];
        int l = snprintf(qi->in.label, sizeof qi->in.label, "%s-%s", s->name, text);
        if (l >= (int)sizeof qi->in.label)
            return fail_at(st, s->line, "label '%s-%s' is longer than %d characters", s->name,
                           text, PB_LABEL_MAX - 1), -1;
    }
    return 0;
}

/* modules = all | cpu | gpu: every such module of this build that draws
 * sample permutations, with its defaults, unless a section has its name. */
static int add_all_modules(parse_state *st)
{
    pb_quality_config *c = st->cfg;
    if (c->modules == PB_QMOD_NONE) return 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (m->family != PB_FAMILY_SHUFFLE || !m->sample_perms) continue;
        if (c->modules == PB_QMOD_CPU && m->device != PB_DEVICE_CPU) continue;
        if (c->modules == PB_QMOD_GPU && m->device != PB_DEVICE_GPU) continue;
        bool have = false;
        for (size_t j = 0; j < c->ninst; j++)
            have |= strcmp(c->inst[j].group, m->name) == 0 || strcmp(c->inst[j].in.label, m->name) == 0;
        if (have) continue;
        pb_qinstance *qi;
        if (add_instance(st, 0, &qi)) return -1;
        qi->in.mod = m;
        qi->in.automatic = true;
        pb_params_defaults(m, &qi->in.params);
        snprintf(qi->in.label, sizeof qi->in.label, "%s", m->name);
        snprintf(qi->group, sizeof qi->group, "%s", m->name);
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int check_tests(parse_state *st)
{
    pb_quality_config *c = st->cfg;
    pb_err e;
    int any = 0;
    for (int k = 0; k < PB_QT_KINDS; k++) {
        pb_qtest_spec *t = &c->test[k];
        const char *key = pb_qtest_key[k];
        if (t->nn && !t->samples)
            return fail_at(st, t->line, "'%s' needs '%s_samples' (how many permutations at each n)",
                           key, key);
        if (!t->nn && t->samples)
            return fail_at(st, st->samples_line[k], "'%s_samples' without '%s' (the n to test at)",
                           key, key);
        if (!t->nn) continue;
        any = 1;
        qsort(t->ns, t->nn, sizeof t->ns[0], cmp_u64);
        for (size_t i = 0; i < t->nn; i++) {
            uint64_t n = t->ns[i];
            if (n < 2 || n > UINT32_MAX)
                return fail_at(st, t->line, "%s at n = %llu: n must be 2 .. 2^32-1", key,
                               (unsigned long long)n);
            if (k == PB_QT_CHISQ) {
                if (n > PB_CHISQ_MAX_N)
                    return fail_at(st, t->line,
                                   "chisq at n = %llu: the test counts all n! permutations, so "
                                   "n must be %d .. %d",
                                   (unsigned long long)n, PB_CHISQ_MIN_N, PB_CHISQ_MAX_N);
                uint64_t need = PB_CHISQ_MIN_EXPECTED * pb_factorial((unsigned)n);
                if (t->samples < need)
                    return fail_at(st, st->samples_line[k],
                                   "chisq at n = %llu needs at least %llu samples (%d expected "
                                   "per cell of %llu), not %llu",
                                   (unsigned long long)n, (unsigned long long)need,
                                   PB_CHISQ_MIN_EXPECTED,
                                   (unsigned long long)pb_factorial((unsigned)n),
                                   (unsigned long long)t->samples);
            }
            if (k == PB_QT_DUPLICATES && pb_dups_applicable((uint32_t)n, t->samples, &e))
                return fail_at(st, t->line, "duplicates at n = %llu: %s", (unsigned long long)n,
                               e.msg);
        }
        if (k == PB_QT_DUPLICATES && t->samples > MAX_DUP_SAMPLES)
            return fail_at(st, st->samples_line[k],
                           "duplicates_samples = %llu: at most 2^28 (16 bytes are kept per sample)",
                           (unsigned long long)t->samples);
    }
    if (!any)
        return fail_at(st, st->quality_line, "[quality] names no test (give chisq, mmd or "
                                             "duplicates, with their _samples)");
    return 0;
}

/* Every n the instance will be drawn at must be within its module's reach. */
static int check_instances(parse_state *st)
{
    pb_quality_config *c = st->cfg;
    if (c->ninst == 0)
        return fail_at(st, 0, "no module to test (add a section per module, e.g. [fisher-yates], "
                              "or modules = all in [quality])");
    uint64_t ns[PB_QT_KINDS * PB_Q_MAX_N];
    size_t nn = pb_quality_config_sizes(c, ns, sizeof ns / sizeof ns[0]);
    for (size_t i = 0; i < c->ninst; i++) {
        const pb_qinstance *qi = &c->inst[i];
        if (qi->in.mod->max_n && ns[nn - 1] > qi->in.mod->max_n)
            return fail_at(st, qi->in.line, "[%s] module '%s' supports n up to %llu, not %llu",
                           qi->in.label, qi->in.mod->name, (unsigned long long)qi->in.mod->max_n,
                           (unsigned long long)ns[nn - 1]);
    }
    return 0;
}

size_t pb_quality_config_sizes(const pb_quality_config *cfg, uint64_t *ns, size_t cap)
{
    size_t nn = 0;
    for (int k = 0; k < PB_QT_KINDS; k++)
        for (size_t i = 0; i < cfg->test[k].nn; i++) {
            bool have = false;
            for (size_t j = 0; j < nn; j++) have |= ns[j] == cfg->test[k].ns[i];
            if (!have && nn < cap) ns[nn++] = cfg->test[k].ns[i];
        }
    qsort(ns, nn, sizeof ns[0], cmp_u64);
    return nn;
}

int pb_quality_config_load_text(const char *path, const char *name, const char *text,
                                pb_quality_config *cfg, pb_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    parse_state *st = calloc(1, sizeof *st);
    cfg->inst = calloc(PB_Q_MAX_INSTANCES, sizeof *cfg->inst);
    if (!st || !cfg->inst) {
        free(st);
        free(cfg->inst);
        cfg->inst = NULL;
        return pb_err_set(err, "out of memory");
    }
    st->cfg = cfg;
    st->err = err;
    st->path = path;
    st->lines.cursor = text;
    snprintf(cfg->path, sizeof cfg->path, "%s", path);
    snprintf(cfg->name, sizeof cfg->name, "%s", name);
    cfg->seed = 1;
    cfg->alpha = 0.01;
    cfg->lambda = 5;
    cfg->batch = UINT64_C(1) << 16;
    cfg->gate = true;
    cfg->hoeffding = cfg->clt = true;

    int rc = ini_parse_stream(reader, st, handler, st);
    if (!st->failed && rc > 0)
        fail_at(st, rc, "malformed line (expected [section], key = value, or a comment)");
    else if (!st->failed && rc < 0)
        fail_at(st, 0, "cannot parse (inih error %d)", rc);
    if (!st->failed && !st->seen_quality) fail_at(st, 0, "missing [quality] section");
    if (!st->failed) check_tests(st);
    for (int i = 0; !st->failed && i < st->secs.n; i++) resolve_section(st, &st->secs.sec[i]);
    if (!st->failed) add_all_modules(st);
    if (!st->failed) check_instances(st);
    bool failed = st->failed;
    free(st);
    if (!failed) {
        cfg->text = strdup(text);
        if (!cfg->text) failed = pb_err_set(err, "out of memory") != 0;
    }
    if (failed) {
        free(cfg->inst);
        cfg->inst = NULL;
        return -1;
    }
    cfg->hash = pb_fnv1a64(text, strlen(text));
    return 0;
}

int pb_quality_config_load_file(const char *path, pb_quality_config *cfg, pb_err *err)
{
    char *text, name[128];
    if (pb_ini_read_file(path, &text, name, sizeof name, err)) return -1;
    int rc = pb_quality_config_load_text(path, name, text, cfg, err);
    free(text);
    return rc;
}

void pb_quality_config_free(pb_quality_config *cfg)
{
    free(cfg->text);
    free(cfg->inst);
    cfg->text = NULL;
    cfg->inst = NULL;
    cfg->ninst = 0;
}

int pb_quality_config_only(pb_quality_config *cfg, const char *list, pb_err *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    bool *keep = calloc(cfg->ninst ? cfg->ninst : 1, sizeof *keep);
    if (!keep) return pb_err_set(err, "out of memory");
    char *save = NULL;
    int rc = 0;
    for (char *t = strtok_r(buf, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ') t++;
        bool hit = false;
        for (size_t i = 0; i < cfg->ninst; i++)
            if (strcmp(cfg->inst[i].in.label, t) == 0 || strcmp(cfg->inst[i].group, t) == 0 ||
                strcmp(cfg->inst[i].in.mod->name, t) == 0)
                keep[i] = hit = true;
        if (!hit) {
            if (pb_module_find(t)) rc = pb_err_set(err, "--only: module '%s' is not in %s", t, cfg->path);
            else rc = pb_err_set(err, "--only: unknown module or label '%s' (see 'permbench list')", t);
        }
    }
    size_t o = 0;
    for (size_t i = 0; !rc && i < cfg->ninst; i++)
        if (keep[i]) cfg->inst[o++] = cfg->inst[i];
    free(keep);
    if (rc) return rc;
    cfg->ninst = o;
    if (o == 0) return pb_err_set(err, "--only: empty list");
    return 0;
}

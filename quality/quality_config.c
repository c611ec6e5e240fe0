#include "quality/quality_config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"
#include "config/sizes.h"
#include "families/shuffle/shuffle_hooks.h"
#include "registry/registry.h"

#define MAX_SAMPLES (UINT64_C(1) << 40)

/* ---- [quality] keys ------------------------------------------------------ */

static int set_title(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line, (void)err;
    pb_quality_config *c = u;
    snprintf(c->title, sizeof c->title, "%s", value);
    return 0;
}

static int set_seed(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    if (!pb_ini_parse_u64(value, &((pb_quality_config *)u)->seed))
        return pb_err_set(err, "seed '%s' is not an unsigned 64-bit integer", value);
    return 0;
}

/* A number in (0, hi] for a double of pb_quality_config (a setting's
 * `arg`: where it goes, hi, and what the message calls it). */
typedef struct in_range {
    size_t offset;
    double hi;
    const char *what;
} in_range;

static int set_in_range(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)line;
    const in_range *r = f->arg;
    double d;
    if (!pb_ini_parse_double(value, &d) || !(d > 0 && d <= r->hi))
        return pb_err_set(err, "%s '%s' is not %s in (0, %g]", f->name, value, r->what, r->hi);
    *(double *)((char *)u + r->offset) = d;
    return 0;
}

static const in_range alpha_range = {offsetof(pb_quality_config, settings.alpha), 0.5, "a level"};
static const in_range lambda_range = {offsetof(pb_quality_config, settings.lambda), 1000, "a number"};

static int set_batch(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    uint64_t v;
    pb_err e;
    if (pb_size_expr(value, &v, &e) || v < 1 || v > (UINT64_C(1) << 24))
        return pb_err_set(err, "batch '%s' is not a count of permutations in 1 .. 2^24", value);
    ((pb_quality_config *)u)->batch = v;
    return 0;
}

static int set_flag(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)line;
    pb_quality_config *c = u;
    bool b;
    if (!pb_ini_parse_bool(value, &b)) return pb_err_set(err, "%s '%s' is not yes or no", f->name, value);
    if (strcmp(f->name, "gate") == 0) c->gate = b;
    else c->skip_unavailable = b;
    return 0;
}

static int set_modules(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    static const char *const names[] = {"none", "all", "cpu", "gpu"};
    for (int i = 0; i < 4; i++)
        if (strcmp(value, names[i]) == 0) return ((pb_quality_config *)u)->modules = (pb_qmodules)i, 0;
    return pb_err_set(err, "modules '%s' is not none, all, cpu or gpu", value);
}

static int set_plot(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    pb_quality_config *c = u;
    if (strcmp(value, "none") == 0) c->plot = false;
    else if (strcmp(value, "sweep") == 0) c->plot = true;
    else return pb_err_set(err, "plot '%s' is not sweep or none", value);
    return 0;
}

/* `<test> = N list`: ascending, distinct. */
static int set_test_ns(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    pb_quality_config *c = u;
    size_t k = (size_t)(uintptr_t)f->arg;
    pb_qtest_spec *t = &c->test[k];
    uint64_t v[PB_Q_MAX_N + 1];
    size_t nv = 0;
    pb_err e;
    if (pb_sizes_parse(value, v, &nv, PB_Q_MAX_N + 1, &e)) return pb_err_set(err, "%s: %s", f->name, e.msg);
    for (size_t i = 0; i < nv; i++) {
        if (pb_qtest_spec_has(t, v[i])) continue;
        if (t->nn == PB_Q_MAX_N) return pb_err_set(err, "%s: at most %d values of n", f->name, PB_Q_MAX_N);
        size_t j = t->nn++;
        for (; j > 0 && t->ns[j - 1] > v[i]; j--) t->ns[j] = t->ns[j - 1];
        t->ns[j] = v[i];
    }
    t->line = line;
    return 0;
}

static int set_test_samples(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    pb_quality_config *c = u;
    pb_qtest_spec *t = &c->test[(size_t)(uintptr_t)f->arg];
    uint64_t v;
    pb_err e;
    if (pb_size_expr(value, &v, &e)) return pb_err_set(err, "%s: %s", f->name, e.msg);
    if (v < 1 || v > MAX_SAMPLES)
        return pb_err_set(err, "%s = %llu: samples must be 1 .. 2^40", f->name, (unsigned long long)v);
    t->samples = v;
    t->samples_line = line;
    return 0;
}

/* A test's select_key: which of its results to report. */
static int set_test_select(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)line;
    pb_quality_config *c = u;
    size_t k = (size_t)(uintptr_t)f->arg;
    const pb_qtest *qt = pb_qtest_at(k);
    char **words;
    size_t n;
    if (pb_ini_words(value, &words, &n, err)) return -1;
    unsigned select = 0;
    int rc = 0;
    for (size_t w = 0; w < n && !rc; w++) {
        size_t r = 0;
        while (r < qt->nresults && strcmp(words[w], qt->select_words[r]) != 0) r++;
        if (r == qt->nresults) {
            char known[128];
            size_t off = 0;
            for (size_t i = 0; i < qt->nresults && off < sizeof known; i++)
                off += (size_t)snprintf(known + off, sizeof known - off, "%s%s",
                                        i ? (i + 1 == qt->nresults ? " or " : ", ") : "", qt->select_words[i]);
            rc = pb_err_set(err, "%s '%s' is not %s", f->name, words[w], known);
        }
        select |= 1u << r;
    }
    pb_ini_words_free(words, n);
    if (!rc) c->test[k].select = select;
    return rc;
}

static const pb_ini_field fixed_fields[] = {
    {"title", set_title, NULL},   {"seed", set_seed, NULL},
    {"alpha", set_in_range, &alpha_range},   {"lambda", set_in_range, &lambda_range},
    {"batch", set_batch, NULL},   {"gate", set_flag, NULL},
    {"skip_unavailable", set_flag, NULL}, {"modules", set_modules, NULL},
    {"plot", set_plot, NULL},
};

/* The key names of tests' fields, kept for the table that points at them. */
typedef struct fields {
    pb_ini_field f[sizeof fixed_fields / sizeof fixed_fields[0] + 3 * PB_Q_MAX_TESTS];
    char names[2 * PB_Q_MAX_TESTS][48];
    size_t n;
} fields;

static void build_fields(fields *fs)
{
    memcpy(fs->f, fixed_fields, sizeof fixed_fields);
    fs->n = sizeof fixed_fields / sizeof fixed_fields[0];
    for (size_t k = 0; k < pb_qtest_count() && k < PB_Q_MAX_TESTS; k++) {
        const pb_qtest *qt = pb_qtest_at(k);
        const void *arg = (const void *)(uintptr_t)k;
        snprintf(fs->names[2 * k], sizeof fs->names[0], "%s", qt->name);
        snprintf(fs->names[2 * k + 1], sizeof fs->names[0], "%s_samples", qt->name);
        fs->f[fs->n++] = (pb_ini_field){fs->names[2 * k], set_test_ns, arg};
        fs->f[fs->n++] = (pb_ini_field){fs->names[2 * k + 1], set_test_samples, arg};
        if (qt->select_key) fs->f[fs->n++] = (pb_ini_field){qt->select_key, set_test_select, arg};
    }
}

/* ---- what holds between keys and sections ------------------------------- */

static int check_tests(pb_quality_config *c, const pb_ini *doc, pb_err *err)
{
    bool any = false;
    for (size_t k = 0; k < pb_qtest_count(); k++) {
        const pb_qtest *qt = pb_qtest_at(k);
        pb_qtest_spec *t = &c->test[k];
        if (t->nn && !t->samples)
            return pb_ini_fail(err, doc, t->line, "'%s' needs '%s_samples' (how many permutations at each n)",
                               qt->name, qt->name);
        if (!t->nn && t->samples)
            return pb_ini_fail(err, doc, t->samples_line, "'%s_samples' without '%s' (the n to test at)",
                               qt->name, qt->name);
        if (!t->nn) continue;
        any = true;
        for (size_t i = 0; i < t->nn; i++) {
            uint64_t n = t->ns[i];
            pb_err e;
            if (n < 2 || n > UINT32_MAX)
                return pb_ini_fail(err, doc, t->line, "%s at n = %llu: n must be 2 .. 2^32-1", qt->name,
                                   (unsigned long long)n);
            int bad = qt->applies((uint32_t)n, t->samples, &e);
            if (bad) return pb_ini_fail(err, doc, bad == PB_QT_BAD_N ? t->line : t->samples_line, "%s", e.msg);
        }
    }
    if (!any) {
        char names[256];
        size_t off = 0, nt = pb_qtest_count();
        for (size_t k = 0; k < nt && off < sizeof names; k++)
            off += (size_t)snprintf(names + off, sizeof names - off, "%s%s",
                                    k ? (k + 1 == nt ? " or " : ", ") : "", pb_qtest_at(k)->name);
        return pb_ini_fail(err, doc, doc->head.line, "[quality] names no test (give %s, with their _samples)",
                           names);
    }
    return 0;
}

/* A section's instances, which must draw sample permutations and may vary
 * only an integer parameter (the figures draw statistics against it). */
static int add_section(pb_quality_config *c, const pb_ini *doc, const pb_ini_section *s, pb_err *err)
{
    size_t first = c->inst.n;
    if (pb_instances_add_section(&c->inst, doc, s, err)) return -1;
    const pb_instance *in = &c->inst.v[first];
    const pb_ini_key *mk = pb_ini_find(s, "module");
    /* Timing's key: the battery draws its permutations from the config's
     * seed alone. */
    if (in->seeds_line)
        return pb_ini_fail(err, doc, in->seeds_line,
                           "seeds in [%s] is a key of run configs; quality draws from the [quality] seed",
                           s->name);
    if (!pb_module_sample_perms(in->mod))
        return pb_ini_fail(err, doc, mk ? mk->line : s->line,
                           "module '%s' in [%s] cannot draw sample permutations: quality tests "
                           "modules with a sample-permutation path",
                           in->mod->name, s->name);
    if (in->axis[0]) {
        int pi = pb_module_param_index(in->mod, in->axis);
        if (in->mod->params[pi].type != PB_PARAM_INT)
            return pb_ini_fail(err, doc, pb_ini_find(s, in->axis)->line,
                               "parameter '%s' of '%s' takes one value; only integer parameters may "
                               "take a list",
                               in->axis, in->mod->name);
    }
    return 0;
}

/* modules = all | cpu | gpu: every such module of this build that draws
 * sample permutations, at its defaults, unless a section names it; not
 * those approximately uniform by design, which would fail a uniformity
 * gate at some sample count whatever their quality. */
static int add_all_modules(pb_quality_config *c, pb_err *err)
{
    if (c->modules == PB_QMOD_NONE) return 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (!pb_module_sample_perms(m) || (m->flags & PB_MOD_APPROXIMATE)) continue;
        if (c->modules == PB_QMOD_CPU && m->device != PB_DEVICE_CPU) continue;
        if (c->modules == PB_QMOD_GPU && m->device != PB_DEVICE_GPU) continue;
        if (pb_instances_find(&c->inst, m->name) >= 0) continue;
        if (c->inst.n == PB_MAX_INSTANCES || !pb_instances_insert(&c->inst, c->inst.n, m))
            return pb_err_set(err, "%s: too many module instances (at most %d)", c->path, PB_MAX_INSTANCES);
    }
    return 0;
}

/* Every n an instance is drawn at must be within its module's reach. */
static int check_instances(pb_quality_config *c, const pb_ini *doc, pb_err *err)
{
    if (c->inst.n == 0)
        return pb_ini_fail(err, doc, 0, "no module to test (add a section per module, e.g. [cpu-fisher-yates], "
                                        "or modules = all in [quality])");
    uint64_t ns[PB_Q_MAX_TESTS * PB_Q_MAX_N];
    size_t nn = pb_quality_config_sizes(c, ns, sizeof ns / sizeof ns[0]);
    for (size_t i = 0; i < c->inst.n; i++) {
        const pb_instance *in = &c->inst.v[i];
        if (in->mod->max_n && ns[nn - 1] > in->mod->max_n)
            return pb_ini_fail(err, doc, in->line, "[%s] module '%s' supports n up to %llu, not %llu", in->label,
                               in->mod->name, (unsigned long long)in->mod->max_n, (unsigned long long)ns[nn - 1]);
    }
    return 0;
}

static const pb_ini_dialect dialect = {
    "quality", "sweep", "[sweep] belongs to 'permbench run' configs; a quality config has a [quality] section"};

static int from_doc(pb_ini *doc, pb_quality_config *c, pb_err *err)
{
    memset(c, 0, sizeof *c);
    snprintf(c->path, sizeof c->path, "%s", doc->path);
    snprintf(c->name, sizeof c->name, "%s", doc->name);
    c->seed = 1;
    c->settings.alpha = 0.01;
    c->settings.lambda = 5;
    c->batch = UINT64_C(1) << 16;
    c->gate = true;
    for (size_t k = 0; k < pb_qtest_count(); k++) c->test[k].select = (1u << pb_qtest_at(k)->nresults) - 1;
    fields fs;
    build_fields(&fs);
    int rc = 0;
    if (!doc->head.line) rc = pb_ini_fail(err, doc, 0, "missing [quality] section");
    if (!rc) rc = pb_ini_apply(doc, fs.f, fs.n, c, err);
    if (!rc) rc = check_tests(c, doc, err);
    for (size_t i = 0; !rc && i < doc->nsecs; i++)
        rc = pb_ini_find(&doc->secs[i], "input") ? pb_quality_config_add_input(c, doc, &doc->secs[i], err)
                                                 : add_section(c, doc, &doc->secs[i], err);
    if (!rc) rc = add_all_modules(c, err);
    if (!rc) rc = check_instances(c, doc, err);
    if (rc) {
        pb_instances_free(&c->inst);
        free(c->inputs);
        c->inputs = NULL;
        c->ninputs = 0;
    } else {
        c->text = doc->text;
        c->hash = doc->hash;
        doc->text = NULL;
    }
    pb_ini_free(doc);
    return rc;
}

int pb_quality_config_load_text(const char *path, const char *name, const char *text,
                                pb_quality_config *cfg, pb_err *err)
{
    pb_ini doc;
    memset(cfg, 0, sizeof *cfg);
    if (pb_ini_load_text(path, name, text, &dialect, &doc, err)) return -1;
    return from_doc(&doc, cfg, err);
}

int pb_quality_config_load_file(const char *path, pb_quality_config *cfg, pb_err *err)
{
    pb_ini doc;
    memset(cfg, 0, sizeof *cfg);
    if (pb_ini_load_file(path, &dialect, &doc, err)) return -1;
    return from_doc(&doc, cfg, err);
}

void pb_quality_config_free(pb_quality_config *cfg)
{
    free(cfg->text);
    cfg->text = NULL;
    pb_instances_free(&cfg->inst);
    free(cfg->inputs);
    cfg->inputs = NULL;
    cfg->ninputs = 0;
}

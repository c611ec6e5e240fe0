#include "bench/sweep_config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/plot.h"
#include "config/params.h"
#include "registry/registry.h"

/* What the [sweep] keys set, and what is settled only once the whole file
 * is read (the family may come from the first module, and names the items). */
typedef struct load {
    pb_config *cfg;
    char item_text[200];
    int item_line;
    int reference_line;
    bool family_given;
    int modules_line; /* of `modules`, 0 when not given */
} load;

static int set_family(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    load *l = u;
    char names[128];
    if (!(l->cfg->family = pb_family_find(value)))
        return pb_err_set(err, "family '%s' is not %s", value, pb_family_names_text(names, sizeof names));
    l->family_given = true;
    return 0;
}

static int set_sizes(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    pb_config *c = ((load *)u)->cfg;
    return pb_sizes_parse(value, c->sizes, &c->nsizes, PB_MAX_SIZES, err);
}

static int set_item(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)err;
    load *l = u;
    snprintf(l->item_text, sizeof l->item_text, "%s", value);
    l->item_line = line;
    return 0;
}

static int set_seed(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    if (!pb_ini_parse_u64(value, &((load *)u)->cfg->seed))
        return pb_err_set(err, "seed '%s' is not an unsigned 64-bit integer", value);
    return 0;
}

/* The generic setters' `arg`: where in pb_config the key's value goes
 * (an int for set_count, a double for set_seconds, a bool for set_flag),
 * and the least a count may be. Their messages name the key. */
typedef struct at {
    size_t offset;
    long long lo;
} at;
/* `type` must be the field's: _Generic refuses to compile anything else. */
#define AT(field, type, lo)                                                                        \
    (&(const at){offsetof(pb_config, field) +                                                      \
                     0 * sizeof(_Generic(((pb_config *)0)->field, type: 1)),                       \
                 (lo)})

static void *field_of(void *u, const pb_ini_field *f)
{
    return (char *)((load *)u)->cfg + ((const at *)f->arg)->offset;
}

static int set_count(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)line;
    long long v;
    if (!pb_parse_ll(value, &v) || v < ((const at *)f->arg)->lo || v > 1000000)
        return pb_err_set(err, "%s '%s' is not an integer in range", f->name, value);
    *(int *)field_of(u, f) = (int)v;
    return 0;
}

/* Seconds, with an optional unit "s". */
static int set_seconds(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)line;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", value);
    size_t l = strlen(buf);
    if (l && buf[l - 1] == 's') buf[--l] = '\0';
    double d;
    if (!pb_ini_parse_double(buf, &d) || !(d >= 0) || d > 86400)
        return pb_err_set(err, "%s '%s' is not a time in seconds", f->name, value);
    *(double *)field_of(u, f) = d;
    return 0;
}

static int set_flag(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)line;
    if (!pb_ini_parse_bool(value, field_of(u, f)))
        return pb_err_set(err, "%s '%s' is not yes or no", f->name, value);
    return 0;
}

static int set_max_noise(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    char buf[64];
    snprintf(buf, sizeof buf, "%s", value);
    size_t l = strlen(buf);
    if (l && buf[l - 1] == '%') buf[--l] = '\0';
    double d;
    if (!pb_ini_parse_double(buf, &d) || !(d > 0) || d > 100)
        return pb_err_set(err, "max_noise '%s' is not a percentage in (0, 100]", value);
    ((load *)u)->cfg->max_noise = d / 100;
    return 0;
}

static int set_streams(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    long long v;
    if (!pb_parse_ll(value, &v) || v < 2 || v > 64)
        return pb_err_set(err, "streams '%s' is not an integer in 2 .. 64", value);
    ((load *)u)->cfg->streams = (int)v;
    return 0;
}

static int set_seeds(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    long long v;
    if (!pb_parse_ll(value, &v) || v < 1 || v > PB_MAX_SEEDS)
        return pb_err_set(err, "seeds '%s' is not an integer in 1 .. %d", value, PB_MAX_SEEDS);
    ((load *)u)->cfg->seeds = (int)v;
    return 0;
}

static int set_modules(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f;
    static const char *const names[] = {"none", "all", "cpu", "gpu"};
    load *l = u;
    for (int i = 0; i < 4; i++)
        if (strcmp(value, names[i]) == 0) {
            l->cfg->modules = (pb_sweep_modules)i;
            l->modules_line = line;
            return 0;
        }
    return pb_err_set(err, "modules '%s' is not none, all, cpu or gpu", value);
}

static int set_ceilings(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    pb_config *c = ((load *)u)->cfg;
    if (strcmp(value, "auto") == 0) c->ceilings_auto = true;
    else if (strcmp(value, "none") == 0) c->ceilings_auto = false;
    else return pb_err_set(err, "ceilings '%s' is not auto or none", value);
    return 0;
}

static int set_plot(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    static const char *const kinds[] = {"throughput",   "throughput-pow2", "pct-copy", "latency",
                                        "axis",         "axis-speedup",    "axis-time", "share-one-read"};
    pb_config *c = ((load *)u)->cfg;
    char **words;
    size_t n;
    if (pb_ini_words(value, &words, &n, err)) return -1;
    int rc = 0;
    c->nplots = 0;
    for (size_t w = 0; w < n && !rc; w++) {
        if (strcmp(words[w], "none") == 0) continue;
        bool ok = false;
        for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) ok |= strcmp(words[w], kinds[k]) == 0;
        if (!ok)
            rc = pb_err_set(err, "plot kind '%s' is not throughput, throughput-pow2, pct-copy, latency, "
                                 "axis, axis-speedup, axis-time, share-one-read or none",
                            words[w]);
        else if (c->nplots == PB_MAX_PLOTS)
            rc = pb_err_set(err, "too many plot kinds in '%s'", value);
        else
            snprintf(c->plots[c->nplots++], sizeof c->plots[0], "%s", words[w]);
    }
    pb_ini_words_free(words, n);
    return rc;
}

static int set_title(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f, (void)line;
    pb_config *c = ((load *)u)->cfg;
    /* The title is written into the figures' gnuplot strings: one that
     * `permbench plot` must refuse is refused here, before a run. */
    if (!pb_gnuplot_quotable(value))
        return pb_err_set(err, "title has a quote or control character (figures could not show it)");
    snprintf(c->title, sizeof c->title, "%s", value);
    return 0;
}

static int set_reference(void *u, const pb_ini_field *f, const char *value, int line, pb_err *err)
{
    (void)f;
    load *l = u;
    if (!pb_label_valid(value)) return pb_err_set(err, "reference '%s' is not a label", value);
    snprintf(l->cfg->reference, sizeof l->cfg->reference, "%s", value);
    l->reference_line = line;
    return 0;
}

static const pb_ini_field fields[] = {
    {"family", set_family, NULL},
    {"sizes", set_sizes, NULL},
    {"item", set_item, NULL},
    {"seed", set_seed, NULL},
    {"seeds", set_seeds, NULL},
    {"warmup", set_count, AT(warmup, int, 0)},
    {"min_samples", set_count, AT(min_samples, int, 1)},
    {"max_samples", set_count, AT(max_samples, int, 1)},
    {"min_time", set_seconds, AT(min_time, double, 0)},
    {"timeout", set_seconds, AT(timeout, double, 0)},
    {"max_noise", set_max_noise, NULL},
    {"fail_noisy", set_flag, AT(fail_noisy, bool, 0)},
    {"streams", set_streams, NULL},
    {"flush_cache", set_flag, AT(flush_cache, bool, 0)},
    {"hold", set_flag, AT(hold, bool, 0)},
    {"skip_unavailable", set_flag, AT(skip_unavailable, bool, 0)},
    {"ceilings", set_ceilings, NULL},
    {"modules", set_modules, NULL},
    {"plot", set_plot, NULL},
    {"title", set_title, NULL},
    {"reference", set_reference, NULL},
};

static const pb_ini_dialect dialect = {"sweep", NULL, NULL};

/* The item widths `item` names, among the family's items; its first item
 * when not given. */
static int resolve_items(pb_config *c, const load *l, const pb_ini *doc, pb_err *err)
{
    if (!l->item_line) {
        c->items[0] = c->family->items[0].bytes;
        c->nitems = 1;
        return 0;
    }
    char **words, names[128];
    size_t n;
    pb_err e;
    if (pb_ini_words(l->item_text, &words, &n, &e)) return pb_ini_fail(err, doc, l->item_line, "%s", e.msg);
    int rc = 0;
    c->nitems = 0;
    for (size_t w = 0; w < n && !rc; w++) {
        const pb_item_kind *k = pb_family_item(c->family, words[w]);
        if (!k) {
            rc = pb_ini_fail(err, doc, l->item_line, "item type '%s' is not one of the %s family's: %s",
                             words[w], c->family->name, pb_family_items_text(c->family, names, sizeof names));
            break;
        }
        for (size_t i = 0; i < c->nitems && !rc; i++)
            if (c->items[i] == k->bytes)
                rc = pb_ini_fail(err, doc, l->item_line, "item list '%s': give each width once", l->item_text);
        if (!rc && c->nitems == PB_MAX_ITEMS) rc = pb_ini_fail(err, doc, l->item_line, "too many items");
        if (!rc) c->items[c->nitems++] = k->bytes;
    }
    pb_ini_words_free(words, n);
    return rc;
}

/* Everything after the [sweep] keys: the instances, and what must hold
 * between keys and sections. */
static int resolve(pb_config *c, load *l, const pb_ini *doc, pb_err *err)
{
    if (!doc->head.line) return pb_ini_fail(err, doc, 0, "missing [sweep] section");
    if (pb_ini_apply(doc, fields, sizeof fields / sizeof fields[0], l, err)) return -1;
    if (c->nsizes == 0) return pb_ini_fail(err, doc, doc->head.line, "[sweep] has no 'sizes'");
    if (doc->nsecs == 0 && c->modules == PB_SWEEP_MODULES_NONE)
        return pb_ini_fail(err, doc, 0, "no module sections (add one per module instance, e.g. "
                                        "[cpu-fisher-yates], or modules = all in [sweep])");
    if (c->modules != PB_SWEEP_MODULES_NONE && !l->family_given)
        return pb_ini_fail(err, doc, l->modules_line, "modules = %s needs the sweep's family (family = ...)",
                           c->modules == PB_SWEEP_MODULES_ALL ? "all" : c->modules == PB_SWEEP_MODULES_CPU ? "cpu" : "gpu");
    for (size_t i = 0; i < doc->nsecs; i++)
        if (pb_instances_add_section(&c->inst, doc, &doc->secs[i], err)) return -1;
    /* modules = all | cpu | gpu: every module of the family this build has,
     * at its defaults, unless a section names it; not the ceilings, which
     * `ceilings = auto` adds. */
    for (size_t i = 0; c->modules != PB_SWEEP_MODULES_NONE && i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (m->family != c->family || (m->flags & PB_MOD_CEILING)) continue;
        if ((c->modules == PB_SWEEP_MODULES_CPU && m->device != PB_DEVICE_CPU) ||
            (c->modules == PB_SWEEP_MODULES_GPU && m->device != PB_DEVICE_GPU))
            continue;
        bool named = pb_instances_find(&c->inst, m->name) >= 0;
        for (size_t j = 0; j < c->inst.n && !named; j++) named = c->inst.v[j].mod == m;
        if (named) continue;
        if (c->inst.n == PB_MAX_INSTANCES || !pb_instances_insert(&c->inst, c->inst.n, m))
            return pb_ini_fail(err, doc, l->modules_line, "too many module instances (at most %d)",
                               PB_MAX_INSTANCES);
    }
    if (c->reference[0] && pb_instances_find(&c->inst, c->reference) < 0)
        return pb_ini_fail(err, doc, l->reference_line, "reference '%s' is not a section of this file",
                           c->reference);
    /* The family: given, or that of the first algorithm (ceilings serve all). */
    if (!l->family_given) {
        c->family = c->inst.v[0].mod->family;
        for (size_t i = 0; i < c->inst.n; i++)
            if (!(c->inst.v[i].mod->flags & PB_MOD_CEILING)) {
                c->family = c->inst.v[i].mod->family;
                break;
            }
    }
    for (size_t i = 0; i < c->inst.n; i++) {
        const pb_instance *in = &c->inst.v[i];
        if (in->mod->family != c->family && !(in->mod->flags & PB_MOD_CEILING))
            return pb_ini_fail(err, doc, in->line, "module '%s' in [%s] is a %s module; this sweep's family is %s",
                               in->mod->name, in->label, in->mod->family->name, c->family->name);
    }
    for (size_t i = 0; i < c->nsizes; i++)
        if (c->sizes[i] == 0) return pb_ini_fail(err, doc, 0, "size 0 cannot be timed; sweep sizes start at 1");
    if (c->max_samples < c->min_samples)
        return pb_ini_fail(err, doc, 0, "max_samples (%d) is below min_samples (%d)", c->max_samples,
                           c->min_samples);
    return resolve_items(c, l, doc, err);
}

/* Turns a parsed document into the config; frees the document. */
static int from_doc(pb_ini *doc, pb_config *cfg, pb_err *err)
{
    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->path, sizeof cfg->path, "%s", doc->path);
    snprintf(cfg->name, sizeof cfg->name, "%s", doc->name);
    cfg->seed = 1;
    cfg->seeds = 1;
    cfg->warmup = 1;
    cfg->min_samples = 10;
    cfg->max_samples = 1000;
    cfg->min_time = 0.5;
    cfg->timeout = 60;
    cfg->max_noise = 0.005;
    cfg->streams = 16;
    cfg->flush_cache = true;
    cfg->hold = true;
    cfg->ceilings_auto = true;
    snprintf(cfg->plots[0], sizeof cfg->plots[0], "throughput");
    cfg->nplots = 1;
    load l = {.cfg = cfg};
    int rc = resolve(cfg, &l, doc, err);
    if (rc) {
        pb_instances_free(&cfg->inst);
    } else {
        /* The text outlives the document: results carry it. */
        cfg->text = doc->text;
        cfg->hash = doc->hash;
        doc->text = NULL;
    }
    pb_ini_free(doc);
    return rc;
}

int pb_config_load_text(const char *path, const char *name, const char *text, pb_config *cfg,
                        pb_err *err)
{
    pb_ini doc;
    memset(cfg, 0, sizeof *cfg);
    if (pb_ini_load_text(path, name, text, &dialect, &doc, err)) return -1;
    return from_doc(&doc, cfg, err);
}

int pb_config_load_file(const char *path, pb_config *cfg, pb_err *err)
{
    pb_ini doc;
    memset(cfg, 0, sizeof *cfg);
    if (pb_ini_load_file(path, &dialect, &doc, err)) return -1;
    return from_doc(&doc, cfg, err);
}

void pb_config_free(pb_config *cfg)
{
    free(cfg->text);
    cfg->text = NULL;
    pb_instances_free(&cfg->inst);
}

int pb_config_seeds(const pb_config *cfg, const pb_instance *in)
{
    return in->seeds ? in->seeds : cfg->seeds > 0 ? cfg->seeds : 1;
}

void pb_config_add_ceilings(pb_config *cfg)
{
    if (!cfg->ceilings_auto) return;
    bool dev[2] = {false, false};
    for (size_t i = 0; i < cfg->inst.n; i++) dev[cfg->inst.v[i].mod->device] = true;
    /* Ceilings run first, so every later row can show its ratio at once:
     * inserted in reverse, each at the front. */
    for (int d = PB_DEVICE_GPU; d >= PB_DEVICE_CPU; d--) {
        if (!dev[d]) continue;
        for (int b = PB_NBOUNDS - 1; b > PB_BOUND_NONE; b--) {
            const pb_module *m = pb_bound_module((pb_device)d, (pb_bound)b);
            if (!(cfg->family->bounds & PB_BOUNDS(b)) || !m) continue;
            bool have = false;
            for (size_t i = 0; i < cfg->inst.n; i++)
                have |= cfg->inst.v[i].mod == m || strcmp(cfg->inst.v[i].label, m->name) == 0;
            if (!have) pb_instances_insert(&cfg->inst, 0, m);
        }
    }
}

#include "quality/quality_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sizes.h"
#include "quality/perm_reader.h"

/* An input section (quality/qinput.h): `input`, `n` and `format`, no
 * module and no parameter. A relative path is the config file's
 * neighbour, so a config and its data travel together. */
int pb_quality_config_add_input(pb_quality_config *c, const pb_ini *doc, const pb_ini_section *s, pb_err *err)
{
    pb_qinput q;
    memset(&q, 0, sizeof q);
    snprintf(q.label, sizeof q.label, "%s", s->name);
    q.line = s->line;
    q.format = PB_PERM_U32;
    int nline = 0;
    for (size_t i = 0; i < s->nkeys; i++) {
        const pb_ini_key *k = &s->keys[i];
        pb_err e;
        uint64_t v;
        if (strcmp(k->name, "input") == 0) {
            if (!k->value[0]) return pb_ini_fail(err, doc, k->line, "[%s] input is empty (a file, or - for stdin)", s->name);
            snprintf(q.path, sizeof q.path, "%s", k->value);
        } else if (strcmp(k->name, "n") == 0) {
            if (pb_size_expr(k->value, &v, &e)) return pb_ini_fail(err, doc, k->line, "n: %s", e.msg);
            if (v < 2 || v > UINT32_MAX)
                return pb_ini_fail(err, doc, k->line, "[%s] n = %llu: n must be 2 .. 2^32-1", s->name,
                                   (unsigned long long)v);
            q.n = (uint32_t)v;
            nline = k->line;
        } else if (strcmp(k->name, "format") == 0) {
            if (pb_perm_format_parse(k->value, &q.format, &e)) return pb_ini_fail(err, doc, k->line, "%s", e.msg);
        } else if (strcmp(k->name, "module") == 0) {
            return pb_ini_fail(err, doc, k->line, "[%s] names an input and a module; a section is one or the other",
                               s->name);
        } else {
            return pb_ini_fail(err, doc, k->line, "unknown key '%s' in input section [%s] (input, n, format)",
                               k->name, s->name);
        }
    }
    if (!nline)
        return pb_ini_fail(err, doc, s->line, "[%s] input needs n = N (the length of each permutation)", s->name);
    if (!pb_quality_config_samples_at(c, q.n))
        return pb_ini_fail(err, doc, nline, "[%s] n = %u: [quality] runs no test at n = %u", s->name, q.n, q.n);
    const char *slash = strrchr(doc->path, '/');
    if (strcmp(q.path, "-") == 0 || q.path[0] == '/' || !slash)
        snprintf(q.open_path, sizeof q.open_path, "%s", q.path);
    else
        snprintf(q.open_path, sizeof q.open_path, "%.*s/%s", (int)(slash - doc->path), doc->path, q.path);
    pb_qinput *grown = realloc(c->inputs, (c->ninputs + 1) * sizeof *grown);
    pb_instance *in = grown && c->inst.n < PB_MAX_INSTANCES ? pb_instances_insert(&c->inst, c->inst.n, &pb_qinput_module)
                                                             : NULL;
    if (grown) c->inputs = grown;
    if (!in) return pb_ini_fail(err, doc, s->line, "too many instances");
    c->inputs[c->ninputs++] = q;
    snprintf(in->label, sizeof in->label, "%s", s->name);
    snprintf(in->series, sizeof in->series, "%s", s->name);
    in->line = s->line;
    in->automatic = false;
    return 0;
}

const pb_qinput *pb_quality_config_input(const pb_quality_config *cfg, const pb_instance *in)
{
    if (!pb_instance_is_input(in)) return NULL;
    for (size_t i = 0; i < cfg->ninputs; i++)
        if (strcmp(cfg->inputs[i].label, in->label) == 0) return &cfg->inputs[i];
    return NULL;
}

int pb_quality_config_use_input(pb_quality_config *cfg, const pb_qinput *input, uint64_t count,
                                bool own_tests, pb_err *err)
{
    uint64_t n = input->n;
    bool any = false;
    for (size_t k = 0; k < pb_qtest_count(); k++) {
        pb_qtest_spec *t = &cfg->test[k];
        /* Without a config of the user's, the release battery's own tests
         * (those its config names), not every test there is. */
        if (!t->nn || (own_tests && !pb_qtest_spec_has(t, n))) {
            t->nn = 0;
            continue;
        }
        uint64_t samples = own_tests && !count ? t->samples : count;
        pb_err e;
        if (pb_qtest_at(k)->applies((uint32_t)n, samples, &e)) {
            /* The release battery's tests run where they hold; the user's
             * own must hold with the count asked for. */
            if (own_tests) return pb_err_set(err, "--count %llu: %s", (unsigned long long)count, e.msg);
            t->nn = 0;
            continue;
        }
        t->ns[0] = n;
        t->nn = 1;
        t->samples = samples;
        any = true;
    }
    if (!any && own_tests)
        return pb_err_set(err, "%s: [quality] runs no test at n = %llu (the input's n)", cfg->path,
                          (unsigned long long)n);
    if (!any)
        return pb_err_set(err, "no test of the battery applies at n = %llu with %llu samples",
                          (unsigned long long)n, (unsigned long long)count);
    pb_instances_free(&cfg->inst);
    cfg->modules = PB_QMOD_NONE;
    pb_qinput *one = realloc(cfg->inputs, sizeof *one);
    pb_instance *in = one ? pb_instances_insert(&cfg->inst, 0, &pb_qinput_module) : NULL;
    if (one) cfg->inputs = one;
    if (!in) return pb_err_set(err, "out of memory");
    cfg->inputs[0] = *input;
    cfg->ninputs = 1;
    snprintf(in->label, sizeof in->label, "%s", input->label);
    snprintf(in->series, sizeof in->series, "%s", input->label);
    in->automatic = false;
    return 0;
}

int pb_quality_config_check_inputs(const pb_quality_config *cfg, pb_err *err)
{
    for (size_t i = 0; i < cfg->inst.n; i++) {
        const pb_qinput *q = pb_quality_config_input(cfg, &cfg->inst.v[i]);
        if (!q) continue;
        char where[1200] = "";
        if (q->line) snprintf(where, sizeof where, "%s:%d: [%s] ", cfg->path, q->line, q->label);
        uint64_t rows, need = pb_quality_config_samples_at(cfg, q->n);
        bool known;
        pb_err e;
        if (pb_perm_count_rows(q->open_path, q->path, q->n, q->format, &rows, &known, &e))
            return pb_err_set(err, "%s%s", where, e.msg);
        if (!known || rows >= need) continue;
        char who[256];
        return pb_err_set(err, "%s%s has %llu rows; at n = %u %s %llu", where, q->path, (unsigned long long)rows,
                          q->n, pb_quality_config_needers(cfg, q->n, need, who, sizeof who),
                          (unsigned long long)need);
    }
    return 0;
}

#include "harness/quality_results.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/params.h"
#include "harness/provenance_json.h"

const char *const pb_qcsv_columns[] = {
    "label",     "group",     "module",  "device", "param",   "value",    "n",
    "test",      "samples",   "statistic", "threshold", "p_value", "alpha", "verdict",
    "expected",  "invalid",   "seconds",
};
const size_t pb_qcsv_ncolumns = sizeof pb_qcsv_columns / sizeof pb_qcsv_columns[0];

static void num(FILE *f, double v)
{
    if (isfinite(v)) fprintf(f, "%.10g", v);
}

int pb_quality_write_csv(const char *path, const pb_qrun *run, pb_err *err)
{
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return pb_err_set(err, "cannot write %s: %s", tmp, strerror(errno));
    for (size_t c = 0; c < pb_qcsv_ncolumns; c++) fprintf(f, "%s%s", c ? "," : "", pb_qcsv_columns[c]);
    fputc('\n', f);
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_qrow *r = &run->rows[i];
        const pb_qinstance *qi = r->qi;
        /* Labels and parameter names are [A-Za-z0-9._+-]: no quoting. */
        fprintf(f, "%s,%s,%s,%s,%s,", qi->in.label, qi->group, qi->in.mod->name,
                pb_device_name(qi->in.mod->device), qi->param);
        if (qi->param[0]) fprintf(f, "%lld", qi->value);
        fprintf(f, ",%u,%s,%llu,", r->n, r->test, (unsigned long long)r->r.samples);
        num(f, r->r.statistic);
        fputc(',', f);
        num(f, r->r.threshold);
        fputc(',', f);
        num(f, r->r.p_value);
        fprintf(f, ",%g,%s,", r->alpha, r->error ? "FAIL" : pb_verdict_name(r->r.verdict));
        num(f, r->r.expected);
        fprintf(f, ",%llu,%.3f\n", (unsigned long long)r->r.invalid, r->seconds);
    }
    bool bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        remove(tmp);
        return pb_err_set(err, "cannot write %s", path);
    }
    return 0;
}

json_t *pb_quality_provenance(const pb_quality_config *cfg, int argc, char **argv)
{
    /* The provenance writer reads a sweep config's path, name, hash and
     * text only: lend it those. */
    pb_config *c = calloc(1, sizeof *c);
    if (!c) return json_null();
    snprintf(c->path, sizeof c->path, "%s", cfg->path);
    snprintf(c->name, sizeof c->name, "%s", cfg->name);
    c->text = cfg->text;
    c->hash = cfg->hash;
    json_t *p = pb_provenance_json(c, argc, argv);
    free(c);
    return p;
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static json_t *instance_json(const pb_qinstance *qi)
{
    json_t *params = json_object();
    for (size_t k = 0; k < qi->in.mod->nparams; k++) {
        const pb_param_spec *s = &qi->in.mod->params[k];
        char v[64];
        if (s->type == PB_PARAM_INT) json_object_set_new(params, s->name, json_integer(qi->in.params.v[k]));
        else json_object_set_new(params, s->name, json_string(pb_param_format(s, qi->in.params.v[k], v, sizeof v)));
    }
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:b}", "label", qi->in.label, "group",
                          qi->group, "module", qi->in.mod->name, "device",
                          pb_device_name(qi->in.mod->device), "params", params, "automatic",
                          qi->in.automatic);
    if (qi->param[0]) {
        json_object_set_new(o, "swept_param", json_string(qi->param));
        json_object_set_new(o, "value", json_integer(qi->value));
    }
    return o;
}

static json_t *row_json(const pb_qrow *r)
{
    const char *aux_name = strcmp(r->test, "chisq") == 0        ? "degrees_of_freedom"
                           : strcmp(r->test, "duplicates") == 0 ? "cells"
                                                                : "variance_k";
    const char *exp_name = strcmp(r->test, "chisq") == 0        ? "expected_per_cell"
                           : strcmp(r->test, "duplicates") == 0 ? "expected_repeats"
                                                                : "expected_k";
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:s, s:I, s:I, s:o, s:o, s:o, s:f, s:s, s:o, s:o, "
                          "s:b, s:f}",
                          "label", r->qi->in.label, "group", r->qi->group, "module",
                          r->qi->in.mod->name, "n", (json_int_t)r->n, "test", r->test, "samples",
                          (json_int_t)r->r.samples, "invalid", (json_int_t)r->r.invalid,
                          "statistic", jnum(r->r.statistic), "threshold", jnum(r->r.threshold),
                          "p_value", jnum(r->r.p_value), "alpha", r->alpha, "verdict",
                          r->error ? "FAIL" : pb_verdict_name(r->r.verdict), exp_name,
                          jnum(r->error ? NAN : r->r.expected), aux_name,
                          jnum(r->error ? NAN : r->r.aux), "reject", r->r.reject || r->error,
                          "seconds", r->seconds);
    if (r->message[0]) json_object_set_new(o, "message", json_string(r->message));
    return o;
}

int pb_quality_write_json(const char *path, const pb_quality_config *cfg, const pb_qrun *run,
                          json_t *provenance, json_t *skipped, pb_err *err)
{
    json_t *tests = json_object();
    for (int k = 0; k < PB_QT_KINDS; k++) {
        const pb_qtest_spec *t = &cfg->test[k];
        if (!t->nn) continue;
        json_t *ns = json_array();
        for (size_t i = 0; i < t->nn; i++) json_array_append_new(ns, json_integer((json_int_t)t->ns[i]));
        json_object_set_new(tests, pb_qtest_key[k],
                            json_pack("{s:o, s:I}", "n", ns, "samples", (json_int_t)t->samples));
    }
    json_t *bounds = json_array();
    if (cfg->hoeffding) json_array_append_new(bounds, json_string("hoeffding"));
    if (cfg->clt) json_array_append_new(bounds, json_string("clt"));
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)cfg->seed);
    json_t *quality = json_pack(
        "{s:s, s:s, s:f, s:f, s:I, s:b, s:b, s:o, s:o, s:f, s:f, s:b}", "title", cfg->title,
        "seed", seed, "alpha", cfg->alpha, "lambda", cfg->lambda, "batch",
        (json_int_t)cfg->batch, "gate", cfg->gate, "skip_unavailable", cfg->skip_unavailable,
        "tests", tests, "mmd_bounds", bounds, "suspect_below_p", PB_SUSPECT_P, "fail_below_p",
        PB_FAIL_P, "plot", cfg->plot);
    json_t *inst = json_array();
    for (size_t i = 0; i < cfg->ninst; i++) json_array_append_new(inst, instance_json(&cfg->inst[i]));
    json_t *rows = json_array();
    size_t counts[3] = {0, 0, 0};
    for (size_t i = 0; i < run->nrows; i++) {
        json_array_append_new(rows, row_json(&run->rows[i]));
        counts[run->rows[i].error ? PB_VERDICT_FAIL : run->rows[i].r.verdict]++;
    }
    json_t *summary = json_pack("{s:I, s:I, s:I, s:b, s:I, s:f}", "pass", (json_int_t)counts[0],
                                "suspect", (json_int_t)counts[1], "fail", (json_int_t)counts[2],
                                "passed", pb_qrun_passed(run), "permutations",
                                (json_int_t)run->permutations, "wall_s", run->wall_s);
    json_t *root = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "provenance",
                             provenance ? provenance : json_null(), "quality", quality,
                             "instances", inst, "skipped", skipped ? skipped : json_array(),
                             "rows", rows, "summary", summary);
    if (!root) return pb_err_set(err, "cannot build %s", path);
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int rc = json_dump_file(root, tmp, JSON_INDENT(1) | JSON_REAL_PRECISION(12));
    json_decref(root);
    if (rc != 0 || rename(tmp, path) != 0) {
        remove(tmp);
        return pb_err_set(err, "cannot write %s", path);
    }
    return 0;
}

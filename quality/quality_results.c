#include "quality/quality_results.h"

#include "output/atomic_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"

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
    pb_afile a;
    if (pb_afile_open(&a, path, err)) return -1;
    FILE *f = a.f;
    for (size_t c = 0; c < pb_qcsv_ncolumns; c++) fprintf(f, "%s%s", c ? "," : "", pb_qcsv_columns[c]);
    fputc('\n', f);
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_qrow *r = &run->rows[i];
        const pb_instance *in = r->in;
        /* Labels are [A-Za-z0-9._+-] plus '/' and '=' in expanded ones, and
         * list values hold no comma: no quoting. */
        fprintf(f, "%s,%s,%s,%s,%s,%s,%u,%s,%llu,", in->label, in->series, in->mod->name,
                pb_qinstance_device(in), in->axis, in->axis_value, r->n, r->test,
                (unsigned long long)r->r.samples);
        num(f, r->r.statistic);
        fputc(',', f);
        num(f, r->r.threshold);
        fputc(',', f);
        num(f, r->r.p_value);
        fprintf(f, ",%g,%s,", r->alpha, r->error ? "FAIL" : pb_verdict_name(r->r.verdict));
        num(f, r->r.expected);
        fprintf(f, ",%llu,%.3f\n", (unsigned long long)r->r.invalid, r->seconds);
    }
    return pb_afile_commit(&a, err);
}

static json_t *jnum(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* An external input: what was read, so a result names its data as
 * exactly as a module instance names its code (path as given, format, n,
 * rows tested, and the whole input's size and SHA-256). */
static json_t *input_json(const pb_qinput *q, const pb_qinput_seen *seen)
{
    json_t *o = json_pack("{s:s, s:s, s:I}", "path", strcmp(q->path, "-") == 0 ? "(stdin)" : q->path,
                          "format", pb_perm_format_name(q->format), "n", (json_int_t)q->n);
    if (seen) {
        json_object_set_new(o, "rows_tested", json_integer((json_int_t)seen->rows));
        json_object_set_new(o, "bytes", json_integer((json_int_t)seen->bytes));
        json_object_set_new(o, "sha256", json_string(seen->sha256));
    }
    return o;
}

static json_t *instance_json(const pb_quality_config *cfg, const pb_qrun *run, const pb_instance *in)
{
    json_t *params = json_object();
    for (size_t k = 0; k < in->mod->nparams; k++) {
        const pb_param_spec *s = &in->mod->params[k];
        char v[PB_PARAM_TEXT_MAX];
        if (s->type == PB_PARAM_INT) json_object_set_new(params, s->name, json_integer(in->params.v[k]));
        else json_object_set_new(params, s->name, json_string(pb_param_format(s, in->params.v[k], v, sizeof v)));
    }
    const pb_qinput *q = pb_quality_config_input(cfg, in);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:o, s:b, s:b}", "label", in->label, "group", in->series,
                          "module", in->mod->name, "device", pb_qinstance_device(in),
                          "params", params, "automatic", in->automatic, "external", q != NULL);
    if (q) json_object_set_new(o, "input", input_json(q, pb_qrun_input(run, in->label)));
    if (in->axis[0]) {
        json_object_set_new(o, "swept_param", json_string(in->axis));
        json_object_set_new(o, "value", json_integer(atoll(in->axis_value)));
    }
    return o;
}

static json_t *row_json(const pb_qrow *r)
{
    const char *aux_name = r->qt->aux_name, *exp_name = r->qt->expected_name;
    json_t *o = json_pack("{s:s, s:s, s:s, s:I, s:s, s:I, s:I, s:o, s:o, s:o, s:f, s:s, s:o, s:o, "
                          "s:b, s:f}",
                          "label", r->in->label, "group", r->in->series, "module",
                          r->in->mod->name, "n", (json_int_t)r->n, "test", r->test, "samples",
                          (json_int_t)r->r.samples, "invalid", (json_int_t)r->r.invalid,
                          "statistic", jnum(r->r.statistic), "threshold", jnum(r->r.threshold),
                          "p_value", jnum(r->r.p_value), "alpha", r->alpha, "verdict",
                          r->error ? "FAIL" : pb_verdict_name(r->r.verdict), exp_name,
                          jnum(r->error ? NAN : r->r.expected), aux_name,
                          jnum(r->error ? NAN : r->r.aux), "reject", r->r.reject || r->error,
                          "seconds", r->seconds);
    if (r->message[0]) json_object_set_new(o, "message", json_string(r->message));
    /* Could not run at all (not a verdict of the test): what a resume
     * needs to tell it from a FAIL the test gave. */
    if (r->error) json_object_set_new(o, "error", json_true());
    return o;
}

int pb_quality_write_json(const char *path, const pb_quality_config *cfg, const pb_qrun *run,
                          json_t *provenance, json_t *skipped, pb_err *err)
{
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)cfg->seed);
    json_t *tests = json_object();
    json_t *quality = json_pack("{s:s, s:s, s:f, s:f, s:I, s:b, s:b, s:f, s:f, s:b}", "title",
                                cfg->title, "seed", seed, "alpha", cfg->settings.alpha, "lambda",
                                cfg->settings.lambda, "batch", (json_int_t)cfg->batch, "gate",
                                cfg->gate, "skip_unavailable", cfg->skip_unavailable,
                                "suspect_below_p", PB_SUSPECT_P, "fail_below_p", PB_FAIL_P, "plot",
                                cfg->plot);
    /* Each test run: its n and sample count, and (under its select_key, as
     * the config spells it) the results it reported. */
    for (size_t k = 0; k < pb_qtest_count(); k++) {
        const pb_qtest *qt = pb_qtest_at(k);
        const pb_qtest_spec *t = &cfg->test[k];
        if (!t->nn) continue;
        json_t *ns = json_array();
        for (size_t i = 0; i < t->nn; i++) json_array_append_new(ns, json_integer((json_int_t)t->ns[i]));
        json_object_set_new(tests, qt->name, json_pack("{s:o, s:I}", "n", ns, "samples", (json_int_t)t->samples));
        if (!qt->select_key) continue;
        json_t *sel = json_array();
        for (size_t r = 0; r < qt->nresults; r++)
            if (t->select & (1u << r)) json_array_append_new(sel, json_string(qt->select_words[r]));
        json_object_set_new(quality, qt->select_key, sel);
    }
    json_object_set_new(quality, "tests", tests);
    json_t *inst = json_array();
    for (size_t i = 0; i < cfg->inst.n; i++) json_array_append_new(inst, instance_json(cfg, run, &cfg->inst.v[i]));
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
    /* A run stopped by a signal says so: `quality --resume` reads the file
     * back and runs the (instance, n) it has no rows of. */
    json_object_set_new(summary, "interrupted", json_boolean(run->interrupted));
    /* Readers (quality --replot, scripts) check the version they know. */
    json_t *root = json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "schema_version", 1, "provenance",
                             provenance ? provenance : json_null(), "quality", quality,
                             "instances", inst, "skipped", skipped ? skipped : json_array(),
                             "rows", rows, "summary", summary);
    if (!root) return pb_err_set(err, "cannot build %s", path);
    return pb_write_json(path, root, JSON_INDENT(1) | JSON_REAL_PRECISION(12), err);
}

static double read_num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int pb_quality_read_rows(json_t *root, const char *path, const pb_quality_config *cfg, pb_qrun *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    json_t *rows = json_object_get(root, "rows");
    if (!json_is_array(rows)) return pb_err_set(err, "%s: not a permbench quality results file", path);
    size_t n = json_array_size(rows);
    run->rows = calloc(n ? n : 1, sizeof *run->rows);
    if (!run->rows) return pb_err_set(err, "out of memory");
    run->cap = n ? n : 1;
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_array_get(rows, i);
        const char *label = json_string_value(json_object_get(o, "label"));
        const char *test = json_string_value(json_object_get(o, "test"));
        const char *verdict = json_string_value(json_object_get(o, "verdict"));
        pb_qrow *r = &run->rows[i];
        for (size_t k = 0; label && k < cfg->inst.n && !r->in; k++)
            if (strcmp(cfg->inst.v[k].label, label) == 0) r->in = &cfg->inst.v[k];
        size_t which = 0;
        r->qt = test ? pb_qtest_of_result(test, &which) : NULL;
        if (!r->in || !r->qt || !verdict) {
            pb_qrun_free(run);
            return pb_err_set(err, "%s: row %zu (%s, %s) is not an instance and test of its config", path, i,
                              label ? label : "no label", test ? test : "no test");
        }
        run->nrows++;
        r->test = r->qt->results[which];
        r->n = (uint32_t)json_integer_value(json_object_get(o, "n"));
        r->r.samples = (uint64_t)json_integer_value(json_object_get(o, "samples"));
        r->r.invalid = (uint64_t)json_integer_value(json_object_get(o, "invalid"));
        r->r.statistic = read_num(o, "statistic");
        r->r.threshold = read_num(o, "threshold");
        r->r.p_value = read_num(o, "p_value");
        r->r.expected = read_num(o, r->qt->expected_name);
        r->r.aux = read_num(o, r->qt->aux_name);
        r->r.reject = json_is_true(json_object_get(o, "reject"));
        r->r.verdict = strcmp(verdict, "PASS") == 0      ? PB_VERDICT_PASS
                       : strcmp(verdict, "SUSPECT") == 0 ? PB_VERDICT_SUSPECT
                                                         : PB_VERDICT_FAIL;
        r->alpha = read_num(o, "alpha");
        r->seconds = read_num(o, "seconds");
        r->error = json_is_true(json_object_get(o, "error"));
        const char *msg = json_string_value(json_object_get(o, "message"));
        snprintf(r->message, sizeof r->message, "%s", msg ? msg : "");
    }
    json_t *sum = json_object_get(root, "summary");
    run->permutations = (uint64_t)json_integer_value(json_object_get(sum, "permutations"));
    run->wall_s = read_num(sum, "wall_s");
    if (isnan(run->wall_s)) run->wall_s = 0;
    return 0;
}

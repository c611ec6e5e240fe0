#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config/params.h"

#include "output/atomic_file.h"
#include "bench/results.h"

static json_t *instance_json(const pb_instance *in)
{
    json_t *params = json_object();
    for (size_t i = 0; i < in->mod->nparams; i++) {
        const pb_param_spec *s = &in->mod->params[i];
        json_t *v;
        char buf[PB_PARAM_TEXT_MAX];
        if (s->type == PB_PARAM_INT) v = json_integer(in->params.v[i]);
        else if (s->type == PB_PARAM_BOOL) v = json_boolean(in->params.v[i]);
        else v = json_string(pb_param_format(s, in->params.v[i], buf, sizeof buf));
        json_object_set_new(params, s->name, v);
    }
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:b}", "label", in->label, "series",
                     in->series, "axis", in->axis, "axis_value", in->axis_value, "module",
                     in->mod->name, "family", in->mod->family->name, "device",
                     pb_device_name(in->mod->device), "params", params, "automatic",
                     in->automatic);
    if (j && in->seeds) json_object_set_new(j, "seeds", json_integer(in->seeds));
    return j;
}

static json_t *num_or_null(double x, bool ok) { return ok && isfinite(x) ? json_real(x) : json_null(); }

static json_t *row_json(const pb_row *row, const pb_config *cfg)
{
    bool ok = row->status != PB_ROW_ERROR;
    json_t *samples = json_array(), *wall = json_array();
    for (size_t i = 0; i < row->nsamples; i++) {
        json_array_append_new(samples, json_real(row->samples_ms[i]));
        json_array_append_new(wall, json_real(row->wall_ms[i]));
    }
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:o, s:I, s:b}", "label",
                          row->inst->label, "module", row->inst->mod->name, "family",
                          row->inst->mod->family->name, "device",
                          pb_device_name(row->inst->mod->device), "n", (json_int_t)row->n,
                          "item_bytes", (int)row->item_bytes, "threads",
                          row->inst->mod->device == PB_DEVICE_CPU ? json_integer(row->threads)
                                                                  : json_null(),
                          "samples", (json_int_t)row->nsamples, "timed_out", row->timed_out);
    json_object_set_new(j, "median_ms", num_or_null(row->ms.median, ok));
    json_object_set_new(j, "min_ms", num_or_null(row->ms.min, ok));
    json_object_set_new(j, "max_ms", num_or_null(row->ms.max, ok));
    json_object_set_new(j, "mean_ms", num_or_null(row->ms.mean, ok));
    json_object_set_new(j, "stddev_ms", num_or_null(row->ms.stddev, ok));
    json_object_set_new(j, "time_source",
                        json_string(row->inst->mod->device == PB_DEVICE_CPU ? "monotonic clock"
                                    : row->held ? "cuda events, stream held by a blocking kernel"
                                    : cfg->hold ? "cuda events, stream not held (run() synchronises)"
                                                : "cuda events, stream not held (hold = no)"));
    json_object_set_new(j, "wall_median_ms", num_or_null(row->wall.median, ok));
    json_object_set_new(j, "wall_min_ms", num_or_null(row->wall.min, ok));
    json_object_set_new(j, "wall_max_ms", num_or_null(row->wall.max, ok));
    json_object_set_new(j, "noise_pct", num_or_null(100 * row->noise, ok));
    json_object_set_new(j, "noisy", json_boolean(row->noisy));
    /* The median's distribution-free 95% interval and its relative
     * half-width (the figure `noisy` and the stopping rule judge by), the
     * probability its ranks hold the median, and two clusters of samples. */
    json_object_set_new(j, "median_ci_lo_ms", num_or_null(row->ci_lo_ms, ok));
    json_object_set_new(j, "median_ci_hi_ms", num_or_null(row->ci_hi_ms, ok));
    json_object_set_new(j, "median_ci_halfwidth_pct", num_or_null(100 * row->ci_halfwidth, ok));
    json_object_set_new(j, "median_ci_confidence", num_or_null(row->ci_confidence, ok));
    json_object_set_new(j, "multimodal", json_boolean(row->multimodal));
    json_object_set_new(j, "check", json_string(row->check));
    json_object_set_new(j, "check_s", json_real(row->check_s));
    json_object_set_new(j, "failed_sample",
                        row->failed_sample >= 0 ? json_integer(row->failed_sample) : json_null());
    json_object_set_new(j, "items_per_s", num_or_null(row->items_per_s, ok));
    json_object_set_new(j, "effective_gbps", num_or_null(row->gbps, ok));
    json_object_set_new(j, "pct_of_copy", num_or_null(row->pct_copy, ok));
    json_object_set_new(j, "speedup_vs_ref", num_or_null(row->speedup_vs_ref, ok));
    json_object_set_new(j, "link_bytes", num_or_null(row->link_bytes, ok));
    json_object_set_new(j, "link_gbps", num_or_null(row->link_gbps, ok));
    json_t *topology = row->topology[0] ? json_string(row->topology) : NULL; /* NULL: not UTF-8 */
    json_object_set_new(j, "topology", topology ? topology : json_null());
    json_object_set_new(j, "path", row->path[0] ? json_string(row->path) : json_null());
    json_object_set_new(j, "series", json_string(row->inst->series));
    json_object_set_new(j, "axis", json_string(row->inst->axis));
    json_object_set_new(j, "axis_value", json_string(row->inst->axis_value));
    json_object_set_new(j, "verified", json_boolean(row->verified));
    json_object_set_new(j, "status", json_string(pb_row_status_name(row->status)));
    json_object_set_new(j, "message", row->message[0] ? json_string(row->message) : json_null());
    json_object_set_new(j, "samples_ms", samples);
    json_object_set_new(j, "samples_wall_ms", wall);
    /* Numbers that cannot be trusted (bench/suspect.h, output/machine_state.h). */
    json_object_set_new(j, "busy", json_boolean(row->busy));
    json_object_set_new(j, "suspect", row->suspect[0] ? json_string(row->suspect) : json_null());
    /* A point measured over several seeds (bench/row_seeds.h): median_ms is
     * the median of seed_median_ms; samples_ms holds the seeds' samples one
     * seed after another, seed_samples of them each, so every seed can be
     * analysed again. Rows of one seed have none of these fields. */
    if (row->nseeds > 1) {
        json_t *vals = json_array(), *counts = json_array(), *medians = json_array();
        for (int i = 0; i < row->nseeds; i++) {
            char v[24];
            snprintf(v, sizeof v, "%llu", (unsigned long long)row->seed_values[i]);
            json_array_append_new(vals, json_string(v));
            json_array_append_new(counts, json_integer((json_int_t)row->seed_nsamples[i]));
            json_array_append_new(medians, num_or_null(row->seed_median_ms[i], true));
        }
        json_object_set_new(j, "seeds", json_integer(row->nseeds));
        json_object_set_new(j, "seed_values", vals);
        json_object_set_new(j, "seed_samples", counts);
        json_object_set_new(j, "seed_median_ms", medians);
        json_object_set_new(j, "seed_min_ms", num_or_null(row->seed_min_ms, row->nsamples > 0));
        json_object_set_new(j, "seed_max_ms", num_or_null(row->seed_max_ms, row->nsamples > 0));
        json_object_set_new(j, "seed_spread_pct", num_or_null(100 * row->seed_spread, row->nsamples > 0));
    }
    return j;
}

int pb_results_write_json(const char *path, const pb_config *cfg, const pb_run *run,
                          json_t *provenance, pb_err *err)
{
    json_t *sizes = json_array(), *items = json_array(), *plots = json_array();
    for (size_t i = 0; i < cfg->nsizes; i++) json_array_append_new(sizes, json_integer((json_int_t)cfg->sizes[i]));
    for (size_t i = 0; i < cfg->nitems; i++) json_array_append_new(items, json_integer(cfg->items[i]));
    for (size_t i = 0; i < cfg->nplots; i++) json_array_append_new(plots, json_string(cfg->plots[i]));
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)cfg->seed);
    json_t *sweep = json_pack("{s:s, s:s, s:o, s:o, s:s, s:i, s:i, s:i, s:f, s:f, s:b, s:b, s:o}",
                              "family", cfg->family->name, "title", cfg->title, "sizes",
                              sizes, "item_bytes", items, "seed", seed, "warmup", cfg->warmup,
                              "min_samples", cfg->min_samples, "max_samples", cfg->max_samples,
                              "min_time_s", cfg->min_time, "timeout_s", cfg->timeout,
                              "flush_cache", cfg->flush_cache, "ceilings_auto",
                              cfg->ceilings_auto, "plots", plots);
    json_object_set_new(sweep, "reference", cfg->reference[0] ? json_string(cfg->reference) : json_null());
    json_object_set_new(sweep, "max_noise_pct", json_real(100 * cfg->max_noise));
    json_object_set_new(sweep, "noise_figure", json_string("median_ci_halfwidth_pct"));
    json_object_set_new(sweep, "fail_noisy", json_boolean(cfg->fail_noisy));
    json_object_set_new(sweep, "streams", json_integer(cfg->streams));
    json_object_set_new(sweep, "hold", json_boolean(cfg->hold));
    if (cfg->seeds > 1) json_object_set_new(sweep, "seeds", json_integer(cfg->seeds));
    json_t *inst = json_array(), *rows = json_array();
    for (size_t i = 0; i < cfg->inst.n; i++) json_array_append_new(inst, instance_json(&cfg->inst.v[i]));
    size_t failed = 0, noisy = 0;
    double check_s = 0;
    for (size_t r = 0; r < run->nrows; r++) {
        json_array_append_new(rows, row_json(&run->rows[r], cfg));
        failed += run->rows[r].status != PB_ROW_OK;
        noisy += run->rows[r].noisy;
        check_s += run->rows[r].check_s;
    }
    json_t *root = json_pack("{s:i, s:o, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:f, s:f}}",
                             "schema_version", 2, "provenance", provenance, "sweep", sweep,
                             "instances", inst, "results", rows, "summary", "rows",
                             (json_int_t)run->nrows, "failed_rows", (json_int_t)failed,
                             "noisy_rows", (json_int_t)noisy, "wall_s", run->wall_s, "check_s",
                             check_s);
    if (!root) return pb_err_set(err, "cannot build the JSON document");
    /* An interrupted run says so, and how far it got: `run --resume` reads
     * this file back and measures the points that are not in it. */
    json_t *sum = json_object_get(root, "summary");
    json_object_set_new(sum, "interrupted", json_boolean(run->interrupted));
    json_object_set_new(sum, "points_planned", json_integer((json_int_t)run->planned));
    size_t multimodal = 0;
    for (size_t r = 0; r < run->nrows; r++) multimodal += run->rows[r].multimodal;
    json_object_set_new(sum, "multimodal_rows", json_integer((json_int_t)multimodal));
    /* What else the machine did meanwhile; its busy points are the rows'. */
    size_t busy = 0, suspect = 0;
    for (size_t r = 0; r < run->nrows; r++) busy += run->rows[r].busy, suspect += run->rows[r].suspect[0] != '\0';
    json_object_set_new(sum, "busy_rows", json_integer((json_int_t)busy));
    json_object_set_new(sum, "suspect_rows", json_integer((json_int_t)suspect));
    json_t *machine = pb_machine_watch_json(&run->machine);
    json_object_set_new(root, "machine", machine ? machine : json_null());
    return pb_write_json(path, root, JSON_INDENT(1) | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(9), err);
}

json_t *pb_results_row_json(const pb_row *row, const pb_config *cfg) { return row_json(row, cfg); }

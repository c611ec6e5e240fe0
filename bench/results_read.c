#include "bench/results_read.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/journal_file.h"
#include "output/json_file.h"
#include "bench/results.h"
#include "bench/row_seeds.h"
#include "config/ini.h"
#include "stats/summary.h"
#include "config/data_file.h"

static int load(const char *path, json_t **root, pb_err *err)
{
    json_error_t je;
    *root = pb_json_load_file(path, &je);
    if (!*root && je.line < 1) /* unreadable, or a corrupt .gz: no line to name */
        return pb_err_set(err, "%s: not a results.json (%s)", path, je.text);
    if (!*root) return pb_err_set(err, "%s: not a results.json (line %d: %s)", path, je.line, je.text);
    if (json_integer_value(json_object_get(*root, "schema_version")) < 2 ||
        !json_is_array(json_object_get(*root, "results"))) {
        json_decref(*root);
        return pb_err_set(err, "%s: not a results.json of this permbench (schema_version 2 or later)", path);
    }
    return 0;
}

/* The run's config and options from a results document (or a journal's
 * header made into one); takes the reference to root. */
static int resume_info(json_t *root, const char *json_path, pb_resume_info *info, pb_err *err)
{
    json_t *cfg = json_object_get(json_object_get(root, "provenance"), "config");
    const char *text = json_string_value(json_object_get(cfg, "text"));
    const char *path = json_string_value(json_object_get(cfg, "path"));
    const char *name = json_string_value(json_object_get(cfg, "name"));
    if (!text || !path || !name) {
        json_decref(root);
        return pb_err_set(err, "%s: no config in its provenance, so it cannot be resumed", json_path);
    }
    info->config_text = strdup(text);
    snprintf(info->path, sizeof info->path, "%s", path);
    snprintf(info->name, sizeof info->name, "%s", name);
    json_t *cmd = json_object_get(json_object_get(root, "provenance"), "command_line");
    for (size_t i = 0; i + 1 < json_array_size(cmd); i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (a && strcmp(a, "--only") == 0)
            snprintf(info->only, sizeof info->only, "%s", json_string_value(json_array_get(cmd, i + 1)));
    }
    for (size_t i = 0; i < json_array_size(cmd); i++) {
        const char *a = json_string_value(json_array_get(cmd, i));
        if (a && strncmp(a, "--only=", 7) == 0) snprintf(info->only, sizeof info->only, "%s", a + 7);
    }
    /* Recorded as such by runs that journal (and by every run since). */
    const char *only = json_string_value(json_object_get(json_object_get(root, "provenance"), "only"));
    if (only) snprintf(info->only, sizeof info->only, "%s", only);
    json_t *defs = json_object_get(json_object_get(root, "provenance"), "defines");
    for (size_t i = 0; i < json_array_size(defs) && info->ndefines < 32; i++) {
        const char *d = json_string_value(json_array_get(defs, i));
        if (d && !(info->defines[info->ndefines++] = strdup(d))) info->ndefines--;
    }
    info->interrupted = json_is_true(json_object_get(json_object_get(root, "summary"), "interrupted"));
    json_decref(root);
    if (!info->config_text) return pb_err_set(err, "out of memory");
    return 0;
}

int pb_results_read_resume(const char *json_path, pb_resume_info *info, pb_err *err)
{
    memset(info, 0, sizeof *info);
    json_t *root;
    if (load(json_path, &root, err)) return -1;
    return resume_info(root, json_path, info, err);
}

void pb_resume_info_free(pb_resume_info *info)
{
    free(info->config_text);
    info->config_text = NULL;
    for (size_t i = 0; i < info->ndefines; i++) free(info->defines[i]);
    info->ndefines = 0;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int samples(json_t *a, double **out, size_t n)
{
    if (json_array_size(a) != n) return -1;
    *out = malloc((n ? n : 1) * sizeof **out);
    if (!*out) return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_number(v)) return -1;
        (*out)[i] = json_number_value(v);
    }
    return 0;
}

/* Every data file the resumed plan checked must be one the interrupted run
 * recorded, byte for byte (its SHA-256), or the new rows would be of other
 * keys than the old: a file edited in between, or a relative path that now
 * names another file (a config given by a relative path, resumed from
 * another directory). The numbers come before the path, which may be long;
 * what the file recorded is printed only once known to be 64 hex digits. */
static int same_data_files(json_t *root, const char *json_path, pb_err *err)
{
    json_t *rec = json_object_get(json_object_get(root, "provenance"), "data_files");
    for (size_t i = 0; i < pb_data_file_count(); i++) {
        const pb_data_file *f = pb_data_file_at((long)i);
        if (!f || !f->checked) continue;
        json_t *o = NULL;
        for (size_t k = 0; k < json_array_size(rec) && !o; k++) {
            const char *p = json_string_value(json_object_get(json_array_get(rec, k), "path"));
            if (p && strcmp(p, f->path) == 0) o = json_array_get(rec, k);
        }
        if (!o)
            return pb_err_set(err, "%s: the run did not use file:%s, which its config names now",
                              json_path, f->path);
        const char *was = json_string_value(json_object_get(o, "sha256"));
        if (!was || strlen(was) != 64 || strspn(was, "0123456789abcdef") != 64)
            return pb_err_set(err, "%s: provenance.data_files has no SHA-256 for file:%s", json_path,
                              f->path);
        if (strcmp(was, f->sha256) != 0)
            return pb_err_set(err, "%s: the key file changed since the run (SHA-256 %s then, %s now): file:%s",
                              json_path, was, f->sha256, f->path);
    }
    return 0;
}

/* The rows of a results document (or a journal made into one) into run;
 * takes the reference to root. */
static int read_rows(json_t *root, const char *json_path, const pb_config *cfg, pb_run *run, pb_err *err)
{
    if (same_data_files(root, json_path, err)) {
        json_decref(root);
        return -1;
    }
    json_t *rows = json_object_get(root, "results");
    size_t n = json_array_size(rows);
    run->rows = calloc(n ? n : 1, sizeof *run->rows);
    if (!run->rows) {
        json_decref(root);
        return pb_err_set(err, "out of memory");
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        json_t *o = json_array_get(rows, i);
        const char *label = json_string_value(json_object_get(o, "label"));
        const char *status = json_string_value(json_object_get(o, "status"));
        const pb_instance *in = NULL;
        for (size_t k = 0; label && k < cfg->inst.n; k++)
            if (strcmp(cfg->inst.v[k].label, label) == 0) in = &cfg->inst.v[k];
        if (!in || !status) {
            rc = pb_err_set(err, "%s: row %zu (%s) is not an instance of its config", json_path, i,
                            label ? label : "no label");
            break;
        }
        pb_row *row = &run->rows[run->nrows++];
        row->inst = in;
        row->n = (uint64_t)json_integer_value(json_object_get(o, "n"));
        row->item_bytes = (unsigned)json_integer_value(json_object_get(o, "item_bytes"));
        row->threads = pb_instance_threads(in);
        row->status = strcmp(status, "ok") == 0 ? PB_ROW_OK : strcmp(status, "FAILED") == 0 ? PB_ROW_FAILED
                                                                                       : PB_ROW_ERROR;
        const char *msg = json_string_value(json_object_get(o, "message"));
        snprintf(row->message, sizeof row->message, "%s", msg ? msg : "");
        const char *check = json_string_value(json_object_get(o, "check"));
        snprintf(row->check, sizeof row->check, "%s", check ? check : "");
        row->nsamples = (size_t)json_integer_value(json_object_get(o, "samples"));
        if (samples(json_object_get(o, "samples_ms"), &row->samples_ms, row->nsamples) ||
            samples(json_object_get(o, "samples_wall_ms"), &row->wall_ms, row->nsamples)) {
            rc = pb_err_set(err, "%s: row %zu (%s): its samples do not match its sample count", json_path, i, label);
            break;
        }
        row->timed_out = json_is_true(json_object_get(o, "timed_out"));
        row->noise = num(o, "noise_pct") / 100;
        json_t *fs = json_object_get(o, "failed_sample");
        row->failed_sample = json_is_integer(fs) ? (long)json_integer_value(fs) : -1;
        row->check_s = num(o, "check_s");
        if (isnan(row->check_s)) row->check_s = 0;
        const char *src = json_string_value(json_object_get(o, "time_source"));
        row->held = src && strstr(src, "stream held");
        row->items_per_s = num(o, "items_per_s");
        row->gbps = num(o, "effective_gbps");
        row->verified = json_is_true(json_object_get(o, "verified"));
        /* A point of several seeds: which seeds, and how many samples each
         * (bench/row_seeds.h); the medians follow from them. */
        json_t *seeds = json_object_get(o, "seeds");
        if (json_is_integer(seeds) && json_integer_value(seeds) > 1) {
            json_t *counts = json_object_get(o, "seed_samples"), *vals = json_object_get(o, "seed_values");
            json_int_t ns = json_integer_value(seeds);
            bool good = ns <= PB_MAX_SEEDS && json_array_size(counts) == (size_t)ns &&
                        json_array_size(vals) == (size_t)ns;
            for (json_int_t s = 0; good && s < ns; s++) {
                json_t *c = json_array_get(counts, (size_t)s);
                const char *v = json_string_value(json_array_get(vals, (size_t)s));
                good = json_is_integer(c) && json_integer_value(c) >= 0 && v &&
                       pb_ini_parse_u64(v, &row->seed_values[s]);
                if (good) row->seed_nsamples[s] = (size_t)json_integer_value(c);
            }
            row->nseeds = (int)ns;
            if (!good || pb_row_summarise(row)) {
                rc = pb_err_set(err, "%s: row %zu (%s): its seeds do not match its samples", json_path, i, label);
                break;
            }
        } else if (row->nsamples) {
            row->ms = pb_summarise(row->samples_ms, row->nsamples);
            row->wall = pb_summarise(row->wall_ms, row->nsamples);
        }
        /* The interval and the clusters from the samples, as a row measured
         * now is judged (a file of an older permbench has neither). */
        if (pb_row_judge(row, cfg->max_noise)) {
            rc = pb_err_set(err, "out of memory");
            break;
        }
        /* Absent (a file of an older permbench) or null: NaN and "". */
        row->link_bytes = num(o, "link_bytes");
        row->link_gbps = num(o, "link_gbps");
        const char *topo = json_string_value(json_object_get(o, "topology"));
        snprintf(row->topology, sizeof row->topology, "%s", topo ? topo : "");
        row->busy = json_is_true(json_object_get(o, "busy"));
        const char *sus = json_string_value(json_object_get(o, "suspect"));
        snprintf(row->suspect, sizeof row->suspect, "%s", sus ? sus : "");
        const char *path = json_string_value(json_object_get(o, "path"));
        snprintf(row->path, sizeof row->path, "%s", path ? path : "");
        row->pct_copy = NAN; /* the runner fills the ratios again */
        row->speedup_vs_ref = NAN;
    }
    run->wall_s = num(json_object_get(root, "summary"), "wall_s");
    if (isnan(run->wall_s)) run->wall_s = 0;
    json_decref(root);
    if (rc) pb_run_free(run);
    return rc;
}

int pb_results_read_rows(const char *json_path, const pb_config *cfg, pb_run *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    json_t *root;
    if (load(json_path, &root, err)) return -1;
    return read_rows(root, json_path, cfg, run, err);
}

/* A journal as the results document it stands for: the header's provenance,
 * its rows as "results", and the run's wall time at the last of them. */
static json_t *journal_root(const char *path, pb_err *err)
{
    json_t *lines = pb_journal_read(path, err);
    if (!lines) return NULL;
    json_t *head = json_array_get(lines, 0);
    if (json_integer_value(json_object_get(head, "permbench_journal")) != 1 ||
        strcmp(json_string_value(json_object_get(head, "kind")) ? json_string_value(json_object_get(head, "kind")) : "", "run") != 0 ||
        !json_is_object(json_object_get(head, "provenance"))) {
        json_decref(lines);
        return pb_err_set(err, "%s: not a permbench run journal (version 1)", path), NULL;
    }
    json_t *rows = json_array();
    double wall = 0;
    for (size_t i = 1; i < json_array_size(lines); i++) {
        json_t *row = json_array_get(lines, i);
        json_array_append(rows, row);
        json_t *w = json_object_get(row, "run_wall_s");
        if (json_is_number(w)) wall = json_number_value(w);
    }
    json_t *root = json_pack("{s:O, s:o, s:{s:f}}", "provenance", json_object_get(head, "provenance"), "results",
                             rows, "summary", "wall_s", wall);
    json_decref(lines);
    if (!root) pb_err_set(err, "out of memory");
    return root;
}

int pb_results_read_journal_resume(const char *path, pb_resume_info *info, pb_err *err)
{
    memset(info, 0, sizeof *info);
    json_t *root = journal_root(path, err);
    if (!root) return -1;
    if (resume_info(root, path, info, err)) return -1;
    info->interrupted = true; /* a journal is removed when its run finishes */
    return 0;
}

int pb_results_read_journal_rows(const char *path, const pb_config *cfg, pb_run *run, pb_err *err)
{
    memset(run, 0, sizeof *run);
    json_t *root = journal_root(path, err);
    if (!root) return -1;
    return read_rows(root, path, cfg, run, err);
}

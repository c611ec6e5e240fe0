#include "compare/compare.h"

#include <errno.h>
#include <gsl/gsl_sort.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output/json_file.h"
#include "output/results_names.h"
#include "stats/summary.h"
#include "stats/mann_whitney.h"
#include "stats/median_ci.h"
#include "stats/multimodal.h"

const char *pb_cmp_verdict_name(pb_cmp_verdict v)
{
    return v == PB_CMP_FASTER ? "FASTER" : v == PB_CMP_SLOWER ? "SLOWER" : v == PB_CMP_UNSTABLE ? "UNSTABLE" : "SAME";
}

int pb_compare_resolve(const char *arg, char *path, size_t len, pb_err *err)
{
    struct stat st;
    if (stat(arg, &st) != 0) return pb_err_set(err, "%s: %s", arg, strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        if (!pb_results_json_in(arg, path, len))
            return pb_err_set(err, "%s: no results.json in that directory (nor results.json.gz)", arg);
    } else {
        snprintf(path, len, "%s", arg);
    }
    if (access(path, R_OK) != 0) return pb_err_set(err, "%s: %s", path, strerror(errno));
    return 0;
}

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

/* No control characters: every string read goes into one-line messages,
 * the report's lines and the figure's quoted strings. */
static bool printable(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) return false;
    return true;
}

static long long integer(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

static void read_prov(json_t *root, pb_cmp_prov *p)
{
    json_t *prov = json_object_get(root, "provenance"), *gpu = json_object_get(prov, "gpu");
    json_t *git = json_object_get(prov, "git"), *cfg = json_object_get(prov, "config");
    json_t *host = json_object_get(prov, "host");
    p->schema_version = integer(root, "schema_version");
    p->gpu = json_is_true(json_object_get(gpu, "present")) ? str(gpu, "name") : "none";
    p->driver = str(gpu, "driver_cuda_version");
    p->sm_clock_mhz = integer(gpu, "sm_clock_mhz");
    p->mem_clock_mhz = integer(gpu, "memory_clock_mhz");
    p->commit = str(git, "commit");
    p->dirty = str(git, "dirty");
    p->config_name = str(cfg, "name");
    p->config_hash = str(cfg, "hash_fnv1a64");
    p->cpu = str(host, "cpu_model");
    p->logical_cpus = integer(host, "logical_cpus");
    p->date = str(prov, "date");
    p->family = str(json_object_get(root, "sweep"), "family");
    /* A run whose sweep does not name its family: its first row does. */
    if (!*p->family) p->family = str(json_array_get(json_object_get(root, "results"), 0), "family");
}

static bool same_key(json_t *a, json_t *b)
{
    return strcmp(str(a, "label"), str(b, "label")) == 0 && integer(a, "n") == integer(b, "n") &&
           integer(a, "item_bytes") == integer(b, "item_bytes") &&
           strcmp(str(a, "axis_value"), str(b, "axis_value")) == 0;
}

/* Every row has the fields that identify it, an ok row has its samples, and
 * no two rows share an identity (the match would be ambiguous). */
static int check_rows(const char *path, json_t *rows, pb_err *err)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        if (!json_is_string(json_object_get(r, "label")) || !json_is_integer(json_object_get(r, "n")) ||
            !json_is_integer(json_object_get(r, "item_bytes")) || !json_is_string(json_object_get(r, "status")))
            return pb_err_set(err, "%s: row %zu lacks label, n, item_bytes or status", path, i);
        static const char *const keys[] = {"label", "module", "device", "axis_value", "status", "family"};
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            if (!printable(str(r, keys[k])))
                return pb_err_set(err, "%s: row %zu: a control character in its %s", path, i, keys[k]);
        json_t *s = json_object_get(r, "samples_ms");
        if (strcmp(str(r, "status"), "ok") == 0 && (!json_is_array(s) || json_array_size(s) == 0))
            return pb_err_set(err, "%s: row %zu (%s) is ok but has no samples_ms", path, i, str(r, "label"));
        for (size_t k = 0; k < json_array_size(s); k++)
            if (!json_is_number(json_array_get(s, k)))
                return pb_err_set(err, "%s: row %zu (%s): samples_ms[%zu] is not a number", path, i,
                                  str(r, "label"), k);
        for (size_t j = 0; j < i; j++)
            if (same_key(json_array_get(rows, j), r))
                return pb_err_set(err, "%s: rows %zu and %zu are both %s at n = %lld, %lld B", path, j, i,
                                  str(r, "label"), integer(r, "n"), integer(r, "item_bytes"));
    }
    return 0;
}

static int load(const char *arg, const char *which, pb_cmp_side *side, pb_err *err)
{
    if (pb_compare_resolve(arg, side->path, sizeof side->path, err)) {
        pb_err_prefix(err, "%s ", which);
        return -1;
    }
    json_error_t je;
    side->root = pb_json_load_file(side->path, &je);
    if (!side->root && je.line < 1) /* unreadable, or a corrupt .gz: no line to name */
        return pb_err_set(err, "%s %s: not a results.json (%s)", which, side->path, je.text);
    if (!side->root)
        return pb_err_set(err, "%s %s: not a results.json (line %d: %s)", which, side->path, je.line, je.text);
    json_t *sv = json_object_get(side->root, "schema_version");
    /* Schema 1 (before the wall-clock samples) has samples_ms too, and the
     * older reference runs are written in it. */
    if (!json_is_array(json_object_get(side->root, "results")) || !json_is_integer(sv))
        return pb_err_set(err, "%s %s: not a permbench results.json (no schema_version and results)", which,
                          side->path);
    if (json_integer_value(sv) < 1 || json_integer_value(sv) > 2)
        return pb_err_set(err, "%s %s: results.json schema_version %lld; this permbench reads 1 and 2", which,
                          side->path, (long long)json_integer_value(sv));
    /* A run written before a module's rename matches today's rows. */
    pb_results_rename_modules(side->root);
    if (check_rows(side->path, json_object_get(side->root, "results"), err)) {
        pb_err_prefix(err, "%s ", which);
        return -1;
    }
    read_prov(side->root, &side->prov);
    const pb_cmp_prov *p = &side->prov;
    const char *texts[] = {p->gpu, p->driver, p->commit, p->dirty, p->config_name, p->config_hash, p->cpu, p->family, p->date};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        if (!printable(texts[k]))
            return pb_err_set(err, "%s %s: a control character in its provenance (%s)", which, side->path,
                              "GPU, driver, commit, config, CPU, family or date");
    return 0;
}

static double *samples(json_t *row, size_t *n)
{
    json_t *a = json_object_get(row, "samples_ms");
    *n = json_array_size(a);
    double *v = malloc((*n ? *n : 1) * sizeof *v);
    for (size_t i = 0; v && i < *n; i++) v[i] = json_number_value(json_array_get(a, i));
    return v;
}

static double number(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static pb_cmp_key key_of(json_t *r)
{
    return (pb_cmp_key){str(r, "label"), str(r, "axis_value"), str(r, "module"), str(r, "device"),
                        (uint64_t)integer(r, "n"), (unsigned)integer(r, "item_bytes")};
}

/* The run's max_noise in percent (the sweep's default when absent). */
static double max_noise_pct(json_t *root)
{
    json_t *mn = json_object_get(json_object_get(root, "sweep"), "max_noise_pct");
    return json_is_number(mn) ? json_number_value(mn) : 0.5;
}

/* The seed slices of a row measured over several seeds (its seed_samples,
 * adding up to its samples): their count, 0 for a row of one seed or one
 * whose counts do not add up (judged whole). */
static int seed_slices(json_t *r, size_t n, size_t *counts)
{
    json_t *a = json_object_get(r, "seed_samples");
    size_t k = json_array_size(a), sum = 0;
    if (k < 2 || k > 64) return 0;
    for (size_t i = 0; i < k; i++) {
        json_t *c = json_array_get(a, i);
        if (!json_is_integer(c) || json_integer_value(c) < 1) return 0;
        sum += counts[i] = (size_t)json_integer_value(c);
    }
    return sum == n ? (int)k : 0;
}

/* One side of a row: its median interval's half-width (percent) from its
 * samples, noisy against its run's max_noise, multimodal, busy. A row
 * that carries the interval (median_ci_halfwidth_pct) judged its own
 * noisy by it, so that flag counts too; an older row's noisy was the
 * relative standard deviation, and is passed over. A row of several
 * seeds is judged seed by seed, as the run judged it (bench/row.h): noisy
 * or multimodal if a seed is, the widest seed's half-width shown; pooled,
 * seeds far apart would read as clusters. Its median is the median of the
 * per-seed medians, and its seeds' spread is returned. */
static int judge_side(json_t *root, json_t *r, const double *x, size_t n, double *median, double *ci_pct,
                      bool *noisy, bool *multimodal, bool *busy, int *seeds, double *spread_pct)
{
    double *s = malloc((n ? n : 1) * sizeof *s);
    if (!s) return -1;
    size_t counts[64];
    int k = seed_slices(r, n, counts);
    double max_noise = max_noise_pct(root);
    double meds[64];
    *ci_pct = 0;
    *noisy = *multimodal = false;
    int rc = 0;
    size_t at = 0;
    for (int i = 0; i < (k ? k : 1); i++) {
        size_t m = k ? counts[i] : n;
        memcpy(s, x + at, m * sizeof *s);
        gsl_sort(s, 1, m);
        pb_median_ci ci = pb_median_ci_of_sorted(s, m, 0.95);
        meds[i] = (s[(m - 1) / 2] + s[m / 2]) / 2;
        double pct = 100 * pb_median_ci_halfwidth(&ci, meds[i]);
        if (!(pct <= *ci_pct)) *ci_pct = pct;
        *noisy |= m > 1 && pct > max_noise;
        pb_modes md;
        rc |= pb_modes_of_sorted(s, m, &md);
        *multimodal |= md.multimodal;
        at += m;
    }
    free(s);
    bool own = json_is_number(json_object_get(r, "median_ci_halfwidth_pct"));
    *noisy |= own && json_is_true(json_object_get(r, "noisy"));
    *multimodal |= json_is_true(json_object_get(r, "multimodal"));
    *busy = json_is_true(json_object_get(r, "busy"));
    *seeds = k ? k : 1;
    *spread_pct = NAN;
    if (k) {
        pb_summary sm = pb_summarise(meds, (size_t)k);
        *median = sm.median;
        *spread_pct = sm.median > 0 ? 100 * (sm.max - sm.min) / sm.median : NAN;
    } else {
        *median = pb_summarise(x, n).median;
    }
    return rc;
}

static void add_reason(char *buf, size_t len, const char *side, const char *what, double pct)
{
    size_t at = strlen(buf);
    if (pct >= 0) snprintf(buf + at, len - at, "%s%s %s (+-%.1f%%)", at ? ", " : "", side, what, pct);
    else snprintf(buf + at, len - at, "%s%s %s", at ? ", " : "", side, what);
}

static int compare_row(pb_compare *c, json_t *b, json_t *n, pb_cmp_row *row, pb_err *err)
{
    memset(row, 0, sizeof *row);
    row->key = key_of(b);
    double *bs = samples(b, &row->base_samples), *ns = samples(n, &row->new_samples);
    pb_mann_whitney mw;
    int rc = !bs || !ns ? pb_err_set(err, "out of memory")
                        : pb_mann_whitney_u(ns, row->new_samples, bs, row->base_samples, &mw, err);
    if (!rc) {
        if (judge_side(c->base.root, b, bs, row->base_samples, &row->base_ms, &row->base_ci_pct,
                       &row->base_noisy, &row->base_multimodal, &row->base_busy, &row->base_seeds,
                       &row->base_seed_spread_pct) ||
            judge_side(c->new_.root, n, ns, row->new_samples, &row->new_ms, &row->new_ci_pct, &row->new_noisy,
                       &row->new_multimodal, &row->new_busy, &row->new_seeds, &row->new_seed_spread_pct))
            rc = pb_err_set(err, "out of memory");
        row->seed_spread_wide = row->base_seed_spread_pct > max_noise_pct(c->base.root) ||
                                row->new_seed_spread_pct > max_noise_pct(c->new_.root);
    }
    free(bs);
    free(ns);
    if (rc) {
        pb_err_prefix(err, "%s at n = %llu: ", row->key.label, (unsigned long long)row->key.n);
        return -1;
    }
    /* U of NEW against BASE: z > 0 when NEW's times tend to be larger. */
    row->u = mw.u;
    row->z = mw.z;
    row->p_value = mw.p_value;
    row->ratio = row->new_ms / row->base_ms;
    double t = 1 + c->opts.threshold_pct / 100;
    bool real = mw.p_value < c->opts.alpha;
    row->verdict = real && row->ratio > t ? PB_CMP_SLOWER : real && row->ratio < 1 / t ? PB_CMP_FASTER : PB_CMP_SAME;
    /* A side that cannot be trusted: no verdict. */
    char *u = row->unstable;
    size_t ul = sizeof row->unstable;
    if (row->base_noisy) add_reason(u, ul, "BASE", "noisy", row->base_ci_pct);
    if (row->new_noisy) add_reason(u, ul, "NEW", "noisy", row->new_ci_pct);
    if (row->base_multimodal) add_reason(u, ul, "BASE", "multimodal", -1);
    if (row->new_multimodal) add_reason(u, ul, "NEW", "multimodal", -1);
    if (row->base_busy) add_reason(u, ul, "BASE", "busy", -1);
    if (row->new_busy) add_reason(u, ul, "NEW", "busy", -1);
    if (*u) row->verdict = PB_CMP_UNSTABLE;
    bool gpu = strcmp(row->key.device, "gpu") == 0;
    row->other_device = gpu ? c->gpu_differs : c->cpu_differs;
    row->base_share = number(b, "pct_of_copy");
    row->new_share = number(n, "pct_of_copy");
    row->share_ratio = row->new_share / row->base_share;
    if (!(row->base_share > 0) || !(row->new_share > 0)) row->share_ratio = NAN;
    return 0;
}

static json_t *find(json_t *rows, json_t *like)
{
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r) if (same_key(r, like)) return r;
    return NULL;
}

static void skip(pb_compare *c, json_t *r, const char *bs, const char *ns)
{
    c->skips[c->nskips++] = (pb_cmp_skip){key_of(r), bs, ns};
}

int pb_compare_runs(const char *base, const char *new_, const pb_compare_opts *opts, pb_compare *c,
                    pb_err *err)
{
    memset(c, 0, sizeof *c);
    c->opts = *opts;
    if (load(base, "BASE", &c->base, err) || load(new_, "NEW", &c->new_, err)) return -1;
    const pb_cmp_prov *bp = &c->base.prov, *np = &c->new_.prov;
    if (strcmp(bp->family, np->family) != 0)
        return pb_err_set(err, "BASE is a %s run and NEW a %s run; compare runs of one family",
                          *bp->family ? bp->family : "(no family)", *np->family ? np->family : "(no family)");
    c->gpu_differs = strcmp(bp->gpu, np->gpu) != 0;
    c->cpu_differs = strcmp(bp->cpu, np->cpu) != 0 || bp->logical_cpus != np->logical_cpus;

    json_t *brows = json_object_get(c->base.root, "results"), *nrows = json_object_get(c->new_.root, "results");
    size_t nb = json_array_size(brows), nn = json_array_size(nrows);
    c->rows = calloc(nb ? nb : 1, sizeof *c->rows);
    c->skips = calloc(nb + nn ? nb + nn : 1, sizeof *c->skips);
    if (!c->rows || !c->skips) return pb_err_set(err, "out of memory");
    size_t i, matched = 0;
    json_t *r;
    /* Quadratic matching: runs hold hundreds of rows, not millions. */
    json_array_foreach(brows, i, r) if (!find(nrows, r)) skip(c, r, str(r, "status"), NULL);
    json_array_foreach(nrows, i, r) if (!find(brows, r)) skip(c, r, NULL, str(r, "status"));
    json_array_foreach(brows, i, r)
    {
        json_t *n = find(nrows, r);
        if (!n) continue;
        matched++;
        if (strcmp(str(r, "status"), "ok") != 0 || strcmp(str(n, "status"), "ok") != 0) {
            skip(c, r, str(r, "status"), str(n, "status"));
            continue;
        }
        pb_cmp_row *row = &c->rows[c->nrows];
        if (compare_row(c, r, n, row, err)) return -1;
        c->nrows++;
        c->same += row->verdict == PB_CMP_SAME;
        c->faster += row->verdict == PB_CMP_FASTER;
        c->slower += row->verdict == PB_CMP_SLOWER;
        c->unstable += row->verdict == PB_CMP_UNSTABLE;
        c->seed_spread_wide += row->seed_spread_wide;
        c->slower_beyond_fail += (row->verdict == PB_CMP_SLOWER || (opts->strict && row->verdict == PB_CMP_UNSTABLE)) &&
                                 row->ratio > 1 + opts->fail_pct / 100;
    }
    if (!matched)
        return pb_err_set(err, "BASE and NEW have no row in common (rows are matched by label, n, item_bytes "
                               "and axis_value)");
    return pb_compare_machine(c, err);
}

/* One run's provenance as the lines' texts. */
static void prov_texts(const pb_cmp_prov *p, char out[PB_CMP_PROV_LINES][160])
{
    size_t k = 0, len = 160;
    snprintf(out[k++], len, "%s", *p->gpu ? p->gpu : "-");
    snprintf(out[k++], len, "%s", *p->driver ? p->driver : "-");
    long long clocks[2] = {p->sm_clock_mhz, p->mem_clock_mhz};
    for (int i = 0; i < 2; i++, k++)
        if (clocks[i] < 0) snprintf(out[k], len, "-");
        else snprintf(out[k], len, "%lld MHz", clocks[i]);
    snprintf(out[k++], len, "%s (%lld logical CPUs)", *p->cpu ? p->cpu : "-", p->logical_cpus);
    snprintf(out[k++], len, "%.12s%s", *p->commit ? p->commit : "unknown",
             strcmp(p->dirty, "yes") == 0 ? " (dirty)" : "");
    snprintf(out[k++], len, "%s (%s)", *p->config_name ? p->config_name : "-",
             *p->config_hash ? p->config_hash : "no hash");
    snprintf(out[k++], len, "%s", *p->date ? p->date : "-");
    snprintf(out[k++], len, "%lld", p->schema_version);
}

size_t pb_compare_prov_lines(const pb_compare *c, pb_cmp_prov_line lines[PB_CMP_PROV_LINES])
{
    static const char *const what[PB_CMP_PROV_LINES] = {"GPU",    "driver (CUDA)", "SM clock",
                                                        "memory clock", "host CPU", "commit",
                                                        "config", "date",          "schema"};
    char b[PB_CMP_PROV_LINES][160], n[PB_CMP_PROV_LINES][160];
    prov_texts(&c->base.prov, b);
    prov_texts(&c->new_.prov, n);
    for (size_t i = 0; i < PB_CMP_PROV_LINES; i++) {
        lines[i].what = what[i];
        memcpy(lines[i].base, b[i], sizeof b[i]);
        memcpy(lines[i].new_, n[i], sizeof n[i]);
    }
    return PB_CMP_PROV_LINES;
}

void pb_compare_free(pb_compare *c)
{
    json_decref(c->base.root);
    json_decref(c->new_.root);
    free(c->rows);
    free(c->skips);
    free(c->machine);
    memset(c, 0, sizeof *c);
}

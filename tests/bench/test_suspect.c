/* Rows whose numbers are impossible are flagged with the reason
 * (bench/suspect.h), in the run and in results.json: a share of the copy
 * far above 100% (a stalled copy ceiling), and a ceiling whose time does
 * not grow with n. Numbers a quiet machine gives are not flagged. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "bench/results.h"
#include "bench/suspect.h"
#include "tests/test.h"

static const pb_instance *inst(const pb_config *cfg, const char *label)
{
    for (size_t i = 0; i < cfg->inst.n; i++)
        if (strcmp(cfg->inst.v[i].label, label) == 0) return &cfg->inst.v[i];
    return NULL;
}

static pb_row *add(pb_run *run, const pb_instance *in, uint64_t n, double median_ms, double pct)
{
    pb_row *r = &run->rows[run->nrows++];
    r->inst = in;
    r->n = n;
    r->item_bytes = 8;
    r->threads = pb_instance_threads(in);
    r->status = PB_ROW_OK;
    r->nsamples = 1;
    r->samples_ms = malloc(sizeof(double));
    r->wall_ms = malloc(sizeof(double));
    r->samples_ms[0] = r->wall_ms[0] = median_ms;
    r->ms = r->wall = pb_summarise(r->samples_ms, 1);
    r->pct_copy = pct;
    r->speedup_vs_ref = r->link_bytes = r->link_gbps = NAN;
    r->failed_sample = -1;
    return r;
}

TEST_IMPL(run_suspect_rows)
{
    static pb_config cfg;
    pb_err err;
    ASSERT(pb_config_load_text("t.ini", "t", "[sweep]\nsizes = 2^10, 2^14, 2^18\nitem = u64\n[cpu-fisher-yates]\n", &cfg,
                               &err) == 0);
    pb_config_add_ceilings(&cfg);
    const pb_instance *copy = inst(&cfg, "cpu-copy"), *fy = inst(&cfg, "cpu-fisher-yates");
    ASSERT(copy && fy);
    pb_run run = {0};
    run.rows = calloc(16, sizeof *run.rows);
    ASSERT(run.rows);
    /* A copy ceiling stalled on the scheduler at every n (as on a shared
     * 2-core machine): 8 ms for 1 Ki items and about as much at 16 and
     * 256 times that. */
    pb_row *c10 = add(&run, copy, 1 << 10, 8.0, 100), *c14 = add(&run, copy, 1 << 14, 7.9, 100);
    pb_row *c18 = add(&run, copy, 1 << 18, 9.5, 100);
    /* fisher-yates against it: 3000% of the copy. */
    pb_row *f10 = add(&run, fy, 1 << 10, 0.27, 3000);
    /* What a quiet machine gives: 218% at a cache-resident n (a sequential
     * module against a copy whose thread start dominates), and a copy whose
     * latency-bound times (below 0.1 ms) do not grow. */
    pb_row *f14 = add(&run, fy, 1 << 14, 0.05, 218);
    pb_row *q10 = add(&run, copy, 1 << 10, 0.005, 100), *q14 = add(&run, copy, 1 << 14, 0.006, 100);
    q10->threads = q14->threads = 1; /* another series of the copy: one thread */
    pb_row_flag_suspect(f10);
    ASSERT_CONTAINS(f10->suspect, "pct_of_copy 3000% is above 500%");
    pb_run_flag_suspect(&run);
    fprintf(stderr, "%s\n%s\n%s\n", f10->suspect, c10->suspect, c14->suspect);
    ASSERT_CONTAINS(c10->suspect, "the cpu-copy ceiling does not grow with n");
    ASSERT_CONTAINS(c14->suspect, "the cpu-copy ceiling does not grow with n");
    ASSERT(c18->suspect[0] == '\0'); /* nothing larger to compare with */
    ASSERT(f14->suspect[0] == '\0' && q10->suspect[0] == '\0' && q14->suspect[0] == '\0');

    /* A ceiling that grows as its work does is not flagged. */
    c10->suspect[0] = c14->suspect[0] = '\0';
    c10->ms.median = 0.5, c14->ms.median = 6.0, c18->ms.median = 95;
    pb_run_flag_suspect(&run);
    ASSERT(c10->suspect[0] == '\0' && c14->suspect[0] == '\0');

    /* results.json keeps the reason, and null for the rest. */
    char dir[256], path[300];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/results.json", dir);
    ASSERT(pb_results_write_json(path, &cfg, &run, json_object(), &err) == 0);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ASSERT(root);
    json_t *rows = json_object_get(root, "results");
    ASSERT(json_array_size(rows) == run.nrows);
    ASSERT_CONTAINS(json_string_value(json_object_get(json_array_get(rows, 3), "suspect")), "pct_of_copy 3000%");
    ASSERT(json_is_null(json_object_get(json_array_get(rows, 4), "suspect")));
    ASSERT(json_integer_value(json_object_get(json_object_get(root, "summary"), "suspect_rows")) == 1);
    json_decref(root);
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

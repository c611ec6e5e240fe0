/* results.csv and results.json of a real run: the documented columns and
 * fields, one row per instance x point, values consistent between the two. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/results.h"
#include "tests/test.h"

#ifndef PB_BINARY
#error "PB_BINARY must name the permbench executable"
#endif
#ifndef PB_SOURCE_DIR
#error "PB_SOURCE_DIR must name the source tree"
#endif

static json_t *get(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        o = json_object_get(o, k);
    return o;
}

TEST_IMPL(results_files)
{
    char dir[256], cmd[1024], path[512];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    snprintf(cmd, sizeof cmd, "'%s' run '%s/tests/data/tiny.ini' --out '%s/out' --quiet", PB_BINARY,
             PB_SOURCE_DIR, dir);
    int st = system(cmd);
    ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);

    /* CSV: the header, then 12 rows: (fisher-yates, gather-1t and the
     * automatic cpu-copy; a cpu-gather instance is already there) x 2 sizes
     * x 2 items. */
    snprintf(path, sizeof path, "%s/out/results.csv", dir);
    FILE *f = fopen(path, "r");
    ASSERT(f);
    char line[2048], header[2048] = "";
    for (size_t c = 0; c < pb_csv_ncolumns; c++) {
        strcat(header, c ? "," : "");
        strcat(header, pb_csv_columns[c]);
    }
    strcat(header, "\n");
    ASSERT(fgets(line, sizeof line, f) && strcmp(line, header) == 0);
    static const char *documented[] = {"label", "module", "n", "item_bytes", "median_ms", "min_ms",
                                       "max_ms", "stddev_ms", "items_per_s", "effective_gbps",
                                       "pct_of_copy", "verified", "threads", "samples",
                                       "link_bytes", "link_gbps", "path"};
    for (size_t i = 0; i < sizeof documented / sizeof documented[0]; i++) ASSERT_CONTAINS(header, documented[i]);
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        int commas = 0;
        for (char *p = line; *p; p++) commas += *p == ',';
        ASSERT(commas == (int)pb_csv_ncolumns - 1);
        /* No module here sends anything between devices: empty link cells;
         * then the median's interval, the clusters, busy and suspect, and
         * an empty path (no module here has several code paths). */
        ASSERT_CONTAINS(line, ",yes,ok,,,");
        ASSERT(line[strlen(line) - 2] == ',');
        rows++;
    }
    fclose(f);
    ASSERT(rows == 12);
    snprintf(path, sizeof path, "%s/out/results.partial.csv", dir);
    ASSERT(access(path, F_OK) != 0);

    /* JSON: provenance, the sweep, and the same rows with raw samples. */
    snprintf(path, sizeof path, "%s/out/results.json", dir);
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ASSERT(root);
    static const char *fields[] = {
        "provenance.date", "provenance.git.commit", "provenance.git.dirty",
        "provenance.config.path", "provenance.config.hash_fnv1a64", "provenance.config.text",
        "provenance.host.cpu_model", "provenance.host.logical_cpus", "provenance.host.omp_threads",
        "provenance.gpu.present", "provenance.build.c_compiler", "provenance.build.cuda_compiler",
        "provenance.command_line", "sweep.sizes", "sweep.item_bytes", "sweep.seed",
        "sweep.min_samples", "sweep.min_time_s", "instances", "results", "summary.rows"};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (!get(root, fields[i])) {
            fprintf(stderr, "results.json lacks %s\n", fields[i]);
            return 1;
        }
    ASSERT(strlen(json_string_value(get(root, "provenance.config.hash_fnv1a64"))) == 16);
    json_t *res = get(root, "results");
    ASSERT(json_array_size(res) == 12);
    ASSERT(json_integer_value(get(root, "summary.failed_rows")) == 0);
    size_t i;
    json_t *r;
    json_array_foreach(res, i, r)
    {
        json_t *samples = json_object_get(r, "samples_ms");
        json_int_t count = json_integer_value(json_object_get(r, "samples"));
        ASSERT(count >= 3 && count <= 5 && (json_int_t)json_array_size(samples) == count);
        double med = json_real_value(json_object_get(r, "median_ms"));
        double lo = json_real_value(json_object_get(r, "min_ms"));
        double hi = json_real_value(json_object_get(r, "max_ms"));
        ASSERT(lo <= med && med <= hi && lo > 0);
        ASSERT(json_is_true(json_object_get(r, "verified")));
        const char *mod = json_string_value(json_object_get(r, "module"));
        /* The copy row is the ratio's own reference. */
        if (strcmp(mod, "cpu-copy") == 0)
            ASSERT(json_real_value(json_object_get(r, "pct_of_copy")) == 100.0);
        ASSERT(json_is_real(json_object_get(r, "pct_of_copy")));
        /* The median's 95% interval holds the median; noisy is its
         * half-width above max_noise; multimodal is said either way. */
        double ci_lo = json_real_value(json_object_get(r, "median_ci_lo_ms"));
        double ci_hi = json_real_value(json_object_get(r, "median_ci_hi_ms"));
        double half = json_real_value(json_object_get(r, "median_ci_halfwidth_pct"));
        ASSERT(lo <= ci_lo && ci_lo <= med && med <= ci_hi && ci_hi <= hi);
        ASSERT(fabs(half - 100 * (ci_hi - ci_lo) / (2 * med)) <= 1e-6 * (half + 1));
        ASSERT(json_is_true(json_object_get(r, "noisy")) ==
               (half > json_real_value(get(root, "sweep.max_noise_pct"))));
        ASSERT(json_is_boolean(json_object_get(r, "multimodal")));
        ASSERT(json_real_value(json_object_get(r, "median_ci_confidence")) > 0.9);
        ASSERT(json_is_null(json_object_get(r, "link_bytes")) &&
               json_is_null(json_object_get(r, "link_gbps")) &&
               json_is_null(json_object_get(r, "topology")));
    }
    json_decref(root);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ASSERT(system(cmd) == 0);
    return 0;
}

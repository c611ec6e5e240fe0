/* A module spread over several devices reports what each sample sent
 * between them (pb_module.links): the runner asks after every timed sample
 * (not the warm-ups), and the row carries the median of the bytes, that over
 * the median time, and the topology; results.csv has them in its last two
 * columns, results.json as link_bytes, link_gbps and topology, the table as
 * a note line under the row. A module without the hook: NaN, empty cells,
 * nulls. A hook that fails makes the row an ERROR. Results files of an older
 * permbench, without the fields, read back as none. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench/results.h"
#include "bench/results_read.h"
#include "bench/runner.h"
#include "bench/table.h"
#include "families/shuffle/shuffle_hooks.h"
#include "registry/registry.h"
#include "tests/test.h"

#define TOPOLOGY "2 GPUs; 0-1 NVLink (test transport)"

/* Bytes of the samples in turn: their median is the middle one, 3e9. */
static const double sample_bytes[] = {3e9, 1e9, 5e9, 2e9, 4e9};
#define NSAMPLES 5
static int link_calls, fail_at = -1;

static int fake_links(void *state, pb_link_report *report, pb_err *err)
{
    (void)state;
    int k = link_calls++;
    if (k == fail_at) return pb_err_set(err, "transport gone");
    report->bytes = sample_bytes[k % NSAMPLES];
    snprintf(report->topology, sizeof report->topology, "%s", TOPOLOGY);
    return 0;
}

/* fisher-yates with the hook; "plain" is fisher-yates itself. */
static pb_module linked;

static int sweep(pb_config *cfg, pb_run *run)
{
    linked = *pb_module_find("cpu-fisher-yates");
    linked.name = "linked";
    static const pb_shuffle_hooks hooks = {.links = fake_links};
    linked.ext = &hooks;
    pb_err err;
    char text[512];
    snprintf(text, sizeof text,
             "[sweep]\nsizes = 1000\nitem = u64\nceilings = none\nwarmup = 2\nmin_samples = %d\n"
             "max_samples = %d\nmin_time = 0\nflush_cache = no\n[linked]\nmodule = cpu-fisher-yates\n"
             "[plain]\nmodule = cpu-fisher-yates\n",
             NSAMPLES, NSAMPLES);
    if (pb_config_load_text("t.ini", "t", text, cfg, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    cfg->inst.v[0].mod = &linked;
    link_calls = 0;
    if (pb_run_sweep(cfg, NULL, run, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
}

static const pb_row *row_of(const pb_run *run, const char *label)
{
    for (size_t i = 0; i < run->nrows; i++)
        if (strcmp(run->rows[i].inst->label, label) == 0) return &run->rows[i];
    return NULL;
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-5 * fabs(b);
}

/* The next comma-separated field of *p (empty fields too), or NULL. */
static char *field(char **p)
{
    char *f = *p;
    if (!f) return NULL;
    char *comma = strchr(f, ',');
    if (comma) *comma = '\0';
    *p = comma ? comma + 1 : NULL;
    return f;
}

static void copy(char *to, const char *from, size_t len)
{
    size_t n = strlen(from);
    if (n >= len) n = len - 1;
    memcpy(to, from, n);
    to[n] = '\0';
}

/* The CSV cells of `label` in the columns link_bytes and link_gbps. */
static int csv_cells(const char *path, const char *label, char *bytes, char *gbps, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int cb = -1, cg = -1, cs = -1, ncols = 0, rc = -1;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *save = line, *tok;
        for (int c = 0; (tok = field(&save)); c++, ncols++) {
            if (strcmp(tok, "link_bytes") == 0) cb = c;
            if (strcmp(tok, "link_gbps") == 0) cg = c;
            if (strcmp(tok, "status") == 0) cs = c;
        }
    }
    /* Appended after status (the columns appended since come after them),
     * so older readers find theirs. */
    if (cs < 0 || cb != cs + 1 || cg != cs + 2) {
        fclose(f);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *save = line, *tok, *first = NULL;
        int c = 0;
        for (; (tok = field(&save)); c++) {
            if (c == 0) first = tok;
            if (c == cb) copy(bytes, tok, len);
            if (c == cg) copy(gbps, tok, len);
        }
        if (c != ncols) break; /* every row has every column */
        if (first && strcmp(first, label) == 0) {
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

static json_t *json_row(json_t *root, const char *label)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(root, "results"), i, r)
    {
        const char *l = json_string_value(json_object_get(r, "label"));
        if (l && strcmp(l, label) == 0) return r;
    }
    return NULL;
}

/* The run's results.csv and results.json in a new temporary folder dir,
 * the JSON read back into *root. */
static int write_files(const pb_config *cfg, const pb_run *run, char *dir, size_t len, json_t **root)
{
    char path[512];
    pb_err err;
    json_error_t je;
    if (!pb_test_tmpdir(dir, len)) return -1;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (pb_results_write_csv(path, run, &err)) return -1;
    snprintf(path, sizeof path, "%s/results.json", dir);
    if (pb_results_write_json(path, cfg, run, json_object(), &err)) return -1;
    *root = json_load_file(path, 0, &je);
    return *root ? 0 : -1;
}

static int remove_dir(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd);
}

/* What pb_table_row prints for `row`. */
static int table_text(const pb_row *row, char *out, size_t len)
{
    fflush(stdout);
    FILE *tmp = tmpfile();
    int saved = dup(STDOUT_FILENO);
    if (!tmp || saved < 0 || dup2(fileno(tmp), STDOUT_FILENO) < 0) return -1;
    pb_table_row(row);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, len - 1, tmp);
    out[n] = '\0';
    fclose(tmp);
    fputs(out, stdout); /* in the test's log too */
    return 0;
}

TEST_IMPL(links_row)
{
    static pb_config cfg;
    pb_run run;
    ASSERT(sweep(&cfg, &run) == 0);
    ASSERT_EQ_U64(run.nrows, 2);
    /* After every timed sample, never after a warm-up. */
    ASSERT_EQ_U64(link_calls, NSAMPLES);
    const pb_row *l = row_of(&run, "linked"), *p = row_of(&run, "plain");
    ASSERT(l && p && l->status == PB_ROW_OK && p->status == PB_ROW_OK);
    ASSERT_EQ_U64(l->nsamples, NSAMPLES);
    ASSERT(l->link_bytes == 3e9); /* the median, not the last (4e9) nor the mean */
    ASSERT(l->ms.median > 0 && l->link_gbps == l->link_bytes / (l->ms.median * 1e6));
    ASSERT(strcmp(l->topology, TOPOLOGY) == 0);
    ASSERT(isnan(p->link_bytes) && isnan(p->link_gbps) && p->topology[0] == '\0');

    /* The table: a note line under the row with links, none under the other. */
    char text[2048], want[256];
    ASSERT(table_text(l, text, sizeof text) == 0);
    snprintf(want, sizeof want,
             "\n  links: 3.00 GB sent between devices, %.1f GB/s at the median; %s\n", l->link_gbps,
             TOPOLOGY);
    ASSERT_CONTAINS(text, want);
    ASSERT(table_text(p, text, sizeof text) == 0);
    ASSERT(!strstr(text, "links:"));

    char dir[256], path[512], bytes[64], gbps[64];
    json_t *root;
    pb_err err;
    ASSERT(write_files(&cfg, &run, dir, sizeof dir, &root) == 0);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    ASSERT(csv_cells(path, "linked", bytes, gbps, sizeof bytes) == 0);
    ASSERT(strcmp(bytes, "3e+09") == 0);
    ASSERT(near(strtod(gbps, NULL), l->link_gbps));
    ASSERT(csv_cells(path, "plain", bytes, gbps, sizeof bytes) == 0);
    ASSERT(bytes[0] == '\0' && gbps[0] == '\0');

    snprintf(path, sizeof path, "%s/results.json", dir);
    json_t *jl = json_row(root, "linked"), *jp = json_row(root, "plain");
    ASSERT(jl && jp);
    ASSERT(json_number_value(json_object_get(jl, "link_bytes")) == 3e9);
    ASSERT(near(json_number_value(json_object_get(jl, "link_gbps")), l->link_gbps));
    ASSERT(strcmp(json_string_value(json_object_get(jl, "topology")), TOPOLOGY) == 0);
    static const char *fields[] = {"link_bytes", "link_gbps", "topology"};
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_object_get(jp, fields[i]);
        ASSERT(v && json_is_null(v)); /* there, and null */
    }

    /* Read back (run --resume): as written; and from a file of an older
     * permbench, without the fields: none. */
    pb_run back;
    ASSERT(pb_results_read_rows(path, &cfg, &back, &err) == 0);
    l = row_of(&back, "linked"), p = row_of(&back, "plain");
    ASSERT(l && p && l->link_bytes == 3e9 && near(l->link_gbps, row_of(&run, "linked")->link_gbps));
    ASSERT(strcmp(l->topology, TOPOLOGY) == 0);
    ASSERT(isnan(p->link_bytes) && isnan(p->link_gbps) && p->topology[0] == '\0');
    pb_run_free(&back);
    for (size_t i = 0; i < 3; i++) {
        json_object_del(jl, fields[i]);
        json_object_del(jp, fields[i]);
    }
    ASSERT(json_dump_file(root, path, JSON_INDENT(1)) == 0);
    json_decref(root);
    ASSERT(pb_results_read_rows(path, &cfg, &back, &err) == 0);
    l = row_of(&back, "linked");
    ASSERT(l && isnan(l->link_bytes) && isnan(l->link_gbps) && l->topology[0] == '\0');
    pb_run_free(&back);

    ASSERT(remove_dir(dir) == 0);
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

/* A hook that fails ends the row as an ERROR, as a failing run() does,
 * naming the sample; its link cells are empty. */
TEST_IMPL(links_error)
{
    static pb_config cfg;
    pb_run run;
    fail_at = 2;
    int rc = sweep(&cfg, &run);
    fail_at = -1;
    ASSERT(rc == 0);
    const pb_row *l = row_of(&run, "linked"), *p = row_of(&run, "plain");
    ASSERT(l && p && l->status == PB_ROW_ERROR && !l->verified);
    ASSERT_CONTAINS(l->message, "links, sample 2: transport gone");
    ASSERT(p->status == PB_ROW_OK);

    char dir[256], path[512], bytes[64] = "x", gbps[64] = "x";
    json_t *root;
    ASSERT(write_files(&cfg, &run, dir, sizeof dir, &root) == 0);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    ASSERT(csv_cells(path, "linked", bytes, gbps, sizeof bytes) == 0);
    ASSERT(bytes[0] == '\0' && gbps[0] == '\0');
    json_t *jl = json_row(root, "linked");
    ASSERT(jl && json_is_null(json_object_get(jl, "link_bytes")) &&
           json_is_null(json_object_get(jl, "link_gbps")));
    ASSERT(strcmp(json_string_value(json_object_get(jl, "status")), "ERROR") == 0);
    json_decref(root);
    ASSERT(remove_dir(dir) == 0);
    pb_run_free(&run);
    pb_config_free(&cfg);
    return 0;
}

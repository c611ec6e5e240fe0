/* The readers of finished runs' results (`permbench plot`'s results.json,
 * `quality --replot`'s quality.json) against hostile documents: the
 * findings of the fuzz campaign (docs/fuzzing.md), each refused in one line
 * or read in bounded time. An alarm turns a hang into a failure. */
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "output/plot.h"
#include "quality/quality_plot.h"
#include "tests/test.h"

static int plot_read(const char *text, pb_err *err)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root) return -2;
    pb_plot_set *set = malloc(sizeof *set);
    int rc = set ? pb_plot_read(root, "r.json", set, err) : -2;
    /* Each list ends inside its buffer, and none ran into the next: with
     * no instances, no series, and the buffer untouched. */
    if (!rc && !memchr(set->items, '\0', sizeof set->items)) rc = -3;
    for (size_t i = 0; !rc && i < sizeof set->series; i++)
        if (set->series[i] && !json_array_size(json_object_get(root, "instances"))) rc = -3;
    free(set);
    json_decref(root);
    return rc;
}

static int count_figure(void *user, const char *stem, const char *vars,
                        const pb_embedded_file *script, pb_err *err)
{
    (void)stem, (void)vars, (void)script, (void)err;
    ++*(int *)user;
    return 0;
}

static int replot_read(const char *text, int *figures, pb_err *err)
{
    json_error_t je;
    json_t *root = json_loads(text, 0, &je);
    if (!root) return -2;
    static pb_quality_config cfg;
    static pb_qrun run;
    bool plot;
    int rc = pb_quality_replot_read(root, "q.json", &cfg, &run, &plot, err);
    /* What --replot draws next, built but not drawn. */
    *figures = 0;
    if (!rc && plot) rc = pb_quality_figures("d", &cfg, &run, count_figure, figures, err);
    pb_quality_replot_free(&cfg, &run);
    json_decref(root);
    return rc;
}

TEST_IMPL(plot_read_hostile)
{
    pb_err err;
    alarm(20);
    /* An empty series after another: searching for "" never moved on. */
    ASSERT(
        plot_read("{\"sweep\": {\"plots\": [], \"item_bytes\": [8]}, \"instances\":"
                  " [{\"label\": \"a\", \"series\": \"a\"}, {\"label\": \"b\", \"series\": \"\"}]}",
                  &err) == 0);
    /* More item widths than the list holds: its offset ran past the
     * buffer and the next write went beyond it. */
    ASSERT(plot_read("{\"sweep\": {\"plots\": [], \"item_bytes\": [1000000, 2000000, 3000000,"
                     " 4000000, 5000000, 6000000, 7000000, 8000000, 9000000, 10000000]},"
                     " \"instances\": []}",
                     &err) == 0);
    /* A kind that is not a string left the error unset; one with a newline
     * made the error two lines. */
    ASSERT(plot_read("{\"sweep\": {\"plots\": [5], \"item_bytes\": []}, \"instances\": []}",
                     &err) == -1);
    ASSERT_CONTAINS(err.msg,
                    "r.json: not a permbench results file (sweep.plots[0] is not a plot kind)");
    ASSERT(
        plot_read("{\"sweep\": {\"plots\": [\"axis\\nx\"], \"item_bytes\": []}, \"instances\": []}",
                  &err) == -1);
    ASSERT_CONTAINS(err.msg, "sweep.plots[0] is not a plot kind");
    ASSERT(plot_read("{\"sweep\": {\"plots\": [], \"item_bytes\": [], \"title\": \"it's\"},"
                     " \"instances\": []}",
                     &err) == -1);
    ASSERT_CONTAINS(err.msg, "r.json: a quote or control character in the title");
    alarm(0);
    return 0;
}

TEST_IMPL(replot_read_hostile)
{
    pb_err err;
    int figures;
    alarm(20);
    /* A swept instance with an empty group after another: searching for ""
     * never moved on. */
    ASSERT(replot_read("{\"quality\": {\"plot\": true, \"title\": \"t\", \"tests\":"
                       " {\"mmd\": {\"samples\": 10, \"n\": [5]}}}, \"rows\": [],"
                       " \"instances\": [{\"label\": \"a\", \"group\": \"g\","
                       " \"swept_param\": \"rounds\", \"value\": 1}, {\"label\": \"b\","
                       " \"group\": \"\", \"swept_param\": \"rounds\", \"value\": 2}]}",
                       &figures, &err) == 0);
    ASSERT(figures == 1);
    /* A quote in a group ended its gnuplot string: the rest of the value
     * ran as gnuplot commands (system() included). */
    ASSERT(replot_read("{\"quality\": {\"plot\": true, \"title\": \"t\"}, \"rows\": [],"
                       " \"instances\": [{\"label\": \"a\", \"group\": \"x'; system('true'); y='\","
                       " \"swept_param\": \"rounds\", \"value\": 1}]}",
                       &figures, &err) == -1);
    ASSERT_CONTAINS(err.msg, "q.json: instances[0]: a quote or control character");
    ASSERT(replot_read("{\"quality\": {\"plot\": true, \"title\": \"a\\nb\"}, \"rows\": [],"
                       " \"instances\": []}",
                       &figures, &err) == -1);
    ASSERT_CONTAINS(err.msg, "q.json: a quote or control character in quality.title");
    alarm(0);
    return 0;
}

/* A large hostile quality.json: 4096 instances, 10^5 rows, 16 figures.
 * Each row searched every instance and each figure every row for every
 * instance: about a minute. Read and built in a second or two now. */
TEST_IMPL(replot_read_large)
{
    alarm(30);
    json_t *inst = json_array(), *rows = json_array(), *ns = json_array();
    json_array_append_new(inst, json_pack("{s:s, s:s, s:s, s:i}", "label", "ax", "group", "g",
                                          "swept_param", "rounds", "value", 1));
    for (int i = 0; i < 4095; i++) {
        char label[16];
        snprintf(label, sizeof label, "l%d", i);
        json_array_append_new(inst, json_pack("{s:s, s:s}", "label", label, "group", label));
    }
    for (int i = 0; i < 100000; i++)
        json_array_append_new(rows,
                              json_pack("{s:s, s:s, s:i, s:i, s:f, s:f, s:s}", "label", "l0",
                                        "test", "mmd-clt", "n", 5 + i % 16, "samples", 10,
                                        "statistic", 1.0, "threshold", 2.0, "verdict", "PASS"));
    for (int n = 5; n < 21; n++) json_array_append_new(ns, json_integer(n));
    json_t *root = json_pack("{s:{s:b, s:s, s:f, s:{s:{s:i, s:o}}}, s:o, s:o}", "quality", "plot",
                             1, "title", "t", "alpha", 0.01, "tests", "mmd", "samples", 10, "n", ns,
                             "instances", inst, "rows", rows);
    ASSERT(root);
    static pb_quality_config cfg;
    static pb_qrun run;
    bool plot;
    pb_err err;
    int figures = 0;
    ASSERT(pb_quality_replot_read(root, "q.json", &cfg, &run, &plot, &err) == 0 && plot);
    ASSERT(pb_quality_figures("d", &cfg, &run, count_figure, &figures, &err) == 0);
    ASSERT(figures == 16);
    pb_quality_replot_free(&cfg, &run);

    /* Labels name instances: one label for two is refused. */
    json_array_append_new(inst, json_pack("{s:s}", "label", "l7"));
    ASSERT(pb_quality_replot_read(root, "q.json", &cfg, &run, &plot, &err) == -1);
    ASSERT_CONTAINS(err.msg, "q.json: the label 'l7' names two instances");
    pb_quality_replot_free(&cfg, &run);
    json_decref(root);
    alarm(0);
    return 0;
}

/* results.json as `permbench compare` reads it (compare/compare.h): the
 * input compared with itself (every row matched: the U test, medians and
 * ratios on whatever samples it holds) and with a small valid run on
 * either side, then reported as text and Markdown and drawn as gnuplot
 * input, without running gnuplot. Beside the sanitizers: a refusal says
 * why in one line, the report never prints a line break it was given, and
 * the gnuplot input holds no value that leaves its quotes. */
#include "compare/compare.h"
#include "tests/fuzz/fuzz_input.h"

static const char base_json[] =
    "{\"schema_version\": 2, \"provenance\": {\"gpu\": {\"present\": false}, \"git\": "
    "{\"commit\": \"0123456789abcdef\", \"dirty\": \"no\"}, \"host\": {\"cpu_model\": \"cpu\", "
    "\"logical_cpus\": 2}}, \"sweep\": {\"family\": \"shuffle\"}, \"results\": ["
    "{\"label\": \"cpu-fisher-yates\", \"module\": \"cpu-fisher-yates\", \"device\": \"cpu\", \"n\": 1024, "
    "\"item_bytes\": 8, \"status\": \"ok\", \"samples_ms\": [1, 1.5, 2], \"pct_of_copy\": 50},"
    "{\"label\": \"cpu-copy\", \"module\": \"cpu-copy\", \"device\": \"cpu\", \"n\": 1024, "
    "\"item_bytes\": 8, \"status\": \"ok\", \"samples_ms\": [0.5, 0.5, 0.6]}]}";

/* Everything one comparison may be asked for after it loaded. */
static void exercise(pb_compare *c)
{
    PB_FUZZ_ASSERT(c->same + c->faster + c->slower + c->unstable == c->nrows);
    static char buf[1 << 20];
    for (int md = 0; md < 2; md++) {
        FILE *out = fmemopen(buf, sizeof buf, "w");
        PB_FUZZ_ASSERT(out);
        pb_compare_print(c, md, out);
        fclose(out);
    }
    char vars[4096];
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_compare_plot_vars(c, "fuzz-dir", vars, sizeof vars, &err))
        pb_fuzz_check_err(&err);
    else
        pb_fuzz_check_gnuplot_vars(vars);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char base_path[600];
    if (!base_path[0]) {
        snprintf(base_path, sizeof base_path, "%s",
                 pb_fuzz_input_file("base.json", (const uint8_t *)base_json, sizeof base_json - 1));
    }
    const char *path = pb_fuzz_input_file("results.json", data, size);
    pb_compare_opts opts = {0.001, 5, 10, false};
    const char *pairs[3][2] = {{path, path}, {base_path, path}, {path, base_path}};
    for (int p = 0; p < 3; p++) {
        pb_compare c;
        pb_err err;
        pb_fuzz_err_clear(&err);
        if (pb_compare_runs(pairs[p][0], pairs[p][1], &opts, &c, &err) == 0)
            exercise(&c);
        else
            pb_fuzz_check_err(&err);
        pb_compare_free(&c);
    }
    return 0;
}

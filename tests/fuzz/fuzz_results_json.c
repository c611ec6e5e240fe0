/* results.json as `permbench plot` reads it (output/plot.h): the document
 * parsed as json_load_file would, what it asks to draw read by
 * pb_plot_read, and each figure's gnuplot input built by pb_plot_vars,
 * without running gnuplot. Beside the sanitizers: a refusal says why in
 * one line, and the gnuplot input holds no value that leaves its quotes. */
#include "output/plot.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *root = json_loadb((const char *)data, size, 0, &je);
    if (!root) return 0;
    pb_plot_set *set = malloc(sizeof *set);
    PB_FUZZ_ASSERT(set);
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_plot_read(root, "fuzz/results.json", set, &err)) {
        pb_fuzz_check_err(&err);
        goto out;
    }
    PB_FUZZ_ASSERT(json_is_array(set->kinds) && set->title);
    /* Each list is appended to in place: one string, then zeros to the end
     * of its buffer (a write past an end shows up as bytes after the NUL). */
    const struct {
        const char *buf;
        size_t len;
    } lists[] = {{set->labels, sizeof set->labels}, {set->items, sizeof set->items},
                 {set->others, sizeof set->others}, {set->subtitle, sizeof set->subtitle},
                 {set->series, sizeof set->series}, {set->sizes, sizeof set->sizes},
                 {set->axis, sizeof set->axis},     {set->axis_values, sizeof set->axis_values}};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        size_t n = strnlen(lists[l].buf, lists[l].len);
        PB_FUZZ_ASSERT(n < lists[l].len);
        for (size_t b = n; b < lists[l].len; b++) PB_FUZZ_ASSERT(lists[l].buf[b] == '\0');
    }
    size_t i;
    json_t *v;
    json_array_foreach(set->kinds, i, v)
    {
        pb_plot_request req = {"fuzz-dir",      json_string_value(v), set->title, set->labels,
                               set->items,      set->series,          set->sizes, set->axis,
                               set->axis_values,          set->subtitle,        NULL};
        PB_FUZZ_ASSERT(req.kind);
        const pb_embedded_file *script;
        pb_fuzz_err_clear(&err);
        char *vars = pb_plot_vars(&req, &script, &err);
        if (!vars) {
            pb_fuzz_check_err(&err);
            continue;
        }
        PB_FUZZ_ASSERT(script && script->data);
        pb_fuzz_check_gnuplot_vars(vars);
        free(vars);
    }
out:
    free(set);
    json_decref(root);
    return 0;
}

/* Module parameters (config/params.h): pb_params_set against the spec of
 * every module in this build's registry, and of a module made here with
 * the edge cases no real one has (the whole long long range, empty and
 * repeated choices, a choice or a key file). Input: the module's name, a
 * newline, the parameter's name, a newline, the value (the rest, without a
 * newline).
 *
 * Beside the sanitizers: a value accepted is inside its spec (a choice, or
 * a key file where the enum takes one and the value said `file:`), prints,
 * and reads back to itself; a value refused says why in one line. */
#include <limits.h>

#include "config/params.h"
#include "registry/registry.h"
#include "tests/fuzz/fuzz.h"

static const pb_param_spec edge_params[] = {
    {"whole", PB_PARAM_INT, 0, LLONG_MIN, LLONG_MAX, NULL, "every long long"},
    {"pos", PB_PARAM_INT, 1, 1, 1LL << 62, NULL, "1 .. 2^62"},
    {"neg", PB_PARAM_INT, -1, -100, -1, NULL, "negative only"},
    {"pick", PB_PARAM_ENUM, 0, 0, 0, "a|bb||a|", "empty and repeated choices"},
    {"one", PB_PARAM_ENUM, 0, 0, 0, "only", "a single choice"},
    {"flag", PB_PARAM_BOOL, 0, 0, 1, NULL, "yes or no"},
    {"src", PB_PARAM_ENUM, 0, 0, 0, "a|" PB_CHOICE_FILE, "a choice or a key file"},
};
static const pb_module edge = {
    .name = "fuzz-edge",
    .params = edge_params,
    .nparams = sizeof edge_params / sizeof edge_params[0],
};

static size_t nchoices(const char *choices)
{
    size_t n = 1;
    for (const char *p = choices; *p; p++) n += *p == '|';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = pb_fuzz_text(data, size);
    if (!text) return 0;
    char *name = strchr(text, '\n');
    char *value = name ? strchr(name + 1, '\n') : NULL;
    /* A value is read from one INI line: it never holds a newline. */
    if (!value || strchr(value + 1, '\n')) goto out;
    *name++ = '\0';
    *value++ = '\0';
    const pb_module *m = strcmp(text, edge.name) == 0 ? &edge : pb_module_find(text);
    if (!m) goto out;

    pb_params p;
    pb_params_defaults(m, &p);
    pb_err err;
    pb_fuzz_err_clear(&err);
    if (pb_params_set(m, &p, name, value, &err)) {
        pb_fuzz_check_err(&err);
        goto out;
    }
    int i = pb_module_param_index(m, name);
    PB_FUZZ_ASSERT(i >= 0);
    const pb_param_spec *s = &m->params[i];
    long long v = p.v[i];
    switch (s->type) {
    case PB_PARAM_INT:
        PB_FUZZ_ASSERT(v >= s->min && v <= s->max);
        break;
    case PB_PARAM_ENUM:
        if (pb_param_file(v))
            PB_FUZZ_ASSERT(pb_param_takes_file(s) && strncmp(value, "file:", 5) == 0);
        else if (pb_param_arg(v) >= 0) {
            /* `name:X`: a choice that takes an argument, and the argument
             * within its bounds (millionths of [0, 1] for a fraction). */
            long long c = pb_param_choice(v), a = pb_param_arg(v);
            bool fraction = false;
            PB_FUZZ_ASSERT(c >= 0 && (size_t)c < nchoices(s->choices));
            PB_FUZZ_ASSERT(pb_choice_takes_arg(s->choices, c, &fraction));
            PB_FUZZ_ASSERT(fraction ? a <= 1000000 : a >= 1 && a <= (1LL << 31));
        } else {
            PB_FUZZ_ASSERT(v >= 0 && (size_t)v < nchoices(s->choices));
        }
        break;
    case PB_PARAM_BOOL:
        PB_FUZZ_ASSERT(v == 0 || v == 1);
        break;
    }
    /* Printed and read back: the same value (a repeated choice reads as its first). */
    char buf[PB_PARAM_TEXT_MAX], range[256];
    pb_params q;
    pb_params_defaults(m, &q);
    pb_fuzz_err_clear(&err);
    int rc = pb_params_set(m, &q, name, pb_param_format(s, v, buf, sizeof buf), &err);
    PB_FUZZ_ASSERT(rc == 0);
    PB_FUZZ_ASSERT(q.v[i] == v);
    (void)pb_param_range(s, range, sizeof range);
out:
    pb_data_files_clear(); /* each input from an empty table of key files */
    free(text);
    return 0;
}

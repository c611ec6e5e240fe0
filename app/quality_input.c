#include "app/quality_input.h"

#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "config/ini.h"
#include "config/sizes.h"
#include "quality/perm_reader.h"

/* An input's default label: its file name without the extension, made a
 * label (other characters become '-'); "stdin" for standard input. */
static void default_label(const char *path, char *label, size_t len)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(path, "-") == 0) base = "stdin";
    size_t l = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && dot != base) l = (size_t)(dot - base);
    if (l > len - 1) l = len - 1;
    for (size_t i = 0; i < l; i++) {
        char c = base[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '+' || c == '-';
        label[i] = ok ? c : '-';
    }
    label[l] = '\0';
    if (!l) snprintf(label, len, "input");
}

/* A path ending in ".npy" is read as NumPy's format unless --format says otherwise. */
static bool npy_name(const char *path)
{
    size_t l = strlen(path);
    return l > 4 && strcmp(path + l - 4, ".npy") == 0;
}

int pb_input_parse(const pb_input_opts *o, pb_qinput *q, uint64_t *count)
{
    memset(q, 0, sizeof *q);
    uint64_t v;
    pb_err e;
    if (o->format && pb_perm_format_parse(o->format, &q->format, &e)) return pb_cli_fail("quality: --format: %s", e.msg);
    if (!o->format && npy_name(o->path)) q->format = PB_PERM_NPY;
    if (!o->n && q->format == PB_PERM_NPY) {
        /* The header says n: `np.save("order.npy", perms)` then `permbench
         * quality --input order.npy` is all it takes. */
        pb_npy_header h;
        bool known;
        if (pb_perm_npy_probe(o->path, NULL, &h, &known, &e)) return pb_cli_fail("%s", e.msg);
        if (!known) return pb_cli_fail("quality: --input %s: give --n N (a pipe's .npy header is read later)", o->path);
        if (h.n < 2) return pb_cli_fail("quality: %s: rows of %llu items: n must be 2 .. 2^32-1", o->path,
                                        (unsigned long long)h.n);
        q->n = (uint32_t)h.n;
    } else {
        if (!o->n) return pb_cli_fail("quality: --input needs --n N (the length of each permutation)");
        if (pb_size_expr(o->n, &v, &e) || v < 2 || v > UINT32_MAX)
            return pb_cli_fail("quality: --n '%s': n must be 2 .. 2^32-1", o->n);
        q->n = (uint32_t)v;
    }
    *count = 0;
    if (o->count && (pb_size_expr(o->count, count, &e) || *count < 1 || *count > (UINT64_C(1) << 40)))
        return pb_cli_fail("quality: --count '%s': a count of rows in 1 .. 2^40", o->count);
    if (o->label && !pb_label_valid(o->label))
        return pb_cli_fail("quality: --label '%s': 1-47 letters, digits, '.', '_', '+' or '-'", o->label);
    if (o->label) snprintf(q->label, sizeof q->label, "%s", o->label);
    else default_label(o->path, q->label, sizeof q->label);
    snprintf(q->path, sizeof q->path, "%s", o->path);
    snprintf(q->open_path, sizeof q->open_path, "%s", o->path);
    return 0;
}

int pb_input_rows(const pb_qinput *q, uint64_t *count)
{
    uint64_t rows;
    bool known;
    pb_err e;
    if (pb_perm_count_rows(q->open_path, q->path, q->n, q->format, &rows, &known, &e))
        return pb_cli_fail("%s", e.msg);
    if (!known)
        return pb_cli_fail("quality: --input %s: give --count C (the rows of a pipe cannot be counted ahead)",
                           q->path);
    if (!rows) return pb_cli_fail("%s holds no rows", strcmp(q->path, "-") == 0 ? "stdin" : q->path);
    *count = rows;
    return 0;
}

void pb_input_header(const pb_quality_config *cfg, const char *dir, bool own_tests)
{
    const pb_qinput *q = &cfg->inputs[0];
    printf("# input %s from %s (%s, n = %u) -> %s (alpha = %g):", q->label,
           strcmp(q->path, "-") == 0 ? "stdin" : q->path, pb_perm_format_name(q->format), q->n, dir,
           cfg->settings.alpha);
    for (size_t k = 0; k < pb_qtest_count(); k++)
        if (cfg->test[k].nn)
            printf(" %s (%llu samples)", pb_qtest_at(k)->name, (unsigned long long)cfg->test[k].samples);
    printf("\n");
    for (size_t k = 0; k < pb_qtest_count() && !own_tests; k++) {
        pb_err e;
        uint64_t samples = pb_quality_config_samples_at(cfg, q->n);
        if (!cfg->test[k].nn && pb_qtest_at(k)->applies(q->n, samples, &e))
            printf("# not run: %s\n", e.msg);
    }
}

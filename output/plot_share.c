#include "output/plot_share.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/sizes.h"
#include "output/atomic_file.h"

typedef struct shape {
    long long rows;
    unsigned long long n;
    double bytes; /* read per query: the row's effective bytes */
    char name[64];
} shape;

typedef struct point {
    int line, shape;
    double ms, share;
} point;

static const char *str(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static json_t *instance_of(json_t *root, const char *label)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(root, "instances"), i, v) if (strcmp(str(v, "label"), label) == 0) return v;
    return NULL;
}

/* The copies: a label all of whose rows are 100% of the copy. */
static bool copy_label(json_t *root, const char *label)
{
    size_t i, rows = 0;
    json_t *r;
    json_array_foreach(json_object_get(root, "results"), i, r)
    {
        if (strcmp(str(r, "label"), label) != 0) continue;
        json_t *p = json_object_get(r, "pct_of_copy");
        if (!json_is_number(p) || fabs(json_number_value(p) - 100.0) > 1e-9) return false;
        rows++;
    }
    return rows > 0;
}

static int by_shape(const void *a, const void *b)
{
    const shape *x = a, *y = b;
    if (x->rows != y->rows) return x->rows < y->rows ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Appends a word; false when the list is full. */
static bool add_word(char *list, size_t len, const char *w)
{
    size_t at = strlen(list);
    int n = snprintf(list + at, len - at, "%s%s", at ? " " : "", w);
    if (n < 0 || (size_t)n >= len - at) {
        list[at] = '\0';
        return false;
    }
    return true;
}

static int find_word(const char *list, const char *w)
{
    int i = 0;
    size_t n = strlen(w);
    for (const char *p = list; *p; i++) {
        const char *e = strchr(p, ' ');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && strncmp(p, w, n) == 0) return i;
        p += l + (e ? 1 : 0);
    }
    return -1;
}

int pb_plot_share_data(json_t *root, const char *dir, char *shapes, size_t shapes_len, char *lines,
                       size_t lines_len, pb_err *err)
{
    json_t *rows = json_object_get(root, "results");
    size_t nrows = json_array_size(rows);
    shape *sh = calloc(nrows + 1, sizeof *sh);
    point *pt = calloc(nrows + 1, sizeof *pt);
    char (*shape_of)[64] = calloc(nrows + 1, sizeof *shape_of);
    int rc = -1;
    size_t nsh = 0, npt = 0;
    shapes[0] = lines[0] = '\0';
    if (!sh || !pt || !shape_of) {
        pb_err_set(err, "out of memory");
        goto out;
    }
    /* The shapes, each once. */
    size_t i;
    json_t *r;
    json_array_foreach(rows, i, r)
    {
        shape_of[i][0] = '\0';
        const char *label = str(r, "label");
        json_t *in = instance_of(root, label), *params = json_object_get(in, "params");
        json_t *ms = json_object_get(r, "median_ms"), *gbps = json_object_get(r, "effective_gbps");
        if (!in || strcmp(str(r, "status"), "ok") != 0 || !json_is_number(ms) || copy_label(root, label)) continue;
        shape s = {1, (unsigned long long)json_integer_value(json_object_get(r, "n")), 0, ""};
        json_t *rw = json_object_get(params, "rows");
        if (json_is_integer(rw)) s.rows = json_integer_value(rw);
        const char *dtype = json_string_value(json_object_get(params, "dtype"));
        char width[16];
        snprintf(width, sizeof width, "%lldB", json_integer_value(json_object_get(r, "item_bytes")));
        s.bytes = json_is_number(gbps) ? json_number_value(gbps) * json_number_value(ms) * 1e6 : 0;
        char nb[48];
        snprintf(s.name, sizeof s.name, "%lldx%s-%s", s.rows, pb_size_format(s.n, nb, sizeof nb), dtype ? dtype : width);
        snprintf(shape_of[i], sizeof shape_of[i], "%s", s.name);
        bool have = false;
        for (size_t k = 0; k < nsh && !have; k++) have = strcmp(sh[k].name, s.name) == 0;
        if (!have) sh[nsh++] = s;
    }
    if (nsh == 0) {
        pb_err_set(err, "share-one-read: no row to draw (no ok row besides the copies)");
        goto out;
    }
    qsort(sh, nsh, sizeof *sh, by_shape);
    for (size_t k = 0; k < nsh; k++)
        if (!add_word(shapes, shapes_len, sh[k].name)) {
            pb_err_set(err, "share-one-read: too many shapes to name");
            goto out;
        }
    /* The points: a line per module and axis value; where a line already
     * has this shape (two sections of one module), the section names it. */
    json_array_foreach(rows, i, r)
    {
        if (!shape_of[i][0]) continue;
        int s = find_word(shapes, shape_of[i]);
        char line[160];
        const char *axis = str(r, "axis"), *value = str(r, "axis_value");
        for (int pass = 0; pass < 2; pass++) {
            snprintf(line, sizeof line, "%s%s%s%s%s", pass ? str(r, "series") : str(r, "module"), *axis ? "/" : "",
                     axis, *axis ? "=" : "", value);
            int l = find_word(lines, line);
            bool taken = false;
            for (size_t k = 0; k < npt && l >= 0 && !taken; k++) taken = pt[k].line == l && pt[k].shape == s;
            if (!taken || pass) break;
        }
        int l = find_word(lines, line);
        if (l < 0) {
            if (!add_word(lines, lines_len, line)) {
                pb_err_set(err, "share-one-read: too many lines to name");
                goto out;
            }
            l = find_word(lines, line);
        }
        json_t *pct = json_object_get(r, "pct_of_copy");
        pt[npt++] = (point){l, s, json_number_value(json_object_get(r, "median_ms")),
                            json_is_number(pct) ? json_number_value(pct) : NAN};
    }
    char path[1200];
    snprintf(path, sizeof path, "%s/share-one-read.csv", dir);
    pb_afile a;
    if (pb_afile_open(&a, path, err)) goto out;
    int nl = 0;
    for (const char *p = lines; *p; p++) nl += *p == ' ';
    nl += lines[0] != '\0';
    for (int l = 0; l < nl; l++) {
        fprintf(a.f, "%s# shape index (1-based, in the shapes' order), median_ms, share of one read (%%)\n",
                l ? "\n\n" : "");
        for (int s = 0; s < (int)nsh; s++)
            for (size_t k = 0; k < npt; k++)
                if (pt[k].line == l && pt[k].shape == s) {
                    fprintf(a.f, "%d,%.9g,", s + 1, pt[k].ms);
                    if (isnan(pt[k].share)) fputs("NaN\n", a.f);
                    else fprintf(a.f, "%.6g\n", pt[k].share);
                }
    }
    rc = pb_afile_commit(&a, err);
out:
    free(sh);
    free(pt);
    free(shape_of);
    return rc;
}

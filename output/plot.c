#include "output/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "output/json_file.h"
#include "output/results_names.h"
#include "config/embedded.h"
#include "output/plot_share.h"

bool pb_gnuplot_find(char *path, size_t len)
{
    const char *env = getenv("PERMBENCH_GNUPLOT");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        return access(path, X_OK) == 0;
    }
    const char *p = getenv("PATH");
    if (!p) return false;
    while (*p) {
        const char *colon = strchr(p, ':');
        size_t l = colon ? (size_t)(colon - p) : strlen(p);
        snprintf(path, len, "%.*s/gnuplot", (int)l, l ? p : ".");
        if (access(path, X_OK) == 0) return true;
        p += l + (colon ? 1 : 0);
    }
    return false;
}

bool pb_gnuplot_quotable(const char *s)
{
    for (; *s; s++)
        if (*s == '\'' || (unsigned char)*s < 0x20 || *s == 0x7f) return false;
    return true;
}

void pb_gnuplot_unquote(char *s)
{
    for (; *s; s++)
        if (*s == '\'' || (unsigned char)*s < 0x20 || *s == 0x7f) *s = ' ';
}

char *pb_plot_vars(const pb_plot_request *req, const pb_embedded_file **script, pb_err *err)
{
    /* "axis-speedup" draws plots/axis.gp with the speedup column: one
     * script per figure shape, its y column chosen by `kind`. */
    char script_path[128], base[64];
    snprintf(base, sizeof base, "%s", req->kind);
    static const char *const variants[] = {"-speedup", "-time"};
    for (size_t v = 0; v < 2; v++) {
        char *sp = strstr(base, variants[v]);
        size_t l = strlen(variants[v]);
        if (sp) memmove(sp, sp + l, strlen(sp + l) + 1);
    }
    snprintf(script_path, sizeof script_path, "plots/%s.gp", base);
    if (!(*script = pb_embedded_find(script_path)))
        return pb_err_set(err, "no plot script for kind '%s'", req->kind), NULL;
    const char *series = req->series ? req->series : "", *sizes = req->sizes ? req->sizes : "";
    const char *axis = req->axis ? req->axis : "", *axvals = req->axis_values ? req->axis_values : "";
    const char *sub = req->subtitle ? req->subtitle : "";
    const char *colours = req->colour_labels ? req->colour_labels : req->labels;
    if (!pb_gnuplot_quotable(req->dir) || !pb_gnuplot_quotable(req->title) ||
        !pb_gnuplot_quotable(req->labels) || !pb_gnuplot_quotable(series) ||
        !pb_gnuplot_quotable(axis) || !pb_gnuplot_quotable(axvals) || !pb_gnuplot_quotable(sub) ||
        !pb_gnuplot_quotable(colours))
        return pb_err_set(err, "cannot plot: a quote character in the directory, title or labels"),
               NULL;

#define VARS_FMT                                                                                   \
    "datafile = '%s/results.csv'\nlabels = '%s'\nitems = '%s'\ntitle = '%s'\nkind = '%s'\n"          \
    "series = '%s'\nsizes = '%s'\naxis = '%s'\naxis_values = '%s'\nsubtitle = '%s'\n"          \
    "colour_labels = '%s'\n"
#define VARS_ARGS                                                                                  \
    req->dir, req->labels, req->items, req->title, req->kind, series, sizes, axis, axvals, sub, colours
    size_t len = (size_t)snprintf(NULL, 0, VARS_FMT, VARS_ARGS) + 1;
    char *vars = malloc(len);
    if (!vars) return pb_err_set(err, "out of memory"), NULL;
    snprintf(vars, len, VARS_FMT, VARS_ARGS);
    return vars;
}

int pb_plot_draw(const char *gnuplot, const pb_plot_request *req, pb_err *err)
{
    const pb_embedded_file *script;
    char *vars = pb_plot_vars(req, &script, err);
    if (!vars) return -1;
    int rc = pb_gnuplot_draw(gnuplot, vars, script->data, script->len, req->dir, req->kind, err);
    free(vars);
    return rc;
}

/* Whether a figure gnuplot wrote is whole: a PNG ends with its IEND chunk,
 * an SVG with its closing tag. A full disk leaves them empty or cut. */
static bool figure_complete(const char *path, const char *ext)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char tail[16] = {0};
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    bool ok = size >= 16 && fseek(f, -16, SEEK_END) == 0 && fread(tail, 1, 16, f) == 16;
    fclose(f);
    if (!ok) return false;
    if (strcmp(ext, "png") == 0) return memcmp(tail + 8, "IEND\xae\x42\x60\x82", 8) == 0;
    for (size_t i = 0; i + 6 <= sizeof tail; i++)
        if (memcmp(tail + i, "</svg>", 6) == 0) return true;
    return false;
}

/* Why a figure could not be written, as well as can be told: the file
 * system's state, else gnuplot's own last words in its log. */
static void figure_reason(const char *dir, const char *log, int st, char *why, size_t len)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) == 0 && vfs.f_bavail == 0) {
        snprintf(why, len, "%s", strerror(ENOSPC));
        return;
    }
    if (st != -1 && WIFSIGNALED(st)) {
        snprintf(why, len, "gnuplot was killed by %s", strsignal(WTERMSIG(st)));
        return;
    }
    char line[512] = "", last[512] = "";
    FILE *f = fopen(log, "r");
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n' && line[0] != '#') snprintf(last, sizeof last, "%s", line);
    if (f) fclose(f);
    last[strcspn(last, "\n")] = '\0';
    if (last[0]) snprintf(why, len, "gnuplot: %s", last);
    else snprintf(why, len, "the figure came out empty or cut, and gnuplot gave no reason");
}

int pb_gnuplot_draw(const char *gnuplot, const char *vars, const char *script, size_t script_len,
                    const char *dir, const char *stem, pb_err *err)
{
    static const char *const terms[][2] = {
        {"pngcairo size 1100,650 font 'sans,10'", "png"},
        {"svg size 1100,650 dynamic font 'sans,10'", "svg"},
    };
    /* gnuplot's warnings ("empty x range", ...) go to a log beside the
     * figures, not to the user's terminal. */
    char log[1200];
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    for (size_t t = 0; t < 2; t++) {
        char cmd[3000], tmp[1200], final[1200];
        snprintf(final, sizeof final, "%s/%s.%s", dir, stem, terms[t][1]);
        snprintf(tmp, sizeof tmp, "%s/.%s.%s.tmp", dir, stem, terms[t][1]);
        snprintf(cmd, sizeof cmd, "'%s' 2>>'%s'", gnuplot, log);
        FILE *l = fopen(log, "a"); /* which figure the warnings below are about */
        if (l) fprintf(l, "# %s\n", final), fclose(l);
        /* gnuplot dies of a file size limit as any program does, even
         * where permbench itself ignores SIGXFSZ to see EFBIG. */
        void (*xfsz)(int) = signal(SIGXFSZ, SIG_DFL);
        FILE *g = popen(cmd, "w");
        signal(SIGXFSZ, xfsz);
        if (!g) return pb_err_set(err, "cannot start %s: %s", gnuplot, strerror(errno));
        fputs(vars, g);
        /* Written under a temporary name, renamed only when whole. */
        fprintf(g, "set terminal %s\nset output '%s'\n", terms[t][0], tmp);
        const pb_embedded_file *common = pb_embedded_find("plots/common.gp");
        if (common) fwrite(common->data, 1, common->len, g);
        fwrite(script, 1, script_len, g);
        fputs("\nset output\n", g);
        int st = pclose(g);
        bool whole = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && figure_complete(tmp, terms[t][1]);
        int fd = whole ? open(tmp, O_RDONLY) : -1;
        if (whole && (fd < 0 || fsync(fd) != 0)) whole = false;
        if (fd >= 0) close(fd);
        if (!whole || rename(tmp, final) != 0) {
            char why[600];
            if (whole) snprintf(why, sizeof why, "%s", strerror(errno));
            else figure_reason(dir, log, st, why, sizeof why);
            remove(tmp);
            return pb_err_set(err, "cannot draw %s: %s", final, why);
        }
    }
    return 0;
}

/* `w` is one of the space-separated words of `list`. An empty word is in
 * every list (it is never added; searching for it never moved on: a hang). */
static bool word_in(const char *list, const char *w)
{
    size_t n = strlen(w);
    if (n == 0) return true;
    for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0')) return true;
    return false;
}

static bool is_copy(json_t *root, const char *label)
{
    size_t i, rows = 0;
    json_t *r;
    json_array_foreach(json_object_get(root, "results"), i, r)
    {
        const char *l = json_string_value(json_object_get(r, "label"));
        if (!l || strcmp(l, label) != 0) continue;
        json_t *p = json_object_get(r, "pct_of_copy");
        if (!json_is_number(p) || fabs(json_number_value(p) - 100.0) > 1e-9) return false;
        rows++;
    }
    return rows > 0;
}

/* "shuffle · 8 B items · NVIDIA H200 · Intel Xeon ... · permbench <commit>":
 * what a figure shows and where it was measured. Quotes are dropped (the
 * text goes into a single-quoted gnuplot string). */
static void plot_subtitle(json_t *root, char *out, size_t len)
{
    json_t *sweep = json_object_get(root, "sweep"), *prov = json_object_get(root, "provenance");
    const char *family = json_string_value(json_object_get(sweep, "family"));
    char items[64] = "";
    size_t i, off = 0;
    json_t *v;
    json_array_foreach(json_object_get(sweep, "item_bytes"), i, v)
    {
        /* Whole widths only: a long list once ran the offset past the end. */
        int w = snprintf(items + off, sizeof items - off, "%s%lld", off ? "/" : "",
                         json_integer_value(v));
        if (w < 0 || (size_t)w >= sizeof items - off) {
            items[off] = '\0';
            break;
        }
        off += (size_t)w;
    }
    bool gpu_rows = false;
    json_array_foreach(json_object_get(root, "instances"), i, v)
        gpu_rows |= json_string_value(json_object_get(v, "device")) &&
                    strcmp(json_string_value(json_object_get(v, "device")), "gpu") == 0;
    const char *gpu = gpu_rows ? json_string_value(json_object_get(json_object_get(prov, "gpu"), "name")) : NULL;
    const char *cpu = json_string_value(json_object_get(json_object_get(prov, "host"), "cpu_model"));
    json_t *cores = json_object_get(json_object_get(prov, "host"), "logical_cpus");
    const char *commit = json_string_value(json_object_get(json_object_get(prov, "git"), "commit"));
    char cpus[32] = "";
    if (json_is_integer(cores)) snprintf(cpus, sizeof cpus, " (%lld threads)", json_integer_value(cores));
    snprintf(out, len, "%s%s%s B items%s%s%s%s%s%s  |  permbench %.7s", family ? family : "",
             family ? "  |  " : "", items, gpu ? "  |  " : "", gpu ? gpu : "", cpu ? "  |  " : "",
             cpu ? cpu : "", cpu ? cpus : "", "", commit ? commit : "unknown");
    pb_gnuplot_unquote(out);
}

int pb_plot_read(json_t *root, const char *path, pb_plot_set *set, pb_err *err)
{
    memset(set, 0, sizeof *set);
    json_t *sweep = json_object_get(root, "sweep");
    json_t *plots = json_object_get(sweep, "plots");
    json_t *inst = json_object_get(root, "instances");
    json_t *ib = json_object_get(sweep, "item_bytes");
    const char *title = json_string_value(json_object_get(sweep, "title"));
    if (!json_is_array(plots) || !json_is_array(inst) || !json_is_array(ib))
        return pb_err_set(err, "%s: not a permbench results file (no sweep.plots / instances)",
                          path);
    size_t i, off = 0;
    json_t *v;
    json_array_foreach(plots, i, v)
    {
        /* Each kind is named in messages: no control characters (a newline
         * would make the one line of an error two). */
        const char *k = json_string_value(v);
        bool printable = k != NULL;
        for (; printable && k && *k; k++) printable = (unsigned char)*k >= 0x20 && *k != 0x7f;
        if (!printable)
            return pb_err_set(
                err, "%s: not a permbench results file (sweep.plots[%zu] is not a plot kind)", path,
                i);
    }
    set->title = title ? title : "";
    set->kinds = plots;
    json_array_foreach(inst, i, v)
    {
        const char *l = json_string_value(json_object_get(v, "label"));
        if (l)
            off += (size_t)snprintf(set->labels + off, sizeof set->labels - off, "%s%s",
                                    off ? " " : "", l);
        if (off >= sizeof set->labels) break;
        /* The share-of-copy figure draws the copy as its 100% line, not as
         * a series that would hide it: a label whose every row is at 100%
         * of the copy is the copy (whatever the build that reads it). */
        size_t oo = strlen(set->others);
        if (l && !is_copy(root, l) && oo + strlen(l) + 2 < sizeof set->others)
            snprintf(set->others + oo, sizeof set->others - oo, "%s%s", oo ? " " : "", l);
    }
    plot_subtitle(root, set->subtitle, sizeof set->subtitle);
    /* Unique series and axis values, in order of first appearance. */
    size_t so = 0, ao = 0;
    json_array_foreach(inst, i, v)
    {
        const char *sr = json_string_value(json_object_get(v, "series"));
        const char *ax = json_string_value(json_object_get(v, "axis"));
        const char *av = json_string_value(json_object_get(v, "axis_value"));
        if (!sr) sr = json_string_value(json_object_get(v, "label"));
        if (sr && !word_in(set->series, sr) && so + strlen(sr) + 2 < sizeof set->series)
            so += (size_t)snprintf(set->series + so, sizeof set->series - so, "%s%s", so ? " " : "",
                                   sr);
        if (ax && *ax && !set->axis[0]) snprintf(set->axis, sizeof set->axis, "%s", ax);
        if (av && *av && !word_in(set->axis_values, av) &&
            ao + strlen(av) + 2 < sizeof set->axis_values)
            ao += (size_t)snprintf(set->axis_values + ao, sizeof set->axis_values - ao, "%s%s",
                                   ao ? " " : "", av);
    }
    off = 0;
    json_t *sz = json_object_get(sweep, "sizes");
    json_array_foreach(sz, i, v)
    {
        if (off + 24 >= sizeof set->sizes) break;
        off += (size_t)snprintf(set->sizes + off, sizeof set->sizes - off, "%s%lld", off ? " " : "",
                                (long long)json_integer_value(v));
    }
    /* Whole widths only, as many as fit: the offset once ran past the end
     * and the next write went beyond the buffer. */
    off = 0;
    json_array_foreach(ib, i, v)
    {
        int w = snprintf(set->items + off, sizeof set->items - off, "%s%lld", off ? " " : "",
                         json_integer_value(v));
        if (w < 0 || (size_t)w >= sizeof set->items - off) {
            memset(set->items + off, 0, sizeof set->items - off); /* no part of a width */
            break;
        }
        off += (size_t)w;
    }
    /* All of these are written into gnuplot strings: a quote would end one. */
    if (!pb_gnuplot_quotable(set->title) || !pb_gnuplot_quotable(set->labels) ||
        !pb_gnuplot_quotable(set->series) || !pb_gnuplot_quotable(set->axis) ||
        !pb_gnuplot_quotable(set->axis_values))
        return pb_err_set(
            err, "%s: a quote or control character in the title, labels or axis values", path);
    return 0;
}

int pb_plot_dir(const char *dir, bool quiet, pb_err *err)
{
    char path[1100];
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return pb_err_set(err, "%s: no such result directory", dir);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    if (access(path, R_OK) != 0) {
        snprintf(path, sizeof path, "%s/results.partial.csv", dir);
        if (access(path, F_OK) == 0)
            return pb_err_set(err, "%s holds an interrupted run; finish it with 'permbench run --resume %s', "
                                   "then plot", dir, dir);
        return pb_err_set(err, "%s: no results.csv", dir);
    }
    if (!pb_results_json_in(dir, path, sizeof path))
        return pb_err_set(err, "%s: no results.json (nor results.json.gz)", dir);
    json_error_t je;
    json_t *root = pb_json_load_file(path, &je);
    if (!root && je.line < 1) return pb_err_set(err, "%s: %s", path, je.text); /* unreadable, corrupt .gz */
    if (!root) return pb_err_set(err, "%s:%d: %s", path, je.line, je.text);

    int rc = -1;
    char gnuplot[1024];
    pb_plot_set *set = malloc(sizeof *set);
    if (!set) {
        pb_err_set(err, "out of memory");
        goto out;
    }
    pb_results_rename_modules(root); /* a run written before a module's rename */
    if (pb_plot_read(root, path, set, err)) goto out;
    if (json_array_size(set->kinds) == 0) {
        rc = 0;
        goto out;
    }
    if (!pb_gnuplot_find(gnuplot, sizeof gnuplot)) {
        pb_err_set(err, "gnuplot not found on PATH (install gnuplot-nox, or set PERMBENCH_GNUPLOT)");
        goto out;
    }
    size_t i;
    json_t *v;
    json_array_foreach(set->kinds, i, v)
    {
        const char *kind = json_string_value(v);
        pb_plot_request req = {dir,         kind,       set->title,
                               strcmp(kind, "pct-copy") == 0 ? set->others : set->labels,
                               set->items,  set->series, set->sizes, set->axis, set->axis_values,
                               set->subtitle, set->labels};
        /* Its points are derived (output/plot_share.h): the lines go as the
         * series, the shapes as the axis values. */
        if (strcmp(kind, "share-one-read") == 0) {
            if (pb_plot_share_data(root, dir, set->share_shapes, sizeof set->share_shapes, set->share_lines,
                                   sizeof set->share_lines, err))
                goto out;
            req.series = set->share_lines;
            req.axis_values = set->share_shapes;
        }
        if (pb_plot_draw(gnuplot, &req, err)) goto out;
        if (!quiet) printf("figure: %s/%s.png, %s/%s.svg\n", dir, req.kind, dir, req.kind);
    }
    rc = 0;
out:
    free(set);
    json_decref(root);
    return rc;
}

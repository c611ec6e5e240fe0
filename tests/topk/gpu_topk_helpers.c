#include "tests/topk/gpu_topk_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "algorithms/topk/radik/radik_digit.h"
#include "core/gpu.h"
#include "families/topk/topk_problem.h"
#include "registry/registry.h"
#include "tests/test.h"
#ifdef PB_HAVE_CUDA
#include "families/topk/gpu_topk_output.h"
#endif

int gtk_need_gpu(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

double gtk_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const tk_case gtk_cases[NCASES] = {
    {"gpu-sort-and-choose", NULL, NULL}, {"gpu-radik", NULL, NULL},        {"gpu-radik", "hier", "0"},
    {"gpu-radik", "wbuf", "0"},          {"gpu-radik", "resched", "0"},    {"gpu-radik", "pad", "0"},
    {"gpu-radik", "scale", "off"},       {"gpu-radik", "scale", "random"}, {"gpu-radik", "filter", "off"},
    {"gpu-radik", "filter", "overshoot"}, {"gpu-sort-and-choose", "ties", "lowest-index"},
    {"gpu-radik", "ties", "lowest-index"}, {"gpu-radik", "sorted", "yes"}, {"gpu-sort-and-choose", "sorted", "yes"},
    {"gpu-radik", "quick", "0"},           {"gpu-radik", "prefetch", "0"},
};

int gtk_twin_part = -1; /* -1: every case */

/* PB_TOPK_CASES=LIST (comma-separated `module` or `module:param=value`)
 * runs only the twin cases named, in whichever part holds them: a focused
 * run on a lent GPU, whose minutes are few. */
bool gtk_case_wanted(const tk_case *c)
{
    const char *list = getenv("PB_TOPK_CASES");
    if (!list || !*list) return true;
    char name[128];
    if (c->param)
        snprintf(name, sizeof name, "%s:%s=%s", c->module, c->param, c->value);
    else
        snprintf(name, sizeof name, "%s", c->module);
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == len && strncmp(p, name, l) == 0) return true;
        if (!e) break;
        p = e + 1;
    }
    return false;
}

bool gtk_in_part(int ci)
{
    return (gtk_twin_part < 0 || ci % TWIN_PARTS == gtk_twin_part) && gtk_case_wanted(&gtk_cases[ci]);
}

/* Shapes 0-1 are single rows, 2-3 batches. */
const tk_shape gtk_shapes[NSHAPES] = {{1, 0, 0}, {1, 0, 1}, {5, 1, 1}, {16, 0, 1}};

/* Every distribution as a config writes it: the first 8 in enum order (so
 * PB_TOPK_UNIFORM .. PB_TOPK_NAN index them), then the heavy-tie and ordered ones (half
 * zeros, 2, 16 and 256 levels, int8's 256, half -inf; ordered rows). The
 * k lists reach past every level count (31..33 past 2 and 16, 1000 past
 * 256). */
const char *const gtk_dist_names[NDISTS] = {
    "uniform", "narrow", "narrow128", "zipf", "normal",     "equal",  "inf",     "nan",
    "relu",    "few:2",  "few:16",    "few:256", "int8", "masked:0.5", "sorted", "reversed"};

int gtk_dist_named(const char *name)
{
    for (int d = 0; d < NDISTS; d++)
        if (strcmp(gtk_dist_names[d], name) == 0) return d;
    return 0;
}

/* The value type a hashed point takes from three bits: u32, i32, fp16 and
 * bf16 an eighth of the points each, fp32 the rest. */
int gtk_dtype(uint32_t bits)
{
    static const int pick[8] = {PB_TOPK_U32, PB_TOPK_I32, PB_TOPK_F16, PB_TOPK_BF16,
                                PB_TOPK_F32, PB_TOPK_F32, PB_TOPK_F32, PB_TOPK_F32};
    return pick[bits & 7];
}

const char *const gtk_dtype_names[7] = {"f32", "u32", "i32", "f16", "bf16", "f64", "u64"};

/* The value type of case c's hashed point: tk_dtype's, and for
 * sort-and-choose fp64 and u64 in place of a quarter of fp32's points
 * each, from the two bits above tk_dtype's. radik's 64-bit keys have
 * their own sweeps (gpu_topk_wide, gpu_topk_wide_switches), so that the
 * twin parts keep their time. */
int gtk_dtype_of(const tk_case *c, uint32_t bits)
{
    int dt = gtk_dtype(bits);
    if (dt != PB_TOPK_F32 || strcmp(c->module, "gpu-sort-and-choose") != 0) return dt;
    uint32_t w = (bits >> 3) & 3;
    return w == 0 ? PB_TOPK_F64 : w == 1 ? PB_TOPK_U64 : PB_TOPK_F32;
}

/* A fixed scramble of a point's coordinates, for the tiers that pick some
 * dimensions instead of running the full product: lowbias32, the mix
 * radik's sample positions use (radik_digit.h). */
uint32_t gtk_hash(uint32_t x) { return pb_radik_hash(x); }

uint32_t gtk_coords(uint32_t salt, int ci, int dist, int ki, int si)
{
    return gtk_hash(salt ^ gtk_hash((uint32_t)(((ci * 32 + dist) * 16 + ki) * 16 + si)));
}

/* k values at row length n: the family's list where >= 1, without repeats
 * (values beyond n stay: they select whole rows). Returns how many. */
int gtk_k_list(uint64_t n, uint64_t *ks)
{
    const uint64_t want[] = {1, 2, 31, 32, 33, 1000, n / 2, n - 1, n};
    int c = 0;
    for (int i = 0; i < 9; i++) {
        if (want[i] < 1 || (n == 0 && i >= 6)) continue;
        bool dup = false;
        for (int j = 0; j < c; j++) dup |= ks[j] == want[i];
        if (!dup) ks[c++] = want[i];
    }
    return c;
}

void gtk_describe(const pb_module *mod, const tk_case *c, const tk_point *q, const char *what,
                     const char *msg)
{
    fprintf(stderr,
            "%s%s%s%s%s n=%llu k=%llu rows=%llu ragged=%d misalign=%d largest=%d dist=%s "
            "dtype=%s: %s%s\n",
            mod->name, c->param ? " " : "", c->param ? c->param : "", c->param ? "=" : "",
            c->param ? c->value : "", (unsigned long long)q->n, (unsigned long long)q->k,
            (unsigned long long)q->shape.rows, q->shape.ragged, q->shape.misalign, q->largest,
            gtk_dist_names[q->dist], gtk_dtype_names[q->dtype], what, msg);
}

/* One more parameter every run takes (name = value), or none: the
 * cluster test's way to run a case with two parameters set. */
const char *gtk_extra_name, *gtk_extra_value;

int gtk_set_params(const pb_module *mod, const tk_case *c, const tk_point *q, pb_params *p,
                      pb_err *err)
{
    pb_params_defaults(mod, p);
    p->v[PB_TOPK_P_K] = (long long)q->k;
    p->v[PB_TOPK_P_ROWS] = (long long)q->shape.rows;
    p->v[PB_TOPK_P_RAGGED] = q->shape.ragged;
    p->v[PB_TOPK_P_MISALIGN] = q->shape.misalign;
    p->v[PB_TOPK_P_LARGEST] = q->largest;
    p->v[PB_TOPK_P_DTYPE] = q->dtype;
    if (pb_params_set(mod, p, "dist", gtk_dist_names[q->dist], err)) return -1;
    if (gtk_extra_name && pb_module_param_index(mod, gtk_extra_name) >= 0 &&
        pb_params_set(mod, p, gtk_extra_name, gtk_extra_value, err))
        return -1;
    return c->param ? pb_params_set(mod, p, c->param, c->value, err) : 0;
}

uint64_t gtk_seed(const tk_point *q)
{
    return 7000 + q->n * 31 + (uint64_t)q->dist * 7 + q->shape.rows;
}

/* One module at one point, as the harness drives it: prepare, two runs,
 * verify, release. Returns 1 on failure (printed). */
int gtk_one(const pb_module *mod, const tk_case *c, const tk_point *q)
{
    pb_params p;
    pb_err err = {{0}};
    int rc = gtk_set_params(mod, c, q, &p, &err);
    pb_point pt = {q->n, 4, gtk_seed(q), &p, 0};
    void *st = NULL;
    if (!rc) rc = mod->prepare(&pt, &st, &err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = mod->run(st, s, &err);
    if (!rc) rc = mod->verify(st, &err);
    if (st) mod->release(st);
    if (rc) gtk_describe(mod, c, q, "", err.msg);
    return rc ? 1 : 0;
}

int gtk_find_cases(const pb_module **mods)
{
    for (int ci = 0; ci < NCASES; ci++) {
        mods[ci] = pb_module_find(gtk_cases[ci].module);
        if (!mods[ci]) {
            fprintf(stderr, "no module '%s' in this build (every GPU top-k module must be)\n",
                    gtk_cases[ci].module);
            return 1;
        }
        if (gtk_cases[ci].param && pb_module_param_index(mods[ci], gtk_cases[ci].param) < 0) {
            fprintf(stderr, "module '%s' has no parameter '%s'\n", gtk_cases[ci].module,
                    gtk_cases[ci].param);
            return 1;
        }
    }
    return 0;
}

/* Runs one point for one case; false once there are too many failures. */
bool gtk_tally(tk_tally *t, const pb_module *mod, const tk_case *c, const tk_point *q)
{
    t->failures += gtk_one(mod, c, q);
    t->runs++;
    return t->failures < MAX_FAILURES;
}

#ifdef PB_HAVE_CUDA

int gtk_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Case c at point q with one more parameter (name = value): prepared, run
 * twice (two samples), verified, its output fetched and its length checked
 * against outs. Nonzero with err set on failure; o->st is set whenever
 * prepare made a state, failed or not. */
int gtk_run_output(const pb_module *mod, const tk_case *c, const tk_point *q, const char *name,
                    const char *value, uint64_t outs, tk_output *o, pb_err *err)
{
    pb_params p;
    *o = (tk_output){0};
    int rc = gtk_set_params(mod, c, q, &p, err);
    if (!rc) rc = pb_params_set(mod, &p, name, value, err);
    pb_point pt = {q->n, 4, gtk_seed(q), &p, 0};
    if (!rc) rc = mod->prepare(&pt, &o->st, err);
    for (uint64_t s = 0; s < 2 && !rc; s++) rc = mod->run(o->st, s, err);
    if (!rc) rc = mod->verify(o->st, err);
    if (!rc) rc = pb_gpu_topk_output(o->st, &o->v, &o->ix, &o->off, &o->rows, err);
    if (!rc && o->off[o->rows] != outs) {
        snprintf(err->msg, sizeof err->msg, "%llu results, expected %llu",
                 (unsigned long long)o->off[o->rows], (unsigned long long)outs);
        rc = -1;
    }
    return rc;
}

#endif

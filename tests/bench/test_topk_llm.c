/* configs/paper/topk-llm.ini, the LLM sampling grid: its points counted
 * from the plan (nothing measured), its seeds, its copy and its figure;
 * and configs/paper/topk-llm-peers.ini, its radik points with CUB's top-k
 * at each of them.
 * The grid is read twice: with its GPU modules swapped for CPU ones
 * (omp-topk takes the same rows, dtype, dist and k; cpu-copy is the CPU's
 * copy), so any build checks its shape; and as written where this build
 * has radik and sort-and-choose. The host's work — the keys drawn, answered
 * and uploaded once a seed — is held under what the header's 8 minutes
 * allow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/runner.h"
#include "bench/sweep_config.h"
#include "registry/registry.h"
#include "tests/test.h"

#ifndef PB_SOURCE_DIR
#error "PB_SOURCE_DIR must name the source tree"
#endif

typedef struct tally {
    const pb_config *cfg;
    long points[3]; /* radik, sort-and-choose or CUB (the peer), copy (by series prefix) */
    double keys;    /* rows x n over every point and seed */
} tally;

static void count(const pb_instance *in, uint64_t n, unsigned item_bytes, void *user)
{
    (void)item_bytes;
    tally *t = user;
    int kind = strncmp(in->series, "radik-", 6) == 0                                         ? 0
               : strncmp(in->series, "sac-", 4) == 0 || strncmp(in->series, "cub-", 4) == 0 ? 1
                                                                                            : 2;
    t->points[kind]++;
    double rows = 1;
    int ri = pb_module_param_index(in->mod, "rows");
    if (ri >= 0 && kind < 2) rows = (double)in->params.v[ri];
    t->keys += (kind == 2 ? 1 : rows) * (double)n * pb_config_seeds(t->cfg, in);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *buf = malloc(1 << 20);
    size_t len = buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
    fclose(f);
    if (buf) buf[len] = '\0';
    return buf;
}

/* `text` with every `from` replaced by `to`. */
static char *replace(const char *text, const char *from, const char *to)
{
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = text; (p = strstr(p, from)); p += lf) n++;
    char *out = malloc(strlen(text) + n * (lt > lf ? lt - lf : 0) + 1), *o = out;
    for (const char *p = text, *q; out; p = q + lf) {
        if (!(q = strstr(p, from))) {
            strcpy(o, p);
            break;
        }
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, lt);
        o += lt;
    }
    return out;
}

/* `text` with the config's GPU modules (gpu-radik, `peer`, gpu-copy)
 * swapped for CPU ones that take the same parameters. */
static char *cpu_text(const char *text, const char *peer)
{
    char from[64];
    snprintf(from, sizeof from, "module = %s\n", peer);
    char *a = replace(text, "module = gpu-radik\n", "module = cpu-topk\n");
    char *b = a ? replace(a, from, "module = cpu-topk\n") : NULL;
    char *cpu = b ? replace(b, "[gpu-copy]\n", "[gpu-copy]\nmodule = cpu-copy\n") : NULL;
    free(a), free(b);
    return cpu;
}

/* Loads config `text` (its ceilings added) and counts its plan into *t;
 * returns the points, or -1 with one line. `peer` names the tally's
 * second kind in the line. */
static long load_count(const char *text, const char *what, const char *name, const char *peer,
                       pb_config *cfg, tally *t)
{
    pb_err err;
    if (pb_config_load_text(what, name, text, cfg, &err)) {
        fprintf(stderr, "%s: %s\n", what, err.msg);
        return -1;
    }
    pb_config_add_ceilings(cfg);
    *t = (tally){cfg, {0, 0, 0}, 0};
    long points = pb_run_points(cfg, count, t);
    fprintf(stderr, "%s: %ld points (gpu-radik %ld, %s %ld, copy %ld), %.3g keys drawn over the seeds\n", what,
            points, t->points[0], peer, t->points[1], t->points[2], t->keys);
    return points;
}

static int check(const char *text, const char *what)
{
    pb_config cfg;
    tally t;
    long points = load_count(text, what, "topk-llm", "gpu-sort-and-choose", &cfg, &t);
    if (points < 0) return 1;
    /* radik: 2 rows x 3 dtypes x 5 k + 2 x 3 x 2 + 1 x 2, at 5 sizes;
     * sort-and-choose: 2 x 3 x 2 + 3 x 1, at 5; the copy at the 5 sizes and
     * at the 20 batch totals of 16 .. 1024 rows, less the three that are
     * another's (16 x 2^19 = 64 x 2^17, 64 x 2^19 = 256 x 2^17, 256 x 2^19
     * = 1024 x 2^17). */
    ASSERT(t.points[0] == (30 + 12 + 2) * 5);
    ASSERT(t.points[1] == (12 + 3) * 5);
    ASSERT(t.points[2] == 5 + 4 * 5 - 3);
    ASSERT(points == 317);
    ASSERT(cfg.seeds == 5 && cfg.inst.n == 44 + 15 + 1);
    long copy = pb_instances_find(&cfg.inst, "gpu-copy");
    ASSERT(copy >= 0 && pb_config_seeds(&cfg, &cfg.inst.v[copy]) == 1 && cfg.inst.v[copy].mod->bound == PB_BOUND_COPY);
    ASSERT(cfg.nplots == 1 && strcmp(cfg.plots[0], "share-one-read") == 0);
    /* The header's budget: at 4 ns a key the host's draws take at most
     * 4 of its 8 minutes (the rest: samples and fixed costs). */
    ASSERT(t.keys * 4e-9 < 240);
    pb_config_free(&cfg);
    return 0;
}

/* topk-llm-peers.ini: topk-llm.ini's 220 radik points, gpu-cub-topk at the
 * same 220 (the same rows, dtype, dist and k, section by section), the
 * same copy points, seeds and figure; the host's draws within the 5
 * minutes its header says. */
static int check_peers(const char *text, const char *what)
{
    pb_config cfg;
    tally t;
    long points = load_count(text, what, "topk-llm-peers", "gpu-cub-topk", &cfg, &t);
    if (points < 0) return 1;
    ASSERT(t.points[0] == (30 + 12 + 2) * 5 && t.points[1] == t.points[0]);
    ASSERT(t.points[2] == 5 + 4 * 5 - 3 && points == 2 * 220 + 22);
    ASSERT(cfg.seeds == 5 && cfg.inst.n == 2 * 44 + 1);
    for (size_t i = 0; i < cfg.inst.n; i++) { /* cub-X/k=K is radik-X/k=K's twin */
        const pb_instance *c = &cfg.inst.v[i];
        if (strncmp(c->label, "cub-", 4) != 0) continue;
        char name[PB_LABEL_MAX + 8];
        snprintf(name, sizeof name, "radik-%s", c->label + 4);
        long r = pb_instances_find(&cfg.inst, name);
        ASSERT(r >= 0);
        const pb_instance *ri = &cfg.inst.v[r];
        ASSERT(ri->mod == c->mod); /* both cpu-topk here: the same parameters */
        for (size_t p = 0; p < c->mod->nparams; p++) ASSERT(c->params.v[p] == ri->params.v[p]);
    }
    long copy = pb_instances_find(&cfg.inst, "gpu-copy");
    ASSERT(copy >= 0 && pb_config_seeds(&cfg, &cfg.inst.v[copy]) == 1);
    ASSERT(cfg.nplots == 1 && strcmp(cfg.plots[0], "share-one-read") == 0);
    ASSERT(t.keys * 4e-9 < 330);
    pb_config_free(&cfg);
    return 0;
}

/* configs/paper/NAME read (*text, the caller's to free; path: where) and
 * checked by chk with its GPU modules swapped for CPU ones (cpu_text,
 * with peer's section too). */
static int check_cpu_form(const char *name, const char *peer,
                          int (*chk)(const char *, const char *), char *path, size_t len,
                          char **text)
{
    snprintf(path, len, "%s/configs/paper/%s", PB_SOURCE_DIR, name);
    *text = slurp(path);
    ASSERT(*text);
    char *cpu = cpu_text(*text, peer);
    ASSERT(cpu);
    char what[256];
    snprintf(what, sizeof what, "%s, CPU modules", name);
    int rc = chk(cpu, what);
    free(cpu);
    return rc;
}

TEST_IMPL(topk_llm_peers_config)
{
    char path[1024], *text = NULL;
    int rc = check_cpu_form("topk-llm-peers.ini", "gpu-cub-topk", check_peers, path, sizeof path,
                            &text);
    free(text);
    return rc;
}

TEST_IMPL(topk_llm_config)
{
    char path[1024], *text = NULL;
    int rc = check_cpu_form("topk-llm.ini", "gpu-sort-and-choose", check, path, sizeof path, &text);
    if (!rc && pb_module_find("gpu-radik") && pb_module_find("gpu-sort-and-choose"))
        rc = check(text, path);
    else if (!rc)
        fprintf(stderr, "%s as written: skipped (this build has no gpu-radik)\n", path);
    free(text);
    return rc;
}

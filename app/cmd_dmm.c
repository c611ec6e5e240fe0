/* permbench dmm: the bank-conflict simulator (dmm/) from the command line:
 * the growth table of the paper's algorithms, the predictions for the GPU
 * tile kernels, and single runs. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "dmm/dmm_growth.h"
#include "dmm/dmm_tile_model.h"

static const char help[] =
    "usage: permbench dmm growth [--csv] [--seed S]\n"
    "       permbench dmm tile [--csv] [--seed S] [--tiles T]\n"
    "       permbench dmm run ALGORITHM W M [PATTERN] [--seed S]\n"
    "\n"
    "The Discrete Memory Machine simulator (w banks, one access a processor a\n"
    "step, bank conflicts counted as the extra cycles a GPU serialises).\n"
    "\n"
    "  growth  every growth series of the paper's algorithms: steps over the\n"
    "          doubling sizes, the fitted slope of log steps, steps over the\n"
    "          paper's bound, conflicts (a markdown table, or CSV)\n"
    "  tile    the models of the GPU tile kernels (w = 32, m = 32..256) on the\n"
    "          inputs `permbench run` generates with the same seed: shared-memory\n"
    "          steps a tile and bank conflicts an item, per operation, method,\n"
    "          pattern and m (CSV, or a table); T tiles each (default 8)\n"
    "  run     one algorithm at w x M: steps, conflicts, whether correct\n"
    "          (algorithms: naive-partition, naive-permute, convert-diagonal,\n"
    "          convert-inplace, lemma1-sort, corollary1-partition, thm1-sort,\n"
    "          thm1-partition, thm2-sort, colors-permute; patterns: uniform,\n"
    "          onebank, strided, sorted, zeroone, reversed)\n";

static const char *sizes_text(const pb_dmm_series_result *r, char *buf, size_t len)
{
    const pb_dmm_series *s = r->s;
    unsigned k = s->points - 1;
    if (s->vary == PB_DMM_VARY_M)
        snprintf(buf, len, "w = %u, m = %zu..%zu", r->w[0], r->m[0], r->m[k]);
    else if (s->vary == PB_DMM_VARY_W)
        snprintf(buf, len, "m = %zu, w = %u..%u", r->m[0], r->w[0], r->w[k]);
    else
        snprintf(buf, len, "w = m = %zu..%zu", r->m[0], r->m[k]);
    return buf;
}

static int growth(bool csv, uint64_t seed)
{
    if (csv)
        printf("algorithm,pattern,vary,w_first,w_last,m_first,m_last,points,bound,slope,"
               "conflict_slope,steps_over_bound_min,steps_over_bound_max,steps_last,conflicts,"
               "max_rounds,correct\n");
    else
        printf("| algorithm | pattern | sizes | paper's bound | slope of log steps | steps / bound "
               "| steps at the largest | conflicts (all points) | slope of log conflicts | correct |\n"
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
    int rc = PB_EXIT_OK;
    for (size_t i = 0; i < pb_dmm_series_count(); i++) {
        const pb_dmm_series *s = pb_dmm_series_at(i);
        const pb_dmm_algo *a = pb_dmm_algo_find(s->algo);
        pb_dmm_series_result r;
        pb_err err;
        if (pb_dmm_series_run(s, seed, &r, &err)) return pb_cli_fail("dmm growth: %s", err.msg);
        unsigned k = s->points - 1;
        uint64_t last = pb_dmm_steps(&r.r[k].st);
        const char *vary = s->vary == PB_DMM_VARY_M ? "m" : s->vary == PB_DMM_VARY_W ? "w" : "w=m";
        if (!r.all_correct || r.races) rc = PB_EXIT_FAILED;
        if (csv) {
            printf("%s,%s,%s,%u,%u,%zu,%zu,%u,\"%s\",%.4f,%.4f,%.3f,%.3f,%" PRIu64 ",%" PRIu64
                   ",%u,%s\n",
                   s->algo, pb_dmm_pattern_name(s->pattern), vary, r.w[0], r.w[k], r.m[0], r.m[k],
                   s->points, a->bound, r.slope, r.conflict_slope, r.ratio_min, r.ratio_max, last,
                   r.conflicts, r.max_rounds, r.all_correct ? "yes" : "no");
        } else {
            char sz[64], slope[48], cslope[48];
            const char *over = s->vary == PB_DMM_VARY_W ? " (over log w)" : "";
            snprintf(slope, sizeof slope, "%.2f%s", r.slope, over);
            if (isnan(r.conflict_slope))
                snprintf(cslope, sizeof cslope, "-");
            else
                snprintf(cslope, sizeof cslope, "%.2f%s", r.conflict_slope, over);
            printf("| %s | %s | %s | %s | %s | %.1f .. %.1f | %" PRIu64 " | %" PRIu64 " | %s | %s |\n",
                   s->algo, pb_dmm_pattern_name(s->pattern), sizes_text(&r, sz, sizeof sz),
                   a->bound, slope, r.ratio_min, r.ratio_max, last, r.conflicts, cslope,
                   r.all_correct && !r.races ? "yes" : "NO");
        }
    }
    return rc;
}

static int tile(bool csv, uint64_t seed, uint64_t tiles)
{
    static const unsigned ms[] = {32, 64, 128, 256};
    if (csv)
        printf("op,method,pattern,m,tiles,sim_ld_steps_per_tile,sim_st_steps_per_tile,"
               "sim_ld_conflicts_per_item,sim_st_conflicts_per_item,sim_cycles_per_item,"
               "sim_max_rounds,sim_correct\n");
    else
        printf("%-9s %-7s %-8s %4s %10s %10s %9s %9s %9s\n", "op", "method", "pattern", "m",
               "ld/tile", "st/tile", "ldc/item", "stc/item", "cyc/item");
    int rc = PB_EXIT_OK;
    for (int op = 0; op < PB_TILE_NOPS; op++)
        for (int me = 0; me < PB_TILE_NMETHODS; me++)
            for (int pat = 0; pat < PB_TILE_NPATTERNS; pat++)
                for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
                    pb_tile_op o = (pb_tile_op)op;
                    pb_tile_method method = (pb_tile_method)me;
                    if (!pb_tile_method_applies(o, method) || !pb_tile_method_modelled(method))
                        continue;
                    pb_tile_prediction pr;
                    pb_err err;
                    if (pb_tile_predict(o, method, (pb_tile_pattern)pat, ms[mi], seed, 0, tiles,
                                        &pr, &err))
                        return pb_cli_fail("dmm tile: %s", err.msg);
                    if (!pr.correct || pr.st.races) rc = PB_EXIT_FAILED;
                    double t = (double)pr.tiles, items = t * 32.0 * ms[mi];
                    if (csv)
                        printf("%s,%s,%s,%u,%" PRIu64 ",%.1f,%.1f,%.5f,%.5f,%.5f,%u,%s\n",
                               pb_tile_op_name(o), pb_tile_method_name(method),
                               pb_tile_pattern_name((pb_tile_pattern)pat), ms[mi], pr.tiles,
                               pr.st.ld_steps / t, pr.st.st_steps / t, pr.st.ld_conflicts / items,
                               pr.st.st_conflicts / items, pb_dmm_cycles(&pr.st) / items,
                               pr.max_rounds, pr.correct && !pr.st.races ? "yes" : "no");
                    else
                        printf("%-9s %-7s %-8s %4u %10.1f %10.1f %9.4f %9.4f %9.4f\n",
                               pb_tile_op_name(o), pb_tile_method_name(method),
                               pb_tile_pattern_name((pb_tile_pattern)pat), ms[mi],
                               pr.st.ld_steps / t, pr.st.st_steps / t, pr.st.ld_conflicts / items,
                               pr.st.st_conflicts / items, pb_dmm_cycles(&pr.st) / items);
                }
    return rc;
}

static int run_one(int argc, char **argv, uint64_t seed)
{
    if (argc < 3 || argc > 4)
        return pb_cli_fail("dmm run: expected ALGORITHM W M [PATTERN] (see 'permbench dmm --help')");
    const pb_dmm_algo *a = pb_dmm_algo_find(argv[0]);
    if (!a) return pb_cli_fail("dmm run: unknown algorithm '%s'", argv[0]);
    char *end;
    unsigned long w = strtoul(argv[1], &end, 10);
    if (*end || !w) return pb_cli_fail("dmm run: W '%s' is not a positive integer", argv[1]);
    unsigned long m = strtoul(argv[2], &end, 10);
    if (*end || !m) return pb_cli_fail("dmm run: M '%s' is not a positive integer", argv[2]);
    pb_dmm_pattern pat = PB_DMM_UNIFORM;
    if (argc == 4) {
        int p = 0;
        while (p < PB_DMM_NPATTERNS && strcmp(pb_dmm_pattern_name((pb_dmm_pattern)p), argv[3])) p++;
        if (p == PB_DMM_NPATTERNS) return pb_cli_fail("dmm run: unknown pattern '%s'", argv[3]);
        pat = (pb_dmm_pattern)p;
    }
    pb_dmm_result r;
    pb_err err;
    if (pb_dmm_run(a, (unsigned)w, (size_t)m, pat, seed, &r, &err))
        return pb_cli_fail("dmm run: %s", err.msg);
    printf("%s w=%lu m=%lu %s: %" PRIu64 " steps (%" PRIu64 " loads, %" PRIu64 " stores), %" PRIu64
           " conflicts (%" PRIu64 " load, %" PRIu64 " store), %" PRIu64 " cycles%s, %s\n",
           a->name, w, m, pb_dmm_pattern_name(pat), pb_dmm_steps(&r.st), r.st.ld_steps,
           r.st.st_steps, pb_dmm_conflicts(&r.st), r.st.ld_conflicts, r.st.st_conflicts,
           pb_dmm_cycles(&r.st), r.rounds ? ", colouring rounds" : "",
           r.correct && !r.st.races ? "correct" : "WRONG");
    if (r.rounds) printf("rounds %u\n", r.rounds);
    return r.correct && !r.st.races ? PB_EXIT_OK : PB_EXIT_FAILED;
}

int pb_cmd_dmm(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"csv", no_argument, NULL, 'c'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"tiles", required_argument, NULL, 't'},
                                         {NULL, 0, NULL, 0}};
    int c;
    bool csv = false;
    uint64_t seed = 1, tiles = 8;
    while ((c = pb_cli_getopt("dmm", argc, argv, opts)) != -1) {
        char *end;
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 'c') csv = true;
        if (c == 's') {
            seed = strtoull(optarg, &end, 0);
            if (*end || !*optarg) return pb_cli_fail("dmm: --seed '%s' is not an integer", optarg);
        }
        if (c == 't') {
            tiles = strtoull(optarg, &end, 0);
            if (*end || !tiles || tiles > 4096)
                return pb_cli_fail("dmm: --tiles '%s' is not in 1..4096", optarg);
        }
    }
    if (optind >= argc) return pb_cli_fail("dmm: expected growth, tile or run (see 'permbench dmm --help')");
    const char *what = argv[optind];
    if (!strcmp(what, "growth") && optind + 1 == argc) return growth(csv, seed);
    if (!strcmp(what, "tile") && optind + 1 == argc) return tile(csv, seed, tiles);
    if (!strcmp(what, "run")) return run_one(argc - optind - 1, argv + optind + 1, seed);
    return pb_cli_fail("dmm: unexpected '%s' (see 'permbench dmm --help')", what);
}

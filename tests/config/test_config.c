/* INI sweep configs: a good file read back field by field, and every kind of
 * malformed file rejected with its file, line and problem. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/sweep_config.h"
#include "config/params.h"
#include "families/topk/topk_problem.h"
#include "families/shuffle/shuffle_family.h"
#include "registry/registry.h"
#include "tests/test.h"

static int load(const char *text, pb_config *cfg, pb_err *err, char *path, size_t len)
{
    if (!pb_test_tmpfile(text, path, len)) return -2;
    int rc = pb_config_load_file(path, cfg, err);
    unlink(path);
    return rc;
}

TEST_IMPL(config_good)
{
    static pb_config cfg;
    pb_err err;
    char path[256];
    const char *text = "; a comment\n"
                       "[sweep]\n"
                       "title = two gathers\n"
                       "family = shuffle\n"
                       "sizes = 2^8+1 .. 2^14+1 *8, 1000\n"
                       "item = u32, u64\n"
                       "seed = 0x2a\n"
                       "min_samples = 3\n"
                       "max_samples = 7\n"
                       "min_time = 0.25s\n"
                       "timeout = 5\n"
                       "flush_cache = no\n"
                       "plot = pct-copy\n"
                       "\n"
                       "[cpu-fisher-yates]\n"
                       "\n"
                       "[gather-1t]\n"
                       "module = cpu-gather\n"
                       "threads = 1\n"
                       "[gather-2t]\n"
                       "threads = 2\n"
                       "module = cpu-gather\n";
    ASSERT(load(text, &cfg, &err, path, sizeof path) == 0);
    ASSERT(strcmp(cfg.title, "two gathers") == 0);
    ASSERT(cfg.family == &pb_family_shuffle);
    ASSERT_EQ_U64(cfg.nsizes, 4);
    ASSERT_EQ_U64(cfg.sizes[0], 257); ASSERT_EQ_U64(cfg.sizes[2], 16385); ASSERT_EQ_U64(cfg.sizes[3], 1000);
    ASSERT_EQ_U64(cfg.nitems, 2); ASSERT_EQ_U64(cfg.items[0], 4); ASSERT_EQ_U64(cfg.items[1], 8);
    ASSERT_EQ_U64(cfg.seed, 42);
    ASSERT(cfg.min_samples == 3 && cfg.max_samples == 7);
    ASSERT(cfg.min_time == 0.25 && cfg.timeout == 5);
    ASSERT(!cfg.flush_cache);
    ASSERT(cfg.nplots == 1 && strcmp(cfg.plots[0], "pct-copy") == 0);
    ASSERT_EQ_U64(cfg.inst.n, 3);
    ASSERT(strcmp(cfg.inst.v[0].label, "cpu-fisher-yates") == 0 && cfg.inst.v[0].mod == pb_module_find("cpu-fisher-yates"));
    ASSERT_EQ_U64(cfg.inst.v[0].line, 15);
    /* The same module twice, with different parameters. */
    ASSERT(cfg.inst.v[1].mod == pb_module_find("cpu-gather") && cfg.inst.v[2].mod == cfg.inst.v[1].mod);
    ASSERT(cfg.inst.v[1].params.v[0] == 1 && cfg.inst.v[2].params.v[0] == 2);
    ASSERT(cfg.inst.v[1].given == 1);
    ASSERT(cfg.hash == pb_fnv1a64(text, strlen(text)));

    /* Ceilings come first, once per device, only if not already present. */
    pb_config_add_ceilings(&cfg);
    ASSERT_EQ_U64(cfg.inst.n, 4);
    ASSERT(strcmp(cfg.inst.v[0].label, "cpu-copy") == 0 && cfg.inst.v[0].automatic);
    ASSERT(strcmp(cfg.inst.v[1].label, "cpu-fisher-yates") == 0);
    pb_config_free(&cfg);

    /* Defaults: 8-byte items for shuffles, ten samples, flushing on. */
    ASSERT(load("[sweep]\nsizes = 10\n[cpu-fisher-yates]\n", &cfg, &err, path, sizeof path) == 0);
    ASSERT(cfg.nitems == 1 && cfg.items[0] == 8);
    ASSERT(cfg.min_samples == 10 && cfg.flush_cache && cfg.ceilings_auto && cfg.hold);
    pb_config_add_ceilings(&cfg);
    ASSERT_EQ_U64(cfg.inst.n, 3); /* cpu-copy, cpu-gather, fisher-yates */
    pb_config_free(&cfg);

    /* hold = no: GPU samples timed unheld (for profilers). */
    ASSERT(load("[sweep]\nsizes = 10\nhold = no\n[cpu-fisher-yates]\n", &cfg, &err, path, sizeof path) == 0);
    ASSERT(!cfg.hold);
    pb_config_free(&cfg);
    return 0;
}

/* Each malformed config and the message it must produce (after the path). */
static const struct {
    const char *text;
    const char *expect;
} bad[] = {
    {"[cpu-fisher-yates]\n", ": missing [sweep] section"},
    {"[sweep]\nsizes = 2^^8\n[cpu-fisher-yates]\n", ":2: bad size expression '2^^8': expected a number at '^8'"},
    {"[sweep]\nsizes = 10\ncolour = red\n[cpu-fisher-yates]\n", ":3: unknown key 'colour' in [sweep]"},
    {"[sweep]\nsizes = 10\n[frobnicate]\n", ":3: unknown module 'frobnicate' in [frobnicate]"},
    {"[sweep]\nsizes = 10\n[x]\n\nmodule = nope\n", ":5: unknown module 'nope' in [x]"},
    {"[sweep]\nsizes = 10\n[fy]\nmodule = cpu-fisher-yates\nrounds = 3\n",
     ":5: module 'cpu-fisher-yates' has no parameter 'rounds' (it accepts: none)"},
    {"[sweep]\nsizes = 10\n[cpu-gather]\nthreads = many\n", ":4: parameter 'threads' of 'cpu-gather': 'many' is not an integer"},
    {"[sweep]\nsizes = 10\n[cpu-gather]\nthreads = 99999\n", ":4: parameter 'threads' of 'cpu-gather': 99999 is outside 0..4096"},
    {"sizes = 10\n[sweep]\n", ":1: key 'sizes' outside any section"},
    {"[sweep]\nsizes 10\n[cpu-fisher-yates]\n", ":2: malformed line"},
    {"[sweep]\nsizes = 10\n[cpu-fisher-yates]\n[cpu-fisher-yates]\n", ":4: section [cpu-fisher-yates] appears twice"},
    {"[sweep]\nsizes = 10\nseed = 1\nseed = 2\n[cpu-fisher-yates]\n", ":4: key 'seed' given twice in [sweep]"},
    {"[sweep]\nseed = 1\n[cpu-fisher-yates]\n", ":1: [sweep] has no 'sizes'"},
    {"[sweep]\nsizes = 10\n", ": no module sections"},
    {"[sweep]\nsizes = 10\n[a b]\n", ":3: bad section name [a b]"},
    {"[sweep]\nsizes = 10\nitem = u16\n[cpu-fisher-yates]\n", ":3: item type 'u16' is not one of the shuffle family's: u64, u32"},
    /* The list of families it names is the registry's (checked below). */
    {"[sweep]\nsizes = 10\nfamily = sorting\n[cpu-fisher-yates]\n", ":3: family 'sorting' is not "},
    {"[sweep]\nsizes = 10\nseed = -4\n[cpu-fisher-yates]\n", ":3: seed '-4' is not an unsigned 64-bit integer"},
    {"[sweep]\nsizes = 10\nhold = maybe\n[cpu-fisher-yates]\n", ":3: hold 'maybe' is not yes or no"},
    {"[sweep]\nsizes = 10\nmin_time = soon\n[cpu-fisher-yates]\n", ":3: min_time 'soon' is not a time in seconds"},
    {"[sweep]\nsizes = 10\nplot = pie\n[cpu-fisher-yates]\n", ":3: plot kind 'pie' is not throughput, throughput-pow2, pct-copy, latency, axis, axis-speedup, axis-time, share-one-read or none"},
    {"[sweep]\nsizes = 10\n[cpu-gather]\nthreads = 1, 2\nseed_stride = 1, 2\n", ":5: [cpu-gather] already varies 'threads'; one list-valued parameter per section"},
    {"[sweep]\nsizes = 10\n[x]\nmodule = cpu-gather\nthreads = 1, x\n", ":5: parameter 'threads' of 'cpu-gather': 'x'"},
    {"[sweep]\nsizes = 10\n[cpu-gather]\nthreads = 1, , 2\n", ":4: empty value in the list"},
    {"[sweep]\nsizes = 10\n[cpu-gather]\nthreads = 2, 1, 2\n", ":4: value '2' appears twice in 'threads'"},
    {"[sweep]\nsizes = 10\nreference = nope\n[cpu-gather]\n", ":3: reference 'nope' is not a section of this file"},
    {"[sweep]\nsizes = 10\ntitle = gpu-radik's\n[cpu-gather]\n", ":3: title has a quote or control character"},
    {"[sweep]\nsizes = 10\nmin_samples = 9\nmax_samples = 3\n[cpu-fisher-yates]\n", ": max_samples (3) is below min_samples (9)"},
    {"[sweep]\nsizes = 0\n[cpu-fisher-yates]\n", ": size 0 cannot be timed"},
    /* INI corners a new user met (each passed or misread before). */
    {"[sweep\nsizes = 10\n[cpu-fisher-yates]\n", ":1: section header '[sweep' has no closing ']'"},
    {"[sweep]\nsizes = 10\nsizes = 20\n[cpu-fisher-yates]\n", ":3: key 'sizes' given twice in [sweep]"},
    {"[sweep]\nsizes = 2^10,\n[cpu-fisher-yates]\n", ":2: empty item in size list '2^10,'"},
    {"[sweep]\nsizes = 2^10,,2^12\n[cpu-fisher-yates]\n", ":2: empty item in size list '2^10,,2^12'"},
};

/* A UTF-8 byte-order mark is not part of the first header, and an
 * indented header is a header, not a continuation of the key above it. */
TEST_IMPL(config_ini_corners)
{
    static pb_config cfg;
    pb_err err = {{0}};
    char path[256];
    ASSERT(load("\xef\xbb\xbf[sweep]\nsizes = 10, 20\n  [cpu-fisher-yates]\n", &cfg, &err, path, sizeof path) == 0);
    ASSERT(cfg.nsizes == 2 && cfg.sizes[0] == 10 && cfg.sizes[1] == 20);
    ASSERT(cfg.inst.n == 1 && strcmp(cfg.inst.v[0].mod->name, "cpu-fisher-yates") == 0);
    pb_config_free(&cfg);
    /* A continuation line (indented, no '=') still joins its key's list. */
    ASSERT(load("[sweep]\nsizes = 10,\n  20\n[cpu-fisher-yates]\n", &cfg, &err, path, sizeof path) == 0);
    ASSERT(cfg.nsizes == 2 && cfg.sizes[1] == 20);
    pb_config_free(&cfg);
    /* `#` after a blank ends the value, as `;` does; a `#` inside a word
     * stays (none of the size syntax's, so it is still refused). */
    ASSERT(load("[sweep]\nsizes = 2^10 # a note\nseed = 5\t# another\n[cpu-fisher-yates] # here too\n", &cfg,
                &err, path, sizeof path) == 0);
    ASSERT(cfg.nsizes == 1 && cfg.sizes[0] == 1024 && cfg.seed == 5);
    pb_config_free(&cfg);
    ASSERT(load("[sweep]\nsizes = 2^10#x\n[cpu-fisher-yates]\n", &cfg, &err, path, sizeof path) != 0);
    ASSERT_CONTAINS(err.msg, ":2: bad size expression '2^10#x'");
    return 0;
}

/* A list-valued parameter is an axis: one instance per value, labelled
 * <section>/<param>=<value>, sharing the section as their series. */
TEST_IMPL(config_axis_lists)
{
    static pb_config cfg;
    pb_err err = {{0}};
    char path[256];
    ASSERT(load("[sweep]\nsizes = 10\nreference = g\n[g]\nmodule = cpu-gather\nthreads = 1, 2,4\n"
                "[cpu-fisher-yates]\n",
                &cfg, &err, path, sizeof path) == 0);
    ASSERT_EQ_U64(cfg.inst.n, 4);
    ASSERT(strcmp(cfg.inst.v[0].label, "g/threads=1") == 0);
    ASSERT(strcmp(cfg.inst.v[2].label, "g/threads=4") == 0);
    ASSERT(strcmp(cfg.inst.v[2].series, "g") == 0);
    ASSERT(strcmp(cfg.inst.v[2].axis, "threads") == 0);
    ASSERT(strcmp(cfg.inst.v[2].axis_value, "4") == 0);
    ASSERT(cfg.inst.v[1].params.v[0] == 2);
    ASSERT(strcmp(cfg.inst.v[3].series, "cpu-fisher-yates") == 0 && !cfg.inst.v[3].axis[0]);
    ASSERT(strcmp(cfg.reference, "g") == 0);
    pb_config_free(&cfg);
    return 0;
}

/* Enum choices with an argument (top-k's few:L and masked:F):
 * parsed in the integer or fraction syntax, printed canonically (so a
 * printed value parses back to itself), malformed arguments refused with
 * what would be accepted, and in an axis labelled with '-' for ':'. */
TEST_IMPL(config_arg_choices)
{
    const pb_module *m = pb_module_find("cpu-topk");
    ASSERT(m);
    pb_params p;
    pb_params_defaults(m, &p);
    pb_err err = {{0}};
    const pb_param_spec *s = &m->params[PB_TOPK_P_DIST];
    const char *good[][2] = {
        {"few:16", "few:16"},          {"few:016", "few:16"},         {"few:2^8", "few:256"},
        {"few:1", "few:1"},            {"masked:0.5", "masked:0.5"},  {"masked:.5", "masked:0.5"},
        {"masked:0", "masked:0"},      {"masked:1.000", "masked:1"},  {"masked:1", "masked:1"},
        {"masked:0.000001", "masked:0.000001"}, {"masked:0.25", "masked:0.25"},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        ASSERT(pb_params_set(m, &p, "dist", good[i][0], &err) == 0);
        long long v = p.v[PB_TOPK_P_DIST];
        ASSERT(!pb_param_file(v) && pb_param_arg(v) >= 0);
        ASSERT(pb_param_choice(v) == (good[i][0][0] == 'f' ? PB_TOPK_FEW : PB_TOPK_MASKED));
        char buf[PB_PARAM_TEXT_MAX];
        ASSERT(strcmp(pb_param_format(s, v, buf, sizeof buf), good[i][1]) == 0);
        ASSERT(pb_params_set(m, &p, "dist", buf, &err) == 0 && p.v[PB_TOPK_P_DIST] == v);
        pb_point pt = {1000, 4, 1, &p, 1};
        ASSERT(pb_topk_point_check(&pt, &err) == 0);
    }
    ASSERT(pb_params_set(m, &p, "dist", "few:2", &err) == 0 && pb_param_arg(p.v[PB_TOPK_P_DIST]) == 2);
    ASSERT(pb_params_set(m, &p, "dist", "masked:0.5", &err) == 0 &&
           pb_param_arg(p.v[PB_TOPK_P_DIST]) == 500000);
    /* Plain choices stay indices. */
    ASSERT(pb_params_set(m, &p, "dist", "sorted", &err) == 0 && p.v[PB_TOPK_P_DIST] == PB_TOPK_SORTED);
    ASSERT(pb_param_arg(PB_TOPK_SORTED) == -1 && pb_param_choice(PB_TOPK_SORTED) == PB_TOPK_SORTED);
    const char *bad[][2] = {
        {"few", "needs its argument"},        {"masked", "needs its argument"},
        {"few:", "an integer in 1..2^31"},    {"few:0", "an integer in 1..2^31"},
        {"few:L", "an integer in 1..2^31"},   {"few:-3", "an integer in 1..2^31"},
        {"few:2^32", "an integer in 1..2^31"}, {"few:1.5", "an integer in 1..2^31"},
        {"masked:1.5", "a fraction in [0, 1]"}, {"masked:0.1234567", "at most 6 decimals"},
        {"masked:", "a fraction"},            {"masked:F", "a fraction"},
        {"masked:2", "a fraction"},           {"masked:0.", "a fraction"},
        {"masked:-0.5", "a fraction"},        {"sorted:3", "is not one of"},
        {"fewer:3", "is not one of"},         {"few:16:2", "an integer"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ASSERT(pb_params_set(m, &p, "dist", bad[i][0], &err) != 0);
        ASSERT_CONTAINS(err.msg, bad[i][1]);
    }
    /* L beyond 2^24 parses (the syntax is generic) but is no top-k point. */
    ASSERT(pb_params_set(m, &p, "dist", "few:2^25", &err) == 0);
    pb_point pt = {1000, 4, 1, &p, 1};
    ASSERT(pb_topk_point_check(&pt, &err) != 0);
    ASSERT_CONTAINS(err.msg, "outside 1..2^24");

    /* An axis: canonical labels with '-'; two spellings of a value are one. */
    static pb_config cfg;
    char path[256];
    ASSERT(load("[sweep]\nfamily = topk\nsizes = 100\n[t]\nmodule = cpu-topk\n"
                "dist = uniform, few:016, masked:.5, sorted\n",
                &cfg, &err, path, sizeof path) == 0);
    ASSERT_EQ_U64(cfg.inst.n, 4);
    ASSERT(strcmp(cfg.inst.v[1].label, "t/dist=few-16") == 0);
    ASSERT(strcmp(cfg.inst.v[1].axis_value, "few-16") == 0);
    ASSERT(strcmp(cfg.inst.v[2].label, "t/dist=masked-0.5") == 0);
    ASSERT(strcmp(cfg.inst.v[3].label, "t/dist=sorted") == 0);
    pb_config_free(&cfg);
    ASSERT(load("[sweep]\nfamily = topk\nsizes = 100\n[t]\nmodule = cpu-topk\n"
                "dist = few:16, few:2^4\n",
                &cfg, &err, path, sizeof path) != 0);
    ASSERT_CONTAINS(err.msg, "appears twice");
    return 0;
}

TEST_IMPL(config_errors)
{
    static pb_config cfg;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        pb_err err = {{0}};
        char path[256], want[512];
        ASSERT(load(bad[i].text, &cfg, &err, path, sizeof path) == -1);
        /* The message starts with the file's path, then line and problem. */
        snprintf(want, sizeof want, "%s%s", path, bad[i].expect);
        if (strncmp(err.msg, want, strlen(want)) != 0) {
            fprintf(stderr, "config %zu:\n  got:  %s\n  want: %s...\n", i, err.msg, want);
            return 1;
        }
        ASSERT(strchr(err.msg, '\n') == NULL); /* one line */
    }
    pb_err err;
    char path[256], names[256];
    ASSERT(load("[sweep]\nsizes = 10\nfamily = sorting\n[cpu-fisher-yates]\n", &cfg, &err, path,
                sizeof path) == -1);
    ASSERT_CONTAINS(err.msg, pb_family_names_text(names, sizeof names));
    ASSERT(pb_config_load_file("/nonexistent/x.ini", &cfg, &err) == -1);
    ASSERT_CONTAINS(err.msg, "/nonexistent/x.ini: cannot open config: No such file");
    return 0;
}

/* Findings of the fuzz campaign (docs/fuzzing.md), each once a crash. */
TEST_IMPL(config_hostile)
{
    static pb_config cfg;
    pb_err err;
    char path[256], text[512];
    /* An indented header past inih's line buffer: its offset was taken
     * from the cut length, and the copy's size wrapped around. */
    snprintf(text, sizeof text, "[sweep]\nsizes = 10\n%251s[cpu-fisher-yates]\n", "");
    ASSERT(load(text, &cfg, &err, path, sizeof path) == -1);
    ASSERT_CONTAINS(err.msg, ":3: line longer than 199 characters");

    /* Files of a few MiB that each lookup or continuation scanned again
     * line by line: minutes at 2 MiB, hours at the 16 MiB limit. Now
     * refused at the bound; the alarm fails a test that takes too long. */
    alarm(60);
    size_t cap = 8u << 20, n;
    char *big = malloc(cap);
    ASSERT(big);
    n = (size_t)snprintf(big, cap, "[sweep]\nsizes = 10\n");
    for (int i = 0; n + 64 < cap; i++) n += (size_t)snprintf(big + n, cap - n, "[s%d]\n", i);
    ASSERT(pb_config_load_text("h.ini", "h", big, &cfg, &err) == -1);
    ASSERT_CONTAINS(err.msg, "h.ini:4099: more than 4096 module sections");
    n = (size_t)snprintf(big, cap, "[sweep]\nsizes = 10\n[cpu-fisher-yates]\n");
    for (int i = 0; n + 64 < cap; i++) n += (size_t)snprintf(big + n, cap - n, "k%d = 1\n", i);
    ASSERT(pb_config_load_text("h.ini", "h", big, &cfg, &err) == -1);
    ASSERT_CONTAINS(err.msg, "h.ini:260: more than 256 keys in [cpu-fisher-yates]");
    n = (size_t)snprintf(big, cap, "[sweep]\nsizes = 10\n[cpu-copy]\nthreads = 1");
    while (n + 64 < cap) n += (size_t)snprintf(big + n, cap - n, "\n  2");
    ASSERT(pb_config_load_text("h.ini", "h", big, &cfg, &err) == -1);
    ASSERT_CONTAINS(err.msg, "the value of 'threads' is longer than 65536 characters");
    free(big);
    alarm(0);
    return 0;
}

TEST_IMPL(config_only)
{
    static pb_config cfg;
    pb_err err;
    char path[256];
    const char *text = "[sweep]\nsizes = 10\n[cpu-fisher-yates]\n[g1]\nmodule = cpu-gather\n[g2]\nmodule = cpu-gather\n";
    ASSERT(load(text, &cfg, &err, path, sizeof path) == 0);
    ASSERT(pb_instances_only(&cfg.inst, "g2,cpu-fisher-yates", cfg.path, &err) == 0);
    ASSERT_EQ_U64(cfg.inst.n, 2);
    ASSERT(strcmp(cfg.inst.v[0].label, "cpu-fisher-yates") == 0 && strcmp(cfg.inst.v[1].label, "g2") == 0);
    pb_config_free(&cfg);

    ASSERT(load(text, &cfg, &err, path, sizeof path) == 0);
    ASSERT(pb_instances_only(&cfg.inst, "cpu-gather", cfg.path, &err) == 0); /* a module name keeps all its instances */
    ASSERT_EQ_U64(cfg.inst.n, 2);
    ASSERT(pb_instances_only(&cfg.inst, "nosuch", cfg.path, &err) != 0);
    ASSERT_CONTAINS(err.msg, "unknown module or label 'nosuch'");
    ASSERT(pb_instances_only(&cfg.inst, "cpu-gsl-shuffle", cfg.path, &err) != 0);
    ASSERT_CONTAINS(err.msg, "module 'cpu-gsl-shuffle' is not in");
    pb_config_free(&cfg);
    return 0;
}

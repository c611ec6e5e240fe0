/* permbench quality: its config (tests, parameter lists, modules = ...,
 * module fallbacks, errors with file and line) and the gate end to end:
 * configs/quality/ci.ini passes (exit 0) and fails (exit 1) once a module
 * known to be bad, the LCG bijective shuffle, is added to it. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "families/shuffle/shuffle_hooks.h"
#include "quality/battery.h"
#include "quality/quality_config.h"
#include "registry/registry.h"
#include "tests/test.h"

static int load(const char *text, pb_quality_config *cfg, pb_err *err)
{
    return pb_quality_config_load_text("t.ini", "t", text, cfg, err);
}

/* The spec of the battery's test `name`. */
static const pb_qtest_spec *spec(const pb_quality_config *cfg, const char *name)
{
    for (size_t k = 0; k < pb_qtest_count(); k++)
        if (strcmp(pb_qtest_at(k)->name, name) == 0) return &cfg->test[k];
    return NULL;
}

TEST_IMPL(quality_config_parse)
{
    pb_quality_config cfg;
    pb_err err;
    ASSERT(load("[quality]\nseed = 7\nalpha = 0.001\nmmd = 100, 5, 5\nmmd_samples = 10^4\n"
                "chisq = 4\nchisq_samples = 2^10\nmmd_bounds = clt\n"
                "[vp]\nmodule = cpu-bijective-twin\nrounds = 1 .. 4 +1, 24\n[cpu-fisher-yates]\n",
                &cfg, &err) == 0);
    ASSERT(cfg.seed == 7 && cfg.settings.alpha == 0.001 && cfg.settings.lambda == 5 && cfg.gate);
    const pb_qtest_spec *mmd = spec(&cfg, "mmd");
    ASSERT(mmd->select == 2); /* clt only: results are hoeffding, clt */
    ASSERT(mmd->nn == 2 && mmd->ns[0] == 5 && mmd->ns[1] == 100 && mmd->samples == 10000);
    ASSERT(spec(&cfg, "chisq")->samples == 1024 && spec(&cfg, "duplicates")->nn == 0);
    ASSERT(cfg.inst.n == 6);
    /* The one labelling rule of both config kinds: <section>/<param>=<value>. */
    ASSERT(strcmp(cfg.inst.v[0].label, "vp/rounds=1") == 0 && strcmp(cfg.inst.v[4].label, "vp/rounds=24") == 0);
    ASSERT(strcmp(cfg.inst.v[4].series, "vp") == 0 && strcmp(cfg.inst.v[4].axis, "rounds") == 0);
    ASSERT(strcmp(cfg.inst.v[4].axis_value, "24") == 0 && cfg.inst.v[4].params.v[1] == 24);
    ASSERT(strcmp(cfg.inst.v[5].label, "cpu-fisher-yates") == 0 && cfg.inst.v[5].axis[0] == 0);
    uint64_t ns[8];
    ASSERT(pb_quality_config_sizes(&cfg, ns, 8) == 3 && ns[0] == 4 && ns[2] == 100);
    ASSERT(pb_instances_only(&cfg.inst, "vp", cfg.path, &err) == 0 && cfg.inst.n == 5);
    pb_quality_config_free(&cfg);

    /* modules = cpu: every CPU module with sample permutations, once, but
     * those approximately uniform by design. */
    ASSERT(load("[quality]\nmodules = cpu\nmmd = 10\nmmd_samples = 10\n[cpu-fisher-yates]\nmodule = "
                "cpu-gsl-shuffle\n",
                &cfg, &err) == 0);
    size_t want = 1; /* the section */
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        want += m->device == PB_DEVICE_CPU && pb_module_sample_perms(m) && !(m->flags & PB_MOD_APPROXIMATE) &&
                strcmp(m->name, "cpu-fisher-yates") != 0;
    }
    ASSERT(cfg.inst.n == want);
    ASSERT(pb_instances_find(&cfg.inst, "cpu-pov-shuffle") < 0);
    pb_quality_config_free(&cfg);

    /* A fallback list takes the first module this build has and can run. */
    ASSERT(load("[quality]\nmmd = 10\nmmd_samples = 10\n[x]\nmodule = no-such | cpu-fisher-yates | "
                "cpu-gsl-shuffle\n",
                &cfg, &err) == 0);
    ASSERT(cfg.inst.n == 1 && strcmp(cfg.inst.v[0].mod->name, "cpu-fisher-yates") == 0);
    pb_quality_config_free(&cfg);
    return 0;
}

TEST_IMPL(quality_config_errors)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[cpu-fisher-yates]\n", "t.ini: missing [quality] section"},
        {"[quality]\nmmd = 5\n[cpu-fisher-yates]\n", "t.ini:2: 'mmd' needs 'mmd_samples'"},
        {"[quality]\nmmd_samples = 5\n[cpu-fisher-yates]\n", "t.ini:2: 'mmd_samples' without 'mmd'"},
        {"[quality]\ntitle = x\n[cpu-fisher-yates]\n", "t.ini:1: [quality] names no test"},
        {"[quality]\nchisq = 9\nchisq_samples = 10^7\n[cpu-fisher-yates]\n", "t.ini:2: chisq at n = 9"},
        {"[quality]\nchisq = 5\nchisq_samples = 599\n[cpu-fisher-yates]\n",
         "t.ini:3: chisq at n = 5 needs at least 600 samples"},
        {"[quality]\nduplicates = 8\nduplicates_samples = 1000\n[cpu-fisher-yates]\n",
         "t.ini:2: duplicates at n = 8: the duplicate test needs n! >= 64 x samples"},
        {"[quality]\nalpha = 2\n", "t.ini:2: alpha '2' is not a level in (0, 0.5]"},
        {"[quality]\nspeed = 2\n", "t.ini:2: unknown key 'speed' in [quality]"},
        {"[quality]\nmmd = 1\nmmd_samples = 10\n[cpu-fisher-yates]\n", "t.ini:2: mmd at n = 1"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n[cpu-copy]\n",
         "t.ini:4: module 'cpu-copy' in [cpu-copy] cannot draw sample permutations"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n[x]\nmodule = nope\n", "t.ini:5: unknown module 'nope'"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n[x]\nmodule = cpu-bijective-twin\nrounds = 1, 2\n"
         "threads = 1, 2\n",
         "t.ini:7: [x] already varies 'rounds'; one list-valued parameter per section"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n[x]\nmodule = cpu-bijective-twin\nrounds = 1 .. 99 +1\n",
         "t.ini:6: parameter 'rounds' of 'cpu-bijective-twin': 65 is outside 1..64"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n[x]\nmodule = cpu-bijective-twin\nbijection = lcg, "
         "varphilox\n",
         "t.ini:6: parameter 'bijection' of 'cpu-bijective-twin' takes one value"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n", "t.ini: no module to test"},
        {"[sweep]\nsizes = 10\n", "t.ini:1: [sweep] belongs to 'permbench run' configs"},
        {"[quality]\nmmd = 5\nmmd_samples = 10\n[cpu-fisher-yates]\nrounds = 2\n",
         "t.ini:5: module 'cpu-fisher-yates' has no parameter 'rounds'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pb_quality_config cfg;
        pb_err err = {""};
        if (load(cases[i].text, &cfg, &err) == 0) {
            fprintf(stderr, "accepted: %s", cases[i].text);
            pb_quality_config_free(&cfg);
            return 1;
        }
        ASSERT_CONTAINS(err.msg, cases[i].want);
        ASSERT(!strchr(err.msg, '\n'));
    }
    return 0;
}

/* The battery streams in batches: a run's statistics do not depend on the
 * batch size (permutation j is always sample j of the seed). */
TEST_IMPL(quality_run_batches)
{
    const char *text = "[quality]\nbatch = %s\nchisq = 4\nchisq_samples = 3000\nmmd = 4, 50\n"
                       "mmd_samples = 3000\nduplicates = 50\nduplicates_samples = 1000\n"
                       "[cpu-bijective-twin]\n[cpu-fisher-yates]\n";
    double stat[2][12];
    size_t rows = 0;
    for (int b = 0; b < 2; b++) {
        char t[512];
        snprintf(t, sizeof t, text, b ? "1013" : "2^16");
        pb_quality_config cfg;
        pb_err err;
        pb_qrun run;
        ASSERT(load(t, &cfg, &err) == 0);
        ASSERT(pb_quality_run(&cfg, NULL, &run, &err) == 0);
        rows = run.nrows;
        ASSERT(rows == 12); /* per module: chisq 4; mmd 4, 50 (two bounds); duplicates 50 */
        for (size_t i = 0; i < rows; i++) {
            stat[b][i] = run.rows[i].r.statistic;
            ASSERT(run.rows[i].r.verdict != PB_VERDICT_FAIL && !run.rows[i].error);
        }
        ASSERT(pb_qrun_passed(&run));
        pb_qrun_free(&run);
        pb_quality_config_free(&cfg);
    }
    for (size_t i = 0; i < rows; i++) ASSERT(stat[0][i] == stat[1][i]);
    return 0;
}

/* A module whose "permutations" are not permutations fails every test. */
static int broken_perms(const pb_params *p, uint32_t n, uint64_t seed, uint64_t first,
                        uint64_t count, uint32_t *out, pb_err *err)
{
    (void)p, (void)seed, (void)err;
    for (uint64_t j = 0; j < count; j++)
        for (uint32_t i = 0; i < n; i++) out[j * n + i] = (first + j) % 2 ? i : 0;
    return 0;
}

TEST_IMPL(quality_run_invalid)
{
    pb_quality_config cfg;
    pb_err err;
    pb_qrun run;
    ASSERT(load("[quality]\nchisq = 5\nchisq_samples = 1000\nmmd = 5\nmmd_samples = 1000\n"
                "duplicates = 30\nduplicates_samples = 100\n[cpu-fisher-yates]\n",
                &cfg, &err) == 0);
    static const pb_shuffle_hooks broken = {.sample_perms = broken_perms};
    pb_module fake = *cfg.inst.v[0].mod;
    fake.ext = &broken;
    cfg.inst.v[0].mod = &fake;
    ASSERT(pb_quality_run(&cfg, NULL, &run, &err) == 0);
    ASSERT(run.nrows == 4);
    for (size_t i = 0; i < run.nrows; i++) {
        ASSERT(run.rows[i].r.verdict == PB_VERDICT_FAIL);
        ASSERT(run.rows[i].r.invalid > 0);
        ASSERT_CONTAINS(run.rows[i].message, "were not permutations");
    }
    ASSERT(!pb_qrun_passed(&run));
    pb_qrun_free(&run);
    pb_quality_config_free(&cfg);
    return 0;
}

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    return st == -1 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

/* The gate end to end: ci.ini exits 0 and writes its results; with the LCG
 * bijective shuffle added it exits 1. */
TEST_IMPL(quality_ci_gate)
{
    char dir[256];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' quality '%s/configs/quality/ci.ini' --out '%s/ci' --quiet",
             PB_BINARY, PB_SOURCE_DIR, dir);
    int rc = run_cmd(cmd);
    printf("ci.ini: exit %d\n", rc);
    ASSERT(rc == 0);
    snprintf(cmd, sizeof cmd, "test -s '%s/ci/quality.csv' && test -s '%s/ci/quality.json' && "
                              "! grep -q FAIL '%s/ci/quality.csv' && grep -q '\"schema_version\": 1,' '%s/ci/quality.json'",
             dir, dir, dir, dir);
    ASSERT(run_cmd(cmd) == 0);

    /* ci.ini + the LCG bijective shuffle (only it is run: the rest passed above). */
    snprintf(cmd, sizeof cmd,
             "cat '%s/configs/quality/ci.ini' > '%s/bad.ini' && printf '\\n[lcg-bijective]\\n"
             "module = cpu-bijective-twin\\nbijection = lcg\\n' >> '%s/bad.ini' && "
             "'%s' quality '%s/bad.ini' --only lcg-bijective --out '%s/bad' --quiet 2>/dev/null",
             PB_SOURCE_DIR, dir, dir, PB_BINARY, dir, dir);
    rc = run_cmd(cmd);
    printf("ci.ini + LCG bijective: exit %d\n", rc);
    ASSERT(rc == 1);
    snprintf(cmd, sizeof cmd, "grep -q '^lcg-bijective,.*,chisq,.*,FAIL,' '%s/bad/quality.csv'", dir);
    ASSERT(run_cmd(cmd) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    run_cmd(cmd);
    return 0;
}

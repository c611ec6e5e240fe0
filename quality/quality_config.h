/* A quality config (`permbench quality`): one [quality] section naming the
 * tests, and one section per module instance as in sweep configs, read by
 * the one INI reader (config/ini.h) into instances (registry/instance.h).
 *
 *   [quality]
 *   title = Release battery
 *   seed = 42
 *   alpha = 0.0001
 *   chisq = 5                   ; n values, the size syntax of sweeps
 *   chisq_samples = 10^6
 *   mmd = 5, 100, 1000
 *   mmd_samples = 10^6
 *   duplicates = 100
 *   duplicates_samples = 10^6
 *   modules = all               ; every module with sample permutations
 *
 *   [varphilox]                 ; the section name is the instance's label
 *   module = bijective2 | bijective-twin   ; the first this machine can run
 *   bijection = varphilox
 *   rounds = 1 .. 32 +1         ; a list: varphilox/rounds=1, ...
 *
 *   [outside]                   ; an external input (quality/qinput.h)
 *   input = perms.u32
 *   n = 5
 *   format = u32
 *
 * Each test of quality/qtest_list.h takes `<name>` and `<name>_samples`
 * (and its select_key). Every error names the file and line. */
#ifndef PB_QUALITY_CONFIG_H
#define PB_QUALITY_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "quality/qinput.h"
#include "quality/qtest.h"
#include "registry/instance.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_Q_MAX_N 16    /* n values a test is run at */
#define PB_Q_MAX_TESTS 16

/* How one test of the battery is run. */
typedef struct pb_qtest_spec {
    uint64_t ns[PB_Q_MAX_N]; /* permutation lengths, ascending, distinct */
    size_t nn;               /* 0: the test is not run */
    uint64_t samples;
    unsigned select;         /* bit r: report result r (default: all) */
    int line, samples_line;  /* of its keys */
} pb_qtest_spec;

typedef enum pb_qmodules { PB_QMOD_NONE, PB_QMOD_ALL, PB_QMOD_CPU, PB_QMOD_GPU } pb_qmodules;

typedef struct pb_quality_config {
    char path[1024];
    char name[128];
    char *text;
    uint64_t hash;
    char title[160];

    uint64_t seed;
    pb_qsettings settings; /* alpha, lambda */
    uint64_t batch;        /* permutations per sample_perms call, at most */
    bool gate;             /* exit status 1 on a FAIL */
    bool skip_unavailable;
    bool plot;             /* draw statistic-against-parameter figures */
    pb_qmodules modules;
    pb_qtest_spec test[PB_Q_MAX_TESTS]; /* indexed like pb_qtest_at */

    pb_instances inst;
    pb_qinput *inputs; /* the external inputs among inst (each by label) */
    size_t ninputs;
} pb_quality_config;

int pb_quality_config_load_file(const char *path, pb_quality_config *cfg, pb_err *err);
int pb_quality_config_load_text(const char *path, const char *name, const char *text,
                                pb_quality_config *cfg, pb_err *err);
void pb_quality_config_free(pb_quality_config *cfg);

/* ---- external inputs (quality/quality_inputs.c) ---- */

/* Adds the input a section with `input = FILE` names (the loader's, for
 * each such section; the [quality] keys must be applied already). */
int pb_quality_config_add_input(pb_quality_config *cfg, const pb_ini *doc, const pb_ini_section *s,
                                pb_err *err);

/* The external input behind an instance, or NULL for a module's. */
const pb_qinput *pb_quality_config_input(const pb_quality_config *cfg, const pb_instance *in);

/* Makes a loaded config test one external input and nothing else: its
 * module sections and inputs are dropped and the input is its one
 * instance. With `own_tests` (a config the user gave) the tests that run
 * at the input's n keep their sample counts, or take `count` when it is
 * not 0, and none at that n is an error; without (the built-in release
 * battery's settings) every test that applies at n with `count` samples
 * runs, at n alone. */
int pb_quality_config_use_input(pb_quality_config *cfg, const pb_qinput *input, uint64_t count,
                                bool own_tests, pb_err *err);

/* The draws every test at n needs: the most samples any of them takes. */
uint64_t pb_quality_config_samples_at(const pb_quality_config *cfg, uint64_t n);

/* "chisq and mmd need" or "mmd needs": the tests at n taking `samples`,
 * for messages saying an input has too few rows. */
const char *pb_quality_config_needers(const pb_quality_config *cfg, uint64_t n, uint64_t samples, char *buf,
                                      size_t len);

/* Checks the external inputs left in cfg->inst before any work: each can
 * be opened, and where its rows can be counted ahead (a regular file),
 * none is truncated and it holds the rows its tests need. */
int pb_quality_config_check_inputs(const pb_quality_config *cfg, pb_err *err);

/* The distinct n of all tests, ascending; returns how many. */
size_t pb_quality_config_sizes(const pb_quality_config *cfg, uint64_t *ns, size_t cap);

/* Whether test t runs at n. */
bool pb_qtest_spec_has(const pb_qtest_spec *t, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif

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
 * Each test of quality/qtest_list.h takes `<name>` and `<name>_samples`
 * (and its select_key). Every error names the file and line. */
#ifndef PB_QUALITY_CONFIG_H
#define PB_QUALITY_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

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
} pb_quality_config;

int pb_quality_config_load_file(const char *path, pb_quality_config *cfg, pb_err *err);
int pb_quality_config_load_text(const char *path, const char *name, const char *text,
                                pb_quality_config *cfg, pb_err *err);
void pb_quality_config_free(pb_quality_config *cfg);

/* The distinct n of all tests, ascending; returns how many. */
size_t pb_quality_config_sizes(const pb_quality_config *cfg, uint64_t *ns, size_t cap);

/* Whether test t runs at n. */
bool pb_qtest_spec_has(const pb_qtest_spec *t, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif

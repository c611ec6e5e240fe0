/* A quality config: one [quality] section naming the tests, and one section
 * per module instance (as in sweep configs), parsed with inih.
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
 *   modules = all               ; every shuffle module with sample permutations
 *
 *   [varphilox]                 ; the section name is the instance's label
 *   module = bijective2 | bijective-twin   ; the first this machine can run
 *   bijection = varphilox
 *   rounds = 1 .. 32 +1         ; a list: one instance per value, varphilox-1 ...
 *
 * Every error names the file and line. */
#ifndef PB_QUALITY_CONFIG_H
#define PB_QUALITY_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "harness/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PB_Q_MAX_INSTANCES 256
#define PB_Q_MAX_N 16

typedef enum pb_qtest_kind { PB_QT_CHISQ, PB_QT_MMD, PB_QT_DUPLICATES, PB_QT_KINDS } pb_qtest_kind;

/* "chisq", "mmd", "duplicates": the config's key for each kind. */
extern const char *const pb_qtest_key[PB_QT_KINDS];

typedef struct pb_qtest_spec {
    uint64_t ns[PB_Q_MAX_N]; /* permutation lengths, ascending, distinct */
    size_t nn;               /* 0: the test is not run */
    uint64_t samples;
    int line;
} pb_qtest_spec;

typedef enum pb_qmodules { PB_QMOD_NONE, PB_QMOD_ALL, PB_QMOD_CPU, PB_QMOD_GPU } pb_qmodules;

typedef struct pb_qinstance {
    pb_instance in;           /* label, module, parameters, line of its section */
    char group[PB_LABEL_MAX]; /* the section it came from */
    char param[48];           /* the parameter its section swept, or "" */
    long long value;          /* that parameter's value here */
} pb_qinstance;

typedef struct pb_quality_config {
    char path[1024];
    char name[128];
    char *text;
    uint64_t hash;
    char title[160];

    uint64_t seed;
    double alpha;
    double lambda;
    uint64_t batch;        /* permutations per sample_perms call, at most */
    bool gate;             /* exit status 1 on a FAIL */
    bool skip_unavailable;
    bool hoeffding, clt;   /* the MMD bounds to report */
    bool plot;             /* draw statistic-against-parameter figures */
    pb_qmodules modules;
    pb_qtest_spec test[PB_QT_KINDS];

    pb_qinstance *inst;
    size_t ninst;
} pb_quality_config;

int pb_quality_config_load_file(const char *path, pb_quality_config *cfg, pb_err *err);
int pb_quality_config_load_text(const char *path, const char *name, const char *text,
                                pb_quality_config *cfg, pb_err *err);
void pb_quality_config_free(pb_quality_config *cfg);

/* Keeps the instances whose label, group or module name is listed. */
int pb_quality_config_only(pb_quality_config *cfg, const char *list, pb_err *err);

/* The distinct n of all tests, ascending; returns how many. */
size_t pb_quality_config_sizes(const pb_quality_config *cfg, uint64_t *ns, size_t cap);

#ifdef __cplusplus
}
#endif

#endif

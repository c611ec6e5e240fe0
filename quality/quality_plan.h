/* What a loaded quality config asks for (quality/quality_config.h reads
 * it): the tests with their n and sample counts, the module instances and
 * external inputs, and the questions the battery and the input checks ask
 * of it. Apart from the loader so that the loader and the input sections
 * (quality/quality_inputs.h) both stand on it without using each other. */
#ifndef PB_QUALITY_PLAN_H
#define PB_QUALITY_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "quality/qinput.h"
#include "quality/qtests/qtest.h"
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

/* The draws every test at n needs: the most samples any of them takes. */
uint64_t pb_quality_config_samples_at(const pb_quality_config *cfg, uint64_t n);

/* "chisq and mmd need" or "mmd needs": the tests at n taking `samples`,
 * for messages saying an input has too few rows. */
const char *pb_quality_config_needers(const pb_quality_config *cfg, uint64_t n, uint64_t samples, char *buf,
                                      size_t len);

/* The distinct n of all tests, ascending; returns how many. */
size_t pb_quality_config_sizes(const pb_quality_config *cfg, uint64_t *ns, size_t cap);

/* Whether test t runs at n. */
bool pb_qtest_spec_has(const pb_qtest_spec *t, uint64_t n);

#ifdef __cplusplus
}
#endif

#endif

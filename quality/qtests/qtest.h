/* One statistical test of the quality battery, behind one small interface
 * (the PractRand / TestU01 shape): its name and the n it applies to, then
 * init, add permutations, finish, free. A battery is the list of tests in
 * quality/qtests/qtest_list.h; adding a test is one file defining
 * `const pb_qtest pb_qtest_<id>` and one PB_QTEST(<id>) line there.
 *
 * A [quality] config runs test <name> with the keys `<name> = N list` (the
 * size syntax) and `<name>_samples = count`, plus the test's `select_key`
 * if it has one. A test may report several results from one pass over the
 * permutations (MMD: its Hoeffding and its CLT bound); each is a row. */
#ifndef PB_QTEST_H
#define PB_QTEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "stats/verdict.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What every test is run with. */
typedef struct pb_qsettings {
    double alpha;  /* the level of each test */
    double lambda; /* the Mallows kernel's parameter (mmd) */
} pb_qsettings;

/* What `applies` says is wrong: the n list or the sample count. */
enum { PB_QT_OK = 0, PB_QT_BAD_N = 1, PB_QT_BAD_SAMPLES = 2 };

typedef struct pb_qtest {
    const char *name;    /* its [quality] key: "chisq" */
    const char *summary; /* one line, for --help and the docs */
    /* The rows it reports ("mmd-hoeffding", "mmd-clt"), and the key and
     * words a config picks some of them with (NULL: it reports all). */
    const char *const *results;
    size_t nresults;
    const char *select_key;
    const char *const *select_words;
    /* Names of pb_test_result's `expected` and `aux` in quality.json. */
    const char *expected_name, *aux_name;
    /* Figures against a swept parameter: the file stem (NULL: none), the
     * y axis, and each result's threshold as the legend names it. */
    const char *figure;
    const char *ylabel;
    const char *const *threshold_titles;

    /* Whether it holds at n with `samples` permutations: PB_QT_OK, or which
     * of the two is wrong with a message ("chisq at n = 9: ..."). */
    int (*applies)(uint32_t n, uint64_t samples, pb_err *err);
    int (*init)(void **state, uint32_t n, uint64_t samples, const pb_qsettings *s, pb_err *err);
    /* `count` more permutations of [0, n), one after another. */
    int (*add)(void *state, const uint32_t *perms, uint64_t count, pb_err *err);
    /* Result `which` (an index into results) over all that was added. */
    void (*finish)(void *state, size_t which, const pb_qsettings *s, pb_test_result *r);
    void (*release)(void *state);
} pb_qtest;

size_t pb_qtest_count(void);
const pb_qtest *pb_qtest_at(size_t i);
/* The test reporting rows named `result`, and which result it is; NULL if none. */
const pb_qtest *pb_qtest_of_result(const char *result, size_t *which);

#ifdef __cplusplus
}
#endif

#endif

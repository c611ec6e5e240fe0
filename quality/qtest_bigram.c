/* bigram: the N-gram TVD bias metric of order 2 (stats/ngram.h): windows of
 * 2 consecutive items over all samples against uniform over the ordered
 * 2-tuples, against its exact null mean and noise; one-sided normal
 * verdict. */
#include <stdlib.h>

#include "quality/qtest.h"
#include "stats/ngram.h"

#define ORDER 2
/* The tuples of the largest n fit a 63-bit key; the table bounds it further. */
#define MAX_N 65535

static int applies(uint32_t n, uint64_t samples, pb_err *err)
{
    pb_err e;
    if (n < ORDER + 1 || n > MAX_N)
        return pb_err_set(err, "bigram at n = %u: n must be %d .. %d", n, ORDER + 1, MAX_N),
               PB_QT_BAD_N;
    if (samples < 2 || pb_ngram_applicable(n, ORDER, samples, &e))
        return pb_err_set(err, "bigram_samples = %llu at n = %u: %s", (unsigned long long)samples, n,
                          samples < 2 ? "at least 2" : e.msg),
               PB_QT_BAD_SAMPLES;
    return PB_QT_OK;
}

static int init(void **state, uint32_t n, uint64_t samples, const pb_qsettings *s, pb_err *err)
{
    (void)s;
    pb_ngram *g = malloc(sizeof *g);
    if (!g) return pb_err_set(err, "out of memory");
    if (pb_ngram_init(g, n, ORDER, samples, err)) {
        free(g);
        return -1;
    }
    *state = g;
    return 0;
}

static int add(void *state, const uint32_t *perms, uint64_t count, pb_err *err)
{
    return pb_ngram_add(state, perms, count, err);
}

static void finish(void *state, size_t which, const pb_qsettings *s, pb_test_result *r)
{
    (void)which;
    pb_ngram_result(state, s->alpha, r);
}

static void release(void *state)
{
    if (!state) return;
    pb_ngram_free(state);
    free(state);
}

static const char *const results[] = {"bigram-tvd"};
static const char *const thresholds[] = {"threshold (uniform mean + z sd)"};

const pb_qtest pb_qtest_bigram = {
    .name = "bigram",
    .summary = "bigram TVD: which items follow which, against uniform",
    .results = results,
    .nresults = 1,
    .expected_name = "expected_tvd",
    .aux_name = "sd_tvd",
    .figure = "bigram",
    .ylabel = "bigram TVD",
    .threshold_titles = thresholds,
    .applies = applies,
    .init = init,
    .add = add,
    .finish = finish,
    .release = release,
};

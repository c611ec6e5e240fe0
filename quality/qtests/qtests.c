#include <string.h>

#include "quality/qtests/qtest.h"

#define PB_QTEST(id) extern const pb_qtest pb_qtest_##id;
#include "quality/qtests/qtest_list.h"
#undef PB_QTEST

static const pb_qtest *const tests[] = {
#define PB_QTEST(id) &pb_qtest_##id,
#include "quality/qtests/qtest_list.h"
#undef PB_QTEST
};

size_t pb_qtest_count(void) { return sizeof tests / sizeof tests[0]; }

const pb_qtest *pb_qtest_at(size_t i) { return i < pb_qtest_count() ? tests[i] : NULL; }

const pb_qtest *pb_qtest_of_result(const char *result, size_t *which)
{
    for (size_t i = 0; i < pb_qtest_count(); i++)
        for (size_t r = 0; r < tests[i]->nresults; r++)
            if (strcmp(tests[i]->results[r], result) == 0) {
                if (which) *which = r;
                return tests[i];
            }
    return NULL;
}

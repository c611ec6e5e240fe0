#include "stats/verdict.h"

#include <math.h>

pb_verdict pb_verdict_of(double p_value, bool reject)
{
    if (reject || !(p_value >= PB_FAIL_P)) return PB_VERDICT_FAIL; /* NaN fails too */
    if (p_value < PB_SUSPECT_P) return PB_VERDICT_SUSPECT;
    return PB_VERDICT_PASS;
}

void pb_verdict_invalid(pb_test_result *r, uint64_t invalid)
{
    r->invalid = invalid;
    if (invalid) {
        r->reject = true;
        r->verdict = PB_VERDICT_FAIL;
    }
}

const char *pb_verdict_name(pb_verdict v)
{
    switch (v) {
    case PB_VERDICT_PASS: return "PASS";
    case PB_VERDICT_SUSPECT: return "SUSPECT";
    case PB_VERDICT_FAIL: break;
    }
    return "FAIL";
}

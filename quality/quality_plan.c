#include "quality/quality_plan.h"

#include <stdio.h>
#include <stdlib.h>

bool pb_qtest_spec_has(const pb_qtest_spec *t, uint64_t n)
{
    for (size_t i = 0; i < t->nn; i++)
        if (t->ns[i] == n) return true;
    return false;
}

uint64_t pb_quality_config_samples_at(const pb_quality_config *cfg, uint64_t n)
{
    uint64_t most = 0;
    for (size_t k = 0; k < pb_qtest_count(); k++)
        if (pb_qtest_spec_has(&cfg->test[k], n) && cfg->test[k].samples > most) most = cfg->test[k].samples;
    return most;
}

const char *pb_quality_config_needers(const pb_quality_config *cfg, uint64_t n, uint64_t samples, char *buf,
                                      size_t len)
{
    size_t off = 0, count = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < pb_qtest_count() && off < len; k++)
        if (pb_qtest_spec_has(&cfg->test[k], n) && cfg->test[k].samples == samples)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", count++ ? " and " : "", pb_qtest_at(k)->name);
    if (off < len) snprintf(buf + off, len - off, " %s", count > 1 ? "need" : "needs");
    return buf;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t pb_quality_config_sizes(const pb_quality_config *cfg, uint64_t *ns, size_t cap)
{
    size_t nn = 0;
    for (size_t k = 0; k < pb_qtest_count(); k++)
        for (size_t i = 0; i < cfg->test[k].nn; i++) {
            bool have = false;
            for (size_t j = 0; j < nn; j++) have |= ns[j] == cfg->test[k].ns[i];
            if (!have && nn < cap) ns[nn++] = cfg->test[k].ns[i];
        }
    qsort(ns, nn, sizeof ns[0], cmp_u64);
    return nn;
}

#include "core/fingerprint.h"

#include <string.h>

/* Below this many items a parallel region costs more than it saves. */
#define PAR_MIN (UINT64_C(1) << 16)

static uint64_t value_at(const unsigned char *p, uint64_t i, unsigned w)
{
    switch (w) {
    case 1: return p[i];
    case 2: {
        uint16_t v;
        memcpy(&v, p + 2 * i, 2);
        return v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p + 4 * i, 4);
        return v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p + 8 * i, 8);
        return v;
    }
    }
}

uint64_t pb_fingerprint(const void *buf, uint64_t n, unsigned item_bytes)
{
    const unsigned char *p = buf;
    uint64_t sum = 0;
    pb_fp_as_words(&n, &item_bytes); /* a record: its words */
#pragma omp parallel for reduction(+ : sum) schedule(static) if (n >= PAR_MIN)
    for (uint64_t i = 0; i < n; i++) sum += pb_fp_term(i, value_at(p, i, item_bytes));
    return sum;
}

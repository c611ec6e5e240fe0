#include "bench/suspect.h"

#include <math.h>
#include <stdio.h>

void pb_row_flag_suspect(pb_row *row)
{
    if (row->suspect[0] || row->status == PB_ROW_ERROR) return;
    if (isfinite(row->pct_copy) && row->pct_copy > PB_SUSPECT_PCT_OF_COPY)
        snprintf(row->suspect, sizeof row->suspect,
                 "pct_of_copy %.0f%% is above %.0f%%: no module moves its bytes that much faster than "
                 "a copy of them; the copy at this n stalled",
                 row->pct_copy, PB_SUSPECT_PCT_OF_COPY);
}

/* A ceiling (copy, gather) row whose median is not below half that of the
 * same ceiling at 16 times the items or more. */
static void ceiling_growth(pb_run *run, pb_row *row)
{
    if (row->suspect[0] || row->status != PB_ROW_OK || !(row->inst->mod->flags & PB_MOD_CEILING) ||
        !(row->ms.median > PB_SUSPECT_CEILING_MS))
        return;
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *big = &run->rows[i];
        if (big->status != PB_ROW_OK || big->inst->mod != row->inst->mod || big->item_bytes != row->item_bytes ||
            big->threads != row->threads || big->n < 16 * row->n || !(big->nsamples > 0))
            continue;
        if (big->ms.median < 2 * row->ms.median) {
            snprintf(row->suspect, sizeof row->suspect,
                     "the %s ceiling does not grow with n: %.4g ms here and %.4g ms at n = %llu (%.0fx the "
                     "items); above %.1f ms a ceiling's time is its work",
                     row->inst->mod->name, row->ms.median, big->ms.median, (unsigned long long)big->n,
                     (double)big->n / (double)row->n, PB_SUSPECT_CEILING_MS);
            return;
        }
    }
}

void pb_run_flag_suspect(pb_run *run)
{
    for (size_t r = 0; r < run->nrows; r++) {
        pb_row_flag_suspect(&run->rows[r]);
        ceiling_growth(run, &run->rows[r]);
    }
}

#include "bench/table.h"

#include <math.h>
#include <stdio.h>

#include "output/progress.h"
#include "bench/results.h"
#include "config/sizes.h"

/* median_ms is the timer's: CUDA events on the GPU, the monotonic clock on
 * the CPU; wall_ms is the host's wall time of the same calls, launch to
 * completion (on the CPU the two are one). The legend under the header
 * says what each column is, so the table reads without the docs. */
void pb_table_header(bool seeds)
{
    printf("%-22s %-4s %12s %4s %4s %7s %11s %11s %11s %6s %11s %10s %9s %7s %s\n", "label", "dev",
           "n", "item", "thr", "samples", "median_ms", "ci_lo_ms", "ci_hi_ms", "+-ci", "wall_ms",
           "Gitems/s", "GB/s", "%copy", "verified");
    printf("# median_ms: median of the timed samples; ci_lo_ms, ci_hi_ms: its distribution-free 95%%\n"
           "# confidence interval (order statistics); +-ci: the interval's half-width / median, the\n"
           "# figure that stops sampling and marks a row (noisy) above max_noise; (multimodal): the\n"
           "# samples fall into two clusters; wall_ms: median host wall time, launch to completion;\n"
           "# Gitems/s, GB/s: items and bytes the algorithm must move at the median; %%copy: GB/s as a\n"
           "# share of the copy ceiling on the same device, n and item\n");
    if (seeds)
        printf("# (N seeds, spread S%%): the point measured over N seeds (input and draws); median_ms is\n"
               "# the median of the N per-seed medians, S their (max - min) / median_ms\n");
    fflush(stdout);
}

void pb_table_row(const pb_row *row)
{
    char nb[48], thr[16] = "-", pct[16] = "-";
    pb_progress_clear();
    pb_size_format(row->n, nb, sizeof nb);
    if (row->threads) snprintf(thr, sizeof thr, "%d", row->threads);
    if (!isnan(row->pct_copy)) snprintf(pct, sizeof pct, "%.1f", row->pct_copy);
    if (row->status == PB_ROW_ERROR) {
        printf("%-22s %-4s %12s %4u %4s %7s %11s %11s %11s %6s %11s %10s %9s %7s %s\n",
               row->inst->label, pb_device_name(row->inst->mod->device), nb, row->item_bytes, thr,
               "-", "-", "-", "-", "-", "-", "-", "-", "-", "ERROR");
    } else {
        char ci[16];
        snprintf(ci, sizeof ci, "%.1f%%", 100 * row->ci_halfwidth);
        printf("%-22s %-4s %12s %4u %4s %7zu %11.4f %11.4f %11.4f %6s %11.4f %10.4f %9.2f %7s %s%s%s%s%s%s",
               row->inst->label, pb_device_name(row->inst->mod->device), nb, row->item_bytes, thr,
               row->nsamples, row->ms.median, row->ci_lo_ms, row->ci_hi_ms, ci, row->wall.median,
               row->items_per_s / 1e9, row->gbps, pct, row->status == PB_ROW_OK ? "yes" : "FAILED",
               row->noisy ? " (noisy)" : "", row->multimodal ? " (multimodal)" : "",
               row->timed_out ? " (timeout)" : "", row->busy ? " (busy)" : "",
               row->suspect[0] ? " (suspect)" : "");
        if (row->nseeds > 1) printf(" (%d seeds, spread %.1f%%)", row->nseeds, 100 * row->seed_spread);
        printf("\n");
        /* The code path, where the module has several: a line of its own. */
        if (row->path[0]) printf("  path: %s\n", row->path);
        /* A module spread over several devices: what it sent between
         * them, on a line of its own so the columns stay as they are. */
        if (!isnan(row->link_bytes)) {
            char rate[48] = "";
            if (!isnan(row->link_gbps))
                snprintf(rate, sizeof rate, ", %.1f GB/s at the median", row->link_gbps);
            printf("  links: %.2f GB sent between devices%s%s%s\n", row->link_bytes / 1e9, rate,
                   row->topology[0] ? "; " : "", row->topology);
        }
    }
    fflush(stdout);
}

void pb_table_failures(const pb_run *run, double max_noise)
{
    size_t bad = 0, noisy = 0, multimodal = 0;
    for (size_t i = 0; i < run->nrows; i++) {
        bad += run->rows[i].status != PB_ROW_OK;
        noisy += run->rows[i].status == PB_ROW_OK && run->rows[i].noisy;
        multimodal += run->rows[i].status == PB_ROW_OK && run->rows[i].multimodal;
    }
    if (noisy)
        fprintf(stderr,
                "note: %zu row(s) whose median's 95%% interval is wider than max_noise = %g%% "
                "(marked noisy)\n",
                noisy, 100 * max_noise);
    if (multimodal)
        fprintf(stderr, "note: %zu row(s) whose samples fall into two clusters (marked multimodal)\n",
                multimodal);
    /* Rows measured on a busy machine, and numbers that cannot be right. */
    size_t busy = 0;
    for (size_t i = 0; i < run->nrows; i++) busy += run->rows[i].busy;
    if (busy) fprintf(stderr, "note: %zu row(s) measured while the machine was busy (marked busy)\n", busy);
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *r = &run->rows[i];
        char nb[48];
        if (r->suspect[0])
            fprintf(stderr, "note: suspect: %s n=%s item=%u: %s\n", r->inst->label,
                    pb_size_format(r->n, nb, sizeof nb), r->item_bytes, r->suspect);
    }
    if (!bad) return;
    fprintf(stderr, "%zu row(s) failed:\n", bad);
    for (size_t i = 0; i < run->nrows; i++) {
        const pb_row *r = &run->rows[i];
        if (r->status == PB_ROW_OK) continue;
        char nb[48];
        fprintf(stderr, "  %s %s n=%s item=%u: %s\n", pb_row_status_name(r->status),
                r->inst->label, pb_size_format(r->n, nb, sizeof nb), r->item_bytes, r->message);
    }
}

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench/results.h"

#include "output/atomic_file.h"

const char *const pb_csv_columns[] = {
    "label",       "series",         "axis",           "axis_value",  "module",
    "family",      "device",         "n",              "item_bytes",  "threads",
    "samples",     "median_ms",      "min_ms",         "max_ms",      "mean_ms",
    "stddev_ms",   "wall_median_ms", "noise_pct",      "noisy",       "items_per_s",
    "effective_gbps", "pct_of_copy", "speedup_vs_ref", "verified",    "status",
    /* Appended: a reader that knows only the columns before still reads
     * every one of them where it was. */
    "link_bytes",  "link_gbps",
    /* The median's 95% interval, its relative half-width, two clusters. */
    "median_ci_lo_ms", "median_ci_hi_ms", "median_ci_halfwidth_pct", "multimodal",
    "busy",        "suspect",
    "path",
};
const size_t pb_csv_ncolumns = sizeof pb_csv_columns / sizeof pb_csv_columns[0];

/* After `path`, where the run measures some point over several seeds: the
 * seeds reached, the least and greatest per-seed median, and their spread
 * over the row's median (percent). */
const char *const pb_csv_seed_columns[] = {"seeds", "seed_min_ms", "seed_max_ms", "seed_spread_pct"};
const size_t pb_csv_nseed_columns = sizeof pb_csv_seed_columns / sizeof pb_csv_seed_columns[0];

const char *pb_row_status_name(int status)
{
    switch (status) {
    case PB_ROW_OK: return "ok";
    case PB_ROW_FAILED: return "FAILED";
    default: return "ERROR";
    }
}

int pb_results_write_csv(const char *path, const pb_run *run, pb_err *err)
{
    pb_afile a;
    if (pb_afile_open(&a, path, err)) return -1;
    FILE *f = a.f;
    for (size_t c = 0; c < pb_csv_ncolumns; c++)
        fprintf(f, "%s%s", c ? "," : "", pb_csv_columns[c]);
    for (size_t c = 0; run->seeds && c < pb_csv_nseed_columns; c++) fprintf(f, ",%s", pb_csv_seed_columns[c]);
    fputc('\n', f);
    for (size_t r = 0; r < run->nrows; r++) {
        const pb_row *row = &run->rows[r];
        const pb_module *m = row->inst->mod;
        /* Labels are [A-Za-z0-9._+-] plus '/' and '=' in expanded ones, and
         * list values hold no comma: no quoting needed. */
        fprintf(f, "%s,%s,%s,%s,%s,%s,%s,%llu,%u,", row->inst->label, row->inst->series,
                row->inst->axis, row->inst->axis_value, m->name, m->family->name,
                pb_device_name(m->device), (unsigned long long)row->n, row->item_bytes);
        if (m->device == PB_DEVICE_CPU) fprintf(f, "%d", row->threads);
        fprintf(f, ",%zu,", row->nsamples);
        if (row->status == PB_ROW_ERROR) {
            fprintf(f, ",,,,,,,,,,,,");
        } else {
            fprintf(f, "%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.3f,%s,%.6g,%.6g,", row->ms.median,
                    row->ms.min, row->ms.max, row->ms.mean, row->ms.stddev, row->wall.median,
                    100 * row->noise, row->noisy ? "yes" : "no", row->items_per_s, row->gbps);
            if (!isnan(row->pct_copy)) fprintf(f, "%.2f", row->pct_copy);
            fputc(',', f);
            if (!isnan(row->speedup_vs_ref)) fprintf(f, "%.4f", row->speedup_vs_ref);
            fputc(',', f);
        }
        fprintf(f, "%s,%s,", row->verified ? "yes" : "no", pb_row_status_name(row->status));
        /* Modules spread over several devices only: empty cells otherwise. */
        bool links = row->status != PB_ROW_ERROR;
        if (links && !isnan(row->link_bytes)) fprintf(f, "%.6g", row->link_bytes);
        fputc(',', f);
        if (links && !isnan(row->link_gbps)) fprintf(f, "%.6g", row->link_gbps);
        if (row->status != PB_ROW_ERROR && !isnan(row->ci_lo_ms))
            fprintf(f, ",%.6g,%.6g,%.3f,%s", row->ci_lo_ms, row->ci_hi_ms, 100 * row->ci_halfwidth,
                    row->multimodal ? "yes" : "no");
        else
            fputs(",,,,", f);
        /* The reason is prose: its commas (none in the reasons written
         * now) become semicolons, so the cells stay unquoted. */
        fprintf(f, ",%s,", row->busy ? "yes" : "no");
        for (const char *c = row->suspect; *c; c++) fputc(*c == ',' ? ';' : *c, f);
        fprintf(f, ",%s", row->path); /* a word: no comma */
        if (run->seeds) {
            int seeds = row->nseeds > 1 ? row->nseeds : 1;
            fprintf(f, ",%d,", seeds);
            if (row->status != PB_ROW_ERROR && row->nsamples) {
                double lo = seeds > 1 ? row->seed_min_ms : row->ms.median;
                double hi = seeds > 1 ? row->seed_max_ms : row->ms.median;
                fprintf(f, "%.6g,%.6g,", lo, hi);
                if (seeds > 1 && !isnan(row->seed_spread)) fprintf(f, "%.3f", 100 * row->seed_spread);
                else if (seeds == 1) fputs("0.000", f);
            } else {
                fputs(",,", f);
            }
        }
        fputc('\n', f);
    }
    return pb_afile_commit(&a, err);
}

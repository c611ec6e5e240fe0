#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/measure.h"
#include "bench/row_seeds.h"
#include "stats/summary.h"

/* Appends src's samples to dst's; -1 when out of memory. */
static int append(double **dst, size_t n, const double *src, size_t m)
{
    double *p = realloc(*dst, (n + m ? n + m : 1) * sizeof *p);
    if (!p) return -1;
    memcpy(p + n, src, m * sizeof *p);
    *dst = p;
    return 0;
}

void pb_measure_seeds(const pb_config *cfg, pb_run *run, const pb_instance *in, int seeds, pb_row *row)
{
    if (seeds <= 1) {
        pb_measure_point(cfg, run, in, row);
        return;
    }
    if (seeds > PB_MAX_SEEDS) seeds = PB_MAX_SEEDS;
    pb_config one = *cfg;
    double links[PB_MAX_SEEDS];
    int nlinks = 0;
    row->nseeds = 0;
    row->failed_sample = -1;
    row->held = true;
    double noise = 0;
    for (int i = 0; i < seeds; i++) {
        pb_row r;
        memset(&r, 0, sizeof r);
        r.inst = in;
        r.n = row->n;
        r.item_bytes = row->item_bytes;
        r.threads = row->threads;
        one.seed = row->seed_values[i] = pb_seed_of(cfg->seed, i);
        pb_measure_point(&one, run, in, &r);
        size_t at = row->nsamples;
        if (append(&row->samples_ms, at, r.samples_ms, r.nsamples) ||
            append(&row->wall_ms, at, r.wall_ms, r.nsamples)) {
            free(r.samples_ms), free(r.wall_ms);
            row->status = PB_ROW_ERROR;
            snprintf(row->message, sizeof row->message, "out of memory for samples");
            break;
        }
        row->nsamples += r.nsamples;
        row->seed_nsamples[row->nseeds++] = r.nsamples;
        free(r.samples_ms), free(r.wall_ms);
        if (i == 0) {
            snprintf(row->check, sizeof row->check, "%s", r.check);
            snprintf(row->path, sizeof row->path, "%s", r.path);
        }
        row->check_s += r.check_s;
        row->sampling_s += r.sampling_s;
        row->held &= r.held;
        row->timed_out |= r.timed_out;
        noise = fmax(noise, r.noise);
        if (!isnan(r.link_bytes)) {
            links[nlinks++] = r.link_bytes;
            snprintf(row->topology, sizeof row->topology, "%s", r.topology);
        }
        row->status = r.status;
        if (r.status != PB_ROW_OK) {
            if (r.failed_sample >= 0) row->failed_sample = (long)at + r.failed_sample;
            if (strcmp(r.message, "interrupted") == 0) snprintf(row->message, sizeof row->message, "interrupted");
            else snprintf(row->message, sizeof row->message, "seed %d of %d (%llu): %.440s", i + 1, seeds,
                          (unsigned long long)row->seed_values[i], r.message);
            break;
        }
    }
    /* A row that stopped early keeps the seeds it has: its samples say
     * what they measured. */
    row->noise = noise;
    row->pct_copy = row->speedup_vs_ref = NAN;
    row->link_bytes = nlinks ? pb_summarise(links, (size_t)nlinks).median : NAN;
    row->link_gbps = NAN;
    /* The seeds reached: a seed that ended before its first sample is none. */
    if (row->nseeds && row->seed_nsamples[row->nseeds - 1] == 0) row->nseeds--;
    if (pb_row_judge(row, cfg->max_noise) || pb_row_summarise(row)) {
        row->status = PB_ROW_ERROR;
        snprintf(row->message, sizeof row->message, "out of memory for samples");
    }
    if (row->nsamples == 0) return;
    pb_row_rates(in, row);
}

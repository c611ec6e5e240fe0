/* What else the machine was doing while a run measured: load, CPU steal
 * time, runnable processes other than this one, CPU frequencies, and the
 * GPU's clocks, throttling and other processes (output/nvml_probe.h).
 * Sampled before a run, around every point and after it; a point measured
 * while the machine was busy is marked, and results.json keeps the record
 * ("machine", docs/results.md). */
#ifndef PB_MACHINE_STATE_H
#define PB_MACHINE_STATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "output/nvml_probe.h"

typedef struct pb_machine_sample {
    double load1, load5, load15;        /* /proc/loadavg; NaN: unknown */
    unsigned long long cpu_total;       /* jiffies of every CPU, /proc/stat */
    unsigned long long cpu_steal;       /* of them, stolen by the hypervisor */
    unsigned long long cpu_busy;        /* of them, not idle nor waiting for I/O */
    unsigned long long own_cpu;         /* this process's user + system jiffies */
    int others_running;                 /* runnable tasks not of this process; -1: unknown */
    char governor[32];                  /* cpufreq governor of cpu0, "unknown" without cpufreq */
    double freq_min_mhz, freq_max_mhz;  /* current frequencies over CPUs; NaN: unknown */
    bool gpu_read;
    pb_nvml_state gpu;
} pb_machine_sample;

/* Reads the machine now; `gpu`: NVML too. */
void pb_machine_sample_take(pb_machine_sample *s, bool gpu);

/* When the machine counts as busy (docs/measurement.md says why):
 * runnable tasks of other processes at least half the logical CPUs (at
 * least one), or more than 5% of the CPU time stolen by the hypervisor. */
int pb_machine_busy_runnable(void);
#define PB_MACHINE_BUSY_STEAL_PCT 5.0

/* Between two samples: steal as a percentage of all CPU time, and the
 * CPUs' worth of time other processes used (NaN when no time passed). */
double pb_machine_steal_pct(const pb_machine_sample *a, const pb_machine_sample *b);
double pb_machine_others_cpus(const pb_machine_sample *a, const pb_machine_sample *b);

/* Whether the machine was busy from `a` to `b`, with the reason in `why`. */
bool pb_machine_busy(const pb_machine_sample *a, const pb_machine_sample *b, char *why, size_t len);

json_t *pb_machine_sample_json(const pb_machine_sample *s);

/* A run's record: the first and last sample, and the worst seen between. */
typedef struct pb_machine_watch {
    bool started, gpu;
    pb_machine_sample before, after, row_start;
    size_t points, busy_points;
    double max_load1;
    int max_others_running;
    double max_steal_pct, max_others_cpus; /* the worst point's */
    int gpu_min_sm_mhz, gpu_max_sm_mhz, gpu_max_temperature_c, gpu_max_other_processes;
    unsigned long long gpu_reasons;        /* every reason seen, OR'ed */
    bool warned;
} pb_machine_watch;

/* `gpu`: the sweep has GPU points, so NVML is read around each point too
 * (before and after the run it always is). */
void pb_machine_watch_start(pb_machine_watch *w, bool gpu);
/* Around one point: true when the machine was busy meanwhile; the first
 * busy point prints one warning on stderr, with the reason. */
void pb_machine_watch_point_begin(pb_machine_watch *w);
bool pb_machine_watch_point_end(pb_machine_watch *w);
void pb_machine_watch_finish(pb_machine_watch *w);
/* {"before", "during", "after", "busy", "busy_threshold"}; NULL when the
 * watch never started. */
json_t *pb_machine_watch_json(const pb_machine_watch *w);

#endif

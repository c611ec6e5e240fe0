#include "output/machine_state.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "output/progress.h"

static int cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int pb_machine_busy_runnable(void)
{
    return (cpus() + 1) / 2;
}

/* /proc/stat: the "cpu" line's jiffies and procs_running. */
static int read_stat(pb_machine_sample *s)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    char line[512];
    int running = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long long v[10] = {0};
        if (strncmp(line, "cpu ", 4) == 0 &&
            sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8) {
            /* user nice system idle iowait irq softirq steal (guest time
             * is counted in user already). */
            s->cpu_total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
            s->cpu_steal = v[7];
            s->cpu_busy = v[0] + v[1] + v[2] + v[5] + v[6];
        } else if (strncmp(line, "procs_running ", 14) == 0) {
            running = atoi(line + 14);
        }
    }
    fclose(f);
    return running;
}

/* This process's threads that are running or runnable now, and its user
 * plus system jiffies. */
static int own_running(unsigned long long *own_cpu)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[got] = '\0';
        /* "tid (comm) S ...": the name may hold spaces and parentheses. */
        char *p = strrchr(buf, ')');
        if (p && p[1] == ' ' && p[2] == 'R') n++;
    }
    closedir(d);
    FILE *f = fopen("/proc/self/stat", "r");
    if (f) {
        char buf[1024];
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        buf[got] = '\0';
        fclose(f);
        char *p = strrchr(buf, ')');
        unsigned long long ut = 0, st = 0;
        /* After ") ": state, then fields 4..13; utime and stime are 14, 15. */
        if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2)
            *own_cpu = ut + st;
    }
    return n;
}

static void read_freq(pb_machine_sample *s)
{
    snprintf(s->governor, sizeof s->governor, "unknown");
    s->freq_min_mhz = s->freq_max_mhz = NAN;
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "r");
    if (f) {
        char g[32];
        if (fgets(g, sizeof g, f)) {
            g[strcspn(g, "\n")] = '\0';
            if (g[0]) snprintf(s->governor, sizeof s->governor, "%s", g);
        }
        fclose(f);
    }
    for (int c = 0; c < cpus(); c++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
        f = fopen(path, "r");
        if (!f) continue;
        double khz;
        if (fscanf(f, "%lf", &khz) == 1 && khz > 0) {
            double mhz = khz / 1000;
            if (isnan(s->freq_min_mhz) || mhz < s->freq_min_mhz) s->freq_min_mhz = mhz;
            if (isnan(s->freq_max_mhz) || mhz > s->freq_max_mhz) s->freq_max_mhz = mhz;
        }
        fclose(f);
    }
}

void pb_machine_sample_take(pb_machine_sample *s, bool gpu)
{
    memset(s, 0, sizeof *s);
    s->load1 = s->load5 = s->load15 = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf %lf %lf", &s->load1, &s->load5, &s->load15) != 3) s->load1 = s->load5 = s->load15 = NAN;
        fclose(f);
    }
    /* The least of three readings: a task that is runnable at one instant
     * and not the next (a shell, a daemon's tick) is no contention, while
     * one that competes for the CPUs is runnable at every reading. */
    s->others_running = -1;
    for (int k = 0; k < 3; k++) {
        pb_machine_sample t = {0};
        int all = read_stat(&t);
        int own = own_running(&t.own_cpu);
        if (k == 0 || t.cpu_total) {
            s->cpu_total = t.cpu_total, s->cpu_steal = t.cpu_steal, s->cpu_busy = t.cpu_busy;
            s->own_cpu = t.own_cpu;
        }
        if (all < 0) continue;
        int others = all > own ? all - own : 0;
        if (s->others_running < 0 || others < s->others_running) s->others_running = others;
        struct timespec half_ms = {0, 500000};
        if (k < 2) nanosleep(&half_ms, NULL);
    }
    read_freq(s);
    s->gpu_read = gpu;
    if (gpu) pb_nvml_sample(&s->gpu);
}

double pb_machine_steal_pct(const pb_machine_sample *a, const pb_machine_sample *b)
{
    if (b->cpu_total <= a->cpu_total) return NAN;
    return 100.0 * (double)(b->cpu_steal - a->cpu_steal) / (double)(b->cpu_total - a->cpu_total);
}

double pb_machine_others_cpus(const pb_machine_sample *a, const pb_machine_sample *b)
{
    if (b->cpu_total <= a->cpu_total) return NAN;
    double per_cpu = (double)(b->cpu_total - a->cpu_total) / cpus();
    double others = (double)(b->cpu_busy - a->cpu_busy) - (double)(b->own_cpu - a->own_cpu);
    return fmax(others, 0) / per_cpu;
}

bool pb_machine_busy(const pb_machine_sample *a, const pb_machine_sample *b, char *why, size_t len)
{
    int limit = pb_machine_busy_runnable();
    int others = a->others_running > b->others_running ? a->others_running : b->others_running;
    double steal = pb_machine_steal_pct(a, b);
    if (others >= limit) {
        snprintf(why, len, "%d runnable task(s) of other processes on %d logical CPU(s) (busy from %d: half the CPUs)",
                 others, cpus(), limit);
        return true;
    }
    if (steal > PB_MACHINE_BUSY_STEAL_PCT) {
        snprintf(why, len, "%.1f%% of the CPU time stolen by the hypervisor (busy above %.0f%%)", steal,
                 PB_MACHINE_BUSY_STEAL_PCT);
        return true;
    }
    if (why && len) why[0] = '\0';
    return false;
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *gpu_json(const pb_nvml_state *g)
{
    if (!g->available) return json_pack("{s:b, s:s}", "nvml", 0, "reason", g->why);
    char reasons[256];
    json_t *j = json_pack("{s:b, s:s}", "nvml", 1, "pci_bus_id", g->pci_bus_id);
    json_object_set_new(j, "sm_clock_mhz", g->sm_clock_mhz >= 0 ? json_integer(g->sm_clock_mhz) : json_null());
    json_object_set_new(j, "memory_clock_mhz", g->mem_clock_mhz >= 0 ? json_integer(g->mem_clock_mhz) : json_null());
    json_object_set_new(j, "temperature_c", g->temperature_c >= 0 ? json_integer(g->temperature_c) : json_null());
    json_object_set_new(j, "clocks_event_reasons",
                        g->have_reasons ? json_string(pb_nvml_reasons_text(g->clocks_event_reasons, reasons,
                                                                           sizeof reasons))
                                        : json_null());
    json_object_set_new(j, "throttled", g->have_reasons ? json_boolean(pb_nvml_reasons_throttle(g->clocks_event_reasons))
                                                        : json_null());
    json_object_set_new(j, "other_processes", g->other_processes >= 0 ? json_integer(g->other_processes) : json_null());
    return j;
}

json_t *pb_machine_sample_json(const pb_machine_sample *s)
{
    json_t *j = json_object();
    json_object_set_new(j, "load_1m", num(s->load1));
    json_object_set_new(j, "load_5m", num(s->load5));
    json_object_set_new(j, "load_15m", num(s->load15));
    json_object_set_new(j, "others_runnable", s->others_running >= 0 ? json_integer(s->others_running) : json_null());
    json_object_set_new(j, "cpu_governor", json_string(s->governor));
    json_object_set_new(j, "cpu_mhz_min", num(s->freq_min_mhz));
    json_object_set_new(j, "cpu_mhz_max", num(s->freq_max_mhz));
    if (s->gpu_read) json_object_set_new(j, "gpu", gpu_json(&s->gpu));
    return j;
}

void pb_machine_watch_start(pb_machine_watch *w, bool gpu)
{
    memset(w, 0, sizeof *w);
    w->started = true;
    w->gpu = gpu;
    /* The GPU is read before and after any run (one NVML load; a machine
     * without a driver says so), around every point only where the sweep
     * has GPU points. */
    pb_machine_sample_take(&w->before, true);
    w->max_load1 = w->before.load1;
    w->max_others_running = w->before.others_running;
    w->max_steal_pct = w->max_others_cpus = NAN;
    w->gpu_min_sm_mhz = w->gpu_max_sm_mhz = w->gpu_max_temperature_c = w->gpu_max_other_processes = -1;
}

static void worst(pb_machine_watch *w, const pb_machine_sample *s)
{
    if (isnan(w->max_load1) || s->load1 > w->max_load1) w->max_load1 = s->load1;
    if (s->others_running > w->max_others_running) w->max_others_running = s->others_running;
    const pb_nvml_state *g = &s->gpu;
    if (!s->gpu_read || !g->available) return;
    if (g->sm_clock_mhz >= 0 && (w->gpu_min_sm_mhz < 0 || g->sm_clock_mhz < w->gpu_min_sm_mhz))
        w->gpu_min_sm_mhz = g->sm_clock_mhz;
    if (g->sm_clock_mhz > w->gpu_max_sm_mhz) w->gpu_max_sm_mhz = g->sm_clock_mhz;
    if (g->temperature_c > w->gpu_max_temperature_c) w->gpu_max_temperature_c = g->temperature_c;
    if (g->other_processes > w->gpu_max_other_processes) w->gpu_max_other_processes = g->other_processes;
    if (g->have_reasons) w->gpu_reasons |= g->clocks_event_reasons;
}

void pb_machine_watch_point_begin(pb_machine_watch *w)
{
    pb_machine_sample_take(&w->row_start, w->gpu);
    worst(w, &w->row_start);
}

bool pb_machine_watch_point_end(pb_machine_watch *w)
{
    pb_machine_sample end;
    pb_machine_sample_take(&end, w->gpu);
    worst(w, &end);
    double steal = pb_machine_steal_pct(&w->row_start, &end), others = pb_machine_others_cpus(&w->row_start, &end);
    if (!isnan(steal) && (isnan(w->max_steal_pct) || steal > w->max_steal_pct)) w->max_steal_pct = steal;
    if (!isnan(others) && (isnan(w->max_others_cpus) || others > w->max_others_cpus)) w->max_others_cpus = others;
    char why[256];
    bool busy = pb_machine_busy(&w->row_start, &end, why, sizeof why);
    w->points++;
    w->busy_points += busy;
    if (busy && !w->warned) {
        w->warned = true;
        pb_progress_clear();
        fprintf(stderr,
                "permbench: warning: the machine is busy: %s; its times measure the contention too, and the "
                "points measured meanwhile are marked busy\n",
                why);
    }
    return busy;
}

void pb_machine_watch_finish(pb_machine_watch *w)
{
    if (!w->started) return;
    pb_machine_sample_take(&w->after, true);
    worst(w, &w->after);
}

json_t *pb_machine_watch_json(const pb_machine_watch *w)
{
    if (!w->started) return NULL;
    json_t *during = json_object();
    json_object_set_new(during, "points", json_integer((json_int_t)w->points));
    json_object_set_new(during, "busy_points", json_integer((json_int_t)w->busy_points));
    json_object_set_new(during, "max_load_1m", num(w->max_load1));
    json_object_set_new(during, "max_others_runnable", w->max_others_running >= 0 ? json_integer(w->max_others_running) : json_null());
    json_object_set_new(during, "max_steal_pct", num(w->max_steal_pct));
    json_object_set_new(during, "steal_pct", num(pb_machine_steal_pct(&w->before, &w->after)));
    json_object_set_new(during, "max_others_cpus", num(w->max_others_cpus));
    json_object_set_new(during, "others_cpus", num(pb_machine_others_cpus(&w->before, &w->after)));
    {
        if (w->before.gpu.available) {
            char reasons[256];
            json_object_set_new(during, "gpu",
                                json_pack("{s:o, s:o, s:o, s:o, s:s, s:b}", "min_sm_clock_mhz",
                                          w->gpu_min_sm_mhz >= 0 ? json_integer(w->gpu_min_sm_mhz) : json_null(),
                                          "max_sm_clock_mhz",
                                          w->gpu_max_sm_mhz >= 0 ? json_integer(w->gpu_max_sm_mhz) : json_null(),
                                          "max_temperature_c",
                                          w->gpu_max_temperature_c >= 0 ? json_integer(w->gpu_max_temperature_c) : json_null(),
                                          "max_other_processes",
                                          w->gpu_max_other_processes >= 0 ? json_integer(w->gpu_max_other_processes) : json_null(),
                                          "clocks_event_reasons_seen",
                                          pb_nvml_reasons_text(w->gpu_reasons, reasons, sizeof reasons), "throttled",
                                          pb_nvml_reasons_throttle(w->gpu_reasons)));
        } else {
            json_object_set_new(during, "gpu", json_pack("{s:b, s:s}", "nvml", 0, "reason", w->before.gpu.why));
        }
    }
    char why[256];
    bool busy_overall = w->busy_points > 0 || pb_machine_busy(&w->before, &w->after, why, sizeof why);
    json_t *th = json_pack("{s:i, s:i, s:f, s:s}", "others_runnable", pb_machine_busy_runnable(), "logical_cpus",
                           cpus(), "steal_pct", PB_MACHINE_BUSY_STEAL_PCT, "rule",
                           "busy when runnable tasks of other processes (the least of three readings) reach "
                           "half the logical CPUs, at least one, at a point's start or end, or when more than "
                           "5% of the CPU time over a point was stolen by the hypervisor");
    return json_pack("{s:o, s:o, s:o, s:b, s:o}", "before", pb_machine_sample_json(&w->before), "during", during,
                     "after", pb_machine_sample_json(&w->after), "busy", busy_overall, "busy_threshold", th);
}

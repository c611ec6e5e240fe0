#include "core/sysinfo.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static uint64_t meminfo(const char *key)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    uint64_t v = 0;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == ':') {
            v = strtoull(line + kl + 1, NULL, 10) * 1024;
            break;
        }
    fclose(f);
    return v;
}

uint64_t pb_host_mem_available(void) { return meminfo("MemAvailable"); }

/* Size of cpu0's cache at `level` from sysfs ("32768K"). */
static uint64_t cache_size(int level)
{
    for (int idx = 0; idx < 8; idx++) {
        char path[128], buf[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", idx);
        FILE *f = fopen(path, "r");
        if (!f) break;
        int lv = 0;
        if (fscanf(f, "%d", &lv) != 1) lv = -1;
        fclose(f);
        if (lv != level) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", idx);
        f = fopen(path, "r");
        if (!f) continue;
        uint64_t v = 0;
        if (fgets(buf, sizeof buf, f)) {
            char *end;
            v = strtoull(buf, &end, 10);
            if (*end == 'K') v <<= 10;
            else if (*end == 'M') v <<= 20;
        }
        fclose(f);
        return v;
    }
    return 0;
}

void pb_host_info_get(pb_host_info *h)
{
    memset(h, 0, sizeof *h);
    snprintf(h->cpu_model, sizeof h->cpu_model, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ') c++;
                    c[strcspn(c, "\n")] = '\0';
                    snprintf(h->cpu_model, sizeof h->cpu_model, "%s", c);
                }
                break;
            }
        }
        fclose(f);
    }
    h->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    h->omp_threads = omp_get_max_threads();
    h->mem_total = meminfo("MemTotal");
    h->mem_available = meminfo("MemAvailable");
    h->llc_bytes = cache_size(3);
    h->l2_bytes = cache_size(2);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(h->os, sizeof h->os, "%s %s %s", u.sysname, u.release, u.machine);
        snprintf(h->hostname, sizeof h->hostname, "%s", u.nodename);
    }
}

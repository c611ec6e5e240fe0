/* What the host is: for `permbench info`, the provenance of results, and
 * the sizes that memory checks and cache flushes need. */
#ifndef PB_SYSINFO_H
#define PB_SYSINFO_H

#include <stdint.h>

typedef struct pb_host_info {
    char cpu_model[160];
    int logical_cpus;    /* online */
    int omp_threads;     /* OpenMP's default team size */
    uint64_t mem_total;  /* bytes */
    uint64_t mem_available;
    uint64_t llc_bytes;  /* last-level cache, whole package(s) */
    uint64_t l2_bytes;   /* per core */
    char os[256];        /* uname: system, release, machine */
    char hostname[128];
} pb_host_info;

void pb_host_info_get(pb_host_info *h);

/* Memory available to a new allocation now, in bytes (MemAvailable). */
uint64_t pb_host_mem_available(void);

#endif

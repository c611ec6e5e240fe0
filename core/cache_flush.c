#include "core/cache_flush.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/sysinfo.h"

static unsigned char *buf;
static uint64_t bytes;
static bool guessed;

uint64_t pb_cpu_flush_bytes(bool *assumed)
{
    if (!bytes) {
        pb_host_info h;
        pb_host_info_get(&h);
        uint64_t cached = h.llc_bytes + h.l2_bytes * (uint64_t)h.logical_cpus;
        /* Unknown cache sizes (some VMs hide them): assume a large server's,
         * and say so (`permbench info`, and a note at the start of a run). */
        guessed = cached == 0;
        if (guessed) cached = 64u << 20;
        bytes = 2 * cached;
    }
    if (assumed) *assumed = guessed;
    return bytes;
}

void pb_cpu_flush_cache(void)
{
    uint64_t n = pb_cpu_flush_bytes(NULL);
    if (!buf) {
        buf = malloc(n);
        if (!buf) return;
    }
    static unsigned char fill;
    fill++;
    /* Each thread writes its share, so every core's private caches are
     * refilled with this buffer too. */
#pragma omp parallel
    {
        uint64_t t = (uint64_t)omp_get_thread_num(), nt = (uint64_t)omp_get_num_threads();
        uint64_t lo = n * t / nt, hi = n * (t + 1) / nt;
        memset(buf + lo, fill, hi - lo);
    }
}

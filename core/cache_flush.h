/* Evicting the CPU caches between samples, so a repeat does not find its
 * data still cached by the previous one (the CPU twin of the GPU's L2 flush). */
#ifndef PB_CACHE_FLUSH_H
#define PB_CACHE_FLUSH_H

#include <stdbool.h>
#include <stdint.h>

/* Writes, from every thread, a buffer twice the size of the last-level cache
 * plus all cores' private L2s. The first call allocates it. */
void pb_cpu_flush_cache(void);

/* The bytes each flush writes; *assumed is set when the machine reports no
 * cache sizes (some VMs) and the size is a large server's guess. */
uint64_t pb_cpu_flush_bytes(bool *assumed);

#endif

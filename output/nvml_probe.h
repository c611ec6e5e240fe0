/* The GPU's clocks, throttling, temperature and other processes, read
 * through NVML (the driver's management library, as NVBench reads them for
 * its throttle detection). The library is loaded at run time, so the binary
 * runs on machines without a driver and says why nothing was read. */
#ifndef PB_NVML_PROBE_H
#define PB_NVML_PROBE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct pb_nvml_state {
    bool available;
    char why[160];                      /* when not available: the reason */
    char pci_bus_id[32];                /* the device read */
    int sm_clock_mhz, mem_clock_mhz;    /* -1: not read */
    int temperature_c;                  /* -1: not read */
    bool have_reasons;
    unsigned long long clocks_event_reasons; /* NVML's bitmask (throttle reasons) */
    int other_processes;                /* compute processes on it other than this one; -1: not read */
} pb_nvml_state;

/* The state of the GPU this process uses (CUDA's device, matched by PCI
 * bus id; else NVML's first). The library is loaded and initialised on the
 * first call and kept. */
void pb_nvml_sample(pb_nvml_state *s);

/* The reasons' names, comma separated ("none" for 0; "gpu_idle" alone
 * means nothing ran, which is no throttling). */
const char *pb_nvml_reasons_text(unsigned long long reasons, char *buf, size_t len);

/* Reasons that slow a busy GPU: every bit but idle, application clock
 * settings and display clocks. */
bool pb_nvml_reasons_throttle(unsigned long long reasons);

#endif

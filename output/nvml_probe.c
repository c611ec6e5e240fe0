#include "output/nvml_probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/gpu.h"

/* The few parts of NVML's ABI used here, as nvml.h declares them. The
 * header ships with full CUDA toolkits but not with every install (pip's,
 * this project's build machines), and with dlopen only the function types
 * are needed; NVML keeps old entry points and structs stable by versioning
 * their names (_v2, _v3), which is what is looked up. */
typedef int nvml_return;                  /* nvmlReturn_t: 0 is NVML_SUCCESS */
typedef struct nvml_device *nvml_device;  /* nvmlDevice_t, opaque */
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };
typedef struct nvml_process_info {        /* nvmlProcessInfo_v2_t (_v2 and _v3 calls) */
    unsigned int pid;
    unsigned long long used_gpu_memory;
    unsigned int gpu_instance_id, compute_instance_id;
} nvml_process_info;

static struct {
    bool tried, ok;
    char why[160];
    nvml_device dev;
    char bus[32];
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*processes)(nvml_device, unsigned *, nvml_process_info *);
} lib;

static void *sym(void *h, const char *a, const char *b)
{
    void *f = dlsym(h, a);
    return f || !b ? f : dlsym(h, b);
}

static void load(void)
{
    lib.tried = true;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(lib.why, sizeof lib.why, "libnvidia-ml.so.1 cannot be loaded (no NVIDIA driver)");
        return;
    }
    nvml_return (*init)(void) = (nvml_return(*)(void))sym(h, "nvmlInit_v2", "nvmlInit");
    nvml_return (*by_bus)(const char *, nvml_device *) =
        (nvml_return(*)(const char *, nvml_device *))sym(h, "nvmlDeviceGetHandleByPciBusId_v2", NULL);
    nvml_return (*by_index)(unsigned, nvml_device *) =
        (nvml_return(*)(unsigned, nvml_device *))sym(h, "nvmlDeviceGetHandleByIndex_v2", NULL);
    lib.clock = (nvml_return(*)(nvml_device, int, unsigned *))sym(h, "nvmlDeviceGetClockInfo", NULL);
    /* Renamed in CUDA 12.2 (clocks "event" reasons); the old name stays. */
    lib.reasons = (nvml_return(*)(nvml_device, unsigned long long *))sym(
        h, "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons");
    lib.temperature = (nvml_return(*)(nvml_device, int, unsigned *))sym(h, "nvmlDeviceGetTemperature", NULL);
    lib.processes = (nvml_return(*)(nvml_device, unsigned *, nvml_process_info *))sym(
        h, "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2");
    nvml_return rc;
    if (!init || !by_index) {
        snprintf(lib.why, sizeof lib.why, "libnvidia-ml.so.1 lacks nvmlInit_v2 or nvmlDeviceGetHandleByIndex_v2");
        return;
    }
    if ((rc = init()) != NVML_OK) {
        snprintf(lib.why, sizeof lib.why, "nvmlInit_v2 failed (NVML error %d)", rc);
        return;
    }
    /* The device CUDA gives this process, which CUDA_VISIBLE_DEVICES may
     * renumber: NVML numbers devices its own way, so match the bus id. */
    pb_gpu_info g;
    pb_err err;
    rc = -1;
    if (!pb_gpu_get_info(&g, &err) && by_bus) {
        rc = by_bus(g.pci_bus_id, &lib.dev);
        snprintf(lib.bus, sizeof lib.bus, "%s", g.pci_bus_id);
    }
    if (rc != NVML_OK) {
        rc = by_index(0, &lib.dev);
        snprintf(lib.bus, sizeof lib.bus, "nvml device 0");
    }
    if (rc != NVML_OK) {
        snprintf(lib.why, sizeof lib.why, "NVML finds no device (NVML error %d)", rc);
        return;
    }
    lib.ok = true;
}

void pb_nvml_sample(pb_nvml_state *s)
{
    memset(s, 0, sizeof *s);
    s->sm_clock_mhz = s->mem_clock_mhz = s->temperature_c = s->other_processes = -1;
    if (!lib.tried) load();
    if (!lib.ok) {
        snprintf(s->why, sizeof s->why, "%s", lib.why);
        return;
    }
    s->available = true;
    snprintf(s->pci_bus_id, sizeof s->pci_bus_id, "%s", lib.bus);
    unsigned v;
    if (lib.clock && lib.clock(lib.dev, NVML_CLOCK_SM, &v) == NVML_OK) s->sm_clock_mhz = (int)v;
    if (lib.clock && lib.clock(lib.dev, NVML_CLOCK_MEM, &v) == NVML_OK) s->mem_clock_mhz = (int)v;
    if (lib.temperature && lib.temperature(lib.dev, NVML_TEMPERATURE_GPU, &v) == NVML_OK)
        s->temperature_c = (int)v;
    if (lib.reasons && lib.reasons(lib.dev, &s->clocks_event_reasons) == NVML_OK) s->have_reasons = true;
    nvml_process_info p[64];
    unsigned count = 64;
    if (lib.processes && lib.processes(lib.dev, &count, p) == NVML_OK) {
        s->other_processes = 0;
        for (unsigned i = 0; i < count && i < 64; i++) s->other_processes += p[i].pid != (unsigned)getpid();
    }
}

/* NVML's clocks event reason bits (nvmlClocksEventReason*). */
static const struct {
    unsigned long long bit;
    const char *name;
    bool throttles;
} reason_names[] = {
    {0x1, "gpu_idle", false},
    {0x2, "applications_clocks_setting", false},
    {0x4, "sw_power_cap", true},
    {0x8, "hw_slowdown", true},
    {0x10, "sync_boost", false},
    {0x20, "sw_thermal_slowdown", true},
    {0x40, "hw_thermal_slowdown", true},
    {0x80, "hw_power_brake_slowdown", true},
    {0x100, "display_clock_setting", false},
};

const char *pb_nvml_reasons_text(unsigned long long reasons, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    if (!reasons) return snprintf(buf, len, "none"), buf;
    for (size_t i = 0; i < sizeof reason_names / sizeof reason_names[0]; i++)
        if ((reasons & reason_names[i].bit) && off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", reason_names[i].name);
    unsigned long long known = 0x1ff;
    if ((reasons & ~known) && off < len)
        snprintf(buf + off, len - off, "%sother_0x%llx", off ? "," : "", reasons & ~known);
    return buf;
}

bool pb_nvml_reasons_throttle(unsigned long long reasons)
{
    for (size_t i = 0; i < sizeof reason_names / sizeof reason_names[0]; i++)
        if ((reasons & reason_names[i].bit) && reason_names[i].throttles) return true;
    return (reasons & ~0x1ffULL) != 0;
}

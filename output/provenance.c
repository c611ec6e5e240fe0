#include "output/provenance.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "config/data_file.h"
#include "core/build_info.h"
#include "core/gpu.h"
#include "core/sysinfo.h"

json_t *pb_host_json(void)
{
    pb_host_info h;
    pb_host_info_get(&h);
    return json_pack("{s:s, s:i, s:i, s:I, s:I, s:I, s:s, s:s}", "cpu_model", h.cpu_model,
                     "logical_cpus", h.logical_cpus, "omp_threads", h.omp_threads,
                     "memory_bytes", (json_int_t)h.mem_total, "llc_bytes",
                     (json_int_t)h.llc_bytes, "l2_bytes_per_core", (json_int_t)h.l2_bytes, "os",
                     h.os, "hostname", h.hostname);
}

json_t *pb_gpu_json(void)
{
    pb_gpu_info g;
    pb_err err;
    if (pb_gpu_get_info(&g, &err)) return json_pack("{s:b, s:s}", "present", 0, "reason", err.msg);
    char cc[16], drv[16], rt[16];
    snprintf(cc, sizeof cc, "%d.%d", g.cc_major, g.cc_minor);
    snprintf(drv, sizeof drv, "%d.%d", g.driver_version / 1000, g.driver_version % 1000 / 10);
    snprintf(rt, sizeof rt, "%d.%d", g.runtime_version / 1000, g.runtime_version % 1000 / 10);
    json_t *j = json_pack("{s:b, s:s, s:i, s:s, s:I, s:I, s:i, s:i, s:i, s:f, s:b, s:s, s:s, s:s}",
                     "present", 1, "name", g.name, "sms", g.sms, "compute_capability", cc,
                     "memory_bytes", (json_int_t)g.mem_bytes, "l2_bytes", (json_int_t)g.l2_bytes,
                     "sm_clock_mhz", g.sm_clock_mhz, "memory_clock_mhz", g.mem_clock_mhz,
                     "memory_bus_bits", g.mem_bus_bits, "peak_bandwidth_gbps", g.peak_gbps, "ecc",
                     g.ecc, "pci_bus_id", g.pci_bus_id, "driver_cuda_version", drv,
                     "runtime_version", rt);
    /* The code the device runs: the binary's SASS for it, or PTX compiled at load. */
    pb_gpu_code c;
    if (j && pb_gpu_code_check(&c, &err) == 0 && c.cc)
        json_object_set_new(j, "code", json_pack("{s:s, s:b, s:i, s:i}", "mode", c.mode, "native",
                                                 c.native, "ptx_version", c.ptx_version,
                                                 "binary_version", c.binary_version));
    return j;
}

/* A comma-separated list of architectures as a JSON array of strings. */
static json_t *arch_list_json(const char *list)
{
    json_t *a = json_array();
    const char *p = list ? list : "";
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len) json_array_append_new(a, json_stringn(p, len));
        p += len;
        if (*p == ',') p++;
    }
    return a;
}

json_t *pb_data_files_json(void)
{
    json_t *a = json_array();
    for (size_t i = 0; i < pb_data_file_count(); i++) {
        const pb_data_file *f = pb_data_file_at((long)i);
        if (!f || !f->checked) continue; /* named, but no point of the plan used it */
        json_array_append_new(a, json_pack("{s:s, s:I, s:s}", "path", f->path, "bytes",
                                           (json_int_t)f->bytes, "sha256", f->sha256));
    }
    return a;
}

json_t *pb_provenance_json(const char *path, const char *name, const char *text, uint64_t hash,
                           int argc, char **argv)
{
    char date[32], hash_text[24];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(hash_text, sizeof hash_text, "%016llx", (unsigned long long)hash);
    json_t *cmd = json_array();
    for (int i = 0; i < argc; i++) json_array_append_new(cmd, json_string(argv[i]));
    return json_pack(
        "{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s, s:s}, s:o, s:o, s:o, "
        "s:o, s:o}",
        "date", date, "permbench_version", pb_build.version, "git", "commit", pb_build.commit,
        "dirty", pb_build.dirty, "source", pb_build.commit_source, "config", "path", path, "name", name, "hash_fnv1a64",
        hash_text, "text", text ? text : "", "data_files", pb_data_files_json(), "host", pb_host_json(), "gpu", pb_gpu_json(),
        "build", pb_build_json(), "command_line", cmd);
}

json_t *pb_build_json(void)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o}", "type", pb_build.build_type, "c_compiler",
                     pb_build.c_compiler, "cxx_compiler", pb_build.cxx_compiler, "cuda_compiler",
                     pb_build.cuda_compiler, "cuda_architectures", pb_build.cuda_archs, "cuda_sass",
                     arch_list_json(pb_build.cuda_sass), "cuda_ptx", arch_list_json(pb_build.cuda_ptx),
                     "cccl_topk", pb_build.cccl_topk[0] ? json_string(pb_build.cccl_topk) : json_null());
}

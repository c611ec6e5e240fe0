/* permbench info: the machine results will be measured on. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>

#include "app/cli.h"
#include "output/provenance.h"
#include "core/build_info.h"
#include "core/cache_flush.h"
#include "core/gpu.h"
#include "core/sysinfo.h"

static const char help[] =
    "usage: permbench info [--json]\n"
    "\n"
    "Prints the CPU model, logical CPUs, OpenMP threads, memory and caches, and\n"
    "for the CUDA device: name, SMs, memory, L2, clocks, bus width, driver and\n"
    "runtime versions, and the code it runs (the binary's SASS for it, or PTX\n"
    "compiled at load); and how this binary was built: the CUDA architectures it\n"
    "holds as SASS and as PTX.\n"
    "\n"
    "  --json   the same as the provenance objects of results.json\n";

int pb_cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    int c, as_json = 0;
    while ((c = pb_cli_getopt("info", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 'j') as_json = 1;
    }
    if (optind < argc) return pb_cli_fail("info: unexpected argument '%s'", argv[optind]);

    if (as_json) {
        /* The machine and the build as results.json's provenance gives them. */
        json_t *j = json_pack("{s:o, s:o, s:s, s:{s:s, s:s, s:s}, s:o}", "host", pb_host_json(), "gpu",
                              pb_gpu_json(), "permbench_version", pb_build.version, "git", "commit",
                              pb_build.commit, "dirty", pb_build.dirty, "source", pb_build.commit_source,
                              "build", pb_build_json());
        json_dumpf(j, stdout, JSON_INDENT(2));
        putchar('\n');
        json_decref(j);
        return PB_EXIT_OK;
    }
    pb_host_info h;
    pb_host_info_get(&h);
    printf("host\n");
    printf("  cpu              %s\n", h.cpu_model);
    printf("  logical cpus     %d\n", h.logical_cpus);
    printf("  openmp threads   %d\n", h.omp_threads);
    printf("  memory           %.1f GiB (%.1f GiB available)\n", h.mem_total / 1073741824.0,
           h.mem_available / 1073741824.0);
    bool assumed;
    uint64_t flush = pb_cpu_flush_bytes(&assumed);
    if (assumed)
        printf("  caches           not reported by this machine (no sizes under /sys/devices/system/\n"
               "                   cpu/cpu0/cache, as on some VMs): a cache flush writes %llu MiB\n",
               (unsigned long long)flush >> 20);
    else
        printf("  caches           L2 %llu KiB per core, last level %llu KiB (a cache flush writes "
               "%llu MiB)\n",
               (unsigned long long)h.l2_bytes >> 10, (unsigned long long)h.llc_bytes >> 10,
               (unsigned long long)flush >> 20);
    printf("  os               %s\n", h.os);
    pb_gpu_info g;
    pb_err err;
    printf("gpu\n");
    if (pb_gpu_get_info(&g, &err)) {
        printf("  none             %s\n", err.msg);
    } else {
        printf("  name             %s (device %d, %s)\n", g.name, g.ordinal, g.pci_bus_id);
        printf("  compute          capability %d.%d, %d SMs, SM clock up to %d MHz\n",
               g.cc_major, g.cc_minor, g.sms, g.sm_clock_mhz);
        printf("  memory           %.1f GiB, %d-bit bus at %d MHz (peak %.0f GB/s), ECC %s\n",
               g.mem_bytes / 1073741824.0, g.mem_bus_bits, g.mem_clock_mhz, g.peak_gbps,
               g.ecc ? "on" : "off");
        printf("  L2 cache         %llu KiB\n", (unsigned long long)g.l2_bytes >> 10);
        printf("  driver           supports CUDA %d.%d\n", g.driver_version / 1000,
               g.driver_version % 1000 / 10);
        printf("  runtime          CUDA %d.%d\n", g.runtime_version / 1000,
               g.runtime_version % 1000 / 10);
        pb_gpu_code code;
        if (pb_gpu_code_check(&code, &err) == 0 && code.cc)
            printf("  code             %s (probe kernel: PTX %d, SASS %d)\n", code.mode,
                   code.ptx_version, code.binary_version);
    }
    printf("build\n");
    printf("  permbench        %s, commit %s (dirty: %s), %s\n", pb_build.version, pb_build.commit,
           pb_build.dirty, pb_build.build_type);
    printf("  compilers        C %s; C++ %s; CUDA %s (architectures %s)\n", pb_build.c_compiler,
           pb_build.cxx_compiler, pb_build.cuda_compiler[0] != ' ' ? pb_build.cuda_compiler : "none",
           pb_build.cuda_archs[0] ? pb_build.cuda_archs : "-");
    printf("  cuda code        SASS %s; PTX %s\n", pb_build.cuda_sass[0] ? pb_build.cuda_sass : "none",
           pb_build.cuda_ptx[0] ? pb_build.cuda_ptx : "none");
    if (pb_build.cccl_topk[0]) printf("  gpu-cub-topk     CCCL %s\n", pb_build.cccl_topk);
    return PB_EXIT_OK;
}

/* What the harness needs from CUDA, behind a C interface. A build without
 * nvcc links gpu_none.c instead, which reports that no GPU can be used. */
#ifndef PB_GPU_H
#define PB_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_gpu_info {
    char name[256];
    int ordinal;
    int sms;
    int cc_major, cc_minor;
    uint64_t mem_bytes;
    uint64_t l2_bytes;
    int sm_clock_mhz;   /* maximum SM clock */
    int mem_clock_mhz;  /* peak memory clock */
    int mem_bus_bits;
    double peak_gbps;   /* datasheet bandwidth from clock and bus width */
    int ecc;
    char pci_bus_id[32];
    int driver_version;  /* e.g. 13000 */
    int runtime_version; /* e.g. 13000 */
} pb_gpu_info;

/* Number of usable CUDA devices; 0 with the reason in `why` when none. */
int pb_gpu_count(char *why, unsigned long whylen);
int pb_gpu_get_info(pb_gpu_info *info, pb_err *err);
int pb_gpu_mem_free(uint64_t *free_bytes, pb_err *err);

/* Evicts the L2 cache by writing a buffer of twice its size, so a repeat
 * does not find its input still cached by the previous one. Untimed. */
int pb_gpu_flush_cache(pb_err *err);

/* CUDA events around the timed call on the default stream. stop() waits for
 * the work and reports any error the kernels raised; mark() records the
 * stop event without waiting, elapsed() then waits and reads the time. */
int pb_gpu_timer_start(pb_err *err);
int pb_gpu_timer_stop(double *ms, pb_err *err);
int pb_gpu_timer_mark(pb_err *err);
int pb_gpu_timer_elapsed(double *ms, pb_err *err);

/* NVBench's blocking kernel: hold() stops the default stream until
 * release(), so the timed work queued meanwhile runs back to back and the
 * events time the GPU alone, none of the launches' gaps. A hold gives up
 * after about half a second (the queued work waited for the GPU, as a
 * synchronising call inside run() does); hold_gave_up() then says the
 * sample is not valid. */
int pb_gpu_hold(pb_err *err);
int pb_gpu_release(pb_err *err);
bool pb_gpu_hold_gave_up(void);

/* Waits for all queued work and reports any error it raised. */
int pb_gpu_sync(pb_err *err);

/* core/fingerprint.h's fingerprint of n items of item_bytes (1, 2, 4 or 8, or records)
 * in device memory, computed on the device (one read of the array);
 * waits for it. */
int pb_gpu_fingerprint(const void *d_buf, uint64_t n, unsigned item_bytes, uint64_t *fp,
                       pb_err *err);

/* The code this binary runs on the device (core/gpu_arch.c decides the
 * mode from the build's lists, the attributes cross-check it). */
typedef struct pb_gpu_code {
    int cc;             /* the device's compute capability, 10 * major + minor */
    int ptx_version;    /* cudaFuncGetAttributes of a probe kernel: the PTX it was compiled from */
    int binary_version; /* ... and the SASS it runs */
    bool native;        /* SASS for this device in the binary; else PTX compiled at load */
    char mode[96];      /* "native (sm_90)", "PTX compiled at load (compute_80)" */
} pb_gpu_code;

/* The code the current device runs from a kernel compiled with the build
 * whose SASS and PTX lists are given (comma-separated, pb_build's), checked
 * with cudaFuncGetAttributes(probe): fails with one line when the binary
 * holds neither SASS nor PTX the device can use (cudaErrorNoKernelImageForDevice).
 * No device: 0 with c->cc = 0. */
int pb_gpu_code_of(const void *probe, const char *sass, const char *ptx, pb_gpu_code *c,
                   pb_err *err);
/* The same for this binary (its own probe kernel and pb_build's lists),
 * computed once: what start-up checks and provenance names. */
int pb_gpu_code_check(pb_gpu_code *c, pb_err *err);

/* Whether a kernel of this binary (func) runs on the current device with
 * code for compute capability `need` (10 * major + minor) or later: the
 * device is at least that, and the code it runs was compiled for at least
 * that (a build that reaches a 9.0 device through compute_80 PTX runs
 * compute_80 code). False with the reason otherwise. */
bool pb_gpu_code_at_least(const void *func, int need, char *why, size_t whylen);

/* The pure parts, core/gpu_arch.c: the reason a device or a kernel's code
 * falls short of `need` ("needs compute capability 9.0, this device is
 * 8.0"), or true; and whether a comma-separated list of architectures
 * (a build's SASS list) holds native code for compute capability cc. */
bool pb_gpu_cc_meets(int have, int need, char *why, size_t whylen);
bool pb_gpu_sass_runs_on(const char *sass, int cc);

#ifdef __cplusplus
}
#endif

#endif

/* The harness's CUDA side: device discovery, properties for provenance,
 * the L2 flush between samples and the event timer. */
#include "core/gpu.h"

#include <stdio.h>
#include <string.h>

#include "core/build_info.h"
#include "core/cuda_check.h"
#include "core/fingerprint.h"

static int device_count = -1;
static char count_reason[256];
static void *flush_buf;
static size_t flush_bytes;
static cudaEvent_t ev_start, ev_stop;

extern "C" int pb_gpu_count(char *why, unsigned long whylen)
{
    if (device_count < 0) {
        int n = 0;
        cudaError_t e = cudaGetDeviceCount(&n);
        if (e != cudaSuccess) {
            /* Without a driver at all, the runtime says the driver is "too
             * old": tell the two apart (the driver reports version 0). */
            int drv = 0, rt = 0;
            cudaDriverGetVersion(&drv);
            cudaRuntimeGetVersion(&rt);
            if (e == cudaErrorInsufficientDriver && drv == 0)
                snprintf(count_reason, sizeof count_reason, "no CUDA device: no CUDA driver on this machine");
            else if (e == cudaErrorInsufficientDriver)
                snprintf(count_reason, sizeof count_reason,
                         "no CUDA device: the driver supports CUDA %d.%d, older than the runtime's %d.%d",
                         drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10);
            else
                snprintf(count_reason, sizeof count_reason, "no CUDA device: %s", cudaGetErrorString(e));
            cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
            n = 0;
        } else if (n == 0) {
            snprintf(count_reason, sizeof count_reason, "no CUDA device");
        }
        device_count = n;
    }
    if (device_count == 0 && why) snprintf(why, whylen, "%s", count_reason);
    return device_count;
}

extern "C" int pb_gpu_get_info(pb_gpu_info *info, pb_err *err)
{
    memset(info, 0, sizeof *info);
    char why[256];
    if (pb_gpu_count(why, sizeof why) == 0) return pb_err_set(err, "%s", why);
    int dev = 0;
    PB_CUDA_TRY(cudaGetDevice(&dev), err);
    cudaDeviceProp p;
    PB_CUDA_TRY(cudaGetDeviceProperties(&p, dev), err);
    snprintf(info->name, sizeof info->name, "%s", p.name);
    info->ordinal = dev;
    info->sms = p.multiProcessorCount;
    info->cc_major = p.major;
    info->cc_minor = p.minor;
    info->mem_bytes = p.totalGlobalMem;
    info->l2_bytes = (uint64_t)p.l2CacheSize;
    info->mem_bus_bits = p.memoryBusWidth;
    info->ecc = p.ECCEnabled;
    /* CUDA 13 dropped the clock fields from cudaDeviceProp; the attributes
     * still report them (kHz). */
    int khz = 0;
    PB_CUDA_TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev), err);
    info->sm_clock_mhz = khz / 1000;
    PB_CUDA_TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev), err);
    info->mem_clock_mhz = khz / 1000;
    /* Double data rate: two transfers per memory clock. */
    info->peak_gbps = 2.0 * (double)khz * 1e3 * (p.memoryBusWidth / 8.0) / 1e9;
    PB_CUDA_TRY(cudaDeviceGetPCIBusId(info->pci_bus_id, sizeof info->pci_bus_id, dev), err);
    PB_CUDA_TRY(cudaDriverGetVersion(&info->driver_version), err);
    PB_CUDA_TRY(cudaRuntimeGetVersion(&info->runtime_version), err);
    return 0;
}

extern "C" int pb_gpu_mem_free(uint64_t *free_bytes, pb_err *err)
{
    size_t f = 0, t = 0;
    *free_bytes = 0;
    PB_CUDA_TRY(cudaMemGetInfo(&f, &t), err);
    *free_bytes = f;
    return 0;
}

extern "C" int pb_gpu_flush_cache(pb_err *err)
{
    if (!flush_buf) {
        int dev = 0, l2 = 0;
        PB_CUDA_TRY(cudaGetDevice(&dev), err);
        PB_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev), err);
        flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : 64 << 20);
        PB_CUDA_TRY(cudaMalloc(&flush_buf, flush_bytes), err);
    }
    static int fill;
    fill = (fill + 1) & 0xff; /* a new value each time, so no write can be skipped as redundant */
    PB_CUDA_TRY(cudaMemsetAsync(flush_buf, fill, flush_bytes, 0), err);
    return 0;
}

extern "C" int pb_gpu_timer_start(pb_err *err)
{
    if (!ev_start) {
        PB_CUDA_TRY(cudaEventCreate(&ev_start), err);
        PB_CUDA_TRY(cudaEventCreate(&ev_stop), err);
    }
    PB_CUDA_TRY(cudaEventRecord(ev_start, 0), err);
    return 0;
}

extern "C" int pb_gpu_timer_mark(pb_err *err)
{
    PB_CUDA_TRY(cudaEventRecord(ev_stop, 0), err);
    return 0;
}

extern "C" int pb_gpu_timer_elapsed(double *ms, pb_err *err)
{
    float f = 0;
    *ms = 0;
    PB_CUDA_TRY(cudaEventSynchronize(ev_stop), err);
    PB_CUDA_TRY(cudaGetLastError(), err);
    PB_CUDA_TRY(cudaEventElapsedTime(&f, ev_start, ev_stop), err);
    *ms = f;
    return 0;
}

/* The blocking kernel: one thread spins on a flag in pinned host memory,
 * which the host sets once the work to time is queued behind it; it gives
 * up after about half a second (something waited for the GPU while it was
 * held: a deadlock it must not keep) and says so. */
__global__ void hold_stream(const volatile int *release, volatile int *gave_up, long long cycles)
{
    long long t0 = clock64();
    while (!*release) {
        if (clock64() - t0 > cycles) {
            *gave_up = 1;
            return;
        }
        __nanosleep(1000);
    }
}

static volatile int *hold_flags; /* [0] release, [1] gave up: pinned, mapped */
static int *hold_flags_dev;

extern "C" int pb_gpu_hold(pb_err *err)
{
    if (!hold_flags) {
        void *h;
        PB_CUDA_TRY(cudaHostAlloc(&h, 2 * sizeof(int), cudaHostAllocMapped), err);
        hold_flags = (volatile int *)h;
        PB_CUDA_TRY(cudaHostGetDevicePointer((void **)&hold_flags_dev, h, 0), err);
    }
    hold_flags[0] = 0;
    hold_flags[1] = 0;
    int khz = 0;
    PB_CUDA_TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), err);
    hold_stream<<<1, 1>>>(hold_flags_dev, hold_flags_dev + 1, (long long)khz * 500);
    PB_CUDA_LAUNCHED(err);
    return 0;
}

extern "C" int pb_gpu_release(pb_err *err)
{
    (void)err;
    __atomic_store_n((int *)&hold_flags[0], 1, __ATOMIC_SEQ_CST);
    return 0;
}

extern "C" bool pb_gpu_hold_gave_up(void) { return hold_flags && hold_flags[1]; }

extern "C" int pb_gpu_timer_stop(double *ms, pb_err *err)
{
    float f = 0;
    *ms = 0;
    PB_CUDA_TRY(cudaEventRecord(ev_stop, 0), err);
    PB_CUDA_TRY(cudaEventSynchronize(ev_stop), err);
    PB_CUDA_TRY(cudaGetLastError(), err);
    PB_CUDA_TRY(cudaEventElapsedTime(&f, ev_start, ev_stop), err);
    *ms = f;
    return 0;
}

extern "C" int pb_gpu_sync(pb_err *err)
{
    PB_CUDA_TRY(cudaDeviceSynchronize(), err);
    PB_CUDA_TRY(cudaGetLastError(), err);
    return 0;
}

/* Each thread sums its elements' terms, each warp adds its sum to the
 * total: the order of summation does not matter (a sum mod 2^64). */
template <typename T>
__global__ void fingerprint_kernel(const T *__restrict__ buf, uint64_t n, unsigned long long *sum)
{
    uint64_t s = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        s += pb_fp_term(i, (uint64_t)buf[i]);
    for (int d = 16; d > 0; d >>= 1) s += __shfl_down_sync(0xffffffffu, s, d);
    if ((threadIdx.x & 31) == 0 && s) atomicAdd(sum, (unsigned long long)s);
}

static unsigned long long *fp_sum;

extern "C" int pb_gpu_fingerprint(const void *d_buf, uint64_t n, unsigned item_bytes,
                                  uint64_t *fp, pb_err *err)
{
    *fp = 0;
    if (!fp_sum) PB_CUDA_TRY(cudaMalloc(&fp_sum, sizeof *fp_sum), err);
    PB_CUDA_TRY(cudaMemsetAsync(fp_sum, 0, sizeof *fp_sum, 0), err);
    pb_fp_as_words(&n, &item_bytes); /* a record: its words (core/fingerprint.h) */
    if (n) {
        const int block = 256;
        uint64_t blocks = (n + block - 1) / block;
        unsigned grid = (unsigned)(blocks < 4096 ? blocks : 4096);
        switch (item_bytes) {
        case 1: fingerprint_kernel<<<grid, block>>>((const uint8_t *)d_buf, n, fp_sum); break;
        case 2: fingerprint_kernel<<<grid, block>>>((const uint16_t *)d_buf, n, fp_sum); break;
        case 4: fingerprint_kernel<<<grid, block>>>((const uint32_t *)d_buf, n, fp_sum); break;
        case 8: fingerprint_kernel<<<grid, block>>>((const uint64_t *)d_buf, n, fp_sum); break;
        default: return pb_err_set(err, "fingerprint of %u-byte items", item_bytes);
        }
        PB_CUDA_LAUNCHED(err);
    }
    unsigned long long h;
    PB_CUDA_TRY(cudaMemcpy(&h, fp_sum, sizeof h, cudaMemcpyDeviceToHost), err);
    *fp = h;
    return 0;
}

/* A kernel that does nothing, compiled like every other: whether the device
 * can run this binary's code at all, and from what. */
__global__ void pb_gpu_probe() {}

extern "C" int pb_gpu_code_of(const void *probe, const char *sass, const char *ptx, pb_gpu_code *c,
                              pb_err *err)
{
    memset(c, 0, sizeof *c);
    if (pb_gpu_count(NULL, 0) == 0) return 0;
    int dev = 0, major = 0, minor = 0;
    PB_CUDA_TRY(cudaGetDevice(&dev), err);
    PB_CUDA_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev), err);
    PB_CUDA_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev), err);
    c->cc = 10 * major + minor;
    cudaFuncAttributes a;
    cudaError_t e = cudaFuncGetAttributes(&a, probe);
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
        cudaGetLastError();
        return pb_err_set(err,
                          "this binary holds no code for this GPU (compute capability %d.%d): SASS "
                          "for %s, PTX for %s; rebuild with -DPB_CUDA_ARCH=%d (docs/architectures.md)",
                          major, minor, sass && *sass ? sass : "none", ptx && *ptx ? ptx : "none",
                          c->cc);
    }
    PB_CUDA_TRY(e, err);
    c->ptx_version = a.ptxVersion;
    c->binary_version = a.binaryVersion;
    /* The build's lists decide: the driver takes a device's SASS where the
     * binary has it, else JIT-compiles the newest PTX it can. The
     * attributes cannot tell the two apart when the PTX is the device's
     * own version, but they say which PTX the JIT took. */
    c->native = pb_gpu_sass_runs_on(sass, c->cc);
    if (c->native)
        snprintf(c->mode, sizeof c->mode, "native (sm_%d)", c->binary_version);
    else
        snprintf(c->mode, sizeof c->mode, "PTX compiled at load (compute_%d)", c->ptx_version);
    return 0;
}

extern "C" int pb_gpu_code_check(pb_gpu_code *c, pb_err *err)
{
    static pb_gpu_code code;
    static pb_err saved;
    static int done, rc;
    if (!done) {
        rc = pb_gpu_code_of((const void *)pb_gpu_probe, pb_build.cuda_sass, pb_build.cuda_ptx,
                            &code, &saved);
        done = 1;
    }
    if (c) *c = code;
    if (rc && err) *err = saved;
    return rc;
}

extern "C" bool pb_gpu_code_at_least(const void *func, int need, char *why, size_t whylen)
{
    int dev = 0, major = 0, minor = 0;
    cudaFuncAttributes a;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess) {
        cudaGetLastError();
        if (why) snprintf(why, whylen, "the device's compute capability cannot be read");
        return false;
    }
    if (!pb_gpu_cc_meets(10 * major + minor, need, why, whylen)) return false;
    cudaError_t e = cudaFuncGetAttributes(&a, func);
    if (e != cudaSuccess) {
        cudaGetLastError();
        if (why) snprintf(why, whylen, "no code for this device: %s", cudaGetErrorString(e));
        return false;
    }
    if (a.ptxVersion < need) {
        if (why)
            snprintf(why, whylen,
                     "needs code for compute capability %d.%d; this binary runs compute_%d PTX "
                     "on this device (%d.%d)",
                     need / 10, need % 10, a.ptxVersion, major, minor);
        return false;
    }
    return true;
}

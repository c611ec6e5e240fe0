/* What every GPU multisplit-family module keeps: the host problem (input,
 * twin answer), the input and output on the device, and module scratch. The
 * descriptor functions here are shared; a module supplies its run() and, if
 * its output is not simply d_okeys/d_ovals, a fetch(). */
#ifndef PB_GPU_MS_STATE_CUH
#define PB_GPU_MS_STATE_CUH

#include "core/cuda_check.h"
#include "core/module.h"
#include "families/multisplit/ms_problem.h"

/* How a module's output is checked against the problem. */
typedef enum pb_ms_check_kind {
    PB_MS_CHECK_STABLE,   /* equals the C twin bit for bit */
    PB_MS_CHECK_CONTRACT, /* grouped by bucket, same items per bucket */
    PB_MS_CHECK_SORTED,   /* a stable sort on bits [0, end_bit) */
} pb_ms_check_kind;

struct pb_gpu_ms;
typedef int (*pb_gpu_ms_fn)(pb_gpu_ms *s, pb_err *err);

struct pb_gpu_ms {
    pb_params params;
    pb_point pt; /* pt.params points at `params` */
    pb_ms_problem prob;
    uint64_t n;
    bool pairs;
    uint32_t *d_keys, *d_vals;   /* input */
    uint32_t *d_okeys, *d_ovals; /* output */
    uint32_t *d_splitters;       /* range buckets: m - 1 ascending */
    uint32_t *h_okeys, *h_ovals; /* host copies, made by result() */
    pb_ms_check_kind check;
    unsigned end_bit; /* PB_MS_CHECK_SORTED */
    /* Runs whatever run() leaves out (stage benchmarks) so the output is
     * complete before it is copied back; NULL if run() is the whole job. */
    pb_gpu_ms_fn complete;
    /* Copies the output to h_okeys/h_ovals; NULL: from d_okeys/d_ovals. */
    pb_gpu_ms_fn fetch;
    /* Poisons output buffers of the module's own (beside d_okeys/d_ovals,
     * which refresh poisons); NULL if it has none. */
    pb_gpu_ms_fn poison;
    /* The fingerprint of the expected output (the twin's, or the stable
     * sort's), computed on the host once, for the device check. */
    uint64_t expected_fp;
    bool have_expected;
    void *mod;                       /* module-owned; freed by mod_free */
    void (*mod_free)(void *mod);
};

/* Builds the problem on the host and copies it to the device. */
int pb_gpu_ms_prepare(const pb_point *pt, pb_gpu_ms **out, pb_err *err);

/* prepare() of a module with set-up of its own: the shared part, then
 * setup(g, ctx), everything released if either fails. */
typedef int (*pb_gpu_ms_setup)(pb_gpu_ms *g, const void *ctx, pb_err *err);
int pb_gpu_ms_prepare_with(const pb_point *pt, pb_gpu_ms_setup setup, const void *ctx,
                           void **state, pb_err *err);
int pb_gpu_ms_result(void *state, const void **out, pb_err *err);
/* Every sample: stable and sorted outputs read from d_okeys/d_ovals are
 * compared by fingerprint on the device with the expected output's
 * (computed once on the host), and only on a mismatch copied back to find
 * the first wrong position; other outputs are copied back and checked. */
int pb_gpu_ms_verify(void *state, pb_err *err);
/* Before every sample: the outputs poisoned. */
int pb_gpu_ms_refresh(void *state, pb_err *err);
void pb_gpu_ms_release(void *state);
/* Device bytes for input and output (modules add their scratch). */
uint64_t pb_gpu_ms_footprint_io(const pb_point *pt);

/* The bucket identifier with its splitters in device memory. */
pb_bucket_fn pb_gpu_ms_bucket_fn(const pb_gpu_ms *s);

/* ceil(log2 m), at least 1. */
static inline int pb_ms_bits(uint32_t m)
{
    int b = 1;
    while ((1u << b) < m) b++;
    return b;
}

#endif

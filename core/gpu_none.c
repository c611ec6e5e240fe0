/* The GPU interface of a build made without nvcc: no device is ever usable. */
#include "core/gpu.h"

#include <stdio.h>
#include <string.h>

static const char reason[] = "permbench was built without CUDA";

int pb_gpu_count(char *why, unsigned long whylen)
{
    if (why) snprintf(why, whylen, "%s", reason);
    return 0;
}

int pb_gpu_get_info(pb_gpu_info *info, pb_err *err)
{
    (void)info;
    return pb_err_set(err, "%s", reason);
}

int pb_gpu_mem_free(uint64_t *free_bytes, pb_err *err)
{
    *free_bytes = 0;
    return pb_err_set(err, "%s", reason);
}

int pb_gpu_flush_cache(pb_err *err) { return pb_err_set(err, "%s", reason); }
int pb_gpu_timer_start(pb_err *err) { return pb_err_set(err, "%s", reason); }

int pb_gpu_timer_stop(double *ms, pb_err *err)
{
    *ms = 0;
    return pb_err_set(err, "%s", reason);
}

int pb_gpu_sync(pb_err *err) { return pb_err_set(err, "%s", reason); }
int pb_gpu_timer_mark(pb_err *err) { return pb_err_set(err, "%s", reason); }

int pb_gpu_timer_elapsed(double *ms, pb_err *err)
{
    *ms = 0;
    return pb_err_set(err, "%s", reason);
}

int pb_gpu_hold(pb_err *err) { return pb_err_set(err, "%s", reason); }
int pb_gpu_release(pb_err *err) { return pb_err_set(err, "%s", reason); }
bool pb_gpu_hold_gave_up(void) { return false; }

int pb_gpu_fingerprint(const void *d_buf, uint64_t n, unsigned item_bytes, uint64_t *fp,
                       pb_err *err)
{
    (void)d_buf, (void)n, (void)item_bytes;
    *fp = 0;
    return pb_err_set(err, "%s", reason);
}

int pb_gpu_code_of(const void *probe, const char *sass, const char *ptx, pb_gpu_code *c,
                   pb_err *err)
{
    (void)probe, (void)sass, (void)ptx, (void)err;
    memset(c, 0, sizeof *c);
    return 0;
}

int pb_gpu_code_check(pb_gpu_code *c, pb_err *err)
{
    (void)err;
    if (c) memset(c, 0, sizeof *c);
    return 0;
}

bool pb_gpu_code_at_least(const void *func, int need, char *why, size_t whylen)
{
    (void)func, (void)need;
    if (why) snprintf(why, whylen, "%s", reason);
    return false;
}

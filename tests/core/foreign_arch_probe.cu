/* A kernel built for sm_75 SASS alone (tests/CMakeLists.txt), asked about
 * on a device of another generation: the start-up check
 * (pb_gpu_code_of, what permbench runs before a command) must refuse it
 * with one line naming what the binary holds, as permbench does with exit 2
 * when its own build lacks the device's code. A GPU test: SKIP without a
 * device, or on a Turing one (which runs the code). */
#include <stdio.h>
#include <string.h>

#include "core/gpu.h"

__global__ void pb_foreign_probe() {}

int main(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) == 0) {
        printf("skipped: %s\n", why);
        return 77;
    }
    pb_gpu_code c;
    pb_err err = {{0}};
    int rc = pb_gpu_code_of((const void *)pb_foreign_probe, "75", "", &c, &err);
    if (c.cc / 10 == 7) {
        printf("skipped: a compute capability 7.x device runs sm_75 code\n");
        return 77;
    }
    if (rc == 0) {
        printf("FAIL: code for sm_75 only accepted on compute capability %d.%d (%s)\n", c.cc / 10,
               c.cc % 10, c.mode);
        return 1;
    }
    if (!strstr(err.msg, "holds no code for this GPU") || !strstr(err.msg, "SASS for 75") ||
        strchr(err.msg, '\n')) {
        printf("FAIL: the reason: %s\n", err.msg);
        return 1;
    }
    printf("ok: %s\n", err.msg);
    return 0;
}

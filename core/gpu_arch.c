/* The architecture decisions that need no device: whether a compute
 * capability meets a kernel's need, and whether a build's SASS list holds
 * native code for a device. Kept apart from gpu.cu so that the CPU tests
 * check them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu.h"

bool pb_gpu_cc_meets(int have, int need, char *why, size_t whylen)
{
    if (have >= need) return true;
    if (why) snprintf(why, whylen, "needs compute capability %d.%d, this device is %d.%d", need / 10,
                      need % 10, have / 10, have % 10);
    return false;
}

/* SASS for sm_XY runs on the devices of major X and minor Y or later (the
 * driver's binary compatibility); the architecture-specific variants
 * (sm_90a, sm_100f) run on their own major only as well. CMake's words
 * (native, all) hold the building machine's or every GPU's code. */
bool pb_gpu_sass_runs_on(const char *sass, int cc)
{
    if (!sass) return false;
    const char *p = sass;
    while (*p) {
        size_t len = strcspn(p, ",");
        char item[32];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item ? len : sizeof item - 1), p);
        if (strcmp(item, "native") == 0 || strcmp(item, "all") == 0 || strcmp(item, "all-major") == 0)
            return true;
        char *end;
        long a = strtol(item, &end, 10);
        if (end != item && a >= 10 && a / 10 == cc / 10 && a % 10 <= cc % 10) return true;
        p += len;
        if (*p == ',') p++;
    }
    return false;
}

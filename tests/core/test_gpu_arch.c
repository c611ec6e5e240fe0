/* The architecture decisions that need no device: a compute capability
 * against a kernel's need (the reason a module is unavailable), and whether
 * a build's SASS list runs natively on a device (else PTX at load). */
#include <string.h>

#include "core/gpu.h"
#include "tests/test.h"

TEST_IMPL(gpu_arch_cc_meets)
{
    char why[128] = "";
    ASSERT(pb_gpu_cc_meets(90, 90, why, sizeof why));
    ASSERT(pb_gpu_cc_meets(100, 90, why, sizeof why));
    ASSERT(pb_gpu_cc_meets(120, 90, why, sizeof why));
    ASSERT(why[0] == '\0');
    ASSERT(!pb_gpu_cc_meets(80, 90, why, sizeof why));
    ASSERT(strcmp(why, "needs compute capability 9.0, this device is 8.0") == 0);
    ASSERT(!pb_gpu_cc_meets(89, 90, why, sizeof why));
    ASSERT(strcmp(why, "needs compute capability 9.0, this device is 8.9") == 0);
    ASSERT(!pb_gpu_cc_meets(75, 80, NULL, 0)); /* no reason asked for */
    return 0;
}

TEST_IMPL(gpu_arch_sass_runs_on)
{
    const char *release = "75,80,86,89,90,100,120";
    /* Each device of a generation takes its own SASS or an older minor's. */
    ASSERT(pb_gpu_sass_runs_on(release, 75));
    ASSERT(pb_gpu_sass_runs_on(release, 80));
    ASSERT(pb_gpu_sass_runs_on(release, 87)); /* Orin: sm_86 SASS */
    ASSERT(pb_gpu_sass_runs_on(release, 90));
    ASSERT(pb_gpu_sass_runs_on(release, 103)); /* B300: sm_100 SASS */
    ASSERT(pb_gpu_sass_runs_on(release, 121)); /* GB10: sm_120 SASS */
    ASSERT(!pb_gpu_sass_runs_on(release, 110)); /* Thor: no SASS of major 11 */
    /* The one-architecture build, and a PTX-only one. */
    ASSERT(pb_gpu_sass_runs_on("90", 90));
    ASSERT(!pb_gpu_sass_runs_on("90", 80));  /* older device: no */
    ASSERT(!pb_gpu_sass_runs_on("90", 100)); /* newer major: PTX at load */
    ASSERT(!pb_gpu_sass_runs_on("", 90));
    ASSERT(!pb_gpu_sass_runs_on(NULL, 90));
    ASSERT(!pb_gpu_sass_runs_on("86", 80)); /* a newer minor's SASS does not run on an older one */
    ASSERT(pb_gpu_sass_runs_on("90a", 90));
    ASSERT(pb_gpu_sass_runs_on("native", 90));
    return 0;
}

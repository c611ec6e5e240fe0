/* GPU modules on a CUDA device: valid at awkward and large sizes, exact
 * copies, and the gather kernel equal to its C twin (cpu-gather) bit for
 * bit. Without a device, or in a build without CUDA, they report SKIP. */
#include <stdlib.h>

#include "core/gpu.h"
#include "families/shuffle/shuffle_items.h"
#include "registry/registry.h"
#include "tests/module_driver.h"
#include "tests/test.h"

static int need_gpu(void)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) > 0) return 0;
    printf("skipped: %s\n", why);
    return PB_TEST_SKIP;
}

static const uint64_t large[] = {(1u << 26) - 1, 1u << 26, (1u << 26) + 1, 0};

TEST_IMPL(gpu_modules_valid)
{
    int rc = need_gpu();
    return rc ? rc : pb_drive_all_valid(PB_DEVICE_GPU, large);
}

TEST_IMPL(gpu_modules_seeds)
{
    int rc = need_gpu();
    return rc ? rc : pb_check_seeds(PB_DEVICE_GPU);
}

TEST_IMPL(gpu_copy_exact)
{
    int rc = need_gpu();
    if (rc) return rc;
    const char *names[] = {"gpu-copy", "gpu-cuda-memcpy"};
    for (int i = 0; i < 2; i++)
        for (unsigned bytes = 4; bytes <= 8; bytes += 4)
            for (size_t k = 0; pb_awkward_sizes[k]; k++) {
                uint64_t n = pb_awkward_sizes[k];
                void *out;
                pb_err err;
                ASSERT(pb_drive_module(pb_module_find(names[i]), n, bytes, 1, 1, 0, &out, &err) == 0);
                void *in = malloc(n * bytes);
                pb_shuffle_fill(in, n, bytes);
                if (memcmp(in, out, n * bytes) != 0) {
                    fprintf(stderr, "%s n=%llu item=%u: output differs from input\n", names[i],
                            (unsigned long long)n, bytes);
                    return 1;
                }
                free(in), free(out);
            }
    return 0;
}

TEST_IMPL(gpu_gather_twin)
{
    int rc = need_gpu();
    if (rc) return rc;
    const pb_module *gpu = pb_module_find("gpu-gather"), *cpu = pb_module_find("cpu-gather");
    for (unsigned bytes = 4; bytes <= 8; bytes += 4)
        for (int pass = 0; pass < 2; pass++)
            for (size_t k = 0;; k++) {
                uint64_t n = pass ? large[k] : pb_awkward_sizes[k];
                if (n == 0) break;
                void *g, *c;
                pb_err err;
                /* Three runs: the third sample's bijection is compared. */
                ASSERT(pb_drive_module(gpu, n, bytes, 77, 3, 0, &g, &err) == 0);
                ASSERT(pb_drive_module(cpu, n, bytes, 77, 3, 0, &c, &err) == 0);
                if (memcmp(g, c, n * bytes) != 0) {
                    fprintf(stderr, "gather n=%llu item=%u differs from cpu-gather\n",
                            (unsigned long long)n, bytes);
                    return 1;
                }
                free(g), free(c);
            }
    return 0;
}

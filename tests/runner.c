/* Runs one test by name (as ctest does), or all of them. */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "registry/registry.h"
#include "tests/broken_modules.h"
#include "tests/test.h"

#define PB_TEST(name) int pb_test_##name(void);
#include "tests/test_list.h" /* generated into the build tree */
#undef PB_TEST

static const struct {
    const char *name;
    int (*fn)(void);
} tests[] = {
#define PB_TEST(name) {#name, pb_test_##name},
#include "tests/test_list.h" /* generated into the build tree */
#undef PB_TEST
};

int main(int argc, char **argv)
{
    gsl_set_error_handler_off();
    size_t count = sizeof tests / sizeof tests[0];
    /* `pb_tests permbench ARGS...`: the real command line with the broken
     * modules added, so a test can see what `permbench run` makes of them
     * (tests/bench/broken_cli.sh); the shipped binary never has them. */
    if (argc >= 2 && strcmp(argv[1], "permbench") == 0) {
        const pb_module *broken[] = {&pb_broken_noop, &pb_broken_half, &pb_broken_stale,
                                     &pb_broken_once, &pb_broken_stale_noref, &pb_broken_sample,
#ifdef PB_HAVE_CUDA
                                     &pb_broken_gpu_noop, &pb_broken_gpu_half,
#endif
        };
        for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++)
            if (pb_registry_add(broken[i])) return 2;
        return pb_main(argc - 1, argv + 1);
    }
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (size_t i = 0; i < count; i++) puts(tests[i].name);
        return 0;
    }
    int failed = 0, ran = 0;
    for (size_t i = 0; i < count; i++) {
        if (argc == 2 && strcmp(argv[1], tests[i].name) != 0) continue;
        int rc = tests[i].fn();
        ran++;
        if (rc == PB_TEST_SKIP) printf("SKIP %s\n", tests[i].name);
        else if (rc) printf("FAIL %s\n", tests[i].name), failed++;
        else printf("ok   %s\n", tests[i].name);
        if (argc == 2) return rc;
    }
    if (!ran) {
        fprintf(stderr, "no test named '%s'\n", argc == 2 ? argv[1] : "");
        return 2;
    }
    return failed ? 1 : 0;
}

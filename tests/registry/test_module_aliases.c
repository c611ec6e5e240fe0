/* Module names: each starts with its device; each old name is an alias that
 * finds the module it now names, with one note; row labels under old names
 * read as the new ones (core/module_aliases.h, docs/modules.md). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/module_aliases.h"
#include "registry/registry.h"
#include "tests/test.h"

TEST_IMPL(module_names_scheme)
{
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        const char *want = m->device == PB_DEVICE_GPU ? "gpu-" : "cpu-";
        if (strncmp(m->name, want, 4) != 0) {
            fprintf(stderr, "module '%s' runs on the %s but is not named %s...\n", m->name,
                    pb_device_name(m->device), want);
            return 1;
        }
    }
    for (size_t i = 0; i < pb_module_alias_count(); i++) {
        const pb_module_alias *a = pb_module_alias_at(i);
        /* An old name is no module's name, and no other alias's. */
        ASSERT(pb_module_find(a->old_name) == NULL);
        ASSERT(strncmp(a->new_name, "cpu-", 4) == 0 || strncmp(a->new_name, "gpu-", 4) == 0);
        for (size_t j = 0; j < i; j++) ASSERT(strcmp(pb_module_alias_at(j)->old_name, a->old_name) != 0);
        ASSERT(strcmp(pb_module_alias_new(a->old_name), a->new_name) == 0);
        ASSERT(strcmp(pb_module_alias_old(a->new_name), a->old_name) == 0);
        /* It finds its module where the build has it (and nothing where not). */
        ASSERT(pb_module_find_named(a->old_name) == pb_module_find(a->new_name));
        /* Every CPU module's target is in every build. */
        if (strncmp(a->new_name, "cpu-", 4) == 0) ASSERT(pb_module_find(a->new_name) != NULL);
    }
    ASSERT(pb_module_alias_at(pb_module_alias_count()) == NULL);
    ASSERT(pb_module_alias_new("cpu-topk") == NULL && pb_module_alias_new("no-such") == NULL);
    ASSERT(pb_module_find_named("no-such-module") == NULL);
    return 0;
}

/* An alias whose module this build lacks (another branch's, or a GPU
 * module of a CPU build) finds nothing and says nothing; once a module of
 * that name is there, the alias finds it. */
TEST_IMPL(module_alias_missing_target)
{
    static const pb_module topk = {.name = "gpu-cub-topk", .summary = "stands for a module not merged yet"};
    if (pb_module_find("gpu-cub-topk")) {
        ASSERT(pb_module_find_named("cub-topk") == pb_module_find("gpu-cub-topk"));
        return 0;
    }
    ASSERT(strcmp(pb_module_alias_new("cub-topk"), "gpu-cub-topk") == 0);
    ASSERT(pb_module_find_named("cub-topk") == NULL);
    ASSERT(pb_registry_add(&topk) == 0);
    ASSERT(pb_module_find_named("cub-topk") == &topk);
    return 0;
}

/* One note line a process for each old name, however often it is used. */
TEST_IMPL(module_alias_note)
{
    char path[256];
    ASSERT(pb_test_tmpfile("", path, sizeof path));
    fflush(stderr);
    int saved = dup(fileno(stderr));
    ASSERT(saved >= 0 && freopen(path, "w", stderr));
    const pb_module *a = pb_module_find_named("omp-topk"), *b = pb_module_find_named("omp-topk");
    pb_module_alias_note("omp-topk");
    const pb_module *c = pb_module_find_named("fisher-yates"), *d = pb_module_find_named("cpu-gather");
    fflush(stderr);
    ASSERT(dup2(saved, fileno(stderr)) >= 0);
    close(saved);
    ASSERT(a && a == b && a == pb_module_find("cpu-topk"));
    ASSERT(c == pb_module_find("cpu-fisher-yates") && d == pb_module_find("cpu-gather"));
    FILE *f = fopen(path, "r");
    ASSERT(f);
    char text[1024] = "";
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    text[n] = '\0';
    const char *want = "permbench: note: 'omp-topk' is now 'cpu-topk' (the old name still works; docs/modules.md)\n"
                       "permbench: note: 'fisher-yates' is now 'cpu-fisher-yates' (the old name still works; "
                       "docs/modules.md)\n";
    if (strcmp(text, want) != 0) {
        fprintf(stderr, "stderr was:\n%s", text);
        return 1;
    }
    return 0;
}

/* A row label whose first part is an old module name reads under the new
 * one; instances named otherwise keep their names. */
TEST_IMPL(module_alias_labels)
{
    static const char *const cases[][2] = {
        {"radik/k=32", "gpu-radik/k=32"}, {"radik", "gpu-radik"},           {"copy", "gpu-copy"},
        {"omp-topk/rows=4", "cpu-topk/rows=4"}, {"radik-two-read", "radik-two-read"},
        {"gpu-radik/k=32", "gpu-radik/k=32"},   {"copyx/k=1", "copyx/k=1"}, {"", ""},
        {"grs-twin/n=5", "cpu-rao-sandelius-twin/n=5"},
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(pb_module_alias_label(cases[i][0], buf, sizeof buf), cases[i][1]) != 0) {
            fprintf(stderr, "'%s' reads as '%s', expected '%s'\n", cases[i][0], buf, cases[i][1]);
            return 1;
        }
    /* Too long for the buffer: kept as it was rather than cut. */
    char small[8];
    ASSERT(strcmp(pb_module_alias_label("radik/k=32", small, sizeof small), "radik/k=32") == 0);
    ASSERT(pb_module_alias_label(NULL, buf, sizeof buf) == NULL);
    return 0;
}

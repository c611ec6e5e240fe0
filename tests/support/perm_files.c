#include "tests/support/perm_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/params.h"

#include "families/shuffle/shuffle_hooks.h"
#include "registry/registry.h"

uint32_t *pb_test_draw(const char *module, const char *set, bool one_thread, uint32_t n, uint64_t seed,
                       uint64_t count)
{
    const pb_module *m = pb_module_find(module);
    if (!m || !pb_module_sample_perms(m)) return NULL;
    pb_params p;
    pb_err err;
    pb_params_defaults(m, &p);
    if (set) {
        char name[64];
        const char *eq = strchr(set, '=');
        snprintf(name, sizeof name, "%.*s", (int)(eq - set), set);
        if (pb_params_set(m, &p, name, eq + 1, &err)) return NULL;
    }
    int threads = pb_module_param_index(m, "threads");
    if (one_thread && threads >= 0) p.v[threads] = 1;
    uint32_t *out = malloc((size_t)(count * n) * sizeof *out);
    if (out && pb_module_sample_perms(m)(&p, n, seed, 0, count, out, &err)) {
        fprintf(stderr, "%s: %s\n", module, err.msg);
        free(out);
        return NULL;
    }
    return out;
}

int pb_test_write_perms(const char *path, const uint32_t *p, uint32_t n, uint64_t count, pb_perm_format f)
{
    FILE *out = fopen(path, "wb");
    pb_err e;
    int rc = !out || pb_perm_write(out, p, n, count, f, &e);
    if (out && fclose(out)) rc = 1;
    return rc;
}

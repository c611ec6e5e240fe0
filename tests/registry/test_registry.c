/* The registry: unique names, complete descriptors, sane parameter specs,
 * GPU modules present exactly when CUDA was built. */
#include "config/params.h"
#include "registry/registry.h"
#include "tests/test.h"

TEST_IMPL(registry_descriptors)
{
    ASSERT(pb_module_count() >= 4);
    int gpu = 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        ASSERT(m && m->name && m->name[0] && m->summary && m->summary[0]);
        ASSERT(pb_module_find(m->name) == m);
        for (size_t j = 0; j < i; j++) ASSERT(strcmp(pb_module_at(j)->name, m->name) != 0);
        ASSERT(m->family && pb_family_find(m->family->name) == m->family && m->device <= PB_DEVICE_GPU);
        /* At most one ceiling of each kind a device: the one rows are compared with. */
        ASSERT(m->bound < PB_NBOUNDS);
        if (m->bound != PB_BOUND_NONE) ASSERT(pb_bound_module(m->device, m->bound) == m && (m->flags & PB_MOD_CEILING));
        ASSERT(m->footprint && m->prepare && m->run && m->result && m->release);
        /* Every sample is refreshed and checked (bench/measure.h). */
        ASSERT(m->refresh);
        if (m->reference) {
            /* A reference is deterministic and comparable; in this build
             * unless it is a GPU module of a CPU-only build. */
            const pb_module *r = pb_module_find(m->reference);
            ASSERT(m->fingerprint && !(m->flags & PB_MOD_NONDETERMINISTIC));
            ASSERT(r || m->device == PB_DEVICE_GPU);
            if (r) ASSERT(r != m && r->fingerprint && !(r->flags & PB_MOD_NONDETERMINISTIC));
            if (r) ASSERT(r->family == m->family);
        }
        ASSERT(m->nparams <= PB_MAX_PARAMS);
        for (size_t p = 0; p < m->nparams; p++) {
            const pb_param_spec *s = &m->params[p];
            ASSERT(s->name && s->help && pb_module_param_index(m, s->name) == (int)p);
            if (s->type == PB_PARAM_INT) ASSERT(s->min <= s->def && s->def <= s->max);
            if (s->type == PB_PARAM_ENUM) {
                char buf[64];
                ASSERT(s->choices && pb_choice_index(s->choices, pb_choice_name(s->choices, s->def, buf, sizeof buf)) == s->def);
            }
        }
        gpu += m->device == PB_DEVICE_GPU;
    }
    for (const char *const *n = (const char *const[]){"cpu-fisher-yates", "cpu-gsl-shuffle", "cpu-copy", "cpu-gather", NULL}; *n; n++)
        ASSERT(pb_module_find(*n) != NULL);
#ifdef PB_HAVE_CUDA
    ASSERT(pb_module_find("gpu-copy") && pb_module_find("gpu-gather") && pb_module_find("gpu-cuda-memcpy"));
#else
    ASSERT(gpu == 0);
#endif
    ASSERT(pb_module_find("no-such-module") == NULL);
    return 0;
}

/* Families: unique names, items with widths, a bound, and the ceilings
 * they ask for present on the CPU. */
TEST_IMPL(registry_families)
{
    ASSERT(pb_family_count() >= 3);
    for (size_t i = 0; i < pb_family_count(); i++) {
        const pb_family *f = pb_family_at(i);
        ASSERT(f->name && f->summary && f->input && f->bound_bytes);
        ASSERT(pb_family_find(f->name) == f);
        ASSERT(f->nitems >= 1);
        for (size_t k = 0; k < f->nitems; k++) {
            const pb_item_kind *it = &f->items[k];
            /* Scalars of 4 or 8 bytes; records of a multiple of 8 above 8. */
            ASSERT(it->name && (it->cls == PB_ITEM_SCALAR ? it->bytes == 4 || it->bytes == 8
                                                          : it->bytes > 8 && it->bytes % 8 == 0));
            ASSERT(pb_family_item(f, it->name) == it);
            /* Points carry widths: kinds of two classes never share one. */
            ASSERT(pb_family_item_of_width(f, it->bytes)->cls == it->cls);
        }
        ASSERT(f->bound_bytes(1000, f->items[0].bytes) > 0);
        /* The ceilings a sweep adds take every item the family has, so a
         * record sweep is never refused for its ceilings. */
        for (int b = PB_BOUND_NONE + 1; b < PB_NBOUNDS; b++)
            if (f->bounds & PB_BOUNDS(b)) {
                ASSERT(pb_bound_module(PB_DEVICE_CPU, (pb_bound)b) != NULL);
                for (int d = PB_DEVICE_CPU; d <= PB_DEVICE_GPU; d++) {
                    const pb_module *c = pb_bound_module((pb_device)d, (pb_bound)b);
                    for (size_t k = 0; c && k < f->nitems; k++) ASSERT(pb_module_takes(c, f->items[k].bytes));
                }
            }
    }
    ASSERT(pb_family_find("sorting") == NULL);
    char buf[256];
    pb_family_names_text(buf, sizeof buf);
    for (size_t i = 0; i < pb_family_count(); i++) ASSERT_CONTAINS(buf, pb_family_at(i)->name);
    ASSERT(pb_family_count() < 2 || strstr(buf, " or ") != NULL);
    ASSERT(strcmp(pb_bound_module(PB_DEVICE_CPU, PB_BOUND_COPY)->name, "cpu-copy") == 0);
    ASSERT(strcmp(pb_bound_module(PB_DEVICE_CPU, PB_BOUND_GATHER)->name, "cpu-gather") == 0);
    return 0;
}

TEST_IMPL(registry_params)
{
    const pb_module *g = pb_module_find("cpu-gather");
    pb_params p;
    pb_err err;
    pb_params_defaults(g, &p);
    ASSERT(p.v[0] == 0);
    ASSERT(pb_params_set(g, &p, "threads", "3", &err) == 0 && p.v[0] == 3);
    ASSERT(pb_params_set(g, &p, "threads", "2^4", &err) == 0 && p.v[0] == 16);
    ASSERT(pb_params_set(g, &p, "threads", "-1", &err) != 0);
    ASSERT_CONTAINS(err.msg, "-1 is outside 0..4096");
    ASSERT(pb_params_set(g, &p, "threads", "3x", &err) != 0);
    ASSERT(pb_params_set(g, &p, "colour", "3", &err) != 0);
    ASSERT_CONTAINS(err.msg, "has no parameter 'colour' (it accepts: threads)");
    ASSERT(pb_choice_index("varphilox|lcg", "lcg") == 1);
    ASSERT(pb_choice_index("varphilox|lcg", "lc") == -1);
    return 0;
}

TEST_IMPL(registry_cpu_available)
{
    /* CPU modules always run; GPU modules say why when they cannot. */
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        char why[256] = "";
        bool ok = pb_module_available(m, why, sizeof why);
        if (m->device == PB_DEVICE_CPU) ASSERT(ok);
        else if (!ok) ASSERT(why[0] != '\0');
    }
    return 0;
}

#include "registry/registry.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/gpu.h"
#include "core/module_aliases.h"

#define PB_MODULE(id) extern const pb_module pb_module_##id;
#include "registry/module_list.h"
#undef PB_MODULE

#define PB_FAMILY(id) extern const pb_family pb_family_##id;
#include "registry/family_list.h"
#undef PB_FAMILY

static const pb_module *const descriptors[] = {
#define PB_MODULE(id) &pb_module_##id,
#include "registry/module_list.h"
#undef PB_MODULE
};

static const pb_family *const families[] = {
#define PB_FAMILY(id) &pb_family_##id,
#include "registry/family_list.h"
#undef PB_FAMILY
};

#define BUILT_IN (sizeof descriptors / sizeof descriptors[0])

/* The descriptors with their hook sets filled in (pb_module_resolve): what
 * every caller is given, so nothing past the registry looks at a set.
 * Resolved once, by whichever thread asks first; the others wait for it. */
static pb_module resolved[BUILT_IN];
static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void resolve_descriptors(void)
{
    for (size_t i = 0; i < BUILT_IN; i++) pb_module_resolve(descriptors[i], &resolved[i]);
}

static void resolve_all(void) { pthread_once(&resolve_once, resolve_descriptors); }

#define MAX_ADDED 32
static const pb_module *added[MAX_ADDED];
static pb_module added_resolved[MAX_ADDED];
static size_t nadded;

int pb_registry_add(const pb_module *m)
{
    if (!m || !m->name || nadded == MAX_ADDED || pb_module_find(m->name)) return -1;
    /* One without a set is kept as given, so a test finds its own pointer. */
    if (m->hooks) {
        pb_module_resolve(m, &added_resolved[nadded]);
        m = &added_resolved[nadded];
    }
    added[nadded++] = m;
    return 0;
}

size_t pb_module_count(void) { return BUILT_IN + nadded; }

const pb_module *pb_module_at(size_t i)
{
    resolve_all();
    return i < BUILT_IN ? &resolved[i] : i < pb_module_count() ? added[i - BUILT_IN] : NULL;
}

const pb_module *pb_module_find(const char *name)
{
    for (size_t i = 0; i < pb_module_count(); i++)
        if (strcmp(pb_module_at(i)->name, name) == 0) return pb_module_at(i);
    return NULL;
}

const pb_module *pb_module_find_named(const char *name)
{
    const pb_module *m = pb_module_find(name);
    if (m) return m;
    const char *now = pb_module_alias_new(name);
    if (!now || !(m = pb_module_find(now))) return NULL;
    pb_module_alias_note(name);
    return m;
}

bool pb_module_available_with(const pb_module *m, const pb_params *params, char *why, size_t whylen)
{
    char reason[256] = "";
    if (m->device == PB_DEVICE_GPU && pb_gpu_count(reason, sizeof reason) == 0) {
        if (why) snprintf(why, whylen, "%s", reason);
        return false;
    }
    if (m->available && !m->available(params, reason, sizeof reason)) {
        if (why) snprintf(why, whylen, "%s", reason);
        return false;
    }
    return true;
}

bool pb_module_available(const pb_module *m, char *why, size_t whylen)
{
    return pb_module_available_with(m, NULL, why, whylen);
}

const pb_module *pb_bound_module(pb_device dev, pb_bound b)
{
    resolve_all();
    for (size_t i = 0; i < BUILT_IN; i++) /* the built-in ceilings only */
        if (resolved[i].device == dev && resolved[i].bound == b && b != PB_BOUND_NONE)
            return &resolved[i];
    return NULL;
}

size_t pb_family_count(void) { return sizeof families / sizeof families[0]; }

const pb_family *pb_family_at(size_t i) { return i < pb_family_count() ? families[i] : NULL; }

const pb_family *pb_family_find(const char *name)
{
    for (size_t i = 0; i < pb_family_count(); i++)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

const char *pb_family_names_text(char *buf, size_t len)
{
    size_t off = 0, n = pb_family_count();
    buf[0] = '\0';
    for (size_t i = 0; i < n && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ",
                                families[i]->name);
    return buf;
}

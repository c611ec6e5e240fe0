#include "harness/registry.h"

#include <stdio.h>
#include <string.h>

#include "harness/gpu.h"

#define PB_MODULE(id) extern const pb_module pb_module_##id;
#include "harness/module_list.h"
#undef PB_MODULE

static const pb_module *const modules[] = {
#define PB_MODULE(id) &pb_module_##id,
#include "harness/module_list.h"
#undef PB_MODULE
};

size_t pb_module_count(void) { return sizeof modules / sizeof modules[0]; }

const pb_module *pb_module_at(size_t i) { return i < pb_module_count() ? modules[i] : NULL; }

const pb_module *pb_module_find(const char *name)
{
    for (size_t i = 0; i < pb_module_count(); i++)
        if (strcmp(modules[i]->name, name) == 0) return modules[i];
    return NULL;
}

bool pb_module_available(const pb_module *m, char *why, size_t whylen)
{
    if (m->device == PB_DEVICE_CPU) return true;
    char reason[256];
    if (pb_gpu_count(reason, sizeof reason) > 0) return true;
    if (why) snprintf(why, whylen, "%s", reason);
    return false;
}

int pb_module_param_index(const pb_module *m, const char *name)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0) return (int)i;
    return -1;
}

const char *pb_family_name(pb_family f)
{
    switch (f) {
    case PB_FAMILY_SHUFFLE: return "shuffle";
    case PB_FAMILY_MULTISPLIT: return "multisplit";
    case PB_FAMILY_TOPK: return "topk";
    }
    return "?";
}

const char *pb_device_name(pb_device d) { return d == PB_DEVICE_GPU ? "gpu" : "cpu"; }

#include "core/module.h"

#include <stdio.h>
#include <string.h>

const char *pb_device_name(pb_device d) { return d == PB_DEVICE_GPU ? "gpu" : "cpu"; }

int pb_module_param_index(const pb_module *m, const char *name)
{
    for (size_t i = 0; i < m->nparams; i++)
        if (strcmp(m->params[i].name, name) == 0) return (int)i;
    return -1;
}

const pb_item_kind *pb_family_item(const pb_family *f, const char *name)
{
    for (size_t i = 0; i < f->nitems; i++)
        if (strcmp(f->items[i].name, name) == 0) return &f->items[i];
    return NULL;
}

const char *pb_family_items_text(const pb_family *f, char *buf, size_t len)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < f->nitems && off < len; i++)
        off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "", f->items[i].name);
    return buf;
}

const pb_item_kind *pb_family_item_of_width(const pb_family *f, unsigned item_bytes)
{
    for (size_t i = 0; i < f->nitems; i++)
        if (f->items[i].bytes == item_bytes) return &f->items[i];
    return NULL;
}

static unsigned classes_taken(const pb_module *m)
{
    return m->items ? m->items : PB_ITEM_CLASSES(PB_ITEM_SCALAR);
}

bool pb_module_takes(const pb_module *m, unsigned item_bytes)
{
    const pb_item_kind *k = pb_family_item_of_width(m->family, item_bytes);
    return k && (classes_taken(m) & PB_ITEM_CLASSES(k->cls));
}

const char *pb_module_items_text(const pb_module *m, char *buf, size_t len)
{
    size_t off = 0;
    const pb_family *f = m->family;
    buf[0] = '\0';
    for (size_t i = 0; i < f->nitems && off < len; i++)
        if (classes_taken(m) & PB_ITEM_CLASSES(f->items[i].cls))
            off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", f->items[i].name);
    return buf;
}

/* A hook the module leaves NULL is its set's. */
#define PB_TAKE(field)                                                                             \
    if (!out->field) out->field = set->field

void pb_module_resolve(const pb_module *desc, pb_module *out)
{
    *out = *desc;
    const pb_module_hooks *set = desc->hooks;
    if (!set) return;
    /* A set is one device's buffers: its modules run where they live. */
    out->device = set->device;
    PB_TAKE(family);
    PB_TAKE(flags);
    PB_TAKE(max_n);
    PB_TAKE(footprint);
    PB_TAKE(prepare);
    PB_TAKE(run);
    PB_TAKE(result);
    PB_TAKE(verify);
    PB_TAKE(release);
    PB_TAKE(work);
    PB_TAKE(refresh);
    PB_TAKE(fingerprint);
    PB_TAKE(items);
    PB_TAKE(available);
    PB_TAKE(ext);
}

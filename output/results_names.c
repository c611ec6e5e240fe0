#include "output/results_names.h"

#include "config/ini.h"
#include "core/module_aliases.h"

static void rename_field(json_t *o, const char *key)
{
    const char *v = json_string_value(json_object_get(o, key));
    char buf[PB_LABEL_MAX + 8];
    const char *now = pb_module_alias_label(v, buf, sizeof buf);
    if (now != v) json_object_set_new(o, key, json_string(now));
}

void pb_results_rename_modules(json_t *root)
{
    static const char *const keys[] = {"label", "series", "group", "module"};
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(root, "results"), i, r)
    {
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) rename_field(r, keys[k]);
    }
    rename_field(json_object_get(root, "sweep"), "reference");
}

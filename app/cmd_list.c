/* permbench list: the modules of this build and whether each can run here. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "config/params.h"
#include "registry/registry.h"

static const char help[] =
    "usage: permbench list [--brief | --json]\n"
    "\n"
    "Lists the modules built into this binary: name, family, device, whether it\n"
    "can run on this machine (GPU modules need a CUDA device), a one-line\n"
    "summary, and the parameters each accepts with default and valid range.\n"
    "\n"
    "  --brief   one line per module, no parameters\n"
    "  --json    the same as one JSON document (schema_version 1) for scripts:\n"
    "            each module's name, family, device, availability and why not,\n"
    "            flags, reference, the items it takes and parameters\n";

static json_t *module_json(const pb_module *m)
{
    char why[256] = "";
    bool ok = pb_module_available(m, why, sizeof why);
    json_t *params = json_array();
    for (size_t p = 0; p < m->nparams; p++) {
        const pb_param_spec *s = &m->params[p];
        char def[64], range[256];
        json_array_append_new(params, json_pack("{s:s, s:s, s:s, s:s}", "name", s->name, "default",
                                                pb_param_format(s, s->def, def, sizeof def), "range",
                                                pb_param_range(s, range, sizeof range), "help", s->help));
    }
    json_t *o = json_pack("{s:s, s:s, s:s, s:b, s:s, s:b, s:b, s:b, s:b, s:o}", "name", m->name,
                          "family", m->family->name, "device", pb_device_name(m->device), "available",
                          ok, "summary", m->summary, "seeded", (m->flags & PB_MOD_SEEDED) != 0,
                          "in_place", (m->flags & PB_MOD_INPLACE) != 0, "deterministic",
                          (m->flags & PB_MOD_NONDETERMINISTIC) == 0, "ceiling",
                          (m->flags & PB_MOD_CEILING) != 0, "params", params);
    json_object_set_new(o, "why_unavailable", ok ? json_null() : json_string(why));
    json_object_set_new(o, "reference", m->reference ? json_string(m->reference) : json_null());
    /* The items of its family it takes (records only where it says so). */
    json_t *items = json_array();
    for (size_t i = 0; i < m->family->nitems; i++)
        if (pb_module_takes(m, m->family->items[i].bytes))
            json_array_append_new(items, json_string(m->family->items[i].name));
    json_object_set_new(o, "items", items);
    return o;
}

static int list_json(void)
{
    json_t *mods = json_array();
    for (size_t i = 0; i < pb_module_count(); i++) json_array_append_new(mods, module_json(pb_module_at(i)));
    json_t *fams = json_array();
    for (size_t i = 0; i < pb_family_count(); i++) json_array_append_new(fams, json_string(pb_family_at(i)->name));
    json_t *root = json_pack("{s:i, s:o, s:o}", "schema_version", 1, "families", fams, "modules", mods);
    if (!root || json_dumpf(root, stdout, JSON_INDENT(1) | JSON_ENSURE_ASCII) != 0) {
        json_decref(root);
        return pb_cli_fail("list: cannot write JSON");
    }
    json_decref(root);
    putchar('\n');
    return PB_EXIT_OK;
}

int pb_cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"brief", no_argument, NULL, 'b'},
        {"json", no_argument, NULL, 'j'}, {NULL, 0, NULL, 0}};
    int c, brief = 0, json = 0;
    while ((c = pb_cli_getopt("list", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 'b') brief = 1;
        if (c == 'j') json = 1;
    }
    if (optind < argc) return pb_cli_fail("list: unexpected argument '%s'", argv[optind]);
    if (brief && json) return pb_cli_fail("list: --brief and --json do not go together");
    if (json) return list_json();

    /* The name column as wide as the longest name, so every column lines up. */
    int w = 6;
    for (size_t i = 0; i < pb_module_count(); i++) {
        int l = (int)strlen(pb_module_at(i)->name);
        if (l > w) w = l;
    }
    printf("%-*s %-10s %-4s %-9s %s\n", w, "module", "family", "dev", "available", "summary");
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        char why[256] = "";
        bool ok = pb_module_available(m, why, sizeof why);
        printf("%-*s %-10s %-4s %-9s %s", w, m->name, m->family->name, pb_device_name(m->device),
               ok ? "yes" : "no", m->summary);
        /* --brief: one line a module, the reason at its end. */
        if (!ok && brief) printf(" (not here: %s)", why);
        putchar('\n');
        if (!ok && !brief) printf("%*s(%s)\n", w + 27, "", why);
        if (brief) continue;
        for (size_t p = 0; p < m->nparams; p++) {
            const pb_param_spec *s = &m->params[p];
            char def[64], range[256];
            printf("%*s%-12s default %-10s range %-16s %s\n", w + 2, "", s->name,
                   pb_param_format(s, s->def, def, sizeof def),
                   pb_param_range(s, range, sizeof range), s->help);
        }
    }
    return PB_EXIT_OK;
}

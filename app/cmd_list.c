/* permbench list: the modules of this build and whether each can run here. */
#include <getopt.h>
#include <stdio.h>

#include "app/cli.h"
#include "config/params.h"
#include "registry/registry.h"

static const char help[] =
    "usage: permbench list [--brief]\n"
    "\n"
    "Lists the modules built into this binary: name, family, device, whether it\n"
    "can run on this machine (GPU modules need a CUDA device), a one-line\n"
    "summary, and the parameters each accepts with default and valid range.\n"
    "\n"
    "  --brief   one line per module, no parameters\n";

int pb_cmd_list(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"brief", no_argument, NULL, 'b'}, {NULL, 0, NULL, 0}};
    int c, brief = 0;
    while ((c = pb_cli_getopt("list", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), PB_EXIT_OK;
        if (c == 'b') brief = 1;
    }
    if (optind < argc) return pb_cli_fail("list: unexpected argument '%s'", argv[optind]);

    printf("%-16s %-10s %-4s %-9s %s\n", "module", "family", "dev", "available", "summary");
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        char why[256] = "";
        bool ok = pb_module_available(m, why, sizeof why);
        printf("%-16s %-10s %-4s %-9s %s\n", m->name, m->family->name,
               pb_device_name(m->device), ok ? "yes" : "no", m->summary);
        if (!ok) printf("%43s(%s)\n", "", why);
        if (brief) continue;
        for (size_t p = 0; p < m->nparams; p++) {
            const pb_param_spec *s = &m->params[p];
            char def[64], range[256];
            printf("%18s%-12s default %-10s range %-16s %s\n", "", s->name,
                   pb_param_format(s, s->def, def, sizeof def),
                   pb_param_range(s, range, sizeof range), s->help);
        }
    }
    return PB_EXIT_OK;
}

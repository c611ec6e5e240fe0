#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "registry/instance.h"

int pb_cli_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "permbench: %s\n", msg);
    return PB_EXIT_USAGE;
}

int pb_cli_getopt(const char *cmd, int argc, char **argv, const struct option *longopts)
{
    char shortopts[64] = ":";
    size_t o = 1;
    for (const struct option *lo = longopts; lo->name && o + 2 < sizeof shortopts; lo++) {
        if (lo->val < 'A' || lo->val > 'z') continue;
        shortopts[o++] = (char)lo->val;
        if (lo->has_arg == required_argument) shortopts[o++] = ':';
    }
    shortopts[o] = '\0';
    opterr = 0; /* our own one-line messages */
    int c = getopt_long(argc, argv, shortopts, longopts, NULL);
    if (c == '?') {
        const char *bad = argv[optind - 1];
        if (optopt && !(bad[0] == '-' && bad[1] == '-'))
            pb_cli_fail("%s: unknown option '-%c' (see 'permbench %s --help')", cmd, optopt, cmd);
        else
            pb_cli_fail("%s: unknown option '%s' (see 'permbench %s --help')", cmd, bad, cmd);
        return -2;
    }
    if (c == ':') {
        pb_cli_fail("%s: option '%s' needs a value", cmd, argv[optind - 1]);
        return -2;
    }
    return c;
}

void pb_skips_add(pb_skips *s, const pb_instance *in, const char *why)
{
    size_t l = strlen(s->names);
    if (l < sizeof s->names - 1)
        snprintf(s->names + l, sizeof s->names - l, "%s%s", s->n ? ", " : "", in->label);
    if (!s->n) snprintf(s->why, sizeof s->why, "%s", why);
    else if (strcmp(s->why, why) != 0) s->mixed = true;
    s->n++;
}

void pb_skips_print(const pb_skips *s)
{
    if (!s->n) return;
    fprintf(stderr, "permbench: note: skipping %zu module%s this machine cannot run (%s): %s\n", s->n,
            s->n == 1 ? "" : "s", s->mixed ? "see results.json" : s->why, s->names);
}

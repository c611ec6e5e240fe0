/* permbench sample: the permutations a module draws through its sample
 * hook, the path the quality battery tests (a GPU module's timed kernel),
 * written as a file other tools can read, or `permbench quality --input`. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "output/atomic_file.h"
#include "output/interrupt.h"
#include "output/outdir.h"
#include "config/ini.h"
#include "config/params.h"
#include "config/sizes.h"
#include "families/shuffle/shuffle_hooks.h"
#include "quality/battery.h"
#include "quality/perm_io.h"
#include "registry/registry.h"
#include "stats/inversions.h"

static const char help[] =
    "usage: permbench sample MODULE [PARAM=VALUE ...] --n N --count C [--seed S]\n"
    "                        [--format u32|u64|text] [-o FILE]\n"
    "\n"
    "Writes C permutations of 0..N-1 drawn by MODULE through its sample hook, the\n"
    "path 'permbench quality' tests (its GPU kernels on a GPU). Row j is sample j\n"
    "of seed S: the j-th permutation 'permbench quality' draws of MODULE with\n"
    "seed = S, so 'permbench quality --input FILE --n N' gives the same statistics\n"
    "as testing MODULE at seed S with C samples. Rows are drawn and written a batch\n"
    "at a time (at most 2^16, and 256 MiB); FILE is written under a temporary name\n"
    "and renamed when whole.\n"
    "\n"
    "  PARAM=VALUE     a parameter of MODULE (see 'permbench list')\n"
    "  --n N           permutation length, 2 .. 2^32-1\n"
    "  --count C       rows to write, 1 .. 2^40\n"
    "  --seed S        64-bit seed (default 1, as in quality configs)\n"
    "  --format F      u32 (default) or u64: N little-endian integers a row;\n"
    "                  text: a row a line, integers separated by one space\n"
    "  -o, --output FILE  write FILE (default, or '-': standard output)\n"
    "\n"
    "Exit status: 0 written, 1 the module failed or drew a row that is not a\n"
    "permutation (named; nothing is left at FILE), 2 bad input or a write fault.\n";

/* Options, checked, and the module instance they name. */
typedef struct sample_opts {
    pb_instances inst; /* one: the module at its parameters */
    uint32_t n;
    uint64_t count, seed;
    pb_perm_format format;
    const char *out; /* NULL: stdout */
} sample_opts;

static int parse(int argc, char **argv, sample_opts *o)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
                                         {"output", required_argument, NULL, 'o'},
                                         /* long only: values outside A..z get no short form */
                                         {"n", required_argument, NULL, 1001},
                                         {"count", required_argument, NULL, 1002},
                                         {"seed", required_argument, NULL, 1003},
                                         {"format", required_argument, NULL, 1004},
                                         {NULL, 0, NULL, 0}};
    const char *n = NULL, *count = NULL, *seed = NULL, *format = NULL;
    int c;
    while ((c = pb_cli_getopt("sample", argc, argv, opts)) != -1) {
        if (c == -2) return PB_EXIT_USAGE;
        if (c == 'h') return fputs(help, stdout), -1;
        if (c == 'o') o->out = strcmp(optarg, "-") == 0 ? NULL : optarg;
        if (c == 1001) n = optarg;
        if (c == 1002) count = optarg;
        if (c == 1003) seed = optarg;
        if (c == 1004) format = optarg;
    }
    if (optind >= argc) return pb_cli_fail("sample: expected a MODULE (see 'permbench list')");
    const pb_module *m = pb_module_find_named(argv[optind]);
    if (!m) return pb_cli_fail("sample: unknown module '%s' (see 'permbench list')", argv[optind]);
    if (!pb_module_sample_perms(m))
        return pb_cli_fail("sample: module '%s' has no sample hook; only modules that draw sample "
                           "permutations can be sampled",
                           m->name);
    pb_instance *in = pb_instances_insert(&o->inst, 0, m);
    if (!in) return pb_cli_fail("sample: out of memory");
    pb_err e;
    for (int i = optind + 1; i < argc; i++) {
        char key[64];
        const char *eq = strchr(argv[i], '=');
        if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof key)
            return pb_cli_fail("sample: expected PARAM=VALUE, got '%s'", argv[i]);
        snprintf(key, sizeof key, "%.*s", (int)(eq - argv[i]), argv[i]);
        if (pb_params_set(m, &in->params, key, eq + 1, &e)) return pb_cli_fail("sample: %s", e.msg);
    }
    char why[256];
    if (!pb_module_available(m, why, sizeof why))
        return pb_cli_fail("sample: module '%s' cannot run here: %s", m->name, why);
    uint64_t v;
    if (!n) return pb_cli_fail("sample: --n N is required (the length of each permutation)");
    if (pb_size_expr(n, &v, &e) || v < 2 || v > UINT32_MAX)
        return pb_cli_fail("sample: --n '%s': n must be 2 .. 2^32-1", n);
    if (m->max_n && v > m->max_n)
        return pb_cli_fail("sample: module '%s' supports n up to %llu, not %llu", m->name,
                           (unsigned long long)m->max_n, (unsigned long long)v);
    o->n = (uint32_t)v;
    if (!count) return pb_cli_fail("sample: --count C is required (how many permutations)");
    if (pb_size_expr(count, &o->count, &e) || o->count < 1 || o->count > (UINT64_C(1) << 40))
        return pb_cli_fail("sample: --count '%s': a count of rows in 1 .. 2^40", count);
    o->seed = 1;
    if (seed && !pb_ini_parse_u64(seed, &o->seed))
        return pb_cli_fail("sample: --seed '%s' is not an unsigned 64-bit integer", seed);
    o->format = PB_PERM_U32;
    if (format && pb_perm_format_parse(format, &o->format, &e)) return pb_cli_fail("sample: --format: %s", e.msg);
    if (o->format == PB_PERM_NPY) return pb_cli_fail("sample: --format npy is read by quality --input, not written");
    if (!o->out && o->format != PB_PERM_TEXT && isatty(STDOUT_FILENO))
        return pb_cli_fail("sample: binary rows to a terminal; give -o FILE or --format text");
    return 0;
}

/* Draws and writes every row, a batch at a time. 0, or the exit status
 * with the message printed. */
static int draw_and_write(const sample_opts *o, FILE *f, const char *fname)
{
    const pb_instance *in = &o->inst.v[0];
    pb_params params;
    pb_instance_resolved_params(in, &params);
    uint64_t batch = pb_quality_batch_of(UINT64_C(1) << 16, o->n);
    if (batch > o->count) batch = o->count;
    uint32_t *buf = malloc((size_t)(batch * o->n * sizeof *buf));
    unsigned char *seen = malloc(o->n);
    int status = 0;
    if (!buf || !seen) status = pb_cli_fail("sample: out of memory for %llu permutations of %u",
                                            (unsigned long long)batch, o->n);
    pb_err e;
    for (uint64_t first = 0; first < o->count && !status; first += batch) {
        uint64_t cnt = o->count - first < batch ? o->count - first : batch;
        if (pb_interrupted()) {
            fprintf(stderr, "permbench: sample: interrupted after %llu rows%s%s%s\n",
                    (unsigned long long)first, o->out ? "; " : "", o->out ? o->out : "",
                    o->out ? " not written" : "");
            status = 128 + pb_interrupt_signal();
            break;
        }
        if (pb_module_sample_perms(in->mod)(&params, o->n, o->seed, first, cnt, buf, &e)) {
            fprintf(stderr, "permbench: sample: %s failed at rows %llu..%llu: %s\n", in->mod->name,
                    (unsigned long long)first + 1, (unsigned long long)(first + cnt), e.msg);
            status = PB_EXIT_FAILED;
            break;
        }
        /* What is written claims to be permutations: a module that draws
         * anything else fails here, not in whoever reads the file. */
        for (uint64_t j = 0; j < cnt && !status; j++)
            if (!pb_is_permutation(buf + j * o->n, o->n, seen)) {
                fprintf(stderr, "permbench: sample: %s drew row %llu that is not a permutation of 0..%u\n",
                        in->mod->name, (unsigned long long)(first + j + 1), o->n - 1);
                status = PB_EXIT_FAILED;
            }
        if (!status && pb_perm_write(f, buf, o->n, cnt, o->format, &e))
            status = pb_cli_fail("sample: cannot write %s: %s", fname, e.msg);
    }
    free(buf);
    free(seen);
    return status;
}

/* Whether `path` is a file already there in a run's result directory (one
 * holding results.json or quality.json): the permutations would replace it,
 * results.json itself perhaps. */
static bool in_run_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return false;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    const char *d = slash ? (dir[0] ? dir : "/") : ".";
    return pb_dir_has(d, "results.json") || pb_dir_has(d, "quality.json");
}

int pb_cmd_sample(int argc, char **argv)
{
    sample_opts o;
    memset(&o, 0, sizeof o);
    int status = parse(argc, argv, &o);
    if (status) {
        pb_instances_free(&o.inst);
        return status < 0 ? PB_EXIT_OK : status;
    }
    pb_interrupt_install();
    pb_afile a;
    pb_err e;
    if (o.out && in_run_dir(o.out)) {
        pb_instances_free(&o.inst);
        return pb_cli_fail("sample: -o %s would overwrite a file of a run's results; write the "
                           "permutations elsewhere", o.out);
    }
    if (o.out && pb_afile_open(&a, o.out, &e)) {
        pb_instances_free(&o.inst);
        return pb_cli_fail("sample: %s", e.msg);
    }
    status = draw_and_write(&o, o.out ? a.f : stdout, o.out ? o.out : "standard output");
    if (o.out && status) {
        pb_afile_abort(&a);
    } else if (o.out && pb_afile_commit(&a, &e)) {
        status = pb_cli_fail("sample: %s", e.msg);
    } else if (!o.out && (fflush(stdout) != 0 || ferror(stdout))) {
        status = pb_cli_fail("sample: cannot write standard output: %s", strerror(errno ? errno : EIO));
    }
    pb_instances_free(&o.inst);
    return status;
}

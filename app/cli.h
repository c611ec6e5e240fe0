/* The permbench command line: one function per subcommand, each returning
 * the process exit status (0 ok, 1 a row failed verification or could not
 * run, 2 bad input). */
#ifndef PB_CLI_H
#define PB_CLI_H

#include <stdbool.h>

#include <stddef.h>

#include "core/err.h"

/* Bad input and faults (a full disk, a lost lock) are both 2: nothing
 * usable came of the call. */
enum { PB_EXIT_OK = 0, PB_EXIT_FAILED = 1, PB_EXIT_USAGE = 2, PB_EXIT_FAULT = 2 };

/* -D SECTION.KEY=VALUE options a call takes. */
#define PB_MAX_DEFINES 32

/* The whole command line, argv[0] the program: what main() runs. A program
 * built on the libraries may pb_registry_add() its own modules first. */
int pb_main(int argc, char **argv);

int pb_cmd_list(int argc, char **argv);
int pb_cmd_info(int argc, char **argv);
int pb_cmd_run(int argc, char **argv);
int pb_cmd_plot(int argc, char **argv);
int pb_cmd_quality(int argc, char **argv);
int pb_cmd_compare(int argc, char **argv);
int pb_cmd_sample(int argc, char **argv);
int pb_cmd_dmm(int argc, char **argv);

/* The instances skipped because this machine cannot run them, named on
 * one line once all are known (a CPU machine skips every GPU module). */
struct pb_instance;
typedef struct pb_skips {
    char names[1024];
    char why[256];
    size_t n;
    bool mixed; /* not all for the same reason */
} pb_skips;
void pb_skips_add(pb_skips *s, const struct pb_instance *in, const char *why);
/* "permbench: note: skipping 7 modules this machine cannot run (no CUDA
 * device): bijective0, ..." on stderr, if any. */
void pb_skips_print(const pb_skips *s);

/* Prints "permbench: <message>" as one line on stderr; returns 2. */
int pb_cli_fail(const char *fmt, ...) PB_PRINTF(1, 2);

/* Parses the options of subcommand `cmd`: `longopts` as for getopt_long.
 * Returns the option's value, -1 at the end, or a negative status after
 * printing the one-line error for an unknown option or missing argument
 * (-2). */
struct option;
int pb_cli_getopt(const char *cmd, int argc, char **argv, const struct option *longopts);

#endif

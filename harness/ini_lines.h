/* What both INI dialects (run's [sweep] configs, quality's [quality] configs)
 * need around inih: text fed to it a line at a time, so every callback knows
 * its line number and section headers are seen even for sections without
 * keys (inih reports only keys), and the rule for section labels. */
#ifndef PB_INI_LINES_H
#define PB_INI_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "harness/err.h"

typedef struct pb_ini_lines {
    const char *cursor; /* the rest of the text */
    int line;           /* number of the line last handed out */
} pb_ini_lines;

/* Copies the next line (with its newline) into str, at most num - 1 bytes;
 * NULL at the end of the text. *too_long says the line was cut. */
char *pb_ini_next_line(pb_ini_lines *in, char *str, int num, bool *too_long);

/* If `line` is a section header, "[name]" after optional blanks, copies the
 * name and returns true (a header without ']' is left to inih to report). */
bool pb_ini_section_name(const char *line, char *name, size_t len);

/* Reads a config file whole (at most 16 MiB of text) into *text (free()
 * it), and names it: the file name without directory or ".ini", the
 * <name> of results/<name>/. */
int pb_ini_read_file(const char *path, char **text, char *name, size_t namelen, pb_err *err);

/* A section label: 1-47 letters, digits, '.', '_', '+' or '-'. */
bool pb_label_valid(const char *s);

#endif

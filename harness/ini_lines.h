/* What both INI dialects (run's [sweep] configs, quality's [quality] configs)
 * need around inih: text fed to it a line at a time, so every callback knows
 * its line number and section headers are seen even for sections without
 * keys (inih reports only keys), and the rule for section labels. */
#ifndef PB_INI_LINES_H
#define PB_INI_LINES_H

#include <stdbool.h>
#include <stddef.h>

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

/* A section label: 1-47 letters, digits, '.', '_', '+' or '-'. */
bool pb_label_valid(const char *s);

#endif

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

/* Module sections kept raw until their module is known (the `module` key
 * may come after the parameters): both dialects collect them the same way. */
#define PB_INI_MAX_SECTIONS 64
#define PB_INI_MAX_KEYS 24

typedef struct pb_ini_key {
    char name[48];
    char value[200];
    int line;
} pb_ini_key;

typedef struct pb_ini_section {
    char name[48]; /* a valid label */
    int line;
    pb_ini_key keys[PB_INI_MAX_KEYS];
    int nkeys;
} pb_ini_section;

typedef struct pb_ini_sections {
    pb_ini_section sec[PB_INI_MAX_SECTIONS];
    int n;
} pb_ini_sections;

/* Opens section `name` (a valid label) at `line`; fails if it appeared
 * before or there are too many. */
int pb_ini_sections_open(pb_ini_sections *ss, const char *name, int line, pb_err *err);

/* Adds key `name` of section `section`; fails if the key was given twice in
 * it or it has too many. A key of a section never opened (its header was
 * bad, and reported) is dropped. */
int pb_ini_sections_add(pb_ini_sections *ss, const char *section, const char *name,
                        const char *value, int line, pb_err *err);

#endif

/* The one INI reader of permbench: `run` configs ([sweep] + module
 * sections) and `quality` configs ([quality] + module sections) are the
 * same document, read here with inih into sections and keys, each with its
 * line, before either dialect looks at a value.
 *
 *   ; a comment
 *   [sweep]                      the dialect's own section (its "head")
 *   sizes = 2^8+1 .. 2^20+1 *4,  a long list continues on indented lines
 *       2^24, 2^26
 *
 *   [bms]                        a module section: its name is a label
 *   buckets = 2, 4, 8 .. 256 *2  one list-valued key a section (instance.h)
 *
 * What the reader enforces for both dialects, each error as "FILE:LINE:
 * problem": lines of at most 199 characters; a section header is
 * "[name]" (leading blanks allowed) and must close; module section names are
 * labels (pb_label_valid) and appear once; a key appears once in its
 * section (an indented line continues the key before it; the parts are
 * joined by ", "); no key before the first section. A UTF-8 byte-order mark
 * is skipped. The head section's keys are applied through a table of
 * fields (pb_ini_apply), so an unknown key names the known ones.
 *
 * What a file may hold is bounded far above any real config, so a hostile
 * one is refused in one line rather than read for hours (each lookup is a
 * linear search, each continuation a copy): at most PB_INI_MAX_SECTIONS
 * module sections, PB_INI_MAX_KEYS keys a section, PB_INI_MAX_VALUE
 * characters a value with its continuations. */
#ifndef PB_INI_H
#define PB_INI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/err.h"
#include "core/fnv1a.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A label: 1-47 letters, digits, '.', '_', '+' or '-' (section names; an
 * instance from a list adds "/<param>=<value>" to it). */
#define PB_LABEL_MAX 48
bool pb_label_valid(const char *s);

/* Each module section is at least one instance, and a config has at most
 * 4096 (registry/instance.h); a module has at most 16 parameters and a
 * head section a few dozen keys; a list of 4096 values fits in 64 KiB. */
#define PB_INI_MAX_SECTIONS 4096
#define PB_INI_MAX_KEYS 256
#define PB_INI_MAX_VALUE 65536

typedef struct pb_ini_key {
    char *name;
    char *value; /* continuation lines joined with ", " */
    int line;    /* of the key's first line; -(i + 1) for the i-th -D override */
    /* Set by -D on the command line, not read from the file: a relative
     * path in it is the current directory's, not the config's. */
    bool from_command_line;
} pb_ini_key;

typedef struct pb_ini_section {
    char *name;
    int line; /* of its header */
    pb_ini_key *keys;
    size_t nkeys, cap;
} pb_ini_section;

/* The dialect: its head section, and a section of the other dialect to
 * refuse with a hint (a quality config given [sweep], say). */
typedef struct pb_ini_dialect {
    const char *head;
    const char *foreign;
    const char *foreign_hint;
} pb_ini_dialect;

/* How a config compiled into the binary is named in messages and results:
 * PB_INI_BUILTIN "configs/default.ini". */
#define PB_INI_BUILTIN "(built-in) "

typedef struct pb_ini {
    char path[1024]; /* in messages: as given, or PB_INI_BUILTIN "configs/NAME.ini" */
    /* The directory relative paths in the file's values are resolved
     * against (`dist = file:keys.bin`): the config file's, as given (so a
     * config and its data move together); "" (the current directory) for
     * a built-in config. */
    char dir[1024];
    char name[128];  /* results/<name>/...: the file name without directory and ".ini" */
    char *text;      /* the whole text, for the hash and the results */
    uint64_t hash;   /* FNV-1a 64 of text */
    pb_ini_section head; /* head.line == 0: the file has none */
    pb_ini_section *secs; /* the module sections, in file order */
    size_t nsecs, cap;
} pb_ini;

/* Reads and parses a file (at most 16 MiB of text, no NUL bytes). */
int pb_ini_load_file(const char *path, const pb_ini_dialect *d, pb_ini *doc, pb_err *err);
/* The same from text in memory; `path` names it in messages, `name` is its
 * results name. On failure nothing stays allocated. */
int pb_ini_load_text(const char *path, const char *name, const char *text,
                     const pb_ini_dialect *d, pb_ini *doc, pb_err *err);
void pb_ini_free(pb_ini *doc);

/* Sets "PATH:LINE: message" ("-D SECTION.KEY=VALUE: message" for a key set
 * by -D, "PATH: message" for line 0); returns -1. */
int pb_ini_fail(pb_err *err, const pb_ini *doc, int line, const char *fmt, ...) PB_PRINTF(4, 5);

/* A key of the head section and how to take its value: `set` parses it
 * into the dialect's config, or returns -1 with a message (without file
 * and line, which pb_ini_apply adds). `arg` is the setter's own (which of
 * several like keys this is). */
typedef struct pb_ini_field {
    const char *name;
    int (*set)(void *cfg, const struct pb_ini_field *f, const char *value, int line, pb_err *err);
    const void *arg;
} pb_ini_field;

/* Applies every head key through `fields`, in file order. */
int pb_ini_apply(const pb_ini *doc, const pb_ini_field *fields, size_t nfields, void *cfg,
                 pb_err *err);

/* The key `name` of a section, or NULL. */
const pb_ini_key *pb_ini_find(const pb_ini_section *s, const char *name);

/* One syntax for every list value: items separated by commas, blanks
 * around them ignored, no item empty. Splits `value` into a fresh array of
 * fresh strings (pb_ini_words_free it); an empty item is an error naming
 * the list. */
int pb_ini_words(const char *value, char ***words, size_t *nwords, pb_err *err);
void pb_ini_words_free(char **words, size_t nwords);

/* Scalar values, one rule each for both dialects. */
bool pb_ini_parse_bool(const char *text, bool *out);
bool pb_ini_parse_u64(const char *text, uint64_t *out);  /* decimal or 0x hex */
bool pb_ini_parse_double(const char *text, double *out); /* finite */

#ifdef __cplusplus
}
#endif

#endif

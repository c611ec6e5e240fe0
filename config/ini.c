#include "config/ini.h"
#include "config/ini_override.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "core/module_aliases.h"

/* inih's line buffer: a longer line is refused, not cut. */
#define LINE_MAX_CHARS 199

bool pb_label_valid(const char *s)
{
    if (!*s || strlen(s) >= PB_LABEL_MAX) return false;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && !strchr("._+-", *s)) return false;
    return true;
}

int pb_ini_fail(pb_err *err, const pb_ini *doc, int line, const char *fmt, ...)
{
    char msg[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0) return pb_err_set(err, "%s:%d: %s", doc->path, line, msg);
    /* A key set by -D: the option named, not a line of the file that holds
     * something else. */
    char sec[128], key[128];
    const char *value, *def;
    if (line < 0 &&
        pb_ini_override_get((size_t)(-line - 1), sec, sizeof sec, key, sizeof key, &value, &def) == 0)
        return pb_err_set(err, "-D %s: %s", def, msg);
    return pb_err_set(err, "%s: %s", doc->path, msg);
}

/* ---- building the document ---------------------------------------------- */

typedef struct parse_state {
    pb_ini *doc;
    const pb_ini_dialect *d;
    pb_err *err;
    const char *cursor; /* the rest of the text */
    int line;           /* of the line last handed to inih */
    bool indented;      /* that line began with a blank: a continuation */
    bool failed;
    pb_ini_section *cur; /* the section inih is in; NULL before the first */
    pb_ini_key *last;    /* the key the previous key line set, for continuations */
} parse_state;

static int fail_at(parse_state *st, int line, const char *fmt, ...) PB_PRINTF(3, 4);

/* Keeps the first error only (inih calls on after one) and returns 0,
 * which tells inih the line was bad. */
static int fail_at(parse_state *st, int line, const char *fmt, ...)
{
    if (!st->failed) {
        char msg[448];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        pb_ini_fail(st->err, st->doc, line, "%s", msg);
        st->failed = true;
    }
    return 0;
}

static pb_ini_section *find_section(pb_ini *doc, const char *name)
{
    for (size_t i = 0; i < doc->nsecs; i++)
        if (strcmp(doc->secs[i].name, name) == 0) return &doc->secs[i];
    return NULL;
}

static pb_ini_section *open_section(parse_state *st, const char *name)
{
    pb_ini *doc = st->doc;
    if (strcmp(name, st->d->head) == 0) {
        if (doc->head.line) {
            fail_at(st, st->line, "section [%s] appears twice", name);
            return NULL;
        }
        doc->head.line = st->line;
        doc->head.name = strdup(name);
        if (!doc->head.name) return fail_at(st, st->line, "out of memory"), NULL;
        return &doc->head;
    }
    if (st->d->foreign && strcmp(name, st->d->foreign) == 0) {
        fail_at(st, st->line, "%s", st->d->foreign_hint);
        return NULL;
    }
    if (!pb_label_valid(name)) {
        fail_at(st, st->line,
                "bad section name [%s]: a label is 1-47 letters, digits, '.', '_', '+' or '-'", name);
        return NULL;
    }
    if (find_section(doc, name)) {
        fail_at(st, st->line, "section [%s] appears twice", name);
        return NULL;
    }
    if (doc->nsecs == PB_INI_MAX_SECTIONS) {
        fail_at(st, st->line, "more than %d module sections", PB_INI_MAX_SECTIONS);
        return NULL;
    }
    if (doc->nsecs == doc->cap) {
        size_t cap = doc->cap ? 2 * doc->cap : 16;
        pb_ini_section *s = realloc(doc->secs, cap * sizeof *s);
        if (!s) return fail_at(st, st->line, "out of memory"), NULL;
        doc->secs = s;
        doc->cap = cap;
    }
    pb_ini_section *s = &doc->secs[doc->nsecs];
    memset(s, 0, sizeof *s);
    s->name = strdup(name);
    s->line = st->line;
    if (!s->name) return fail_at(st, st->line, "out of memory"), NULL;
    doc->nsecs++;
    return s;
}

/* Hands inih one line at a time, so every callback knows its line; sees
 * section headers itself (inih reports only keys, and would take an
 * indented header for a continuation); refuses what inih would cut or
 * misread. */
static char *reader(char *str, int num, void *stream)
{
    parse_state *st = stream;
    /* After the first error (the one reported) the rest is not read: a
     * hostile file would otherwise cost a search per line to the end. */
    if (!*st->cursor || st->failed) return NULL;
    const char *nl = strchr(st->cursor, '\n');
    size_t len = nl ? (size_t)(nl - st->cursor + 1) : strlen(st->cursor);
    const char *line = st->cursor;
    st->cursor += len;
    st->line++;
    if (st->line == 1 && len >= 3 && memcmp(line, "\xEF\xBB\xBF", 3) == 0) line += 3, len -= 3;
    size_t body = len;
    while (body && (line[body - 1] == '\n' || line[body - 1] == '\r')) body--;
    if (body > LINE_MAX_CHARS) {
        /* Reported, and not looked into: past inih's buffer, an indented
         * header's offset exceeded the cut length (a wrapped memcpy). */
        fail_at(st, st->line, "line longer than %d characters", LINE_MAX_CHARS);
        str[0] = '\0';
        return str;
    }
    if (len >= (size_t)num) len = (size_t)num - 1;

    const char *p = line;
    while (p < line + body && (*p == ' ' || *p == '\t')) p++;
    /* `#` after a blank starts a comment, as `;` does for inih: `sizes =
     * 2^10 # note` is 2^10, not a size expression with spaces in it. */
    if (p < line + body && *p != ';' && *p != '#')
        for (const char *h = p + 1; h < line + body; h++)
            if (*h == '#' && (h[-1] == ' ' || h[-1] == '\t')) {
                body = len = (size_t)(h - line);
                break;
            }
    st->indented = p > line && p < line + body && *p != ';' && *p != '#';
    if (p < line + body && *p == '[') {
        /* A header: handed on unindented, so inih opens the section too. */
        const char *close = memchr(p, ']', (size_t)(line + body - p));
        if (!close) {
            fail_at(st, st->line, "section header '%.*s' has no closing ']'", (int)(line + body - p), p);
        } else {
            char name[LINE_MAX_CHARS + 1];
            snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
            st->cur = open_section(st, name);
        }
        st->last = NULL;
        st->indented = false;
        len -= (size_t)(p - line);
        line = p;
    }
    memcpy(str, line, len);
    str[len] = '\0';
    return str;
}

static int add_key(parse_state *st, pb_ini_section *s, const char *name, const char *value)
{
    if (s->nkeys == PB_INI_MAX_KEYS)
        return fail_at(st, st->line, "more than %d keys in [%s]", PB_INI_MAX_KEYS, s->name);
    if (s->nkeys == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        pb_ini_key *k = realloc(s->keys, cap * sizeof *k);
        if (!k) return fail_at(st, st->line, "out of memory");
        s->keys = k;
        s->cap = cap;
    }
    pb_ini_key *k = &s->keys[s->nkeys];
    k->name = strdup(name);
    k->value = strdup(value);
    k->line = st->line;
    k->from_command_line = false;
    if (!k->name || !k->value) {
        free(k->name);
        free(k->value);
        return fail_at(st, st->line, "out of memory");
    }
    s->nkeys++;
    st->last = k;
    return 1;
}

/* An indented line after a key continues its value: "a, b," + "c" and
 * "a, b" + "c" both give "a, b, c". */
static int continue_key(parse_state *st, pb_ini_key *k, const char *more)
{
    size_t l = strlen(k->value);
    while (l && (k->value[l - 1] == ' ' || k->value[l - 1] == '\t')) l--;
    if (l && k->value[l - 1] == ',') l--;
    if (l + 2 + strlen(more) > PB_INI_MAX_VALUE)
        return fail_at(st, st->line, "the value of '%s' is longer than %d characters", k->name,
                       PB_INI_MAX_VALUE);
    char *v = malloc(l + 2 + strlen(more) + 1);
    if (!v) return fail_at(st, st->line, "out of memory");
    memcpy(v, k->value, l);
    sprintf(v + l, ", %s", more);
    free(k->value);
    k->value = v;
    return 1;
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    parse_state *st = user;
    (void)section; /* the reader tracks sections itself */
    if (st->failed) return 1;
    if (!st->cur) {
        if (st->doc->head.line || st->doc->nsecs) return 1; /* a refused header, reported */
        return fail_at(st, st->line, "key '%s' outside any section (start with [%s])", name,
                       st->d->head);
    }
    if (st->indented && st->last && strcmp(st->last->name, name) == 0)
        return continue_key(st, st->last, value);
    if (pb_ini_find(st->cur, name))
        return fail_at(st, st->line, "key '%s' given twice in [%s]", name,
                       st->cur == &st->doc->head ? st->d->head : st->cur->name);
    return add_key(st, st->cur, name, value);
}

static void free_section(pb_ini_section *s)
{
    for (size_t k = 0; k < s->nkeys; k++) {
        free(s->keys[k].name);
        free(s->keys[k].value);
    }
    free(s->keys);
    free(s->name);
}

void pb_ini_free(pb_ini *doc)
{
    free_section(&doc->head);
    for (size_t i = 0; i < doc->nsecs; i++) free_section(&doc->secs[i]);
    free(doc->secs);
    free(doc->text);
    memset(doc, 0, sizeof *doc);
}

/* -D SECTION.KEY=VALUE (config/ini_override.h): KEY replaced in [SECTION],
 * or added there, before any dialect reads the document. */
static int override_key(pb_ini_section *s, const char *key, const char *value, int line, pb_err *err)
{
    for (size_t i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i].name, key) == 0) {
            char *v = strdup(value);
            if (!v) return pb_err_set(err, "out of memory");
            free(s->keys[i].value);
            s->keys[i].value = v;
            s->keys[i].line = line;
            s->keys[i].from_command_line = true;
            return 0;
        }
    if (s->nkeys == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        pb_ini_key *k = realloc(s->keys, cap * sizeof *k);
        if (!k) return pb_err_set(err, "out of memory");
        s->keys = k;
        s->cap = cap;
    }
    pb_ini_key *k = &s->keys[s->nkeys];
    k->name = strdup(key);
    k->value = strdup(value);
    k->line = line;
    k->from_command_line = true;
    if (!k->name || !k->value) {
        free(k->name);
        free(k->value);
        return pb_err_set(err, "out of memory");
    }
    s->nkeys++;
    return 0;
}

/* The directory of the file the document was read from ("" for a built-in
 * one, and for a file in the current directory). A resumed run reads its
 * config's text from results.json under the file's path as given, so it
 * resolves relative paths as the first run did (from the same directory). */
static void set_dir(pb_ini *doc)
{
    doc->dir[0] = '\0';
    if (strncmp(doc->path, PB_INI_BUILTIN, strlen(PB_INI_BUILTIN)) == 0) return;
    const char *slash = strrchr(doc->path, '/');
    if (!slash) return;
    if (slash == doc->path) snprintf(doc->dir, sizeof doc->dir, "/");
    else snprintf(doc->dir, sizeof doc->dir, "%.*s", (int)(slash - doc->path), doc->path);
}

static int apply_overrides(pb_ini *doc, pb_err *err)
{
    char sec[128], key[128];
    const char *value, *def;
    for (size_t i = 0; pb_ini_override_get(i, sec, sizeof sec, key, sizeof key, &value, &def) == 0; i++) {
        if (!value) return pb_ini_override_check(def, err);
        pb_ini_section *s = doc->head.line && doc->head.name && strcmp(doc->head.name, sec) == 0
                                ? &doc->head : find_section(doc, sec);
        /* A module's section under its old name or its new one, whichever
         * the other side uses (core/module_aliases.h). */
        const char *now = pb_module_alias_new(sec), *was = pb_module_alias_old(sec);
        if (!s && now && (s = find_section(doc, now))) pb_module_alias_note(sec);
        if (!s && was) s = find_section(doc, was);
        if (!s) return pb_err_set(err, "-D %s: %s has no section [%s]", def, doc->path, sec);
        /* Its line: -(i + 1), which pb_ini_fail turns into "-D DEF". */
        if (override_key(s, key, value, -(int)i - 1, err)) return -1;
        /* The document is no longer the file: its hash says so. */
        doc->hash = pb_fnv1a64_update(doc->hash, def, strlen(def));
    }
    return 0;
}

int pb_ini_load_text(const char *path, const char *name, const char *text,
                     const pb_ini_dialect *d, pb_ini *doc, pb_err *err)
{
    memset(doc, 0, sizeof *doc);
    snprintf(doc->path, sizeof doc->path, "%s", path);
    snprintf(doc->name, sizeof doc->name, "%s", name);
    set_dir(doc);
    parse_state st = {.doc = doc, .d = d, .err = err, .cursor = text};
    int rc = ini_parse_stream(reader, &st, handler, &st);
    if (!st.failed && rc > 0)
        fail_at(&st, rc, "malformed line (expected [section], key = value, or a comment)");
    else if (!st.failed && rc < 0)
        fail_at(&st, 0, "cannot parse (inih error %d)", rc);
    if (!st.failed && !(doc->text = strdup(text))) fail_at(&st, 0, "out of memory");
    if (st.failed) {
        pb_ini_free(doc);
        return -1;
    }
    doc->hash = pb_fnv1a64(text, strlen(text));
    if (apply_overrides(doc, err)) { /* -D SECTION.KEY=VALUE */
        pb_ini_free(doc);
        return -1;
    }
    return 0;
}

int pb_ini_load_file(const char *path, const pb_ini_dialect *d, pb_ini *doc, pb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return pb_err_set(err, "%s: cannot open config: %s", path, strerror(errno));
    /* A directory opens on Linux and then fails to read: say what it is
     * (a result directory given to run, say) rather than "cannot read". */
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return pb_err_set(err, "%s: is a directory, not a config file (CONFIG.ini)", path);
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *t = cap > (1u << 24) ? NULL : realloc(text, cap);
            if (!t) {
                fclose(f);
                free(text);
                return pb_err_set(err, "%s: config larger than 16 MiB or out of memory", path);
            }
            text = t;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096) break;
    }
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        return pb_err_set(err, "%s: cannot read config", path);
    }
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        free(text);
        return pb_err_set(err, "%s: not a text file", path);
    }
    char name[128];
    const char *base = strrchr(path, '/');
    snprintf(name, sizeof name, "%s", base ? base + 1 : path);
    char *dot = strrchr(name, '.');
    if (dot && strcmp(dot, ".ini") == 0) *dot = '\0';
    int rc = pb_ini_load_text(path, name, text, d, doc, err);
    free(text);
    return rc;
}

/* ---- reading it --------------------------------------------------------- */

const pb_ini_key *pb_ini_find(const pb_ini_section *s, const char *name)
{
    for (size_t k = 0; k < s->nkeys; k++)
        if (strcmp(s->keys[k].name, name) == 0) return &s->keys[k];
    return NULL;
}

int pb_ini_apply(const pb_ini *doc, const pb_ini_field *fields, size_t nfields, void *cfg,
                 pb_err *err)
{
    for (size_t k = 0; k < doc->head.nkeys; k++) {
        const pb_ini_key *key = &doc->head.keys[k];
        const pb_ini_field *f = NULL;
        for (size_t i = 0; i < nfields && !f; i++)
            if (strcmp(fields[i].name, key->name) == 0) f = &fields[i];
        if (!f) {
            char known[512];
            size_t off = 0;
            for (size_t i = 0; i < nfields && off < sizeof known; i++)
                off += (size_t)snprintf(known + off, sizeof known - off, "%s%s", i ? ", " : "",
                                        fields[i].name);
            return pb_ini_fail(err, doc, key->line, "unknown key '%s' in [%s] (known: %s)",
                               key->name, doc->head.name, known);
        }
        pb_err e;
        if (f->set(cfg, f, key->value, key->line, &e))
            return pb_ini_fail(err, doc, key->line, "%s", e.msg);
    }
    return 0;
}

int pb_ini_words(const char *value, char ***words, size_t *nwords, pb_err *err)
{
    size_t n = 1;
    for (const char *p = value; *p; p++) n += *p == ',';
    char **w = calloc(n, sizeof *w);
    if (!w) return pb_err_set(err, "out of memory");
    const char *p = value;
    for (size_t i = 0; i < n; i++) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        while (p < end && (*p == ' ' || *p == '\t')) p++;
        const char *e = end;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t')) e--;
        if (e == p) {
            pb_ini_words_free(w, n);
            return pb_err_set(err, "empty value in the list '%s'", value);
        }
        w[i] = strndup(p, (size_t)(e - p));
        if (!w[i]) {
            pb_ini_words_free(w, n);
            return pb_err_set(err, "out of memory");
        }
        p = comma ? comma + 1 : end;
    }
    *words = w;
    *nwords = n;
    return 0;
}

void pb_ini_words_free(char **words, size_t nwords)
{
    if (!words) return;
    for (size_t i = 0; i < nwords; i++) free(words[i]);
    free(words);
}

bool pb_ini_parse_bool(const char *text, bool *out)
{
    static const char *yes[] = {"yes", "true", "on", "1"};
    static const char *no[] = {"no", "false", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0) return (*out = true, true);
        if (strcasecmp(text, no[i]) == 0) return (*out = false, true);
    }
    return false;
}

bool pb_ini_parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || end == text || *end || text[0] == '-' || isspace((unsigned char)text[0])) return false;
    *out = v;
    return true;
}

bool pb_ini_parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(text, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (errno || end == text || *end || !isfinite(d)) return false;
    *out = d;
    return true;
}

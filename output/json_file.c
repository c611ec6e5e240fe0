#include "output/json_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

typedef struct gz_source {
    gzFile gz;
    const char *path;
    char why[120]; /* zlib's reason, "" while the stream is sound */
} gz_source;

/* jansson's reader callback: a read error looks like the end of input to
 * jansson, so the reason is kept here and reported over whatever it made. */
static size_t gz_pull(void *buf, size_t len, void *arg)
{
    gz_source *s = arg;
    int n = gzread(s->gz, buf, (unsigned)len);
    int code = Z_OK;
    const char *msg = n <= 0 ? gzerror(s->gz, &code) : NULL;
    /* A stream cut short ends in 0 with Z_BUF_ERROR, not in -1: only the
     * error code tells it from the end of the data. */
    if (n < 0 || (n == 0 && code != Z_OK)) {
        /* zlib says "PATH: reason"; the caller's message names the path. */
        size_t len = strlen(s->path);
        if (msg && strncmp(msg, s->path, len) == 0 && strncmp(msg + len, ": ", 2) == 0)
            msg += len + 2;
        snprintf(s->why, sizeof s->why, "%s", msg && *msg ? msg : "read error");
        return (size_t)-1;
    }
    return (size_t)n;
}

static bool is_gzip(const char *path)
{
    unsigned char magic[2] = {0, 0};
    FILE *f = fopen(path, "rb");
    if (!f) return false; /* json_load_file then says why */
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
}

/* An error jansson's way for a fault outside the JSON: no line. */
static json_t *fail(json_error_t *je, const char *path, const char *what, const char *why)
{
    memset(je, 0, sizeof *je);
    je->line = je->column = je->position = -1;
    snprintf(je->source, sizeof je->source, "%s", path);
    snprintf(je->text, sizeof je->text, "%s (%s)", what, why);
    return NULL;
}

json_t *pb_json_load_file(const char *path, json_error_t *je)
{
    /* A plain file takes jansson's own path, messages and all. */
    if (!is_gzip(path)) return json_load_file(path, 0, je);
    gz_source s = {gzopen(path, "rb"), path, ""};
    if (!s.gz)
        return fail(je, path, "cannot open the gzip stream", strerror(errno ? errno : ENOMEM));
    json_t *root = json_load_callback(gz_pull, &s, 0, je);
    /* jansson stops at a fault; the rest is read all the same, so that a
     * damaged stream is called damaged rather than bad JSON somewhere. */
    if (!root && !s.why[0]) {
        char rest[4096];
        size_t got;
        do got = gz_pull(rest, sizeof rest, &s);
        while (got != 0 && got != (size_t)-1);
    }
    gzclose_r(s.gz);
    /* Checked even when jansson made a document: the CRC at the end of the
     * stream is what says the whole of it was sound. */
    if (s.why[0]) {
        json_decref(root);
        return fail(je, path, "corrupt gzip data", s.why);
    }
    if (root) return root;
    snprintf(je->source, sizeof je->source, "%s", path);
    return NULL;
}

bool pb_results_json_in(const char *dir, char *path, size_t len)
{
    /* Plain first: a live run writes it, and a packed reference run has
     * only the .gz (scripts/pack-reference.sh). */
    snprintf(path, len, "%s/results.json", dir);
    if (access(path, F_OK) == 0) return true;
    snprintf(path, len, "%s/results.json.gz", dir);
    if (access(path, F_OK) == 0) return true;
    snprintf(path, len, "%s/results.json", dir);
    return false;
}

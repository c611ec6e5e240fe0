#include "output/journal_file.h"

#include "output/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory's own entry for a new file is only durable once the
 * directory is synced; without it a crash could lose the whole journal. */
static void sync_dir_of(const char *path)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

int pb_journal_create(pb_journal *j, const char *path, json_t *first, pb_err *err)
{
    snprintf(j->path, sizeof j->path, "%s", path);
    j->fd = -1;
    /* The first line goes in whole or not at all (a temporary renamed into
     * place), so a journal that exists always has it. */
    char *text = first ? json_dumps(first, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(first);
    if (!text) return pb_err_set(err, "cannot build the first line of %s", path);
    pb_afile a;
    if (pb_afile_open(&a, path, err)) {
        free(text);
        return -1;
    }
    fprintf(a.f, "%s\n", text);
    free(text);
    if (pb_afile_commit(&a, err)) return -1;
    sync_dir_of(path);
    return pb_journal_reopen(j, path, err);
}

/* Bytes up to and including the last newline of the file open on fd. */
static int whole_size(int fd, off_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    off_t end = st.st_size;
    char buf[4096];
    while (end > 0) {
        off_t from = end > (off_t)sizeof buf ? end - (off_t)sizeof buf : 0;
        ssize_t got = pread(fd, buf, (size_t)(end - from), from);
        if (got != end - from) return -1;
        for (ssize_t k = got - 1; k >= 0; k--)
            if (buf[k] == '\n') {
                *size = from + k + 1;
                return 0;
            }
        end = from;
    }
    *size = 0;
    return 0;
}

int pb_journal_reopen(pb_journal *j, const char *path, pb_err *err)
{
    snprintf(j->path, sizeof j->path, "%s", path);
    j->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
    if (j->fd < 0) return pb_err_set(err, "cannot write %s: %s", path, strerror(errno));
    if (whole_size(j->fd, &j->size) != 0 || ftruncate(j->fd, j->size) != 0 || fsync(j->fd) != 0) {
        int e = errno ? errno : EIO;
        pb_journal_close(j);
        return pb_err_set(err, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

int pb_journal_append(pb_journal *j, json_t *doc, pb_err *err)
{
    char *text = doc ? json_dumps(doc, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(doc);
    if (!text) return pb_err_set(err, "cannot build a line of %s", j->path);
    size_t len = strlen(text);
    /* One write of the line with its newline: a reader sees either the
     * whole line or a torn one without its newline. */
    char *line = realloc(text, len + 2);
    if (!line) {
        free(text);
        return pb_err_set(err, "out of memory");
    }
    line[len++] = '\n';
    line[len] = '\0';
    size_t done = 0;
    int e = 0;
    while (done < len && !e) {
        ssize_t w = write(j->fd, line + done, len - done);
        if (w > 0) done += (size_t)w;
        else if (w < 0 && errno != EINTR) e = errno;
        else if (w == 0) e = EIO;
    }
    free(line);
    if (!e && fsync(j->fd) != 0) e = errno;
    if (e) {
        /* What reached the file of this line goes again (best effort: the
         * reader ignores a torn last line in any case). */
        if (ftruncate(j->fd, j->size) == 0) fsync(j->fd);
        return pb_err_set(err, "cannot write %s: %s", j->path, strerror(e));
    }
    j->size += (off_t)len;
    return 0;
}

void pb_journal_close(pb_journal *j)
{
    if (j->fd >= 0) close(j->fd);
    j->fd = -1;
}

json_t *pb_journal_read(const char *path, pb_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) return pb_err_set(err, "cannot read %s: %s", path, strerror(errno)), NULL;
    json_t *docs = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    while (docs && (len = getline(&line, &cap, f)) > 0) {
        no++;
        if (line[len - 1] != '\n') break; /* torn: the writer died in it */
        json_error_t je;
        json_t *doc = json_loadb(line, (size_t)len, 0, &je);
        if (!json_is_object(doc)) {
            json_decref(doc);
            json_decref(docs);
            docs = NULL;
            pb_err_set(err, "%s: line %ld is damaged (%s)", path, no, doc ? "not an object" : je.text);
            break;
        }
        json_array_append_new(docs, doc);
    }
    if (docs && ferror(f)) {
        json_decref(docs);
        docs = NULL;
        pb_err_set(err, "cannot read %s: %s", path, strerror(errno ? errno : EIO));
    }
    free(line);
    fclose(f);
    return docs;
}

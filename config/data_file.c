/* realpath(): glibc declares it for X/Open, not for plain POSIX 2008. */
#define _XOPEN_SOURCE 700

#include "config/data_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha256.h"

/* The table: pointers to entries, so an entry never moves when it grows.
 * Configs are read on one thread, but tests build problems from several,
 * so every access holds the lock. */
static pb_data_file **table;
static size_t count, cap;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* path joined to base (or the cwd), absolute. */
static int join(const char *path, const char *base_dir, char *out, size_t len, pb_err *err)
{
    char cwd[PB_DATA_PATH_MAX];
    const char *base = path[0] == '/' ? "" : base_dir && base_dir[0] ? base_dir : ".";
    /* One slash between the parts, also after a base of "/" (a config at
     * the root) or "dir/", and after a current directory of "/". */
    size_t bl = strlen(base);
    char joined[2 * PB_DATA_PATH_MAX + 2];
    snprintf(joined, sizeof joined, "%s%s%s", base, bl && base[bl - 1] != '/' ? "/" : "", path);
    if (joined[0] != '/') {
        if (!getcwd(cwd, sizeof cwd))
            return pb_err_set(err, "cannot name the current directory (%s): file:%s",
                              strerror(errno), path);
        /* "./x" reads better as "x" once absolute. */
        const char *rel = joined;
        while (rel[0] == '.' && rel[1] == '/') rel += 2;
        if ((size_t)snprintf(out, len, "%s/%s", strcmp(cwd, "/") ? cwd : "", rel) >= len)
            return pb_err_set(err, "the path is longer than %zu characters: file:%s", len - 1, path);
    } else if ((size_t)snprintf(out, len, "%s", joined) >= len) {
        return pb_err_set(err, "the path is longer than %zu characters: file:%s", len - 1, path);
    }
    /* The file itself when it exists, so two spellings of one file are one
     * entry and results name the file, not a link to it. */
    char *real = realpath(out, NULL);
    if (real && strlen(real) < len) {
        snprintf(out, len, "%s", real);
    } else if (!real) {
        /* A missing file: its directory resolved, so the message names
         * where it was looked for without "cfg/../". */
        char *slash = strrchr(out, '/');
        *slash = '\0';
        char *dir = slash > out ? realpath(out, NULL) : NULL;
        *slash = '/';
        /* The root resolves to "/": no second slash after it ("/../x" is
         * "/x", not "//x"). */
        size_t dl = dir && strcmp(dir, "/") != 0 ? strlen(dir) : 0, nl = strlen(slash + 1);
        if (dir && dl + 1 + nl < len) {
            memmove(out + dl + 1, slash + 1, nl + 1);
            memcpy(out, dir, dl);
            out[dl] = '/';
        }
        free(dir);
    }
    free(real);
    return 0;
}

long pb_data_file_intern(const char *path, const char *base_dir, pb_err *err)
{
    if (!path[0]) return pb_err_set(err, "file: needs a path (file:PATH)");
    char resolved[PB_DATA_PATH_MAX];
    if (join(path, base_dir, resolved, sizeof resolved, err)) return -1;
    /* Named in one-line messages and in JSON strings: no newline, no
     * escape sequence (the base directory is the config's, so it is
     * checked too). */
    for (const char *c = resolved; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return pb_err_set(err, "file: the path holds a control character (0x%02x)",
                              (unsigned)(unsigned char)*c);
    pthread_mutex_lock(&lock);
    long id = -1;
    bool full = false;
    for (size_t i = 0; i < count && id < 0; i++)
        if (strcmp(table[i]->path, resolved) == 0) id = (long)i;
    if (id < 0 && count == PB_DATA_FILES_MAX) {
        full = true;
    } else if (id < 0) {
        pb_data_file *f = calloc(1, sizeof *f);
        if (f && count == cap) {
            size_t c = cap ? 2 * cap : 8;
            pb_data_file **t = realloc(table, c * sizeof *t);
            if (t) table = t, cap = c;
        }
        if (f && count < cap) {
            snprintf(f->path, sizeof f->path, "%s", resolved);
            table[count] = f;
            id = (long)count++;
        } else {
            free(f);
        }
    }
    pthread_mutex_unlock(&lock);
    if (full) return pb_err_set(err, "more than %d data files: file:%s", PB_DATA_FILES_MAX, path);
    if (id < 0) return pb_err_set(err, "out of memory");
    return id;
}

pb_data_file *pb_data_file_at(long id)
{
    pthread_mutex_lock(&lock);
    pb_data_file *f = id >= 0 && (size_t)id < count ? table[id] : NULL;
    pthread_mutex_unlock(&lock);
    return f;
}

size_t pb_data_file_count(void)
{
    pthread_mutex_lock(&lock);
    size_t n = count;
    pthread_mutex_unlock(&lock);
    return n;
}

void pb_data_files_clear(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count; i++) free(table[i]);
    free(table);
    table = NULL;
    count = cap = 0;
    pthread_mutex_unlock(&lock);
}

static int64_t mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Whether the open file is the one the check recorded. */
static bool same_as_checked(const pb_data_file *f, const struct stat *st)
{
    return (uint64_t)st->st_size == f->bytes && (uint64_t)st->st_dev == f->dev &&
           (uint64_t)st->st_ino == f->ino && mtime_ns(st) == f->mtime_ns;
}

static int changed(const pb_data_file *f, const struct stat *st, pb_err *err)
{
    return pb_err_set(err,
                      "changed since it was checked (%llu bytes modified at %lld ns, now %llu "
                      "bytes at %lld ns): file:%s",
                      (unsigned long long)f->bytes, (long long)f->mtime_ns,
                      (unsigned long long)st->st_size, (long long)mtime_ns(st), f->path);
}

/* Opens f and stats it: a regular, readable file. Opened without
 * blocking, then stat'ed, so a FIFO or a terminal (`file:/dev/stdin`) is
 * refused at once instead of waiting for a writer; a regular file reads the
 * same either way. */
static FILE *open_file(const pb_data_file *f, struct stat *st, pb_err *err)
{
    int fd = open(f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        pb_err_set(err, "cannot open (%s): file:%s", strerror(errno), f->path);
        return NULL;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        pb_err_set(err, "not a regular file: file:%s", f->path);
        close(fd);
        return NULL;
    }
    FILE *fp = fdopen(fd, "rb");
    if (!fp) {
        pb_err_set(err, "cannot open (%s): file:%s", strerror(errno), f->path);
        close(fd);
    }
    return fp;
}

/* The first check: the hash of every byte, through a small buffer. */
static int record(pb_data_file *f, FILE *fp, const struct stat *st, pb_err *err)
{
    unsigned char buf[1 << 16];
    pb_sha256 sha;
    pb_sha256_init(&sha);
    uint64_t total = 0;
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, fp)) > 0) {
        pb_sha256_update(&sha, buf, got);
        total += got;
    }
    if (ferror(fp)) return pb_err_set(err, "cannot read (%s): file:%s", strerror(errno), f->path);
    if (total != (uint64_t)st->st_size)
        return pb_err_set(err, "changed while it was hashed (%llu bytes, then %llu): file:%s",
                          (unsigned long long)st->st_size, (unsigned long long)total, f->path);
    f->bytes = total;
    pb_sha256_hex(&sha, f->sha256);
    f->dev = (uint64_t)st->st_dev;
    f->ino = (uint64_t)st->st_ino;
    f->mtime_ns = mtime_ns(st);
    f->checked = true;
    return 0;
}

static int check_locked(pb_data_file *f, unsigned key_bytes, uint64_t need, uint64_t *have,
                        pb_err *err)
{
    struct stat st;
    FILE *fp = open_file(f, &st, err);
    if (!fp) return -1;
    int rc = 0;
    if (f->checked && !same_as_checked(f, &st)) rc = changed(f, &st, err);
    else if (!f->checked) rc = record(f, fp, &st, err);
    fclose(fp);
    if (rc) return rc;
    if (f->bytes % key_bytes)
        return pb_err_set(err, "%llu bytes are not a whole number of %u-byte keys (%llu left over): file:%s",
                          (unsigned long long)f->bytes, key_bytes,
                          (unsigned long long)(f->bytes % key_bytes), f->path);
    uint64_t keys = f->bytes / key_bytes;
    if (have) *have = keys;
    if (need > keys)
        return pb_err_set(err, "needs %llu keys, beyond the %llu in file:%s",
                          (unsigned long long)need, (unsigned long long)keys, f->path);
    return 0;
}

int pb_data_file_check(pb_data_file *f, unsigned key_bytes, uint64_t need, uint64_t *have,
                       pb_err *err)
{
    if (key_bytes < 1 || key_bytes > 8)
        return pb_err_set(err, "keys of %u bytes: a key is 1 to 8 bytes", key_bytes);
    pthread_mutex_lock(&lock);
    int rc = check_locked(f, key_bytes, need, have, err);
    pthread_mutex_unlock(&lock);
    return rc;
}

int pb_data_reader_open(pb_data_reader *r, pb_data_file *f, unsigned key_bytes, uint64_t need,
                        pb_err *err)
{
    memset(r, 0, sizeof *r);
    if (pb_data_file_check(f, key_bytes, need, NULL, err)) return -1;
    struct stat st;
    FILE *fp = open_file(f, &st, err);
    if (!fp) return -1;
    /* The check above may be the plan's, long ago: the file must still be
     * the one it hashed. */
    if (!same_as_checked(f, &st)) {
        fclose(fp);
        return changed(f, &st, err);
    }
    r->fp = fp;
    r->file = f;
    r->key_bytes = key_bytes;
    return 0;
}

/* Keys are little-endian in the file. */
static void to_host_order(void *buf, uint64_t count, unsigned key_bytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *p = buf;
    for (uint64_t i = 0; i < count; i++, p += key_bytes)
        for (unsigned a = 0, b = key_bytes - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
#else
    (void)buf, (void)count, (void)key_bytes;
#endif
}

int pb_data_reader_next(pb_data_reader *r, void *out, uint64_t count, pb_err *err)
{
    /* The checked length bounds every read: a caller that asks for more
     * is told so, not that the file shrank. */
    uint64_t keys = r->file->bytes / r->key_bytes;
    if (count > keys - r->done)
        return pb_err_set(err, "keys %llu .. %llu could not be read, beyond the %llu in file:%s",
                          (unsigned long long)r->done, (unsigned long long)(r->done + count - 1),
                          (unsigned long long)keys, r->file->path);
    size_t bytes = (size_t)(count * r->key_bytes);
    size_t got = bytes ? fread(out, 1, bytes, r->fp) : 0;
    if (got != bytes)
        return pb_err_set(err,
                          "shrank since it was checked: keys %llu .. %llu could not be read (%s): "
                          "file:%s",
                          (unsigned long long)r->done, (unsigned long long)(r->done + count - 1),
                          ferror(r->fp) ? strerror(errno) : "end of file", r->file->path);
    to_host_order(out, count, r->key_bytes);
    r->done += count;
    return 0;
}

void pb_data_reader_close(pb_data_reader *r)
{
    if (r->fp) fclose(r->fp);
    memset(r, 0, sizeof *r);
}

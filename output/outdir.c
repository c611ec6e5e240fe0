#include "output/outdir.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* mkdir -p, noting in `created` (when not NULL and still empty) the
 * outermost folder it made, so an abandoned claim can take it back. */
static int mkdir_p_note(const char *path, char *created, size_t len)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) == 0) {
                if (created && !created[0]) snprintf(created, len, "%s", buf);
            } else if (errno != EEXIST) {
                return -1;
            }
            *p = '/';
        }
    if (mkdir(buf, 0777) == 0) {
        if (created && !created[0]) snprintf(created, len, "%s", buf);
        return 0;
    }
    if (errno != EEXIST) return -1;
    struct stat st;
    if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

int pb_mkdir_p(const char *path) { return mkdir_p_note(path, NULL, 0); }

bool pb_dir_has(const char *dir, const char *file)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return access(p, F_OK) == 0;
}

/* results/<prefix><name>/<stamp>[-k], taken with mkdir: exactly one of
 * two runs that pick the same name gets it, the other tries the next. */
static int make_unique(const char *prefix, const char *name, char *out, size_t len, char *created,
                       size_t clen, pb_err *err)
{
    char parent[1024], stamp[32];
    snprintf(parent, sizeof parent, "results/%s%s", prefix, name);
    if (mkdir_p_note(parent, created, clen) != 0)
        return pb_err_set(err, "cannot create %s: %s", parent, strerror(errno));
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H-%M-%SZ", &tm);
    for (int k = 1; k < 1000; k++) {
        int w = k == 1 ? snprintf(out, len, "%s/%s", parent, stamp)
                       : snprintf(out, len, "%s/%s-%d", parent, stamp, k);
        if (w < 0 || (size_t)w >= len) return pb_err_set(err, "results directory name too long under %s", parent);
        if (mkdir(out, 0777) == 0) {
            if (!created[0]) snprintf(created, clen, "%s", out);
            return 0;
        }
        if (errno != EEXIST) return pb_err_set(err, "cannot create %s: %s", out, strerror(errno));
    }
    return pb_err_set(err, "cannot choose a results directory under %s", parent);
}

/* This boot's id ("" if the kernel does not say): a pid means nothing
 * across a reboot. */
static const char *boot_id(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return buf;
    if (!fgets(buf, (int)len, f)) buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return buf;
}

/* The lock is ours: if the file still names another holder, that run ended
 * without releasing it (killed, or its machine went down); say whose it was. */
static void note_stale(int fd, const char *path)
{
    char text[128] = "", now[48];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    text[n > 0 ? n : 0] = '\0';
    char *boot = strchr(text, '\n');
    if (boot) *boot++ = '\0';
    else boot = text + strlen(text);
    boot[strcspn(boot, "\n")] = '\0';
    char *end;
    long pid = strtol(text, &end, 10);
    if (!text[0] || *end || pid <= 0 || pid == (long)getpid()) return;
    const char *why;
    if (boot[0] && strcmp(boot, boot_id(now, sizeof now)) != 0) why = "of another boot";
    else if (kill((pid_t)pid, 0) == 0 || errno == EPERM) why = "that pid is now another process";
    else why = "no longer running";
    fprintf(stderr, "permbench: note: taking over %s, left by pid %ld (%s)\n", path, pid, why);
}

static int lock(pb_outdir *od, pb_err *err)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/.permbench.lock", od->path);
    od->lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (od->lock_fd < 0) return pb_err_set(err, "cannot write in %s: %s", od->path, strerror(errno));
    struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(od->lock_fd, F_SETLK, &fl) != 0) {
        int e = errno;
        char pid[32] = "";
        ssize_t n = pread(od->lock_fd, pid, sizeof pid - 1, 0);
        pid[n > 0 ? n : 0] = '\0';
        pid[strcspn(pid, "\n")] = '\0';
        close(od->lock_fd);
        od->lock_fd = -1;
        if (e == EACCES || e == EAGAIN)
            return pb_err_set(err, "%s is in use by another permbench run%s%s%s", od->path,
                              pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "");
        return pb_err_set(err, "cannot lock %s: %s", p, strerror(e));
    }
    note_stale(od->lock_fd, p);
    char pid[96], boot[48];
    int n = snprintf(pid, sizeof pid, "%ld\n%s\n", (long)getpid(), boot_id(boot, sizeof boot));
    if (ftruncate(od->lock_fd, 0) != 0 || pwrite(od->lock_fd, pid, (size_t)n, 0) != n) {
        int e = errno;
        pb_outdir_release(od);
        return pb_err_set(err, "cannot write %s: %s", p, strerror(e));
    }
    return 0;
}

int pb_outdir_claim(const char *dir, const char *name, const pb_outdir_kind *kind, bool resume,
                    pb_outdir *od, pb_err *err)
{
    od->lock_fd = -1;
    od->created[0] = '\0';
    if (dir) {
        snprintf(od->path, sizeof od->path, "%s", dir);
        struct stat st;
        if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
            return pb_err_set(err, "%s is not a directory", dir);
        if (resume && stat(dir, &st) != 0) return pb_err_set(err, "%s: %s", dir, strerror(errno));
        if (mkdir_p_note(dir, od->created, sizeof od->created) != 0)
            return pb_err_set(err, "cannot create %s: %s", dir, strerror(errno));
    } else if (make_unique(kind->prefix, name, od->path, sizeof od->path, od->created, sizeof od->created, err)) {
        return -1;
    }
    /* Locked first, looked into after: what another run is writing is not
     * judged half-way. */
    if (lock(od, err)) return -1;
    bool done = false;
    for (const char *const *f = kind->results; *f; f++) done |= pb_dir_has(od->path, *f);
    bool partial = false;
    for (const char *const *f = kind->partial; f && *f; f++) partial |= pb_dir_has(od->path, *f);
    if (resume && !partial) {
        pb_outdir_release(od);
        return pb_err_set(err, "%s holds no interrupted run to resume", od->path);
    }
    if (!resume && partial) {
        pb_outdir_release(od);
        return pb_err_set(err, "%s holds an interrupted run; finish it with 'permbench %s --resume %s' "
                               "or choose another --out", od->path, kind->command ? kind->command : "run", od->path);
    }
    if (!resume && done) {
        pb_outdir_release(od);
        return pb_err_set(err, "%s already holds results; choose another --out", od->path);
    }
    return 0;
}

void pb_outdir_release(pb_outdir *od)
{
    /* Emptied while still held: an empty file is a lock released in order. */
    if (od->lock_fd >= 0 && ftruncate(od->lock_fd, 0) != 0) { /* kept: the lock goes all the same */ }
    if (od->lock_fd >= 0) close(od->lock_fd);
    od->lock_fd = -1;
}

void pb_outdir_abandon(pb_outdir *od, const char *const *files)
{
    char p[1200];
    for (const char *const *f = files; f && *f; f++) {
        snprintf(p, sizeof p, "%s/%s", od->path, *f);
        remove(p);
    }
    snprintf(p, sizeof p, "%s/.permbench.lock", od->path);
    remove(p);
    pb_outdir_release(od);
    /* From the run's folder up to the outermost one the claim made; rmdir
     * leaves any that is not empty. */
    size_t top = strlen(od->created);
    if (!top) return;
    snprintf(p, sizeof p, "%s", od->path);
    for (size_t l = strlen(p); l >= top; l = strlen(p)) {
        if (rmdir(p) != 0) break;
        char *slash = strrchr(p, '/');
        if (!slash || (size_t)(slash - p) < top) break;
        *slash = '\0';
    }
}

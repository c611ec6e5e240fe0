#include "output/atomic_file.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int pb_afile_open(pb_afile *a, const char *path, pb_err *err)
{
    snprintf(a->path, sizeof a->path, "%s", path);
    /* The pid keeps two writers of one path from sharing a temporary. */
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.%ld", path, (long)getpid());
    a->f = fopen(a->tmp, "w");
    if (!a->f) return pb_err_set(err, "cannot write %s: %s", a->tmp, strerror(errno));
    return 0;
}

/* The test suite's full disk (atomic_file.h): ENOSPC for a file of that
 * name, as a flush to a full disk fails. */
static int injected_fault(const char *path)
{
    const char *name = getenv("PERMBENCH_TEST_ENOSPC");
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return name && name[0] && strcmp(name, base) == 0 ? ENOSPC : 0;
}

int pb_afile_commit(pb_afile *a, pb_err *err)
{
    int e = 0;
    if (fflush(a->f) != 0 || ferror(a->f)) e = errno ? errno : EIO;
    if (!e) e = injected_fault(a->path);
    if (!e && fsync(fileno(a->f)) != 0) e = errno;
    if (fclose(a->f) != 0 && !e) e = errno ? errno : EIO;
    a->f = NULL;
    if (!e && rename(a->tmp, a->path) != 0) e = errno;
    if (e) {
        remove(a->tmp);
        return pb_err_set(err, "cannot write %s: %s", a->path, strerror(e));
    }
    return 0;
}

void pb_afile_abort(pb_afile *a)
{
    if (a->f) fclose(a->f);
    a->f = NULL;
    remove(a->tmp);
}

int pb_write_json(const char *path, json_t *root, size_t flags, pb_err *err)
{
    pb_afile a;
    if (!root) return pb_err_set(err, "cannot build %s", path);
    if (pb_afile_open(&a, path, err)) {
        json_decref(root);
        return -1;
    }
    int rc = json_dumpf(root, a.f, flags);
    json_decref(root);
    if (rc != 0) {
        pb_afile_abort(&a);
        return pb_err_set(err, "cannot write %s: %s", path, strerror(errno ? errno : EIO));
    }
    return pb_afile_commit(&a, err);
}

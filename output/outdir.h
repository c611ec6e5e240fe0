/* Result directories, shared by `run` and `quality`: chosen, checked and
 * locked before any work, so a run never learns at the end that it cannot
 * write, and two runs never share one directory. */
#ifndef PB_OUTDIR_H
#define PB_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "core/err.h"

/* mkdir -p. */
int pb_mkdir_p(const char *path);

/* Whether dir/file exists. */
bool pb_dir_has(const char *dir, const char *file);

/* A claimed directory: its path and the descriptor holding its lock
 * (DIR/.permbench.lock, an fcntl write lock with the holder's pid and boot id
 * in it), released when the process ends whatever way it ends. The kernel
 * drops the fcntl lock of a process that dies, so a lock left by a killed
 * run is free; the file still names it, and the claim that takes it over
 * says so in a one-line note (the pid is gone, now another process, or of
 * another boot). A lock held now always refuses. A release empties the
 * file (not removed: a run that opened it before the removal would lock
 * an inode no later run sees). */
typedef struct pb_outdir {
    char path[1024];
    int lock_fd;
    char created[1024]; /* the outermost folder the claim made ("": none) */
} pb_outdir;

typedef struct pb_outdir_kind {
    const char *prefix;           /* results/<prefix><name>/<UTC timestamp> when no DIR */
    const char *const *results;   /* files whose presence means finished results (NULL-ended) */
    const char *const *partial;   /* files an unfinished run leaves (NULL-ended), or NULL */
    const char *command;          /* the command that resumes one: "run", "quality" */
} pb_outdir_kind;

/* Claims `dir` (from --out; NULL: a new directory under results/, made with
 * mkdir so two runs started in the same second get two) for a new run: not
 * a file, creatable, not locked by another run, holding neither results nor
 * an interrupted run. With `resume`, the directory must hold an interrupted
 * run instead. Errors name the path and the OS's reason. */
int pb_outdir_claim(const char *dir, const char *name, const pb_outdir_kind *kind, bool resume,
                    pb_outdir *od, pb_err *err);
void pb_outdir_release(pb_outdir *od);

/* Undoes a claim when the run turns out to have no result to leave (its
 * input was bad, found only on reading it): removes the NULL-ended
 * `files` written into it, the lock file, and the folders the claim made,
 * where they are left empty. A folder that was there before stays. */
void pb_outdir_abandon(pb_outdir *od, const char *const *files);

#endif

/* Append-only JSON Lines files that survive any stop: each line is one JSON
 * document written with a single write() and fsync'd before the call
 * returns, so a process killed at any instant (SIGKILL, the OOM killer) or a
 * disk that fills leaves every earlier line whole and at most one torn last
 * line, which the reader ignores and the next writer cuts off. */
#ifndef PB_JOURNAL_FILE_H
#define PB_JOURNAL_FILE_H

#include <jansson.h>
#include <sys/types.h>

#include "core/err.h"

typedef struct pb_journal {
    int fd;         /* -1 when closed */
    char path[1100];
    off_t size;     /* bytes of whole lines */
} pb_journal;

/* Creates `path` holding `first` (the reference is taken) as its first line,
 * whole (written aside and renamed), durable, and open for appending. */
int pb_journal_create(pb_journal *j, const char *path, json_t *first, pb_err *err);
/* Opens an existing journal to go on appending: cuts a torn last line off
 * first (the bytes after the last newline), so the next line starts whole. */
int pb_journal_reopen(pb_journal *j, const char *path, pb_err *err);
/* Appends `doc` (the reference is taken) as one compact line, every double
 * to 17 significant digits so it reads back bit for bit, and syncs it to
 * disk. A failed write (a full disk) is cut back off, so the file still ends
 * at a whole line; the error names the path and the OS's reason. */
int pb_journal_append(pb_journal *j, json_t *doc, pb_err *err);
void pb_journal_close(pb_journal *j);

/* Every whole line of `path` as a JSON array of its documents (a new
 * reference). A torn last line (no newline: the writer died in it) is left
 * out; a whole line that is not a JSON object is refused, naming the line. */
json_t *pb_journal_read(const char *path, pb_err *err);

#endif

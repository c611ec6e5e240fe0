/* Temporary files and folders of the C tests, all made here, under
 * $TMPDIR (or /tmp), so that a test run can be pointed elsewhere in one
 * place. The shell tests' counterpart is support/tmpdir.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/test.h"

static void tmp_name(char *path, size_t len)
{
    const char *base = getenv("TMPDIR");
    snprintf(path, len, "%s/pbtest-XXXXXX", base && *base ? base : "/tmp");
}

const char *pb_test_tmpfile(const char *text, char *path, size_t len)
{
    tmp_name(path, len);
    int fd = mkstemp(path);
    if (fd < 0) return NULL;
    size_t n = strlen(text);
    if (write(fd, text, n) != (ssize_t)n) path[0] = '\0';
    close(fd);
    return path;
}

const char *pb_test_tmpdir(char *dir, size_t len)
{
    tmp_name(dir, len);
    return mkdtemp(dir);
}

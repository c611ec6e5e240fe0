#include "bench/outdir.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int pb_mkdir_p(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
            *p = '/';
        }
    return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

bool pb_dir_has(const char *dir, const char *file)
{
    char p[1200];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return access(p, F_OK) == 0;
}

int pb_results_dir(const char *prefix, const char *name, char *out, size_t len)
{
    char stamp[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H-%M-%SZ", &tm);
    for (int k = 1; k < 100; k++) {
        if (k == 1) snprintf(out, len, "results/%s%s/%s", prefix, name, stamp);
        else snprintf(out, len, "results/%s%s/%s-%d", prefix, name, stamp, k);
        if (access(out, F_OK) != 0) return 0;
    }
    return -1;
}

#include "algorithms/shuffle/distributed/dist_nccl_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

namespace pb_dist {

namespace {
char nccl_log[256];

void nccl_log_remove(void)
{
    if (nccl_log[0]) unlink(nccl_log);
}
} // namespace

void nccl_log_capture(void)
{
    static bool once;
    if (once) return;
    once = true;
    if (getenv("NCCL_DEBUG")) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(nccl_log, sizeof nccl_log, "%s/permbench-nccl-%ld.log", tmp && *tmp ? tmp : "/tmp", (long)getpid());
    setenv("NCCL_DEBUG", "INFO", 1);
    setenv("NCCL_DEBUG_SUBSYS", "INIT,GRAPH,P2P", 1);
    setenv("NCCL_DEBUG_FILE", nccl_log, 1);
    atexit(nccl_log_remove);
}

const char *nccl_log_file(void) { return nccl_log; }

} // namespace pb_dist

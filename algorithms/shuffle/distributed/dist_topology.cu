#include "algorithms/shuffle/distributed/dist_topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#ifdef PB_HAVE_NCCL
#include <nccl.h>
#endif

#include "algorithms/shuffle/distributed/dist_nccl_log.h"

namespace pb_dist {

namespace {
/* A path type of NCCL's topology search, in words. */
const char *path_words(const char *type)
{
    static const struct { const char *code, *words; } w[] = {
        {"NVL", "NVLink"}, {"NVB", "NVLink through another GPU"}, {"C2C", "C2C"}, {"PIX", "PCIe, one switch"},
        {"PXB", "PCIe, several switches"}, {"PXN", "PCIe through another GPU"}, {"PHB", "PCIe through the CPU"},
        {"SYS", "PCIe across CPU sockets"}, {"LOC", "local"}, {"NET", "network"}};
    for (const auto &x : w)
        if (strncmp(type, x.code, 3) == 0) return x.words;
    return "unknown";
}

/* NCCL's path type (the last topology search's "type X/Y": X between the
 * GPUs) and the first connection's transport ("via P2P/..."), from the
 * captured log; false when neither is there yet. */
bool nccl_report(char *type, size_t tl, char *via, size_t vl)
{
    type[0] = via[0] = 0;
    const char *log = nccl_log_file();
    FILE *f = log[0] ? fopen(log, "r") : NULL;
    if (!f) return false;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        const char *q;
        if (strstr(line, "Pattern") && (q = strstr(line, "type ")))
            sscanf(q + 5, "%63[^, \n]", type), type[tl - 1] = 0;
        if (!via[0] && (q = strstr(line, " via "))) sscanf(q + 5, "%63[^ \n]", via), via[vl - 1] = 0;
    }
    fclose(f);
    return type[0] || via[0];
}
} // namespace

/* The devices, CUDA's peer access among them and NCCL's account of the
 * links, e.g. "2 GPUs; NCCL 2.28.9: type NVL/PIX (NVLink), via P2P/CUMEM;
 * CUDA peer access 1 of 1 pairs". */
bool topology(uint32_t G, char *t, size_t n)
{
    bool done = true;
    int k = snprintf(t, n, "%u GPU%s", G, G == 1 ? "" : "s");
    if (G < 2) {
        snprintf(t + k, n - k, ", no exchange");
        return done;
    }
#ifdef PB_HAVE_NCCL
    int v = 0;
    if (ncclGetVersion(&v) == ncclSuccess) k += snprintf(t + k, n - k, "; NCCL %d.%d.%d", v / 10000, v / 100 % 100, v % 100);
#endif
    char type[64], via[64];
    if (nccl_report(type, sizeof type, via, sizeof via))
        k += snprintf(t + k, n - k, ": type %s (%s), via %s", type[0] ? type : "?", type[0] ? path_words(type) : "?",
                      via[0] ? via : "?");
    else if (getenv("NCCL_DEBUG") && !nccl_log_file()[0])
        k += snprintf(t + k, n - k, ": links not captured (NCCL_DEBUG set by the caller)");
    else {
        k += snprintf(t + k, n - k, ": links not reported yet");
        done = false;
    }
    unsigned pairs = 0, peer = 0;
    for (uint32_t a = 0; a < G; a++)
        for (uint32_t b = a + 1; b < G; b++) {
            int x = 0;
            pairs++;
            if (cudaDeviceGetP2PAttribute(&x, cudaDevP2PAttrAccessSupported, (int)a, (int)b) == cudaSuccess && x) peer++;
        }
    cudaGetLastError();
    if (k > 0 && (size_t)k < n) snprintf(t + k, n - k, "; CUDA peer access %u of %u pairs", peer, pairs);
    return done;
}

} // namespace pb_dist

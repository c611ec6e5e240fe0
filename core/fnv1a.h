/* FNV-1a 64: the hash results record for a config's text (with its -D
 * overrides), so a reader can tell which config a row was measured with.
 * Not cryptographic: it names contents, it does not guard them (key files
 * and external inputs are named by SHA-256, core/sha256.h). */
#ifndef PB_FNV1A_H
#define PB_FNV1A_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_FNV1A64_BASIS UINT64_C(0xcbf29ce484222325)

/* The hash of what came before (PB_FNV1A64_BASIS at the start) extended by
 * len more bytes. */
static inline uint64_t pb_fnv1a64_update(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = (const unsigned char *)data;
    for (size_t i = 0; i < len; i++) h = (h ^ p[i]) * UINT64_C(0x100000001b3);
    return h;
}

static inline uint64_t pb_fnv1a64(const void *data, size_t len)
{
    return pb_fnv1a64_update(PB_FNV1A64_BASIS, data, len);
}

#ifdef __cplusplus
}
#endif

#endif

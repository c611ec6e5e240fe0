/* SHA-256 (FIPS 180-4), incremental, so a file read once in batches is
 * hashed on the way: results name an external input by the digest
 * `sha256sum` prints for it. */
#ifndef PB_SHA256_H
#define PB_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pb_sha256 {
    uint32_t h[8];
    uint64_t bytes;          /* hashed so far */
    unsigned char block[64]; /* the partial block */
    size_t fill;
} pb_sha256;

void pb_sha256_init(pb_sha256 *s);
void pb_sha256_update(pb_sha256 *s, const void *data, size_t len);
/* The digest as 64 lowercase hex digits and a NUL. */
void pb_sha256_hex(pb_sha256 *s, char hex[65]);

#ifdef __cplusplus
}
#endif

#endif

#include "quality/perm_io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {"u32", "u64", "text", "npy"};

const char *pb_perm_format_name(pb_perm_format f) { return names[f]; }

int pb_perm_format_parse(const char *text, pb_perm_format *f, pb_err *err)
{
    for (int i = 0; i < 4; i++)
        if (strcmp(text, names[i]) == 0) return *f = (pb_perm_format)i, 0;
    return pb_err_set(err, "format '%s' is not %s", text, PB_PERM_FORMATS);
}

uint64_t pb_perm_row_bytes(pb_perm_format f, uint32_t n)
{
    return f == PB_PERM_U32 ? 4 * (uint64_t)n : f == PB_PERM_U64 ? 8 * (uint64_t)n : 0;
}

/* Rows are encoded into one buffer and written with one fwrite each time
 * it fills: little-endian whatever the host, decimal without printf. */
#define OUT_BUF (1u << 20)

typedef struct out {
    FILE *f;
    unsigned char *buf;
    size_t len;
    int error;
} out;

static void flush(out *o)
{
    if (o->len && !o->error && fwrite(o->buf, 1, o->len, o->f) != o->len) o->error = errno ? errno : EIO;
    o->len = 0;
}

static void put_le(out *o, uint32_t v, unsigned width)
{
    if (o->len + width > OUT_BUF) flush(o);
    for (unsigned b = 0; b < width; b++) o->buf[o->len++] = b < 4 ? (unsigned char)(v >> (8 * b)) : 0;
}

static void put_dec(out *o, uint32_t v, char end)
{
    if (o->len + 11 > OUT_BUF) flush(o);
    char d[10];
    int k = 0;
    do d[k++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (k) o->buf[o->len++] = (unsigned char)d[--k];
    o->buf[o->len++] = (unsigned char)end;
}

int pb_perm_write(FILE *f, const uint32_t *perms, uint32_t n, uint64_t count, pb_perm_format fmt,
                  pb_err *err)
{
    if (fmt == PB_PERM_NPY) return pb_err_set(err, "npy is a format permbench reads, not one it writes");
    out o = {f, malloc(OUT_BUF), 0, 0};
    if (!o.buf) return pb_err_set(err, "out of memory");
    errno = 0;
    for (uint64_t j = 0; j < count && !o.error; j++) {
        const uint32_t *p = perms + j * n;
        for (uint32_t i = 0; i < n; i++) {
            if (fmt == PB_PERM_TEXT) put_dec(&o, p[i], i + 1 < n ? ' ' : '\n');
            else put_le(&o, p[i], fmt == PB_PERM_U32 ? 4 : 8);
        }
    }
    flush(&o);
    free(o.buf);
    if (o.error) return pb_err_set(err, "%s", strerror(o.error));
    return 0;
}

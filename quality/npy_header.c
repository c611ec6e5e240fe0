#include "quality/npy_header.h"

#include <stdio.h>
#include <string.h>

int pb_npy_header_size(const unsigned char *buf, size_t len, const char *name, size_t *total, pb_err *err)
{
    static const unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
    size_t m = len < 6 ? len : 6;
    if (memcmp(buf, magic, m) != 0) return pb_err_set(err, "%s: not a .npy file (no \\x93NUMPY magic)", name);
    if (len < 8) return 1;
    unsigned major = buf[6];
    if (major < 1 || major > 3 || buf[7] != 0)
        return pb_err_set(err, "%s: .npy format version %u.%u is not 1.0, 2.0 or 3.0", name, major, buf[7]);
    size_t pre = major == 1 ? 10 : 12;
    if (len < pre) return 1;
    uint64_t hlen = major == 1 ? (uint64_t)buf[8] | (uint64_t)buf[9] << 8
                               : (uint64_t)buf[8] | (uint64_t)buf[9] << 8 | (uint64_t)buf[10] << 16 |
                                     (uint64_t)buf[11] << 24;
    if (hlen > PB_NPY_MAX_HEADER)
        return pb_err_set(err, "%s: .npy header length %llu is over %u bytes", name, (unsigned long long)hlen,
                          PB_NPY_MAX_HEADER);
    if (hlen == 0) return pb_err_set(err, "%s: .npy header length is 0", name);
    *total = pre + (size_t)hlen;
    return 0;
}

/* A cursor over the dict's text. */
typedef struct cur {
    const char *s, *end;
} cur;

static void blank(cur *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t')) c->s++;
}

static bool eat(cur *c, char ch)
{
    blank(c);
    if (c->s < c->end && *c->s == ch) return c->s++, true;
    return false;
}

/* A quoted string ('...' or "...", no escapes, as numpy writes) into out. */
static bool string(cur *c, char *out, size_t len)
{
    blank(c);
    if (c->s >= c->end || (*c->s != '\'' && *c->s != '"')) return false;
    char q = *c->s++;
    size_t k = 0;
    while (c->s < c->end && *c->s != q) {
        if (*c->s == '\\' || k + 1 >= len) return false;
        out[k++] = *c->s++;
    }
    if (c->s >= c->end) return false;
    c->s++;
    out[k] = '\0';
    return true;
}

static bool word(cur *c, const char *w)
{
    blank(c);
    size_t l = strlen(w);
    if ((size_t)(c->end - c->s) >= l && memcmp(c->s, w, l) == 0) return c->s += l, true;
    return false;
}

/* A tuple of non-negative integers: dims and their count (at most 8
 * kept; more are counted). */
static bool tuple(cur *c, uint64_t *dims, unsigned *count)
{
    *count = 0;
    if (!eat(c, '(')) return false;
    for (;;) {
        if (eat(c, ')')) return true;
        blank(c);
        uint64_t v = 0;
        int digits = 0;
        while (c->s < c->end && *c->s >= '0' && *c->s <= '9') {
            if (v > (UINT64_MAX - 9) / 10) return false;
            v = v * 10 + (uint64_t)(*c->s++ - '0');
            digits++;
        }
        if (c->s < c->end && *c->s == 'L') c->s++; /* Python 2's long suffix */
        if (!digits) return false;
        if (*count < 8) dims[*count] = v;
        ++*count;
        if (eat(c, ')')) return true;
        if (!eat(c, ',')) return false;
    }
}

static int bad_dict(const char *name, pb_err *err)
{
    return pb_err_set(err, "%s: .npy header is not a dict of 'descr', 'fortran_order' and 'shape'", name);
}

int pb_npy_header_parse(const unsigned char *buf, size_t len, const char *name, pb_npy_header *h, pb_err *err)
{
    size_t total;
    int rc = pb_npy_header_size(buf, len, name, &total, err);
    if (rc < 0) return -1;
    if (rc > 0 || total > len) return pb_err_set(err, "%s: .npy header is truncated", name);
    memset(h, 0, sizeof *h);
    h->bytes = total;
    size_t pre = buf[6] == 1 ? 10 : 12;
    cur c = {(const char *)buf + pre, (const char *)buf + total};
    if (c.end[-1] != '\n') return pb_err_set(err, "%s: .npy header does not end with a newline", name);
    for (const char *p = c.s; p < c.end; p++)
        if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
            return pb_err_set(err, "%s: .npy header holds a control character", name);
    bool have_descr = false, have_order = false, have_shape = false, fortran = false;
    uint64_t dims[8];
    unsigned ndims = 0;
    char descr[16] = "";
    if (!eat(&c, '{')) return bad_dict(name, err);
    for (;;) {
        if (eat(&c, '}')) break;
        char key[32];
        if (!string(&c, key, sizeof key) || !eat(&c, ':')) return bad_dict(name, err);
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if (!string(&c, descr, sizeof descr))
                return pb_err_set(err, "%s: .npy dtype is not a simple type string (a structured array?)", name);
            have_descr = true;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (word(&c, "True")) fortran = true;
            else if (!word(&c, "False")) return bad_dict(name, err);
            have_order = true;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (!tuple(&c, dims, &ndims)) return pb_err_set(err, "%s: .npy shape is not a tuple of sizes", name);
            have_shape = true;
        } else {
            return bad_dict(name, err);
        }
        if (eat(&c, '}')) break;
        if (!eat(&c, ',')) return bad_dict(name, err);
    }
    while (c.s < c.end && (*c.s == ' ' || *c.s == '\n')) c.s++;
    if (c.s != c.end || !have_descr || !have_order || !have_shape) return bad_dict(name, err);
    snprintf(h->descr, sizeof h->descr, "%s", descr);
    if (strlen(descr) == 3 && (descr[0] == '<' || descr[0] == '|') && (descr[1] == 'i' || descr[1] == 'u') &&
        (descr[2] == '4' || descr[2] == '8')) {
        h->is_signed = descr[1] == 'i';
        h->width = (unsigned)(descr[2] - '0');
    } else if (strlen(descr) == 3 && descr[0] == '>' && (descr[1] == 'i' || descr[1] == 'u')) {
        return pb_err_set(err, "%s: .npy dtype '%s' is big-endian: save it little-endian (astype('<%c%c'))", name,
                          descr, descr[1], descr[2]);
    } else {
        return pb_err_set(err, "%s: .npy dtype '%s' is not int32, int64, uint32 or uint64", name, descr);
    }
    if (ndims != 1 && ndims != 2)
        return pb_err_set(err, "%s: .npy array has %u dimensions, not 2 (rows, n) or 1 (n,)", name, ndims);
    if (fortran && ndims == 2 && dims[0] > 1 && dims[1] > 1)
        return pb_err_set(err, "%s: .npy array is in Fortran order: save it C-ordered (np.ascontiguousarray)",
                          name);
    h->rows = ndims == 2 ? dims[0] : 1;
    h->n = ndims == 2 ? dims[1] : dims[0];
    if (h->n == 0)
        return pb_err_set(err, "%s: the .npy rows are empty (shape %s)", name, ndims == 2 ? "(rows, 0)" : "(0,)");
    if (h->n > UINT32_MAX)
        return pb_err_set(err, "%s: .npy rows of %llu items: n must be at most 2^32-1", name,
                          (unsigned long long)h->n);
    if (h->rows > (UINT64_C(1) << 62) / h->width / (h->n ? h->n : 1))
        return pb_err_set(err, "%s: .npy shape (%llu, %llu) is too large", name, (unsigned long long)h->rows,
                          (unsigned long long)h->n);
    return 0;
}

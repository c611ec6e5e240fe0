#include "quality/perm_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define READ_BUF (1u << 20)

/* What messages call an input. */
static const char *display(const char *path, const char *name)
{
    return name && strcmp(name, "-") != 0 ? name : strcmp(path, "-") == 0 ? "stdin" : path;
}

static int npy_open(pb_perm_reader *r, pb_err *err);

int pb_perm_reader_open(pb_perm_reader *r, const char *path, const char *name, uint32_t n,
                        pb_perm_format fmt, pb_err *err)
{
    memset(r, 0, sizeof *r);
    bool std_in = strcmp(path, "-") == 0;
    snprintf(r->name, sizeof r->name, "%s", display(path, name));
    r->n = n;
    r->format = fmt;
    pb_sha256_init(&r->sha);
    r->width = fmt == PB_PERM_U64 ? 8 : 4;
    r->f = std_in ? stdin : fopen(path, "rb");
    if (!r->f) return pb_err_set(err, "cannot open %s: %s", r->name, strerror(errno));
    r->own = !std_in;
    r->buf = malloc(READ_BUF);
    if (!r->buf) {
        pb_perm_reader_close(r);
        return pb_err_set(err, "out of memory for reading rows of %u", n);
    }
    if (fmt == PB_PERM_NPY && npy_open(r, err)) {
        pb_perm_reader_close(r);
        return -1;
    }
    r->where = calloc(r->n ? r->n : 1, sizeof *r->where);
    if (!r->where) {
        pb_perm_reader_close(r);
        return pb_err_set(err, "out of memory for reading rows of %u", r->n);
    }
    return 0;
}

void pb_perm_reader_close(pb_perm_reader *r)
{
    if (r->own && r->f) fclose(r->f);
    free(r->buf);
    free(r->where);
    r->f = NULL;
    r->buf = NULL;
    r->where = NULL;
}

/* More bytes into the buffer: 1, or 0 at the end of the input (or after a
 * failed read, noted in read_errno). Everything read is hashed once. */
static int refill(pb_perm_reader *r)
{
    if (r->pos < r->len) return 1;
    if (r->eof) return 0;
    r->pos = 0;
    r->len = fread(r->buf, 1, READ_BUF, r->f);
    if (r->len == 0) {
        if (ferror(r->f)) r->read_errno = errno ? errno : EIO;
        r->eof = true;
        return 0;
    }
    pb_sha256_update(&r->sha, r->buf, r->len);
    return 1;
}

/* The next byte, or EOF. */
static int next(pb_perm_reader *r) { return refill(r) ? r->buf[r->pos++] : EOF; }

static int read_failed(pb_perm_reader *r, pb_err *err)
{
    return pb_err_set(err, "%s: cannot read: %s", r->name, strerror(r->read_errno));
}

/* The npy header, read through the stream (so hashed as the rest): its
 * length from the preamble, then all of it, then its n against r->n. */
static int npy_open(pb_perm_reader *r, pb_err *err)
{
    unsigned char pre[12];
    size_t len = 0, total = 0;
    int rc = 1;
    for (int x; rc == 1 && (x = next(r)) != EOF;) {
        pre[len++] = (unsigned char)x;
        rc = pb_npy_header_size(pre, len, r->name, &total, err);
    }
    if (rc < 0) return -1;
    if (r->read_errno) return read_failed(r, err);
    if (rc == 1) return pb_err_set(err, "%s: .npy header is truncated", r->name);
    unsigned char *head = malloc(total);
    if (!head) return pb_err_set(err, "out of memory");
    memcpy(head, pre, len);
    for (int x; len < total && (x = next(r)) != EOF;) head[len++] = (unsigned char)x;
    pb_npy_header h;
    rc = r->read_errno ? read_failed(r, err) : pb_npy_header_parse(head, len, r->name, &h, err);
    free(head);
    if (rc) return -1;
    if (r->n && h.n != r->n)
        return pb_err_set(err, "%s: the .npy rows have %llu items, not n = %u", r->name, (unsigned long long)h.n,
                          r->n);
    r->n = (uint32_t)h.n;
    r->width = h.width;
    r->is_signed = h.is_signed;
    r->declared = h.rows;
    if (h.rows == 0 && refill(r)) /* no last row to check after */
        return pb_err_set(err, "%s: bytes follow the 0 rows its .npy header declares", r->name);
    return 0;
}

/* "row 7" or, for text whose lines and rows differ, "row 7 (line 9)". */
static const char *row_name(const pb_perm_reader *r, char *buf, size_t len)
{
    unsigned long long row = (unsigned long long)r->rows + 1;
    if (r->format == PB_PERM_TEXT && r->line != row)
        snprintf(buf, len, "row %llu (line %llu)", row, (unsigned long long)r->line);
    else
        snprintf(buf, len, "row %llu", row);
    return buf;
}

/* Takes value v at column c (from 0) of the row: in range and not seen.
 * `text` is how the input spells it (NULL: v in decimal, made only for a
 * message, since this runs for every value). */
static int take(pb_perm_reader *r, uint64_t v, const char *text, uint32_t c, uint32_t *row, pb_err *err)
{
    if (v < r->n && !r->where[v]) {
        r->where[v] = c + 1;
        row[c] = (uint32_t)v;
        return 0;
    }
    char rn[64], dec[24];
    if (!text) snprintf(dec, sizeof dec, "%llu", (unsigned long long)v), text = dec;
    if (v >= r->n)
        return pb_err_set(err, "%s: %s, column %u: value %s is out of range 0..%u", r->name,
                          row_name(r, rn, sizeof rn), c + 1, text, r->n - 1);
    return pb_err_set(err, "%s: %s, column %u: value %s repeats column %u", r->name,
                      row_name(r, rn, sizeof rn), c + 1, text, r->where[v]);
}

/* After a row (whole or not): the seen-marks of its values are cleared. */
static void forget(pb_perm_reader *r, const uint32_t *row, uint32_t cols)
{
    for (uint32_t c = 0; c < cols; c++) r->where[row[c]] = 0;
}

/* One binary row: 1, 0 at the end of the input, -1 on an error. */
static int binary_row(pb_perm_reader *r, uint32_t *row, pb_err *err)
{
    unsigned width = r->width;
    uint32_t taken = 0;
    int rc = 1;
    while (taken < r->n && rc == 1) {
        unsigned char b[8];
        unsigned got = 0;
        if (r->len - r->pos >= width) { /* the usual case: no refill inside a value */
            memcpy(b, r->buf + r->pos, width);
            r->pos += width;
            got = width;
        } else {
            for (int x; got < width && (x = next(r)) != EOF;) b[got++] = (unsigned char)x;
        }
        if (got < width) {
            if (r->read_errno) {
                rc = read_failed(r, err);
            } else if (taken == 0 && got == 0) {
                rc = 0;
            } else {
                char rn[64];
                rc = pb_err_set(err, "%s: %s is truncated: %llu of %llu bytes (the input ends)", r->name,
                                row_name(r, rn, sizeof rn), (unsigned long long)taken * width + got,
                                (unsigned long long)width * r->n);
            }
            break;
        }
        uint64_t v = 0;
        for (unsigned k = 0; k < width; k++) v |= (uint64_t)b[k] << (8 * k);
        char neg[24], *text = NULL;
        if (r->is_signed && b[width - 1] & 0x80) { /* negative: out of range, said as the file means it */
            uint64_t mag = width == 4 ? (uint64_t)(UINT32_C(0) - (uint32_t)v) : UINT64_C(0) - v;
            snprintf(neg, sizeof neg, "-%llu", (unsigned long long)mag);
            text = neg;
            v = UINT64_MAX;
        }
        if (take(r, v, text, taken, row, err)) rc = -1;
        else taken++;
    }
    forget(r, row, taken);
    return rc;
}

static bool separator(int ch) { return ch == ' ' || ch == '\t' || ch == ',' || ch == '\r'; }

/* One text token from its first character: its text (shortened for
 * messages) and value; *number is false unless it is an optional '-' and
 * decimal digits. The separator or newline after it is left unread. */
static void token(pb_perm_reader *r, int first, char *text, size_t len, uint64_t *v, bool *number,
                  bool *negative)
{
    size_t tl = 0, digits = 0;
    bool big = false;
    *v = 0;
    *number = true;
    *negative = first == '-';
    for (int ch = first, k = 0;; k++) {
        if (tl + 4 < len) text[tl++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
        else if (tl + 4 == len) memcpy(text + tl, "...", 3), tl += 3;
        if (ch >= '0' && ch <= '9') {
            digits++;
            if (*v > (UINT64_C(1) << 40)) big = true; /* past any n: out of range either way */
            else *v = *v * 10 + (uint64_t)(ch - '0');
        } else if (!(ch == '-' && k == 0)) {
            *number = false;
        }
        if (!refill(r)) break; /* the end (or a failed read, seen by the next read) */
        int peek = r->buf[r->pos];
        if (peek == '\n' || separator(peek)) break;
        ch = r->buf[r->pos++];
    }
    text[tl] = '\0';
    if (!digits) *number = false;
    if (big) *v = UINT64_MAX;
}

/* One text row: 1, 0 at the end of the input, -1 on an error. */
static int text_row(pb_perm_reader *r, uint32_t *row, pb_err *err)
{
    uint32_t cols = 0;
    int rc = 1;
    r->line++;
    for (;;) {
        int ch = next(r);
        if (ch == EOF && r->read_errno) {
            rc = read_failed(r, err);
            break;
        }
        if (ch == EOF || ch == '\n') {
            if (cols == 0) { /* a blank line is no row */
                if (ch == EOF) {
                    r->line--;
                    rc = 0;
                    break;
                }
                r->line++;
                continue;
            }
            if (cols < r->n) {
                char rn[64];
                rc = pb_err_set(err, "%s: %s is short: %u of %u values", r->name, row_name(r, rn, sizeof rn),
                                cols, r->n);
            }
            break;
        }
        if (separator(ch)) continue;
        char text[28], rn[64];
        uint64_t v;
        bool number, negative;
        token(r, ch, text, sizeof text, &v, &number, &negative);
        if (cols == r->n) {
            rc = pb_err_set(err, "%s: %s has more than %u values", r->name, row_name(r, rn, sizeof rn), r->n);
            break;
        }
        if (!number) {
            rc = pb_err_set(err, "%s: %s, column %u: '%s' is not a number", r->name,
                            row_name(r, rn, sizeof rn), cols + 1, text);
            break;
        }
        if (take(r, negative ? UINT64_MAX : v, text, cols, row, err)) {
            rc = -1;
            break;
        }
        cols++;
    }
    forget(r, row, cols);
    return rc;
}

int pb_perm_reader_read(pb_perm_reader *r, uint32_t *out, uint64_t count, uint64_t *got, pb_err *err)
{
    *got = 0;
    for (uint64_t j = 0; j < count; j++) {
        uint32_t *row = out + j * r->n;
        bool npy = r->format == PB_PERM_NPY;
        if (npy && r->rows == r->declared) break;
        int rc = r->format == PB_PERM_TEXT ? text_row(r, row, err) : binary_row(r, row, err);
        if (rc < 0) return -1;
        if (rc == 0) {
            if (npy)
                return pb_err_set(err, "%s: holds %llu of the %llu rows its .npy header declares (the input ends)",
                                  r->name, (unsigned long long)r->rows, (unsigned long long)r->declared);
            break;
        }
        r->rows++;
        ++*got;
        /* The last declared row: nothing may follow it (a shape that does
         * not describe the data is a broken file, not a shorter test). */
        if (npy && r->rows == r->declared && refill(r))
            return pb_err_set(err, "%s: bytes follow the %llu rows its .npy header declares", r->name,
                              (unsigned long long)r->declared);
        if (npy && r->rows == r->declared && r->read_errno) return read_failed(r, err);
    }
    return 0;
}

int pb_perm_reader_finish(pb_perm_reader *r, char hex[65], uint64_t *bytes, pb_err *err)
{
    while (refill(r)) r->pos = r->len;
    if (r->read_errno) return read_failed(r, err);
    *bytes = r->sha.bytes;
    pb_sha256_hex(&r->sha, hex);
    return 0;
}

/* Counts the non-blank lines of a regular file from `off`, with pread so
 * that standard input redirected from a file is left where it was. */
static int count_lines(int fd, off_t off, const char *name, uint64_t *rows, pb_err *err)
{
    unsigned char *buf = malloc(READ_BUF);
    if (!buf) return pb_err_set(err, "out of memory");
    bool filled = false;
    *rows = 0;
    for (;;) {
        ssize_t got = pread(fd, buf, READ_BUF, off);
        if (got < 0) {
            int e = errno;
            free(buf);
            return pb_err_set(err, "%s: cannot read: %s", name, strerror(e));
        }
        if (got == 0) break;
        for (ssize_t i = 0; i < got; i++) {
            if (buf[i] == '\n') *rows += filled, filled = false;
            else if (!separator(buf[i])) filled = true;
        }
        off += got;
    }
    *rows += filled;
    free(buf);
    return 0;
}

/* The npy header of a regular file from `off` by pread, and its size
 * against the header's rows. */
static int npy_probe_fd(int fd, off_t off, uint64_t size, const char *name, pb_npy_header *h, pb_err *err)
{
    uint64_t avail = size > (uint64_t)off ? size - (uint64_t)off : 0;
    unsigned char pre[12];
    ssize_t got = pread(fd, pre, avail < 12 ? (size_t)avail : 12, off);
    if (got < 0) return pb_err_set(err, "%s: cannot read: %s", name, strerror(errno));
    size_t total = 0;
    int rc = pb_npy_header_size(pre, (size_t)got, name, &total, err);
    if (rc < 0) return -1;
    if (rc > 0 || total > avail) return pb_err_set(err, "%s: .npy header is truncated", name);
    unsigned char *head = malloc(total);
    if (!head) return pb_err_set(err, "out of memory");
    size_t len = 0;
    while (len < total) {
        got = pread(fd, head + len, total - len, off + (off_t)len);
        if (got <= 0) {
            int e = got < 0 ? errno : EIO;
            free(head);
            return pb_err_set(err, "%s: cannot read: %s", name, strerror(e));
        }
        len += (size_t)got;
    }
    rc = pb_npy_header_parse(head, total, name, h, err);
    free(head);
    if (rc) return -1;
    uint64_t data = avail - h->bytes, row = (uint64_t)h->width * h->n, need = h->rows * row;
    if (data < need) {
        uint64_t whole = row ? data / row : 0;
        if (data % row)
            return pb_err_set(err, "%s: row %llu is truncated: %llu of %llu bytes (the input ends)", name,
                              (unsigned long long)whole + 1, (unsigned long long)(data % row),
                              (unsigned long long)row);
        return pb_err_set(err, "%s: holds %llu of the %llu rows its .npy header declares (the input ends)", name,
                          (unsigned long long)whole, (unsigned long long)h->rows);
    }
    if (data > need)
        return pb_err_set(err, "%s: bytes follow the %llu rows its .npy header declares", name,
                          (unsigned long long)h->rows);
    return 0;
}

/* An input opened to be looked at ahead (counted, its header read) without
 * moving it: a regular file from `off` (standard input redirected from one
 * too), or something else that cannot be (a pipe, a terminal). */
typedef struct ahead {
    int fd;
    bool std_in, regular;
    off_t off;
    uint64_t size;
} ahead;

static void ahead_close(ahead *a)
{
    if (!a->std_in) close(a->fd);
}

static int ahead_open(const char *path, const char *name, ahead *a, pb_err *err)
{
    memset(a, 0, sizeof *a);
    a->std_in = strcmp(path, "-") == 0;
    a->fd = a->std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (a->fd < 0) return pb_err_set(err, "cannot open %s: %s", name, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(a->fd, &st) != 0) {
        rc = pb_err_set(err, "%s: %s", name, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        rc = pb_err_set(err, "%s is a directory, not a file of permutations", name);
    } else if (S_ISREG(st.st_mode)) {
        a->off = a->std_in ? lseek(a->fd, 0, SEEK_CUR) : 0;
        if (a->off < 0) a->off = 0;
        a->regular = true;
        a->size = (uint64_t)st.st_size;
    }
    if (rc) ahead_close(a);
    return rc;
}

int pb_perm_npy_probe(const char *path, const char *shown, pb_npy_header *h, bool *known, pb_err *err)
{
    const char *name = display(path, shown);
    ahead a;
    *known = false;
    if (ahead_open(path, name, &a, err)) return -1;
    int rc = 0;
    if (a.regular) {
        *known = true;
        rc = npy_probe_fd(a.fd, a.off, a.size, name, h, err);
    }
    ahead_close(&a);
    return rc;
}

int pb_perm_count_rows(const char *path, const char *shown, uint32_t n, pb_perm_format fmt, uint64_t *rows,
                       bool *known, pb_err *err)
{
    const char *name = display(path, shown);
    ahead a;
    *known = false;
    *rows = 0;
    if (ahead_open(path, name, &a, err)) return -1;
    int rc = 0, fd = a.fd;
    off_t off = a.off;
    if (a.regular) {
        *known = true;
        if (fmt == PB_PERM_NPY) {
            pb_npy_header h;
            rc = npy_probe_fd(fd, off, a.size, name, &h, err);
            if (!rc && n && h.n != n)
                rc = pb_err_set(err, "%s: the .npy rows have %llu items, not n = %u", name, (unsigned long long)h.n, n);
            if (!rc) *rows = h.rows;
        } else if (fmt == PB_PERM_TEXT) {
            rc = count_lines(fd, off, name, rows, err);
            /* A row of n values takes at least 2n - 1 bytes (a digit each
             * and a separator between): a row length that dwarfs the file
             * is refused here, before the tests set up for that n (the
             * MMD's moments alone take minutes at n = 2^32 - 1). */
            uint64_t size = a.size - (uint64_t)off;
            if (!rc && *rows > 0 && size < 2 * (uint64_t)n - 1)
                rc = pb_err_set(err, "%s: row 1 is short: the input holds %llu bytes, fewer than the %llu "
                                "a row of %u values takes", name, (unsigned long long)size,
                                (unsigned long long)(2 * (uint64_t)n - 1), n);
        } else {
            uint64_t size = a.size - (uint64_t)off, rb = pb_perm_row_bytes(fmt, n);
            *rows = size / rb;
            if (size % rb)
                rc = pb_err_set(err, "%s: row %llu is truncated: %llu of %llu bytes (the input ends)", name,
                                (unsigned long long)*rows + 1, (unsigned long long)(size % rb),
                                (unsigned long long)rb);
        }
    }
    ahead_close(&a);
    return rc;
}

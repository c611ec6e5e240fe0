#include "config/sizes.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define SIZE_LIMIT (UINT64_C(1) << 62)

typedef struct parser {
    const char *text; /* the whole expression, for messages */
    const char *p;
    pb_err *err;
} parser;

/* Returns -1 where the compiler sees it, so no caller's output looks unset. */
static int fail(parser *ps, const char *what)
{
    if (*ps->p)
        pb_err_set(ps->err, "bad size expression '%s': %s at '%s'", ps->text, what, ps->p);
    else
        pb_err_set(ps->err, "bad size expression '%s': %s at its end", ps->text, what);
    return -1;
}

static int number(parser *ps, uint64_t *out)
{
    if (!isdigit((unsigned char)*ps->p)) return fail(ps, "expected a number");
    uint64_t v = 0;
    while (isdigit((unsigned char)*ps->p)) {
        /* Checked before the step, which could wrap a 64-bit value back
         * into range ("18446744073709551616" read as 0). */
        uint64_t d = (uint64_t)(*ps->p - '0');
        if (v > (SIZE_LIMIT - d) / 10) return fail(ps, "number too large");
        v = v * 10 + d;
        ps->p++;
    }
    *out = v;
    return 0;
}

static int factor(parser *ps, uint64_t *out)
{
    uint64_t b, e;
    if (number(ps, &b)) return -1;
    if (*ps->p != '^') return (*out = b, 0);
    ps->p++;
    if (number(ps, &e)) return -1;
    /* 0 and 1 never reach the limit: their powers are known, not counted
     * out one multiplication at a time (1^(2^62) would take centuries). */
    if (b <= 1) return (*out = e == 0 ? 1 : b, 0);
    uint64_t v = 1;
    for (uint64_t i = 0; i < e; i++) {
        if (b != 0 && v > SIZE_LIMIT / b) return fail(ps, "power too large");
        v *= b;
    }
    *out = v;
    return 0;
}

static int term(parser *ps, uint64_t *out)
{
    uint64_t v, f;
    if (factor(ps, &v)) return -1;
    while (*ps->p == '*') {
        ps->p++;
        if (factor(ps, &f)) return -1;
        if (f != 0 && v > SIZE_LIMIT / f) return fail(ps, "product too large");
        v *= f;
    }
    *out = v;
    return 0;
}

/* An expression is a leading term and an offset (the sum of the rest). */
static int expr(const char *text, uint64_t *lead, int64_t *offset, pb_err *err)
{
    parser ps = {text, text, err};
    uint64_t t = 0;
    int64_t off = 0;
    if (term(&ps, lead)) return -1;
    while (*ps.p == '+' || *ps.p == '-') {
        char op = *ps.p++;
        if (term(&ps, &t)) return -1;
        /* |off| and t are at most 2^62: checked before the sum, which
         * could reach 2^63 and overflow. */
        if (op == '+' ? off > (int64_t)(SIZE_LIMIT - t) : off < -(int64_t)(SIZE_LIMIT - t))
            return fail(&ps, "offset too large");
        off += op == '+' ? (int64_t)t : -(int64_t)t;
    }
    if (*ps.p) return fail(&ps, "unexpected character");
    if (off < 0 && (uint64_t)(-off) > *lead) return fail(&ps, "negative size");
    if (*lead + (uint64_t)off > SIZE_LIMIT) return fail(&ps, "size too large");
    *offset = off;
    return 0;
}

int pb_size_expr(const char *text, uint64_t *value, pb_err *err)
{
    uint64_t lead;
    int64_t off;
    if (expr(text, &lead, &off, err)) return -1;
    *value = lead + (uint64_t)off;
    return 0;
}

static int push(uint64_t v, uint64_t *sizes, size_t *count, size_t cap, pb_err *err)
{
    if (*count >= cap) return pb_err_set(err, "too many sizes (at most %zu)", cap);
    sizes[(*count)++] = v;
    return 0;
}

/* Splits `item` into space-separated words, with ".." always its own word. */
static size_t words(const char *item, char *buf, size_t buflen, char **w, size_t cap)
{
    size_t o = 0;
    for (const char *p = item; *p && o + 5 < buflen; p++) {
        if (p[0] == '.' && p[1] == '.') {
            buf[o++] = ' ', buf[o++] = '.', buf[o++] = '.', buf[o++] = ' ';
            p++;
        } else {
            buf[o++] = *p;
        }
    }
    buf[o] = '\0';
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
        if (n == cap) return cap + 1;
        w[n++] = tok;
    }
    return n;
}

static int range(char **w, size_t nw, const char *item, uint64_t *sizes, size_t *count, size_t cap,
                 pb_err *err)
{
    uint64_t a, b;
    int64_t oa, ob;
    if (nw < 3 || nw > 4 || strcmp(w[1], "..") != 0)
        return pb_err_set(err, "bad size range '%s': expected 'FIRST .. LAST [*FACTOR | +STEP]'",
                          item);
    if (expr(w[0], &a, &oa, err) || expr(w[2], &b, &ob, err)) return -1;
    char op = '*';
    uint64_t step = 2;
    if (nw == 4) {
        op = w[3][0];
        if ((op != '*' && op != '+') || pb_size_expr(w[3] + 1, &step, NULL))
            return pb_err_set(err, "bad size range '%s': step '%s' is not '*FACTOR' or '+STEP'",
                              item, w[3]);
    }
    uint64_t first = a + (uint64_t)oa, last = b + (uint64_t)ob;
    if (first > last)
        return pb_err_set(err, "bad size range '%s': first size is above the last", item);
    if (op == '+') {
        if (step < 1) return pb_err_set(err, "bad size range '%s': step must be at least 1", item);
        for (uint64_t v = first; v <= last; v += step)
            if (push(v, sizes, count, cap, err)) return -1;
        return 0;
    }
    if (step < 2) return pb_err_set(err, "bad size range '%s': factor must be at least 2", item);
    if (oa != ob)
        return pb_err_set(err,
                          "bad size range '%s': both ends of a geometric range need the same "
                          "offset (%+lld and %+lld)",
                          item, (long long)oa, (long long)ob);
    if (a == 0) return pb_err_set(err, "bad size range '%s': a geometric range cannot start at 0", item);
    for (uint64_t v = a; v <= b; v *= step) {
        if (push(v + (uint64_t)oa, sizes, count, cap, err)) return -1;
        if (v > b / step) break;
    }
    return 0;
}

int pb_sizes_parse(const char *text, uint64_t *sizes, size_t *count, size_t cap, pb_err *err)
{
    char copy[4096];
    if (strlen(text) >= sizeof copy) return pb_err_set(err, "size list too long");
    strcpy(copy, text);
    size_t before = *count;
    /* Split by hand: strtok would skip the empty item of "2^10," or
     * "2^10,,2^12", which is a slip to point out, not to pass over. */
    for (char *item = copy, *next; item; item = next) {
        next = strchr(item, ',');
        if (next) *next++ = '\0';
        /* Room for the whole item with every ".." widened to " .. ": a
         * shorter buffer cut long items short and parsed what was left. */
        char orig[512], wbuf[2 * sizeof copy + 8], *w[8];
        snprintf(orig, sizeof orig, "%s", item);
        /* trim for messages */
        char *o = orig;
        while (*o == ' ' || *o == '\t') o++;
        for (size_t l = strlen(o); l && (o[l - 1] == ' ' || o[l - 1] == '\t');) o[--l] = '\0';
        size_t nw = words(item, wbuf, sizeof wbuf, w, 8);
        if (nw == 0) return pb_err_set(err, "empty item in size list '%s'", text);
        if (nw == 1) {
            uint64_t v;
            if (pb_size_expr(w[0], &v, err) || push(v, sizes, count, cap, err)) return -1;
        } else if (nw == 2 || strcmp(w[1], "..") != 0) {
            return pb_err_set(err,
                              "bad size expression '%s': write expressions without spaces, "
                              "and ranges as 'FIRST .. LAST [*FACTOR | +STEP]'",
                              o);
        } else if (range(w, nw, o, sizes, count, cap, err)) {
            return -1;
        }
    }
    if (*count == before) return pb_err_set(err, "empty size list");
    return 0;
}

const char *pb_size_format(uint64_t n, char *buf, size_t len)
{
    for (int k = 4; k < 63; k++) {
        uint64_t p = UINT64_C(1) << k;
        if (n == p) return snprintf(buf, len, "2^%d", k), buf;
        if (n == p + 1) return snprintf(buf, len, "2^%d+1", k), buf;
        if (n == p - 1) return snprintf(buf, len, "2^%d-1", k), buf;
    }
    snprintf(buf, len, "%llu", (unsigned long long)n);
    return buf;
}

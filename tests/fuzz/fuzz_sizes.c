/* The size syntax (config/sizes.h): one expression (pb_size_expr) and a
 * whole list (pb_sizes_parse). Beside the sanitizers, every accepted input
 * is checked against a second evaluator written here with 128-bit
 * arithmetic, and every size against its own printed form: a value that
 * wrapped around or was misread is a crash, not a sweep at the wrong n. */
#include <ctype.h>
#include <stdbool.h>

#include "config/sizes.h"
#include "tests/fuzz/fuzz.h"

typedef __int128 wide;
#define WIDE_CAP ((wide)1 << 100) /* far beyond any size; saturates there */

static wide sat(wide v)
{
    return v > WIDE_CAP ? WIDE_CAP : v < -WIDE_CAP ? -WIDE_CAP : v;
}

static wide ref_number(const char **p)
{
    wide v = 0;
    PB_FUZZ_ASSERT(isdigit((unsigned char)**p));
    while (isdigit((unsigned char)**p)) v = sat(v * 10 + (*(*p)++ - '0'));
    return v;
}

static wide ref_factor(const char **p)
{
    wide b = ref_number(p);
    if (**p != '^') return b;
    (*p)++;
    wide e = ref_number(p), v = 1;
    if (b <= 1) return e == 0 ? 1 : b;
    for (wide i = 0; i < e && v < WIDE_CAP; i++) v = sat(v * b);
    return v;
}

static wide ref_term(const char **p)
{
    wide v = ref_factor(p);
    while (**p == '*') {
        (*p)++;
        wide f = ref_factor(p);
        v = f == 0 ? 0 : v > WIDE_CAP / f ? WIDE_CAP : v * f;
    }
    return v;
}

/* An expression the parser accepted: its leading term and its offset. */
static void ref_expr(const char *text, wide *lead, wide *off)
{
    const char *p = text;
    *lead = ref_term(&p);
    *off = 0;
    while (*p == '+' || *p == '-') {
        char op = *p++;
        wide t = ref_term(&p);
        *off = sat(op == '+' ? *off + t : *off - t);
    }
    PB_FUZZ_ASSERT(*p == '\0');
}

static void check_value(uint64_t got, wide want)
{
    PB_FUZZ_ASSERT(want >= 0 && want <= ((wide)1 << 62));
    PB_FUZZ_ASSERT((wide)got == want);
    char buf[32];
    uint64_t again;
    PB_FUZZ_ASSERT(pb_size_expr(pb_size_format(got, buf, sizeof buf), &again, NULL) == 0);
    PB_FUZZ_ASSERT(again == got);
}

/* The words of a list item, as the parser splits them ('..' its own word). */
static size_t item_words(const char *item, size_t len, char w[][4096], size_t cap)
{
    size_t n = 0, o = 0;
    bool in = false;
    for (size_t i = 0; i <= len; i++) {
        bool dots = i + 1 < len && item[i] == '.' && item[i + 1] == '.';
        bool blank = i == len || item[i] == ' ' || item[i] == '\t' || dots;
        if (blank && in) {
            w[n - 1][o] = '\0';
            in = false;
        }
        if (dots) {
            if (n == cap) return cap + 1;
            snprintf(w[n++], 4096, "..");
            i++;
        } else if (!blank) {
            if (!in) {
                if (n == cap) return cap + 1;
                n++, o = 0, in = true;
            }
            w[n - 1][o++] = item[i];
        }
    }
    return n;
}

/* Replays an accepted list item by item against the second evaluator. */
static void check_list(const char *text, const uint64_t *sizes, size_t count)
{
    static char w[8][4096];
    size_t at = 0;
    for (const char *p = text; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        size_t nw = item_words(p, len, w, 8);
        p += len + (comma ? 1 : 0);
        if (nw == 0) continue; /* an empty item between commas is skipped */
        wide lead, off;
        if (nw == 1) {
            ref_expr(w[0], &lead, &off);
            PB_FUZZ_ASSERT(at < count);
            check_value(sizes[at++], lead + off);
            continue;
        }
        PB_FUZZ_ASSERT((nw == 3 || nw == 4) && strcmp(w[1], "..") == 0);
        wide a, oa, b, ob, step = 2, sl, so;
        ref_expr(w[0], &a, &oa);
        ref_expr(w[2], &b, &ob);
        char op = nw == 4 ? w[3][0] : '*';
        if (nw == 4) {
            ref_expr(w[3] + 1, &sl, &so);
            step = sl + so;
        }
        if (op == '+') {
            for (wide v = a + oa; v <= b + ob; v += step) {
                PB_FUZZ_ASSERT(at < count);
                check_value(sizes[at++], v);
            }
        } else {
            PB_FUZZ_ASSERT(op == '*' && oa == ob && a > 0 && step >= 2);
            for (wide v = a; v <= b; v *= step) {
                PB_FUZZ_ASSERT(at < count);
                check_value(sizes[at++], v + oa);
            }
        }
    }
    PB_FUZZ_ASSERT(at == count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A size list is an INI value (a line, continuations joined by ", "):
     * it never holds a newline, which its messages quote. */
    if (memchr(data, '\n', size)) return 0;
    char *text = pb_fuzz_text(data, size);
    if (!text) return 0;
    pb_err err;
    uint64_t v;
    pb_fuzz_err_clear(&err);
    if (pb_size_expr(text, &v, &err) == 0) {
        wide lead, off;
        ref_expr(text, &lead, &off);
        check_value(v, lead + off);
    } else {
        pb_fuzz_check_err(&err);
    }
    static uint64_t sizes[PB_MAX_SIZES];
    size_t count = 0;
    pb_fuzz_err_clear(&err);
    if (pb_sizes_parse(text, sizes, &count, PB_MAX_SIZES, &err) == 0)
        check_list(text, sizes, count);
    else
        pb_fuzz_check_err(&err);
    free(text);
    return 0;
}

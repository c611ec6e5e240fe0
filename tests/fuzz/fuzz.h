/* What every fuzz harness of tests/fuzz/ shares: libFuzzer's entry point,
 * the input as the C string a reader is given, and checks that turn a
 * broken promise into a crash libFuzzer records (a harness that only waited
 * for the sanitizers would miss a wrong answer or a bad message).
 *
 * A harness is tests/fuzz/fuzz_<name>.c defining LLVMFuzzerTestOneInput,
 * with its seed corpus in tests/fuzz/corpus/<name>/ and one line
 * pb_fuzz_harness(<name>) in tests/fuzz/CMakeLists.txt. */
#ifndef PB_FUZZ_H
#define PB_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise: the message, then abort() (libFuzzer saves the input). */
#define PB_FUZZ_ASSERT(cond)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: fuzz check failed: %s\n", __FILE__, __LINE__, #cond);          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* The input as a NUL-terminated string, or NULL when it holds a NUL byte
 * (the file readers refuse those before parsing: "not a text file"). */
static inline char *pb_fuzz_text(const uint8_t *data, size_t size)
{
    if (memchr(data, '\0', size)) return NULL;
    char *s = malloc(size + 1);
    if (!s) abort();
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* A fresh error, so a reader that fails without saying why is caught. */
static inline void pb_fuzz_err_clear(pb_err *err)
{
    err->msg[0] = '\0';
}

/* The bad-input rule: a failure says why, in one line. */
static inline void pb_fuzz_check_err(const pb_err *err)
{
    size_t len = strnlen(err->msg, sizeof err->msg);
    if (len == 0 || len == sizeof err->msg || memchr(err->msg, '\n', len)) {
        fprintf(stderr,
                "fuzz check failed: the error message is empty, unterminated or not one "
                "line: '%.*s'\n",
                (int)len, err->msg);
        abort();
    }
}

/* gnuplot input built from a file: every line an assignment `name = value`
 * whose value is a number or one single-quoted string, so nothing read
 * from a results file can end a string early and run as a command. */
static inline void pb_fuzz_check_gnuplot_vars(const char *vars)
{
    for (const char *line = vars; *line;) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        size_t i = 0;
        while (i < len && (line[i] == '_' || (line[i] >= 'a' && line[i] <= 'z') ||
                           (line[i] >= '0' && line[i] <= '9')))
            i++;
        int ok = i > 0 && len - i >= 3 && memcmp(line + i, " = ", 3) == 0;
        const char *v = line + i + 3;
        size_t vl = ok ? len - i - 3 : 0;
        if (ok && vl >= 2 && v[0] == '\'') {
            ok = v[vl - 1] == '\'' && !memchr(v + 1, '\'', vl - 2);
        } else if (ok) {
            for (size_t k = 0; k < vl && ok; k++) ok = strchr("0123456789+-.e", v[k]) != NULL;
            ok = ok && vl > 0;
        }
        if (!ok) {
            fprintf(stderr,
                    "fuzz check failed: gnuplot line is not `name = 'text'` or a number: %.*s\n",
                    (int)len, line);
            abort();
        }
        line += len + (end ? 1 : 0);
    }
}

#endif

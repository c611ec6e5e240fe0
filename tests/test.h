/* A small test harness in the libuv style: each test is a function
 * `int pb_test_<name>(void)` listed once in test_list.h; ctest runs each as
 * `pb_tests <name>`. A test returns 0 to pass, PB_TEST_SKIP (77, ctest's
 * SKIP_RETURN_CODE) when it cannot run here, anything else to fail. */
#ifndef PB_TEST_H
#define PB_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PB_TEST_SKIP 77

/* 1 in the sanitizer build (PB_SANITIZE: ASan and UBSan, several times
 * slower), where the longest CPU tests leave out their largest cases
 * (each says which): a memory or undefined-behaviour error shows at the
 * smaller sizes too, which take the same code paths, and the release
 * build runs every case. That keeps CI's sanitizer run affordable. */
#ifdef PB_SANITIZED
#define PB_TEST_SANITIZED 1
#else
#define PB_TEST_SANITIZED 0
#endif

/* Under the sanitizers, the grid sweeps (every size x distribution x dtype
 * x direction) walk one case in PB_TEST_SAN_STRIDE, counted across the
 * whole grid: `if (pb_test_san_skip(&count)) continue;` at the innermost
 * loop. The stride is prime, so it falls on every value of every axis
 * (each code path still meets the sanitizers) while the release build
 * checks every combination; a grid's combinations add answers to check,
 * not memory accesses of a new kind. */
#define PB_TEST_SAN_STRIDE 5
static inline int pb_test_san_skip(unsigned *count)
{
    return PB_TEST_SANITIZED && (*count)++ % PB_TEST_SAN_STRIDE != 0;
}

#define TEST_IMPL(name) int pb_test_##name(void)

#define ASSERT(expr)                                                                               \
    do {                                                                                           \
        if (!(expr)) {                                                                             \
            fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #expr);          \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

#define ASSERT_EQ_U64(a, b)                                                                        \
    do {                                                                                           \
        uint64_t a_ = (a), b_ = (b);                                                               \
        if (a_ != b_) {                                                                            \
            fprintf(stderr, "%s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n", __FILE__,    \
                    __LINE__, #a, a_, #b, b_);                                                     \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* |got - want| <= tol, for doubles (a NaN never is). */
#define ASSERT_NEAR(got, want, tol)                                                                \
    do {                                                                                           \
        double g_ = (got), w_ = (want), t_ = (tol);                                                \
        if (!(g_ - w_ <= t_ && w_ - g_ <= t_)) {                                                   \
            fprintf(stderr, "%s:%d: %s = %.17g, expected %.17g (+- %g)\n", __FILE__, __LINE__,     \
                    #got, g_, w_, t_);                                                             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* `hay` contains `needle`; prints both when not. */
#define ASSERT_CONTAINS(hay, needle)                                                               \
    do {                                                                                           \
        const char *h_ = (hay), *n_ = (needle);                                                    \
        if (!h_ || !strstr(h_, n_)) {                                                              \
            fprintf(stderr, "%s:%d: '%s' does not contain '%s'\n", __FILE__, __LINE__,             \
                    h_ ? h_ : "(null)", n_);                                                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Writes `text` to a fresh temporary file; returns its path (static buffer
 * per call site is not needed: the caller copies it). */
const char *pb_test_tmpfile(const char *text, char *path, size_t len);

/* Makes a fresh temporary folder; returns its path (in dir), or NULL. The
 * caller removes it. */
const char *pb_test_tmpdir(char *dir, size_t len);

#endif

/* A user's own keys: `dist = file:PATH` (config/data_file.h).
 *
 *  - own_data_params: the enum takes file:PATH where its choices end in
 *    file:PATH (and nowhere else), interns the resolved path (relative to
 *    the given directory, else the current one), prints it back, keeps the
 *    choices working;
 *  - own_data_topk: 2^16 fp32 keys with ties, NaNs, infinities and zeros fill
 *    the rows (ragged, misaligned) in file order as fp32 and as u32, the
 *    twin's answer per row equals a plain sort of the row read from the
 *    file, omp-topk verifies on them; the plan check passes at exactly the
 *    file's length and names both numbers one key beyond;
 *  - own_data_topk_16, own_data_topk_64: fp16 / bf16 files (2-byte keys)
 *    and fp64 / u64 files (8-byte keys, with what a 32-bit reading would
 *    get wrong), the same checks;
 *  - own_data_multisplit: the keys are the file's, values the positions,
 *    both CPU modules verify (keys and pairs); beyond the file, a size that
 *    is no whole number of keys and a missing file are refused;
 *  - own_data_changed: a file that shrank, or was rewritten, since the check
 *    is refused by the generator;
 *  - own_data_not_regular: a FIFO (no writer), /dev/null and a directory are
 *    refused at once, never waited on (an alarm fails a hang);
 *  - own_data_paths: a path with a control character is refused, the same
 *    file spelled with "..", "./" or through a symbolic link is one entry,
 *    a path at the root or under a base ending in '/' has no doubled slash,
 *    the table holds at most PB_DATA_FILES_MAX files and clears;
 *  - own_data_config: paths are the config file's directory's (".." in a
 *    path is no range), -D paths the current directory's; a list of files
 *    labels them file1, file2; a file listed twice is refused;
 *  - gpu_own_data: every GPU top-k and multisplit module verifies on file
 *    data, and every GPU top-k module that takes them on 8-byte fp64 and
 *    u64 keys (SKIP without a device). */
/* realpath(): X/Open in glibc. */
#define _XOPEN_SOURCE 700

#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/sweep_config.h"
#include "config/data_file.h"
#include "config/ini_override.h"
#include "config/params.h"
#include "core/fingerprint.h"
#include "core/gpu.h"
#include "families/multisplit/ms_family.h"
#include "families/multisplit/ms_problem.h"
#include "families/topk/topk_check.h"
#include "families/topk/topk_family.h"
#include "families/topk/topk_problem.h"
#include "registry/registry.h"
#include "tests/test.h"

#define NKEYS (1u << 16)

/* ---- helpers ---- */

/* Prints why a test fails; returns 1, for `rc = fail(...)`. */
static int fail(const char *fmt, ...) PB_PRINTF(1, 2);
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

/* A fresh directory under TMPDIR, its path in dir. */
static int make_dir(char *dir, size_t len)
{
    if (!pb_test_tmpdir(dir, len)) return -1;
    /* Results name files by their real path: compare with that. */
    char *real = realpath(dir, NULL);
    if (real) snprintf(dir, len, "%s", real);
    free(real);
    return 0;
}

/* The test's keys, as fp32 bits: every 16th a NaN (both signs, several
 * payloads, quiet and signalling), +inf, -inf, three ties at 0.5, -0 and
 * +0, the rest spread over [-1000, 1000). */
static uint32_t key_at(uint32_t i)
{
    switch (i % 16) {
    case 0: return 0x7fc00000u | (i & 0x3fffffu);
    case 1: return 0xff800000u | ((i & 0x3fffffu) | 1u);
    case 2: return 0x7f800000u;
    case 3: return 0xff800000u;
    case 4: case 5: case 6: return 0x3f000000u; /* 0.5 */
    case 7: return 0x80000000u;
    case 8: return 0;
    default: {
        float f = (float)((double)(pb_mix64(i) >> 11) * 0x1.0p-53 * 2000.0 - 1000.0);
        uint32_t b;
        memcpy(&b, &f, sizeof b);
        return b;
    }
    }
}

/* Writes keys 0..count-1 little-endian, then `extra` stray bytes. */
static int write_keys(const char *path, uint32_t count, unsigned extra)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t k = key_at(i);
        unsigned char b[4] = {(unsigned char)k, (unsigned char)(k >> 8), (unsigned char)(k >> 16),
                              (unsigned char)(k >> 24)};
        fwrite(b, 1, 4, f);
    }
    for (unsigned i = 0; i < extra; i++) fputc(0x5a, f);
    return fclose(f);
}

static void join(char *out, size_t len, const char *dir, const char *name)
{
    snprintf(out, len, "%s/%s", dir, name);
}

/* Sets dist of module m to file:path. */
static int set_file(const pb_module *m, pb_params *p, const char *path)
{
    char value[PB_DATA_PATH_MAX + 8];
    snprintf(value, sizeof value, "file:%s", path);
    pb_err err;
    if (pb_params_set(m, p, "dist", value, &err) == 0) return 0;
    fprintf(stderr, "%s\n", err.msg);
    return -1;
}

/* prepare, two runs, verify, release; the message on failure. */
static int drive(const pb_module *m, const pb_point *pt, pb_err *err)
{
    void *st = NULL;
    int rc = m->prepare(pt, &st, err);
    for (uint64_t s = 0; s < 2 && !rc; s++) {
        if (m->refresh) rc = m->refresh(st, err);
        if (!rc) rc = m->run(st, s, err);
    }
    if (!rc) rc = m->verify(st, err);
    if (st) m->release(st);
    if (rc) fprintf(stderr, "%s at n=%llu: %s\n", m->name, (unsigned long long)pt->n, err->msg);
    return rc;
}

static int cmp_okey_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* ---- the parameter ---- */

TEST_IMPL(own_data_params)
{
    const pb_module *m = pb_module_find("cpu-topk");
    ASSERT(m);
    int di = pb_module_param_index(m, "dist");
    const pb_param_spec *s = &m->params[di];
    ASSERT(pb_param_takes_file(s));
    pb_params p;
    pb_params_defaults(m, &p);
    pb_err err;
    ASSERT(pb_params_set_at(m, &p, "dist", "file:sub/keys.bin", "/nonexistent-pb/dir", &err) == 0);
    ASSERT(p.v[di] >= PB_PARAM_FILE);
    const pb_data_file *f = pb_param_file(p.v[di]);
    ASSERT(f && strcmp(f->path, "/nonexistent-pb/dir/sub/keys.bin") == 0);
    char buf[PB_PARAM_TEXT_MAX];
    ASSERT(strcmp(pb_param_format(s, p.v[di], buf, sizeof buf),
                  "file:/nonexistent-pb/dir/sub/keys.bin") == 0);
    /* The same file, spelled absolute: the same id. */
    long long first = p.v[di];
    ASSERT(pb_params_set(m, &p, "dist", "file:/nonexistent-pb/dir/sub/keys.bin", &err) == 0);
    ASSERT(p.v[di] == first);
    /* Relative without a directory: the current one's. */
    char cwd[PB_DATA_PATH_MAX], want[PB_DATA_PATH_MAX + 32];
    ASSERT(getcwd(cwd, sizeof cwd));
    ASSERT(pb_params_set(m, &p, "dist", "file:./no-such-keys.bin", &err) == 0);
    snprintf(want, sizeof want, "%s/no-such-keys.bin", cwd);
    ASSERT(pb_param_file(p.v[di]) && strcmp(pb_param_file(p.v[di])->path, want) == 0);
    ASSERT(pb_params_set(m, &p, "dist", "file:", &err) != 0);
    ASSERT_CONTAINS(err.msg, "needs a path");
    /* The choices are still choices, and none is a file. */
    ASSERT(pb_params_set(m, &p, "dist", "zipf", &err) == 0 && p.v[di] == PB_TOPK_ZIPF);
    ASSERT(!pb_param_file(p.v[di]));
    ASSERT(pb_params_set(m, &p, "dist", "zipfian", &err) != 0);
    ASSERT_CONTAINS(err.msg, "is not one of " PB_TOPK_DIST_CHOICES);
    /* An enum without the marker takes no file. */
    const pb_module *b = pb_module_find("cpu-bijective-twin");
    int bi = pb_module_param_index(b, "bijection");
    ASSERT(b && bi >= 0 && !pb_param_takes_file(&b->params[bi]));
    pb_params_defaults(b, &p);
    ASSERT(pb_params_set(b, &p, "bijection", "file:x.bin", &err) != 0);
    ASSERT_CONTAINS(err.msg, "'file:x.bin' is not one of");
    return 0;
}

/* ---- top-k ---- */

/* Key j of a top-k test file, widened to 64 bits: key_at(j) (4-byte keys),
 * its top half (2-byte keys), or file_key64's (8-byte keys). */
typedef uint64_t (*file_key_fn)(uint32_t j);

static uint64_t file_key32(uint32_t j)
{
    return key_at(j);
}

static uint64_t file_key16(uint32_t j)
{
    return key_at(j) >> 16;
}

/* 8-byte keys: fp64 bit patterns every class of which a 32-bit reading
 * would get wrong. Of each 16: NaNs with their payload in the low 32 bits
 * only (both signs, quiet and signalling), +inf, -inf, three ties at 0.5,
 * -0.0, +0.0, the negative and positive subnormals nearest zero, keys that
 * differ from 0.5 only in the low 32 bits, the rest key_at's floats
 * widened, offset by a few units in the last place. */
static uint64_t file_key64(uint32_t j)
{
    switch (j % 16) {
    case 0:
        return UINT64_C(0x7ff0000000000000) | (j | 1u); /* signalling, low payload */
    case 1:
        return UINT64_C(0xfff8000000000000) | ((uint64_t)j << 8); /* negative quiet */
    case 2:
        return UINT64_C(0x7ff0000000000000);
    case 3:
        return UINT64_C(0xfff0000000000000);
    case 4:
    case 5:
    case 6:
        return UINT64_C(0x3fe0000000000000); /* 0.5 */
    case 7:
        return UINT64_C(0x8000000000000000);
    case 8:
        return 0;
    case 9:
        return (j & 32) ? UINT64_C(0x8000000000000001) : 1; /* the subnormals nearest 0 */
    case 10:
        return UINT64_C(0x3fe0000000000000) + (pb_mix64(j) & 0xffffffffu);
    default: {
        float f;
        uint32_t b = key_at(j);
        memcpy(&f, &b, sizeof f);
        double d = (double)f;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        return bits + (pb_mix64(j) & 7);
    }
    }
}

/* Writes keys 0..NKEYS-1 of `key`, `width` bytes each, little-endian. */
static int write_file_keys(const char *path, int width, file_key_fn key)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    for (uint32_t i = 0; i < NKEYS; i++) {
        uint64_t k = key(i);
        unsigned char b[8];
        for (int q = 0; q < width; q++) b[q] = (unsigned char)(k >> (8 * q));
        fwrite(b, 1, (size_t)width, f);
    }
    return fclose(f);
}

static int topk_rows_are_file(const pb_topk_problem *p, file_key_fn key)
{
    uint64_t j = 0;
    for (uint64_t r = 0; r < p->rows; r++)
        for (uint64_t i = p->begin[r]; i < p->end[r]; i++, j++)
            if (pb_topk_value_at(p, i) != key((uint32_t)j)) {
                fprintf(stderr, "row %llu element %llu is %llx, key %llu of the file is %llx\n",
                        (unsigned long long)r, (unsigned long long)(i - p->begin[r]),
                        (unsigned long long)pb_topk_value_at(p, i), (unsigned long long)j,
                        (unsigned long long)key((uint32_t)j));
                return -1;
            }
    return j == p->elems ? 0 : -1;
}

/* Each row's twin answer (best first) against a plain sort of the row's
 * order keys, taken from the file, not from the problem's buffer. */
static int topk_twin_is_sorted_file(pb_topk_problem *p, file_key_fn key)
{
    pb_err err;
    if (pb_topk_twin_answer(p, &err)) return -fail("%s", err.msg);
    uint64_t j = 0;
    for (uint64_t r = 0; r < p->rows; r++) {
        uint64_t len = pb_topk_row_len(p, r), outs = p->out_off[r + 1] - p->out_off[r];
        uint64_t *keys = malloc(len * sizeof *keys);
        if (!keys) return -1;
        for (uint64_t i = 0; i < len; i++) keys[i] = pb_topk_problem_okey64(p, key((uint32_t)j++));
        qsort(keys, len, sizeof *keys, cmp_okey_desc);
        int bad = 0;
        for (uint64_t i = 0; i < outs && !bad; i++)
            bad = pb_topk_problem_okey64(p, pb_topk_out_value(p, pb_topk_twin_values(p),
                                                              p->out_off[r] + i)) != keys[i];
        free(keys);
        if (bad) return -fail("row %llu: the twin is not the file's best", (unsigned long long)r);
    }
    return 0;
}

/* omp-topk on the file at path (NKEYS keys, key j being key(j)):
 * 4 ragged misaligned rows covering the whole file, each dtype of
 * [dt_first, dt_last] in both directions: the point fits, the rows are the
 * file's keys, the twin is their plain sort, the module passes its check.
 * *pt and *par (set up here) stay for the caller's further points. */
static int topk_on_file(const char *path, int dt_first, int dt_last, file_key_fn key, pb_point *pt,
                        pb_params *par)
{
    const pb_module *m = pb_module_find("cpu-topk");
    if (!m || !m->family->check_point) return fail("no cpu-topk with a check_point");
    pb_params_defaults(m, par);
    if (set_file(m, par, path)) return 1;
    par->v[PB_TOPK_P_ROWS] = 4;
    par->v[PB_TOPK_P_K] = 100;
    par->v[PB_TOPK_P_RAGGED] = 1;
    par->v[PB_TOPK_P_MISALIGN] = 1;
    par->v[pb_module_param_index(m, "threads")] = 2;
    *pt = (pb_point){NKEYS / 4, 4, 5, par, 2};
    pb_err err;
    int rc = 0;
    for (int dtype = dt_first; dtype <= dt_last && !rc; dtype++) {
        for (int largest = 0; largest <= 1 && !rc; largest++) {
            par->v[PB_TOPK_P_DTYPE] = dtype;
            par->v[PB_TOPK_P_LARGEST] = largest;
            /* rows x n is the whole file: fits. */
            if (m->family->check_point(m, pt, &err)) return fail("%s", err.msg);
            pb_topk_problem p;
            if (pb_topk_problem_init(&p, pt, &err)) return fail("%s", err.msg);
            rc = p.file == pb_param_file(par->v[PB_TOPK_P_DIST]) && p.dist == PB_TOPK_NDIST ? 0 : 1;
            if (!rc) rc = topk_rows_are_file(&p, key) ? 1 : 0;
            if (!rc) rc = topk_twin_is_sorted_file(&p, key) ? 1 : 0;
            pb_topk_problem_free(&p);
            if (!rc) rc = drive(m, pt, &err) ? 1 : 0;
        }
    }
    return rc;
}

/* In a fresh directory, topk_on_file on a file `name` of NKEYS `width`-byte
 * keys; then a point of one value more than the file holds: refused, its
 * message holding each of `said` (NULL-terminated; "$path": the file's
 * path). Then `then` (if any) with the directory, the file's parameters
 * and the module. */
typedef int (*topk_then_fn)(const char *dir, const pb_params *par, const pb_module *m);

static int topk_file_case(const char *name, int width, file_key_fn key, int dt_first, int dt_last,
                          const char *const *said, topk_then_fn then)
{
    char dir[512], path[600];
    if (make_dir(dir, sizeof dir)) return fail("no temporary directory");
    join(path, sizeof path, dir, name);
    pb_params par;
    pb_point pt = {0};
    pb_err err;
    int rc = write_file_keys(path, width, key) ? fail("cannot write %s", path) : 0;
    if (!rc) rc = topk_on_file(path, dt_first, dt_last, key, &pt, &par);
    const pb_module *m = pb_module_find("cpu-topk");
    pb_point beyond = pt;
    beyond.n = NKEYS / 4 + 1;
    if (!rc && m->family->check_point(m, &beyond, &err) == 0) rc = fail("beyond passed");
    for (; !rc && *said; said++)
        if (!strstr(err.msg, strcmp(*said, "$path") ? *said : path)) rc = fail("message: %s", err.msg);
    if (!rc && then) rc = then(dir, &par, m);
    unlink(path);
    rmdir(dir);
    return rc;
}

TEST_IMPL(own_data_topk)
{
    /* Both numbers and the file are named. */
    static const char *const said[] = {"65540", "65536", "$path", NULL};
    return topk_file_case("keys.f32", 4, file_key32, PB_TOPK_F32, PB_TOPK_U32, said, NULL);
}

/* fp16 / bf16 files: 2 bytes a key. Key i is the top half of key_at(i)
 * (NaNs, infinities, zeros and ties among them); the rows hold them
 * zero-extended, the twin's answer is a plain sort of them, omp-topk
 * passes the check, and the file's size is counted in 2-byte keys. */
TEST_IMPL(own_data_topk_16)
{
    static const char *const said[] = {"65536", NULL};
    return topk_file_case("keys.f16", 2, file_key16, PB_TOPK_F16, PB_TOPK_BF16, said, NULL);
}

/* 3 4-byte keys are no whole number of 8-byte ones. */
static int topk_odd_64(const char *dir, const pb_params *par, const pb_module *m)
{
    char odd[600];
    join(odd, sizeof odd, dir, "odd.f64");
    if (write_keys(odd, 3, 0)) return fail("cannot write %s", odd);
    pb_params op = *par;
    pb_point small = {1, 4, 5, &op, 2};
    op.v[PB_TOPK_P_ROWS] = 1;
    op.v[PB_TOPK_P_RAGGED] = op.v[PB_TOPK_P_MISALIGN] = 0;
    pb_err err;
    int rc = set_file(m, &op, odd) ? 1 : 0;
    if (!rc && m->family->check_point(m, &small, &err) == 0) rc = fail("odd passed");
    if (!rc && !strstr(err.msg, "12 bytes are not a whole number of 8-byte keys"))
        rc = fail("message: %s", err.msg);
    unlink(odd);
    return rc;
}

/* fp64 / u64 files: 8 bytes a key (file_key64: NaNs whose payload is in
 * the low 32 bits, subnormals, keys that differ only in their low 32
 * bits). The rows hold them as they are, as fp64 and as u64; the twin's
 * answer is a plain sort of them; omp-topk passes the check; the file's
 * size is counted in 8-byte keys, and a file of 4-byte keys with an odd
 * count is no whole number of them. */
TEST_IMPL(own_data_topk_64)
{
    static const char *const said[] = {"65540", "65536", NULL};
    return topk_file_case("keys.f64", 8, file_key64, PB_TOPK_F64, PB_TOPK_U64, said, topk_odd_64);
}

/* ---- multisplit ---- */

TEST_IMPL(own_data_multisplit)
{
    char dir[512], path[600], odd[600], none[600];
    ASSERT(make_dir(dir, sizeof dir) == 0);
    join(path, sizeof path, dir, "keys.u32");
    join(odd, sizeof odd, dir, "odd.u32");
    join(none, sizeof none, dir, "none.u32");
    ASSERT(write_keys(path, NKEYS, 0) == 0 && write_keys(odd, NKEYS, 2) == 0);
    int rc = 0;
    pb_err err;
    const char *names[] = {"cpu-multisplit-twin", "cpu-multisplit"};
    for (int mi = 0; mi < 2 && !rc; mi++) {
        const pb_module *m = pb_module_find(names[mi]);
        ASSERT(m && m->family->check_point);
        pb_params par;
        pb_params_defaults(m, &par);
        ASSERT(set_file(m, &par, path) == 0);
        par.v[PB_MS_P_BUCKET] = PB_BUCKET_RANGE;
        int ti = pb_module_param_index(m, "threads");
        if (ti >= 0) par.v[ti] = 2;
        for (unsigned item = 4; item <= 8 && !rc; item += 4) {
            pb_point pt = {NKEYS, item, 3, &par, 2};
            if (m->family->check_point(m, &pt, &err)) {
                rc = fail("%s", err.msg);
                break;
            }
            pb_ms_problem p;
            if (pb_ms_problem_init(&p, &pt, &err)) {
                rc = fail("%s", err.msg);
                break;
            }
            for (uint32_t i = 0; i < NKEYS && !rc; i++)
                if (p.keys[i] != key_at(i) || (p.vals && p.vals[i] != i))
                    rc = fail("item %u is not the file's", i);
            rc |= (item == 8) != (p.vals != NULL);
            pb_ms_problem_free(&p);
            if (!rc) rc = drive(m, &pt, &err) ? 1 : 0;
        }
        if (rc) break;
        pb_point pt = {NKEYS + 1, 4, 3, &par, 2};
        if (m->family->check_point(m, &pt, &err) == 0) rc = fail("beyond passed");
        else if (!strstr(err.msg, "65537") || !strstr(err.msg, "65536"))
            rc = fail("message: %s", err.msg);
        pt.n = 16;
        ASSERT(set_file(m, &par, odd) == 0);
        if (!rc && m->family->check_point(m, &pt, &err) == 0) rc = fail("odd passed");
        if (!rc && !strstr(err.msg, "262146 bytes are not a whole number of 4-byte keys"))
            rc = fail("message: %s", err.msg);
        ASSERT(set_file(m, &par, none) == 0);
        if (!rc && m->family->check_point(m, &pt, &err) == 0) rc = fail("missing passed");
        if (!rc && !strstr(err.msg, "cannot open (No such file or directory): file:"))
            rc = fail("message: %s", err.msg);
    }
    unlink(path);
    unlink(odd);
    rmdir(dir);
    return rc;
}

/* ---- a file that changed after the check ---- */

TEST_IMPL(own_data_changed)
{
    char dir[512], path[600];
    ASSERT(make_dir(dir, sizeof dir) == 0);
    join(path, sizeof path, dir, "keys.u32");
    ASSERT(write_keys(path, 4096, 0) == 0);
    const pb_module *m = pb_module_find("cpu-multisplit-twin");
    pb_params par;
    pb_params_defaults(m, &par);
    ASSERT(set_file(m, &par, path) == 0);
    pb_point pt = {1024, 4, 3, &par, 1};
    pb_err err;
    int rc = m->family->check_point(m, &pt, &err) ? 1 : 0;
    pb_ms_problem p;
    if (!rc && pb_ms_problem_init(&p, &pt, &err)) rc = fail("%s", err.msg);
    else if (!rc) pb_ms_problem_free(&p);
    /* Shrunk below what the point needs: refused when read. */
    if (!rc && write_keys(path, 512, 0)) rc = 1;
    if (!rc && pb_ms_problem_init(&p, &pt, &err) == 0) rc = fail("read a shrunk file");
    if (!rc && !strstr(err.msg, "changed since it was checked")) rc = fail("%s", err.msg);
    /* The same size again, but rewritten (another modification time). */
    struct timespec t[2] = {{0, UTIME_OMIT}, {12345, 0}};
    if (!rc && (write_keys(path, 4096, 0) || utimensat(AT_FDCWD, path, t, 0))) rc = 1;
    if (!rc && pb_ms_problem_init(&p, &pt, &err) == 0) rc = fail("read a rewritten file");
    if (!rc && !strstr(err.msg, "changed since it was checked")) rc = fail("%s", err.msg);
    unlink(path);
    rmdir(dir);
    return rc;
}

/* ---- what is not a regular file ---- */

TEST_IMPL(own_data_not_regular)
{
    char dir[512], fifo[600];
    ASSERT(make_dir(dir, sizeof dir) == 0);
    join(fifo, sizeof fifo, dir, "keys.fifo");
    ASSERT(mkfifo(fifo, 0600) == 0);
    const char *paths[] = {fifo, "/dev/null", dir};
    pb_err err;
    int rc = 0;
    /* Opening a FIFO for reading waits for a writer: a hang the alarm
     * turns into a failure. */
    alarm(20);
    for (int i = 0; i < 3 && !rc; i++) {
        long id = pb_data_file_intern(paths[i], NULL, &err);
        if (id < 0) {
            rc = fail("%s: %s", paths[i], err.msg);
            break;
        }
        if (pb_data_file_check(pb_data_file_at(id), 4, 1, NULL, &err) == 0)
            rc = fail("%s passed the check", paths[i]);
        else if (!strstr(err.msg, "not a regular file: file:"))
            rc = fail("%s: %s", paths[i], err.msg);
    }
    alarm(0);
    unlink(fifo);
    rmdir(dir);
    return rc;
}

/* ---- resolving and bounding paths ---- */

TEST_IMPL(own_data_paths)
{
    char dir[512], sub[600], keys[700], link[700], spelled[800], dotted[800];
    ASSERT(make_dir(dir, sizeof dir) == 0);
    join(sub, sizeof sub, dir, "sub");
    ASSERT(mkdir(sub, 0700) == 0);
    join(keys, sizeof keys, sub, "keys.u32");
    join(link, sizeof link, dir, "link.u32");
    ASSERT(write_keys(keys, 16, 0) == 0 && symlink(keys, link) == 0);
    pb_err err;
    int rc = 0;
    /* One file, four spellings: one entry, named by its real path. */
    snprintf(spelled, sizeof spelled, "%s/../sub/./keys.u32", sub);
    snprintf(dotted, sizeof dotted, "./sub/keys.u32");
    long a = pb_data_file_intern(keys, NULL, &err), b = pb_data_file_intern(spelled, NULL, &err),
         c = pb_data_file_intern(link, NULL, &err), d = pb_data_file_intern(dotted, dir, &err);
    if (a < 0 || a != b || a != c || a != d)
        rc = fail("one file, ids %ld %ld %ld %ld", a, b, c, d);
    else if (strcmp(pb_data_file_at(a)->path, keys) != 0)
        rc = fail("named %s, not %s", pb_data_file_at(a)->path, keys);
    /* At the root: one slash ("//x" named the same file, but differently). */
    struct { const char *path, *base, *want; } root[] = {
        {"/../no-such-pb-key", NULL, "/no-such-pb-key"},
        {"no-such-pb-key", "/", "/no-such-pb-key"},
        {"no-such-pb-key", "/nonexistent-pb/", "/nonexistent-pb/no-such-pb-key"},
    };
    for (int i = 0; i < 3 && !rc; i++) {
        long id = pb_data_file_intern(root[i].path, root[i].base, &err);
        if (id < 0 || strcmp(pb_data_file_at(id)->path, root[i].want) != 0)
            rc = fail("%s in %s: %s, not %s", root[i].path, root[i].base ? root[i].base : "(cwd)",
                      id < 0 ? err.msg : pb_data_file_at(id)->path, root[i].want);
    }
    /* A control character would break the one-line message and JSON. */
    if (!rc && pb_data_file_intern("keys\\n.u32", dir, &err) < 0)
        rc = fail("a backslash is no control character: %s", err.msg);
    const char *ctl[] = {"keys\n.u32", "ke\tys.u32", "ke\x1b[2Jys.u32", "keys\x7f"};
    const char *hex[] = {"(0x0a)", "(0x09)", "(0x1b)", "(0x7f)"};
    for (int i = 0; i < 4 && !rc; i++) {
        if (pb_data_file_intern(ctl[i], dir, &err) >= 0) rc = fail("control character %s passed", hex[i]);
        else if (!strstr(err.msg, "the path holds a control character ") || !strstr(err.msg, hex[i]))
            rc = fail("%s", err.msg);
    }
    /* Longer than PB_DATA_PATH_MAX once resolved. */
    char longp[PB_DATA_PATH_MAX + 64];
    memset(longp, 'k', sizeof longp - 1);
    longp[sizeof longp - 1] = '\0';
    if (!rc && pb_data_file_intern(longp, dir, &err) >= 0) rc = fail("a long path passed");
    if (!rc && !strstr(err.msg, "the path is longer than 1023 characters: file:kkk"))
        rc = fail("%s", err.msg);
    /* The table's bound, then cleared: ids start again. */
    if (!rc) {
        pb_data_files_clear();
        char name[64];
        for (int i = 0; i < PB_DATA_FILES_MAX && !rc; i++) {
            snprintf(name, sizeof name, "/nonexistent-pb/k%d", i);
            if (pb_data_file_intern(name, NULL, &err) != i) rc = fail("file %d: %s", i, err.msg);
        }
        if (!rc && pb_data_file_intern("/nonexistent-pb/k0", NULL, &err) != 0)
            rc = fail("a known file at the bound: %s", err.msg);
        if (!rc && pb_data_file_intern("/nonexistent-pb/one-more", NULL, &err) >= 0)
            rc = fail("file %d passed", PB_DATA_FILES_MAX + 1);
        if (!rc && !strstr(err.msg, "more than 4096 data files: file:/nonexistent-pb/one-more"))
            rc = fail("%s", err.msg);
        pb_data_files_clear();
        if (!rc && (pb_data_file_count() != 0 || pb_data_file_intern(keys, NULL, &err) != 0))
            rc = fail("not cleared");
        pb_data_files_clear();
    }
    unlink(link);
    unlink(keys);
    rmdir(sub);
    rmdir(dir);
    return rc;
}

/* ---- paths in configs ---- */

static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fputs(text, f);
    return fclose(f);
}

static const pb_instance *find(const pb_config *c, const char *label)
{
    long i = pb_instances_find(&c->inst, label);
    return i >= 0 && strcmp(c->inst.v[i].label, label) == 0 ? &c->inst.v[i] : NULL;
}

static const char *dist_of(const pb_instance *in)
{
    const pb_data_file *f = in ? pb_param_file(in->params.v[PB_MS_P_DIST]) : NULL;
    return f ? f->path : "";
}

TEST_IMPL(own_data_config)
{
    char dir[512], sub[600], data[600], keys[700], k2[700], ini[700];
    ASSERT(make_dir(dir, sizeof dir) == 0);
    join(sub, sizeof sub, dir, "cfg");
    join(data, sizeof data, dir, "data");
    ASSERT(mkdir(sub, 0700) == 0 && mkdir(data, 0700) == 0);
    join(keys, sizeof keys, data, "keys.u32");
    join(k2, sizeof k2, sub, "k2.u32");
    join(ini, sizeof ini, sub, "c.ini");
    ASSERT(write_keys(keys, 64, 0) == 0 && write_keys(k2, 64, 0) == 0);
    ASSERT(write_text(ini, "[sweep]\nfamily = multisplit\nsizes = 64\n"
                           "[one]\nmodule = cpu-multisplit-twin\ndist = file:../data/keys.u32\n"
                           "[list]\nmodule = cpu-multisplit-twin\n"
                           "dist = file:../data/keys.u32, uniform, file:k2.u32\n") == 0);
    pb_config cfg;
    pb_err err;
    int rc = 0;
    if (pb_config_load_file(ini, &cfg, &err)) return fail("%s", err.msg);
    /* Relative to the config's directory, whatever the current one. */
    if (strcmp(dist_of(find(&cfg, "one")), keys) != 0) rc = fail("one: %s", dist_of(find(&cfg, "one")));
    const pb_instance *f1 = find(&cfg, "list/dist=file1"), *u = find(&cfg, "list/dist=uniform"),
                      *f2 = find(&cfg, "list/dist=file2");
    if (!rc && (!f1 || !u || !f2 || cfg.inst.n != 4)) rc = fail("the list's labels");
    if (!rc && (strcmp(dist_of(f1), keys) != 0 || strcmp(dist_of(f2), k2) != 0 ||
                strcmp(f1->axis_value, "file1") != 0 || strcmp(f2->axis, "dist") != 0 ||
                u->params.v[PB_MS_P_DIST] != PB_MS_UNIFORM))
        rc = fail("the list's values");
    pb_config_free(&cfg);
    /* -D: the current directory's. */
    const char *defs[] = {"one.dist=file:from-cwd.u32"};
    pb_ini_set_overrides(defs, 1);
    int lr = pb_config_load_file(ini, &cfg, &err);
    pb_ini_set_overrides(NULL, 0);
    char cwd[PB_DATA_PATH_MAX], want[PB_DATA_PATH_MAX + 32];
    ASSERT(getcwd(cwd, sizeof cwd));
    snprintf(want, sizeof want, "%s/from-cwd.u32", cwd);
    if (lr) rc = fail("%s", err.msg);
    else if (!rc && strcmp(dist_of(find(&cfg, "one")), want) != 0) rc = fail("-D: %s", dist_of(find(&cfg, "one")));
    if (!lr) pb_config_free(&cfg);
    /* One file twice, spelled two ways. */
    ASSERT(write_text(ini, "[sweep]\nfamily = multisplit\nsizes = 64\n"
                           "[list]\nmodule = cpu-multisplit-twin\n"
                           "dist = file:k2.u32, file:./k2.u32\n") == 0);
    if (!rc && pb_config_load_file(ini, &cfg, &err) == 0) rc = fail("twice passed");
    if (!rc && !strstr(err.msg, "appears twice in 'dist'")) rc = fail("%s", err.msg);
    unlink(ini);
    unlink(keys);
    unlink(k2);
    rmdir(sub);
    rmdir(data);
    rmdir(dir);
    return rc;
}

/* ---- the GPU modules on file data ---- */

TEST_IMPL(gpu_own_data)
{
    char why[256];
    if (pb_gpu_count(why, sizeof why) <= 0) {
        printf("skipped: %s\n", why);
        return PB_TEST_SKIP;
    }
    char dir[512], path[600];
    ASSERT(make_dir(dir, sizeof dir) == 0);
    join(path, sizeof path, dir, "keys.bin");
    ASSERT(write_keys(path, NKEYS, 0) == 0);
    int rc = 0, runs = 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        bool topk = m->family == &pb_family_topk, ms = m->family == &pb_family_multisplit;
        if (m->device != PB_DEVICE_GPU || (!topk && !ms) || pb_module_param_index(m, "dist") < 0)
            continue;
        pb_params par;
        pb_params_defaults(m, &par);
        ASSERT(set_file(m, &par, path) == 0);
        for (int shape = 0; shape < 2; shape++) {
            pb_point pt = {NKEYS, shape ? 8u : 4u, 9, &par, 0};
            if (topk) {
                pt.item_bytes = 4;
                par.v[PB_TOPK_P_ROWS] = shape ? 4 : 1;
                par.v[PB_TOPK_P_RAGGED] = par.v[PB_TOPK_P_MISALIGN] = shape;
                pt.n = NKEYS / (uint64_t)par.v[PB_TOPK_P_ROWS];
            } else if (!strcmp(m->name, "gpu-scan-split") || !strcmp(m->name, "gpu-cub-partition")) {
                par.v[PB_MS_P_BUCKETS] = 2;
            }
            /* What a module refuses on this device (its `available`:
             * gpu-cub-topk's batches below compute capability 9.0 code). */
            char no[256];
            if (m->available && !m->available(&par, no, sizeof no)) continue;
            pb_err err;
            if (m->family->check_point(m, &pt, &err)) rc = fail("%s: %s", m->name, err.msg);
            else rc |= drive(m, &pt, &err) ? 1 : 0;
            runs++;
        }
    }
    /* 8-byte keys (fp64 and u64) on every GPU top-k module that takes
     * them (radik refuses them, through `available`). */
    char path64[600];
    join(path64, sizeof path64, dir, "keys.f64");
    ASSERT(write_file_keys(path64, 8, file_key64) == 0);
    int runs64 = 0;
    for (size_t i = 0; i < pb_module_count(); i++) {
        const pb_module *m = pb_module_at(i);
        if (m->device != PB_DEVICE_GPU || m->family != &pb_family_topk ||
            pb_module_param_index(m, "dist") < 0)
            continue;
        pb_params par;
        pb_params_defaults(m, &par);
        ASSERT(set_file(m, &par, path64) == 0);
        for (int dt = PB_TOPK_F64; dt <= PB_TOPK_U64; dt++)
            for (int shape = 0; shape < 2; shape++) {
                par.v[PB_TOPK_P_DTYPE] = dt;
                par.v[PB_TOPK_P_ROWS] = shape ? 4 : 1;
                par.v[PB_TOPK_P_RAGGED] = par.v[PB_TOPK_P_MISALIGN] = shape;
                par.v[PB_TOPK_P_LARGEST] = dt == PB_TOPK_F64;
                char why[256];
                if (m->available && !m->available(&par, why, sizeof why)) continue;
                pb_point pt = {NKEYS / (uint64_t)par.v[PB_TOPK_P_ROWS], 4, 9, &par, 0};
                pb_err err;
                if (m->family->check_point(m, &pt, &err))
                    rc = fail("%s: %s", m->name, err.msg);
                else
                    rc |= drive(m, &pt, &err) ? 1 : 0;
                runs64++;
            }
    }
    printf("%d GPU module runs on file data, %d on 8-byte keys\n", runs, runs64);
    unlink(path64);
    unlink(path);
    rmdir(dir);
    return rc || runs == 0 || runs64 == 0;
}

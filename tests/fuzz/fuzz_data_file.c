/* Key files (`dist = file:PATH`, config/data_file.h): the check a plan makes
 * of a file (size a whole number of keys, enough keys, its SHA-256), the
 * reader that streams its keys into a problem, the refusal of a file that
 * changed since the check; and the resolution of the paths a config names.
 *
 * Input: byte 0 chooses what is fuzzed and how,
 *   bits 0-1  the key width, 1 << (bits): 1, 2, 4 or 8 bytes
 *   bit 2     paths: the rest is "PATH\nBASE" for pb_data_file_intern
 *   bit 3     `need` as given (else reduced to 0 .. keys + 1, so most
 *             inputs are near the file's length, where the bugs would be)
 * then, for a key file, bytes 1-8 the keys wanted (`need`, little-endian),
 * byte 9 the reader's batch in keys (0 reads 1 at a time), and the rest is
 * the file, written to a temporary file named relative to its directory.
 *
 * Beside the sanitizers: the check accepts exactly the files a second
 * reckoning here accepts, its messages are one line naming the numbers; the
 * hash is the SHA-256 of the bytes; the reader returns each key as the file
 * holds it, little-endian, refuses to read past the end, and refuses a file
 * that shrank since the check. A resolved path is absolute, free of control
 * characters, and resolves to itself. */
/* realpath(), mkdtemp(), truncate(): X/Open in glibc. */
#define _XOPEN_SOURCE 700

#include <unistd.h>

#include "config/data_file.h"
#include "core/sha256.h"
#include "tests/fuzz/fuzz.h"

static char dir[256], file[300];

static void cleanup(void)
{
    unlink(file);
    rmdir(dir);
}

/* The file's directory, once per process. */
static void setup(void)
{
    if (dir[0]) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pb-fuzz-data-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) abort();
    char *real = realpath(dir, NULL); /* what the table will name */
    if (!real || strlen(real) >= sizeof dir) abort();
    snprintf(dir, sizeof dir, "%s", real);
    free(real);
    snprintf(file, sizeof file, "%s/keys.bin", dir);
    atexit(cleanup);
}

static uint64_t le(const uint8_t *p, unsigned bytes)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* A key the reader wrote into host memory, as a number. */
static uint64_t host(const unsigned char *p, unsigned bytes)
{
    switch (bytes) {
    case 1: return p[0];
    case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static bool contains_number(const char *msg, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%llu", (unsigned long long)v);
    return strstr(msg, num) != NULL;
}

static void paths(const uint8_t *data, size_t size)
{
    char *text = pb_fuzz_text(data, size);
    if (!text) return;
    char *base = strchr(text, '\n');
    if (base) *base++ = '\0';
    pb_err err;
    pb_fuzz_err_clear(&err);
    long id = pb_data_file_intern(text, base, &err);
    if (id < 0) {
        pb_fuzz_check_err(&err);
    } else {
        const pb_data_file *f = pb_data_file_at(id);
        PB_FUZZ_ASSERT(f && f->path[0] == '/' && strlen(f->path) < PB_DATA_PATH_MAX);
        PB_FUZZ_ASSERT(!f->checked);
        for (const char *c = f->path; *c; c++)
            PB_FUZZ_ASSERT((unsigned char)*c >= 0x20 && *c != 0x7f);
        /* Parts are joined by one slash (a base of "/" or "dir/" too). */
        if (!strstr(text, "//") && !(base && strstr(base, "//")))
            PB_FUZZ_ASSERT(!strstr(f->path, "//"));
        /* The same text again, and the resolved path from anywhere: the
         * same file (results name it by the resolved path, and a resumed
         * run reads that back). */
        PB_FUZZ_ASSERT(pb_data_file_intern(text, base, &err) == id);
        char again[PB_DATA_PATH_MAX];
        snprintf(again, sizeof again, "%s", f->path);
        PB_FUZZ_ASSERT(pb_data_file_intern(again, "/nonexistent-pb-base", &err) == id);
        PB_FUZZ_ASSERT(pb_data_file_count() == (size_t)id + 1);
    }
    free(text);
}

static void key_file(const uint8_t *data, size_t size, unsigned kb, bool raw_need)
{
    if (size < 10) return;
    uint64_t need = le(data + 1, 8);
    uint64_t batch = data[9] ? data[9] : 1;
    const uint8_t *body = data + 10;
    size_t bytes = size - 10;
    uint64_t keys = bytes / kb;
    if (!raw_need) need %= keys + 2;

    FILE *fp = fopen(file, "wb");
    if (!fp || fwrite(body, 1, bytes, fp) != bytes || fclose(fp)) abort();

    pb_err err;
    pb_fuzz_err_clear(&err);
    long id = pb_data_file_intern("keys.bin", dir, &err);
    PB_FUZZ_ASSERT(id == 0);
    pb_data_file *f = pb_data_file_at(id);
    PB_FUZZ_ASSERT(strcmp(f->path, file) == 0);
    uint64_t have = UINT64_MAX;
    int rc = pb_data_file_check(f, kb, need, &have, &err);
    /* Checked or not, the file was read whole and hashed. */
    PB_FUZZ_ASSERT(f->checked && f->bytes == bytes);
    pb_sha256 sha;
    char hex[65];
    pb_sha256_init(&sha);
    pb_sha256_update(&sha, body, bytes);
    pb_sha256_hex(&sha, hex);
    PB_FUZZ_ASSERT(strcmp(f->sha256, hex) == 0);
    if (bytes % kb) {
        PB_FUZZ_ASSERT(rc != 0);
        pb_fuzz_check_err(&err);
        PB_FUZZ_ASSERT(strstr(err.msg, "not a whole number of") && contains_number(err.msg, bytes));
        goto out;
    }
    PB_FUZZ_ASSERT(have == keys);
    if (need > keys) {
        PB_FUZZ_ASSERT(rc != 0);
        pb_fuzz_check_err(&err);
        PB_FUZZ_ASSERT(contains_number(err.msg, need) && contains_number(err.msg, keys));
        goto out;
    }
    PB_FUZZ_ASSERT(rc == 0);

    /* Every key, in batches, as the file holds it; then one past the end. */
    pb_data_reader r;
    PB_FUZZ_ASSERT(pb_data_reader_open(&r, f, kb, need, &err) == 0);
    unsigned char *buf = malloc(batch * kb);
    if (!buf) abort();
    for (uint64_t at = 0; at < keys;) {
        uint64_t c = keys - at < batch ? keys - at : batch;
        PB_FUZZ_ASSERT(pb_data_reader_next(&r, buf, c, &err) == 0);
        for (uint64_t i = 0; i < c; i++)
            PB_FUZZ_ASSERT(host(buf + i * kb, kb) == le(body + (at + i) * kb, kb));
        at += c;
    }
    pb_fuzz_err_clear(&err);
    PB_FUZZ_ASSERT(pb_data_reader_next(&r, buf, 1, &err) != 0);
    pb_fuzz_check_err(&err);
    PB_FUZZ_ASSERT(strstr(err.msg, "could not be read, beyond the") && contains_number(err.msg, keys));
    pb_data_reader_close(&r);
    free(buf);

    /* A second check of the same file passes without a second reading. */
    PB_FUZZ_ASSERT(pb_data_file_check(f, kb, need, NULL, &err) == 0);
    /* Shrunk by a byte since the check: refused by the check and the reader. */
    if (bytes > 0) {
        if (truncate(file, (off_t)bytes - 1)) abort();
        pb_fuzz_err_clear(&err);
        PB_FUZZ_ASSERT(pb_data_file_check(f, kb, 0, NULL, &err) != 0);
        pb_fuzz_check_err(&err);
        PB_FUZZ_ASSERT(strstr(err.msg, "changed since it was checked"));
        pb_fuzz_err_clear(&err);
        PB_FUZZ_ASSERT(pb_data_reader_open(&r, f, kb, 0, &err) != 0);
        pb_fuzz_check_err(&err);
        PB_FUZZ_ASSERT(strstr(err.msg, "changed since it was checked"));
    }
out:
    unlink(file);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    if (size < 1) return 0;
    unsigned kb = 1u << (data[0] & 3);
    if (data[0] & 4) paths(data + 1, size - 1);
    else key_file(data, size, kb, (data[0] & 8) != 0);
    /* Each input starts from an empty table: a file of the same name is
     * another file, and the table's bound is not reached by accident. */
    pb_data_files_clear();
    return 0;
}

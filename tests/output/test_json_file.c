/* Packed reference runs (scripts/pack-reference.sh): a results.json.gz is
 * read by compare, plot and --resume's reader as its plain results.json is,
 * from its directory or by name, and a corrupt one is refused in one line.
 * The .gz files are written here with zlib, as gzip -9n would. */
#include <jansson.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "compare/compare.h"
#include "output/json_file.h"
#include "output/plot.h"
#include "bench/results_read.h"
#include "tests/test.h"

/* Two rows compare can match, the config --resume reads back, and no
 * figures asked for, so plot reads it whole and draws nothing. */
static const char run_json[] =
    "{\"schema_version\": 2,\n"
    " \"provenance\": {\"config\": {\"name\": \"tiny\", \"path\": \"tiny.ini\",\n"
    "                             \"text\": \"[sweep]\\nsizes = 2^4\\n\\n[cpu-fisher-yates]\\n\"},\n"
    "                \"command_line\": [\"permbench\", \"run\", \"--only\", \"cpu-fisher-yates\"]},\n"
    " \"sweep\": {\"family\": \"shuffle\", \"plots\": [], \"item_bytes\": [8], \"sizes\": [16]},\n"
    " \"instances\": [],\n"
    " \"summary\": {\"interrupted\": true},\n"
    " \"results\": [\n"
    "  {\"label\": \"a\", \"n\": 16, \"item_bytes\": 8, \"status\": \"ok\", \"samples_ms\": [1.0, 1.001, 0.999]},\n"
    "  {\"label\": \"b\", \"n\": 16, \"item_bytes\": 8, \"status\": \"ok\", \"samples_ms\": [2.0, 2.002, 1.998]}]}\n";

static int put(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, len, f);
    return fclose(f) == 0 && w == len ? 0 : -1;
}

/* path: `text` through zlib's gzip writer at level 9. */
static int put_gz(const char *path, const char *text)
{
    gzFile gz = gzopen(path, "wb9");
    if (!gz) return -1;
    int w = gzwrite(gz, text, (unsigned)strlen(text));
    return gzclose(gz) == Z_OK && w == (int)strlen(text) ? 0 : -1;
}

static long slurp(const char *path, unsigned char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return (long)n;
}

TEST_IMPL(json_file_gzip)
{
    char dir[256], plain[300], packed[300], gz[400], path[1200];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    snprintf(plain, sizeof plain, "%s/plain", dir);
    snprintf(packed, sizeof packed, "%s/packed", dir);
    ASSERT(mkdir(plain, 0700) == 0 && mkdir(packed, 0700) == 0);
    snprintf(path, sizeof path, "%s/results.json", plain);
    ASSERT(put(path, run_json, strlen(run_json)) == 0);
    snprintf(gz, sizeof gz, "%s/results.json.gz", packed);
    ASSERT(put_gz(gz, run_json) == 0);
    /* plot needs the CSV beside it; its contents are not read. */
    snprintf(path, sizeof path, "%s/results.csv", plain);
    ASSERT(put(path, "label\n", 6) == 0);
    snprintf(path, sizeof path, "%s/results.csv", packed);
    ASSERT(put(path, "label\n", 6) == 0);

    /* The directory's file: plain, else packed, else none. */
    ASSERT(pb_results_json_in(packed, path, sizeof path) && strcmp(path, gz) == 0);
    ASSERT(pb_results_json_in(plain, path, sizeof path));
    ASSERT_CONTAINS(path, "/plain/results.json");
    ASSERT(!pb_results_json_in(dir, path, sizeof path));

    /* The loader: one document either way. */
    json_error_t je;
    snprintf(path, sizeof path, "%s/results.json", plain);
    json_t *a = pb_json_load_file(path, &je), *b = pb_json_load_file(gz, &je);
    ASSERT(a && b && json_equal(a, b));
    json_decref(a);
    json_decref(b);

    /* compare: packed against plain, from the directory and by name. */
    pb_compare_opts opts = {0.01, 5.0, 0.0, false};
    pb_compare c;
    pb_err err = {""};
    ASSERT(pb_compare_runs(plain, packed, &opts, &c, &err) == 0);
    ASSERT(c.nrows == 2 && c.same == 2 && strcmp(c.new_.path, gz) == 0);
    pb_compare_free(&c);
    ASSERT(pb_compare_runs(gz, plain, &opts, &c, &err) == 0);
    ASSERT(c.nrows == 2 && c.same == 2 && c.rows[1].base_ms == 2.0);
    pb_compare_free(&c);

    /* --resume's reader: the same config and --only. */
    pb_resume_info ra, rb;
    snprintf(path, sizeof path, "%s/results.json", plain);
    ASSERT(pb_results_read_resume(path, &ra, &err) == 0);
    ASSERT(pb_results_read_resume(gz, &rb, &err) == 0);
    ASSERT(strcmp(ra.config_text, rb.config_text) == 0 && strcmp(rb.only, "cpu-fisher-yates") == 0);
    ASSERT(ra.interrupted && rb.interrupted);
    pb_resume_info_free(&ra);
    pb_resume_info_free(&rb);

    /* plot: reads the packed run (no figures asked for, so no gnuplot). */
    ASSERT(pb_plot_dir(packed, true, &err) == 0);

    /* Corrupt .gz files: refused with the reason, never read as far as
     * they go. cut: the stream ends early; flipped: a byte of the deflate
     * data changed; crc: the trailer's check fails; header: gzip's magic
     * and nothing sound after it; text: not JSON inside good gzip. */
    unsigned char whole[4096];
    long n = slurp(gz, whole, sizeof whole);
    ASSERT(n > 40 && n < (long)sizeof whole);
    unsigned char flipped[4096], crc[4096];
    memcpy(flipped, whole, (size_t)n);
    flipped[n / 2] ^= 0xff;
    memcpy(crc, whole, (size_t)n);
    crc[n - 6] ^= 0x5a;
    static const unsigned char header[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xff, 0xff};
    struct {
        const char *name;
        const unsigned char *data;
        size_t len;
        const char *why;
    } bad[] = {
        {"cut", whole, (size_t)n / 2, "not a results.json (corrupt gzip data (unexpected end of file))"},
        {"flipped", flipped, (size_t)n, "not a results.json (corrupt gzip data ("},
        {"crc", crc, (size_t)n, "not a results.json (corrupt gzip data (incorrect data check))"},
        {"header", header, sizeof header, "not a results.json (corrupt gzip data ("},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char d[400], f[1200];
        snprintf(d, sizeof d, "%s/%s", dir, bad[i].name);
        ASSERT(mkdir(d, 0700) == 0);
        snprintf(f, sizeof f, "%s/results.json.gz", d);
        ASSERT(put(f, bad[i].data, bad[i].len) == 0);
        snprintf(path, sizeof path, "%s/results.csv", d);
        ASSERT(put(path, "label\n", 6) == 0);
        ASSERT(pb_json_load_file(f, &je) == NULL && je.line == -1);
        ASSERT_CONTAINS(je.text, "corrupt gzip data (");
        err.msg[0] = 0;
        ASSERT(pb_compare_runs(plain, d, &opts, &c, &err) != 0);
        pb_compare_free(&c);
        ASSERT_CONTAINS(err.msg, bad[i].why);
        ASSERT_CONTAINS(err.msg, f);
        ASSERT(!strchr(err.msg, '\n'));
        err.msg[0] = 0;
        ASSERT(pb_results_read_resume(f, &ra, &err) != 0);
        ASSERT_CONTAINS(err.msg, bad[i].why);
        err.msg[0] = 0;
        ASSERT(pb_plot_dir(d, true, &err) != 0);
        ASSERT_CONTAINS(err.msg, "corrupt gzip data (");
    }
    char text[400];
    snprintf(text, sizeof text, "%s/text.json.gz", dir);
    ASSERT(put_gz(text, "{\"schema_version\": 2,\n \"results\": [1, }\n") == 0);
    ASSERT(pb_json_load_file(text, &je) == NULL && je.line == 2);
    ASSERT(pb_compare_runs(plain, text, &opts, &c, &err) != 0);
    pb_compare_free(&c);
    ASSERT_CONTAINS(err.msg, "not a results.json (line 2: ");

    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    ASSERT(system(path) == 0);
    return 0;
}

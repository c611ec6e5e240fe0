/* output/journal_file.h: lines read back as written, doubles bit for bit;
 * a torn last line left out by the reader and cut off by the next writer;
 * a damaged whole line refused, naming it. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "output/journal_file.h"
#include "tests/test.h"

static long file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

TEST_IMPL(journal_file_torn_line)
{
    char dir[512], path[600];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    snprintf(path, sizeof path, "%s/journal.jsonl", dir);
    pb_err err;
    pb_journal j;
    /* A double whose shortest form needs 17 digits. */
    double x = 0.1 + 0.2;
    ASSERT(pb_journal_create(&j, path, json_pack("{s:i}", "head", 1), &err) == 0);
    ASSERT(pb_journal_append(&j, json_pack("{s:f}", "x", x), &err) == 0);
    pb_journal_close(&j);
    long whole = file_size(path);
    /* The writer died in the middle of a line. */
    FILE *f = fopen(path, "ab");
    ASSERT(f && fputs("{\"x\": 0.30000", f) >= 0 && fclose(f) == 0);
    json_t *lines = pb_journal_read(path, &err);
    ASSERT(lines && json_array_size(lines) == 2);
    ASSERT(json_real_value(json_object_get(json_array_get(lines, 1), "x")) == x);
    json_decref(lines);
    /* Going on: the torn bytes go first, and the next line starts whole. */
    ASSERT(pb_journal_reopen(&j, path, &err) == 0);
    ASSERT(file_size(path) == whole);
    ASSERT(pb_journal_append(&j, json_pack("{s:i}", "y", 2), &err) == 0);
    pb_journal_close(&j);
    lines = pb_journal_read(path, &err);
    ASSERT(lines && json_array_size(lines) == 3);
    ASSERT(json_integer_value(json_object_get(json_array_get(lines, 2), "y")) == 2);
    json_decref(lines);
    /* A whole line that is not a document is damage, not a torn end. */
    f = fopen(path, "ab");
    ASSERT(f && fputs("{\"z\": \n{\"w\": 1}\n", f) >= 0 && fclose(f) == 0);
    lines = pb_journal_read(path, &err);
    ASSERT(!lines);
    ASSERT_CONTAINS(err.msg, "line 4 is damaged");
    unlink(path);
    ASSERT(rmdir(dir) == 0);
    return 0;
}

/* permbench quality on external permutations: the battery gives an input
 * written from a module's sample hook exactly the statistics it gives the
 * module, in every format; input sections of configs (paths, errors with
 * file and line, a bad row as bad input with no verdict); and the input is
 * streamed, never held. */
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "quality/battery.h"
#include "quality/quality_config.h"
#include "registry/registry.h"
#include "tests/support/perm_files.h"
#include "tests/test.h"

/* count permutations of n from fisher-yates's sample hook at `seed`. */
/* An input written from fisher-yates's sample hook at the config's seed,
 * in each format, gets from the battery the statistics fisher-yates gets,
 * to the last bit, with batches that do not divide the samples. */
TEST_IMPL(quality_input_same_statistics)
{
    const uint64_t seed = 99, count = 5000;
    char paths[2][3][256];
    for (int k = 0; k < 2; k++) {
        uint32_t n = k ? 60 : 5;
        uint32_t *p = pb_test_draw("cpu-fisher-yates", NULL, false, n, seed, count);
        ASSERT(p);
        for (int f = 0; f < 3; f++) {
            ASSERT(pb_test_tmpfile("", paths[k][f], sizeof paths[k][f]));
            ASSERT(pb_test_write_perms(paths[k][f], p, n, count, (pb_perm_format)f) == 0);
        }
        free(p);
    }
    char text[2048];
    snprintf(text, sizeof text,
             "[quality]\nseed = 99\nbatch = 777\nchisq = 5\nchisq_samples = 5000\nmmd = 5, 60\n"
             "mmd_samples = 4000\nduplicates = 60\nduplicates_samples = 5000\n[cpu-fisher-yates]\n"
             "[a5]\ninput = %s\nn = 5\n[b5]\ninput = %s\nn = 5\nformat = u64\n[c5]\ninput = %s\nn = 5\nformat = text\n"
             "[a60]\ninput = %s\nn = 60\n[b60]\ninput = %s\nn = 60\nformat = u64\n[c60]\ninput = %s\nn = 60\nformat = text\n",
             paths[0][0], paths[0][1], paths[0][2], paths[1][0], paths[1][1], paths[1][2]);
    pb_quality_config cfg;
    pb_err err;
    pb_qrun run;
    ASSERT(pb_quality_config_load_text("t.ini", "t", text, &cfg, &err) == 0);
    ASSERT(cfg.inst.n == 7 && cfg.ninputs == 6);
    ASSERT(pb_quality_config_check_inputs(&cfg, &err) == 0);
    ASSERT(pb_quality_run(&cfg, NULL, &run, &err) == 0);
    /* fisher-yates: chisq, 2 mmd at 5; 2 mmd and duplicates at 60; each input its n's. */
    ASSERT_EQ_U64(run.nrows, 6 + 6 * 3);
    size_t compared = 0;
    for (size_t i = 0; i < run.nrows; i++) {
        const pb_qrow *r = &run.rows[i];
        if (!pb_instance_is_input(r->in)) continue;
        for (size_t j = 0; j < run.nrows; j++) {
            const pb_qrow *m = &run.rows[j];
            if (pb_instance_is_input(m->in) || m->n != r->n || strcmp(m->test, r->test) != 0) continue;
            if (r->r.statistic != m->r.statistic || r->r.p_value != m->r.p_value || r->r.samples != m->r.samples) {
                fprintf(stderr, "%s n=%u %s: %.17g vs cpu-fisher-yates %.17g\n", r->in->label, r->n, r->test,
                        r->r.statistic, m->r.statistic);
                return 1;
            }
            compared++;
        }
        ASSERT(!r->error && r->r.invalid == 0);
    }
    ASSERT_EQ_U64(compared, 18);
    /* What was read: the rows the tests needed, the whole file's digest. */
    const pb_qinput_seen *s = pb_qrun_input(&run, "a60");
    ASSERT(s && s->rows == 5000 && s->bytes == 5000 * 60 * 4 && strlen(s->sha256) == 64);
    s = pb_qrun_input(&run, "c5");
    ASSERT(s && s->rows == 5000);
    pb_qrun_free(&run);
    pb_quality_config_free(&cfg);
    for (int k = 0; k < 2; k++)
        for (int f = 0; f < 3; f++) remove(paths[k][f]);
    return 0;
}

/* Input sections: a relative path is the config's neighbour; errors name
 * the file and line; the battery reports a bad row as bad input. */
TEST_IMPL(quality_input_config)
{
    char dir[256];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    char cfgpath[300], data[300];
    snprintf(cfgpath, sizeof cfgpath, "%s/c.ini", dir);
    snprintf(data, sizeof data, "%s/d.txt", dir);
    FILE *f = fopen(data, "w");
    ASSERT(f && fputs("0 1 2\n2 1 0\n1 2 2\n", f) >= 0 && fclose(f) == 0);
    f = fopen(cfgpath, "w");
    ASSERT(f && fputs("[quality]\nmmd = 3\nmmd_samples = 3\n[d]\ninput = d.txt\nn = 3\nformat = text\n", f) >= 0 &&
           fclose(f) == 0);
    pb_quality_config cfg;
    pb_err err;
    pb_qrun run;
    ASSERT(pb_quality_config_load_file(cfgpath, &cfg, &err) == 0);
    ASSERT(cfg.inst.n == 1 && pb_instance_is_input(&cfg.inst.v[0]));
    const pb_qinput *q = pb_quality_config_input(&cfg, &cfg.inst.v[0]);
    ASSERT(q && q->n == 3 && q->format == PB_PERM_TEXT && strcmp(q->path, "d.txt") == 0);
    ASSERT(strcmp(q->open_path, data) == 0);
    ASSERT(pb_quality_config_check_inputs(&cfg, &err) == 0); /* 3 rows, 3 needed */
    ASSERT(pb_quality_run(&cfg, NULL, &run, &err) == PB_QRUN_BAD_INPUT);
    ASSERT_CONTAINS(err.msg, "c.ini:4: [d] d.txt: row 3, column 3: value 2 repeats column 2");
    ASSERT(run.nrows == 0); /* no verdict */
    pb_qrun_free(&run);
    pb_quality_config_free(&cfg);

    static const struct {
        const char *text, *want;
    } cases[] = {
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\ninput = x\n", "t.ini:4: [d] input needs n = N"},
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\ninput = x\nn = 6\n", "t.ini:6: [d] n = 6: [quality] runs no test at n = 6"},
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\ninput = x\nn = 1\n", "t.ini:6: [d] n = 1: n must be 2 .. 2^32-1"},
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\ninput = x\nn = 5\nformat = csv\n",
         "t.ini:7: format 'csv' is not u32, u64, text or npy"},
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\ninput =\nn = 5\n", "t.ini:5: [d] input is empty"},
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\nmodule = cpu-fisher-yates\ninput = x\nn = 5\n",
         "t.ini:5: [d] names an input and a module"},
        {"[quality]\nmmd = 5\nmmd_samples = 3\n[d]\ninput = x\nn = 5\nseed = 3\n",
         "t.ini:7: unknown key 'seed' in input section [d] (input, n, format)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pb_err e = {""};
        if (pb_quality_config_load_text("t.ini", "t", cases[i].text, &cfg, &e) == 0) {
            fprintf(stderr, "accepted: %s", cases[i].text);
            pb_quality_config_free(&cfg);
            return 1;
        }
        ASSERT_CONTAINS(e.msg, cases[i].want);
    }
    /* Too few rows, known ahead from the file: before any work. */
    ASSERT(pb_quality_config_load_text("t.ini", "t", "[quality]\nmmd = 3\nmmd_samples = 4\n[d]\ninput = x\nn = 3\n",
                                       &cfg, &err) == 0);
    snprintf(cfg.inputs[0].open_path, sizeof cfg.inputs[0].open_path, "%s", data);
    cfg.inputs[0].format = PB_PERM_TEXT;
    ASSERT(pb_quality_config_check_inputs(&cfg, &err) == -1);
    ASSERT_CONTAINS(err.msg, "t.ini:4: [d] x has 3 rows; at n = 3 mmd needs 4");
    pb_quality_config_free(&cfg);
    remove(data);
    remove(cfgpath);
    rmdir(dir);
    return 0;
}

/* Streaming: 4 x 10^6 rows of 5 (80 MB as u32) through a pipe, tested with
 * a high-water mark of resident memory far above a run of 4000 rows' by
 * much less than the input's size. A reader that held the input would need
 * all of it. Measured against that small run, not absolutely: a sanitizer
 * build starts at tens of MB (shadow memory), and its quarantine of freed
 * memory (256 MB by default) is cut to 1 MB so that batches freed and
 * allocated again are not counted as held. */
TEST_IMPL(quality_input_streams)
{
    const long input_kib = 4000000L * 5 * 4 / 1024;
    char dir[256];
    ASSERT(pb_test_tmpdir(dir, sizeof dir));
    char cmd[2048];
    long rss[2];
    const long rows[2] = {4000, 4000000};
    for (int r = 0; r < 2; r++) {
        snprintf(cmd, sizeof cmd,
                 "'%s' good 5 %ld u32 5 | ASAN_OPTIONS=\"$ASAN_OPTIONS:quarantine_size_mb=1\" '%s' quality "
                 "--input - --n 5 --count %ld --out '%s/o%d' --quiet",
                 PB_GEN_PERMS, rows[r], PB_BINARY, rows[r], dir, r);
        int st = system(cmd);
        ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
        struct rusage ru;
        /* The largest of the children waited for so far: the small run's,
         * then the larger of both. */
        ASSERT(getrusage(RUSAGE_CHILDREN, &ru) == 0);
        rss[r] = ru.ru_maxrss;
    }
    printf("input %ld KiB; resident high-water mark %ld KiB (4000 rows: %ld KiB)\n", input_kib, rss[1], rss[0]);
    ASSERT(rss[1] - rss[0] < input_kib / 4);
    snprintf(cmd, sizeof cmd, "grep -q '\"rows_tested\": 4000000' '%s/o1/quality.json' && rm -rf '%s'", dir, dir);
    int st = system(cmd);
    ASSERT(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0);
    return 0;
}

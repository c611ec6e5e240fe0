/* What fuzz_resume and fuzz_journal share: an interrupted run read back as
 * `permbench run --resume DIR` reads it, through the given pair of readers
 * (results.json's, or the journal's). Beside the sanitizers: a refusal says
 * why in one line, and what is accepted is bounded (the -D list within its
 * array, strings terminated within their buffers). */
#ifndef PB_FUZZ_RESUME_CHECK_H
#define PB_FUZZ_RESUME_CHECK_H

#include "bench/results_read.h"
#include "config/data_file.h"
#include "config/ini_override.h"
#include "tests/fuzz/fuzz.h"

typedef int (*pb_fuzz_read_info)(const char *path, pb_resume_info *info, pb_err *err);
typedef int (*pb_fuzz_read_rows)(const char *path, const pb_config *cfg, pb_run *run, pb_err *err);

static inline void pb_fuzz_resume_check(const char *path, pb_fuzz_read_info read_info, pb_fuzz_read_rows read_rows)
{
    pb_resume_info info;
    pb_err err;
    pb_fuzz_err_clear(&err);
    memset(&info, 0, sizeof info);
    if (read_info(path, &info, &err) == 0) {
        PB_FUZZ_ASSERT(info.config_text);
        PB_FUZZ_ASSERT(info.ndefines <= sizeof info.defines / sizeof info.defines[0]);
        for (size_t i = 0; i < info.ndefines; i++) PB_FUZZ_ASSERT(info.defines[i]);
        PB_FUZZ_ASSERT(strnlen(info.only, sizeof info.only) < sizeof info.only);
        PB_FUZZ_ASSERT(strnlen(info.name, sizeof info.name) < sizeof info.name);
        pb_ini_set_overrides((const char *const *)info.defines, info.ndefines);
        pb_config cfg;
        pb_fuzz_err_clear(&err);
        if (pb_config_load_text(info.path, info.name, info.config_text, &cfg, &err) == 0) {
            pb_config_add_ceilings(&cfg);
            pb_run run;
            pb_fuzz_err_clear(&err);
            if (read_rows(path, &cfg, &run, &err)) pb_fuzz_check_err(&err);
            pb_run_free(&run);
            pb_config_free(&cfg);
        } else {
            pb_fuzz_check_err(&err);
        }
        pb_ini_set_overrides(NULL, 0);
    } else {
        pb_fuzz_check_err(&err);
    }
    pb_resume_info_free(&info);
    pb_data_files_clear(); /* the config's key files: each input from an empty table */
}

#endif

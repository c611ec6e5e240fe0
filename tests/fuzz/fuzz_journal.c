/* journal.jsonl as `permbench run --resume DIR` reads it back
 * (bench/results_read.h, output/journal_file.h): the header's config text,
 * options and -D list, then, as the run does, the recorded config loaded
 * with its -D overrides and the whole rows read against it (a torn last
 * line left out). Beside the sanitizers: a refusal says why in one line,
 * and what is accepted is bounded (the -D list within its array, strings
 * terminated within their buffers). */
#include "bench/results_read.h"
#include "config/data_file.h"
#include "config/ini_override.h"
#include "tests/fuzz/fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = pb_fuzz_input_file("journal.jsonl", data, size);
    pb_resume_info info;
    pb_err err;
    pb_fuzz_err_clear(&err);
    memset(&info, 0, sizeof info);
    if (pb_results_read_journal_resume(path, &info, &err) == 0) {
        PB_FUZZ_ASSERT(info.config_text && info.interrupted);
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
            if (pb_results_read_journal_rows(path, &cfg, &run, &err)) pb_fuzz_check_err(&err);
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
    return 0;
}

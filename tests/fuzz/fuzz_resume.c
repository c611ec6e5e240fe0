/* results.json as `permbench run --resume DIR` reads it back
 * (bench/results_read.h): the config text, options and state of an
 * interrupted run, then, as the run does, its recorded config loaded with
 * its -D overrides and its finished rows read against it; the checks are
 * tests/fuzz/resume_check.h's. */
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/resume_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_fuzz_resume_check(pb_fuzz_input_file("results.json", data, size), pb_results_read_resume,
                         pb_results_read_rows);
    return 0;
}

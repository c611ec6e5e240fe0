/* journal.jsonl as `permbench run --resume DIR` reads it back
 * (bench/results_read.h, output/journal_file.h): the header's config text,
 * options and -D list, then the recorded config loaded with its -D
 * overrides and the whole rows read against it (a torn last line left
 * out); the checks are tests/fuzz/resume_check.h's. */
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/resume_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pb_fuzz_resume_check(pb_fuzz_input_file("journal.jsonl", data, size), pb_results_read_journal_resume,
                         pb_results_read_journal_rows);
    return 0;
}

#!/usr/bin/env bash
# One bad input per call: the command must exit with status 2, print exactly
# one line on stderr matching the expected text, and write nothing.
#   cli_errors.sh PERMBENCH SOURCE_DIR CASE
set -u
pb=$1 src=$2 case=$3
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1

ini() { printf '%b' "$1" >"$work/c.ini"; echo "$work/c.ini"; }
# A result directory holding FILE with TEXT (and an empty results.csv).
resdir() { mkdir -p "$work/r"; : >"$work/r/results.csv"; printf '%s' "$2" >"$work/r/$1"; echo "$work/r"; }
# data FILE TEXT: a file of permutations as text; u32 FILE V...: as
# little-endian 32-bit integers (u64 FILE V...: 64-bit).
data() { printf '%b' "$2" >"$work/$1"; echo "$work/$1"; }
le() {
    local w=$1 f=$2
    shift 2
    : >"$work/$f"
    for v in "$@"; do
        for ((b = 0; b < w; b++)); do printf "\\$(printf %03o $(((v >> (8 * b)) & 255)))" >>"$work/$f"; done
    done
    echo "$work/$f"
}
u32() { le 4 "$@"; }
u64() { le 8 "$@"; }
feed=

case $case in
unknown_command) args=(frobnicate); want="unknown command 'frobnicate'" ;;
unknown_option) args=(run --bogus); want="run: unknown option '--bogus'" ;;
unknown_top_option) args=(--bogus); want="unknown option '--bogus'" ;;
unknown_short_option) args=(list -z); want="list: unknown option '-z'" ;;
missing_value) args=(run --out); want="run: option '--out' needs a value" ;;
extra_argument) args=(run a.ini b.ini); want="expected at most one CONFIG.ini" ;;
missing_config) args=(run "$work/none.ini"); want="none.ini: cannot open config: No such file" ;;
missing_section) args=(run "$(ini '[cpu-fisher-yates]\n')"); want="c.ini: missing [sweep] section" ;;
bad_size) args=(run "$(ini '[sweep]\nsizes = 2^^8\n[cpu-fisher-yates]\n')"); want="c.ini:2: bad size expression '2^^8'" ;;
unknown_key) args=(run "$(ini '[sweep]\nsizes = 10\nspeed = 3\n[cpu-fisher-yates]\n')"); want="c.ini:3: unknown key 'speed' in [sweep]" ;;
unknown_module) args=(run "$(ini '[sweep]\nsizes = 10\n[nope]\n')"); want="c.ini:3: unknown module 'nope'" ;;
unknown_param) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\nrounds = 2\n')"); want="c.ini:4: module 'cpu-fisher-yates' has no parameter 'rounds'" ;;
bad_param) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-copy]\nthreads = lots\n')"); want="c.ini:4: parameter 'threads' of 'cpu-copy': 'lots' is not an integer" ;;
bad_ties) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-topk]\nties = first\n')"); want="c.ini:4: parameter 'ties' of 'cpu-topk': 'first' is not one of any|lowest-index" ;;
bad_seeds) args=(run "$(ini '[sweep]\nsizes = 10\nseeds = 0\n[cpu-fisher-yates]\n')"); want="c.ini:3: seeds '0' is not an integer in 1 .. 64" ;;
bad_section_seeds) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-topk]\nseeds = 65\n')"); want="c.ini:4: seeds '65' in [cpu-topk] is not an integer in 1 .. 64" ;;
malformed_line) args=(run "$(ini '[sweep]\nsizes\n[cpu-fisher-yates]\n')"); want="c.ini:2: malformed line" ;;
long_indented_header) args=(run "$(ini "[sweep]\\nsizes = 10\\n$(printf '%251s' '')[cpu-fisher-yates]\\n")"); want="c.ini:3: line longer than 199 characters" ;;
only_unknown) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" --only nope); want="--only: unknown module or label 'nope'" ;;
too_large) args=(run "$(ini '[sweep]\nsizes = 2^50\nceilings = none\n[cpu-fisher-yates]\n')"); want="[cpu-fisher-yates] at n = 2^50 needs 8.1 PiB of host memory" ;;
u32_overflow) args=(run "$(ini '[sweep]\nsizes = 2^33\nitem = u32\n[cpu-fisher-yates]\n')"); want="more items than u32 can number" ;;
record_not_taken) args=(run "$(ini '[sweep]\nsizes = 1000\nitem = u64, rec256\n[cpu-rao-sandelius]\n')"); want="[cpu-rao-sandelius] module 'cpu-rao-sandelius' does not take rec256 items; it takes u64, u32" ;;
beyond_max_n) args=(run "$(ini '[sweep]\nsizes = 2^33\nceilings = none\n[cpu-gsl-shuffle]\n')"); want="module 'cpu-gsl-shuffle' supports n up to 4294967295" ;;
gpu_without_device)
    # Only meaningful in a CUDA build on a machine without a usable device.
    if ! "$pb" list --brief | grep -q '^gpu-copy '; then echo "skipped: built without CUDA"; exit 77; fi
    if "$pb" list --brief | grep -q '^gpu-copy .* yes '; then echo "skipped: a GPU is present"; exit 77; fi
    args=(run "$(ini '[sweep]\nsizes = 1000\n[gpu-copy]\n')"); want="module 'gpu-copy' cannot run here" ;;
out_is_file) : >"$work/afile"; args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" --out "$work/afile"); want="run: $work/afile is not a directory" ;;
out_has_results) mkdir -p "$work/o"; : >"$work/o/results.json"; args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" --out "$work/o"); want="run: $work/o already holds results; choose another --out" ;;
out_interrupted) mkdir -p "$work/o"; echo keep >"$work/o/results.partial.csv"; args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" --out "$work/o"); want="run: $work/o holds an interrupted run; finish it with 'permbench run --resume $work/o'" ;;
resume_missing) args=(run --resume "$work/none"); want="run: --resume $work/none: no journal.jsonl or results.json there" ;;
resume_finished)
    "$pb" run "$(ini '[sweep]\nsizes = 10\nceilings = none\nplot = none\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\n[cpu-fisher-yates]\n')" --out "$work/fin" --quiet >/dev/null 2>&1 || { echo "FAIL: setup run"; exit 1; }
    args=(run --resume "$work/fin"); want="run: --resume $work/fin: that run finished; nothing to resume" ;;
resume_with_config)
    # An interrupted run, then its config file edited: the given CONFIG must
    # be the text the run recorded.
    "$pb" run "$(ini '[sweep]\nsizes = 10\nceilings = none\nplot = none\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\n[cpu-fisher-yates]\n')" --out "$work/int" --quiet >/dev/null 2>&1 || { echo "FAIL: setup run"; exit 1; }
    python3 -c "import json,sys; p=sys.argv[1]; j=json.load(open(p)); j['summary']['interrupted']=True; json.dump(j, open(p,'w'))" "$work/int/results.json"
    mv "$work/int/results.csv" "$work/int/results.partial.csv"
    args=(run --resume "$work/int" "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')"); want="run: --resume $work/int: $work/c.ini is not the config the run recorded ($work/c.ini); resume without it, or start a new run" ;;
resume_with_out) args=(run --resume "$work" --out "$work/x"); want="run: --resume DIR writes into DIR; --out is not for it" ;;
quality_out_is_file) : >"$work/afile"; args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[cpu-fisher-yates]\n')" --out "$work/afile"); want="quality: $work/afile is not a directory" ;;
quality_seeds) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[cpu-fisher-yates]\nseeds = 3\n')"); want="c.ini:5: seeds in [cpu-fisher-yates] is a key of run configs; quality draws from the [quality] seed" ;;
quality_repeated_chisq) args=(quality "$(ini '[quality]\nchisq = 5\nchisq = 6\nchisq_samples = 1000\n[cpu-fisher-yates]\n')"); want="c.ini:3: key 'chisq' given twice in [quality]" ;;
sizes_trailing_comma) args=(run "$(ini '[sweep]\nsizes = 2^10,\n[cpu-fisher-yates]\n')"); want="c.ini:2: empty item in size list '2^10,'" ;;
sizes_double_comma) args=(run "$(ini '[sweep]\nsizes = 2^10,,2^12\n[cpu-fisher-yates]\n')"); want="c.ini:2: empty item in size list '2^10,,2^12'" ;;
unclosed_header) args=(run "$(ini '[sweep\nsizes = 10\n[cpu-fisher-yates]\n')"); want="c.ini:1: section header '[sweep' has no closing ']'" ;;
quality_replot_no_figures)
    "$pb" quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 100\nplot = none\n[cpu-fisher-yates]\n')" --out "$work/q" --quiet >/dev/null 2>&1 || { echo "FAIL: setup quality run"; exit 1; }
    args=(quality --replot "$work/q"); want="quality: $work/q: that run drew no figures (plot = none in its config); nothing to replot" ;;
define_syntax) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" -D sweep.sizes); want="run: -D 'sweep.sizes': expected SECTION.KEY=VALUE" ;;
define_no_section) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" -D cpu-gsl-shuffle.seed=1); want="-D cpu-gsl-shuffle.seed=1: $work/c.ini has no section [cpu-gsl-shuffle]" ;;
define_bad_value) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" -D sweep.sizes=2^^3); want="-D sweep.sizes=2^^3: bad size expression '2^^3'" ;;
define_unknown_key) args=(run "$(ini '[sweep]\nsizes = 10\n[cpu-fisher-yates]\n')" -D sweep.bogus=1); want="-D sweep.bogus=1: unknown key 'bogus' in [sweep]" ;;
define_bad_param) args=(run "$(ini '[sweep]\nsizes = 10\n\n[cpu-copy]\n')" -D cpu-copy.threads=lots); want="-D cpu-copy.threads=lots: parameter 'threads' of 'cpu-copy': 'lots' is not an integer" ;;
config_is_dir) mkdir -p "$work/adir"; args=(run "$work/adir"); want="$work/adir: is a directory, not a config file" ;;
plot_missing_dir) args=(plot "$work/none"); want="plot: $work/none: no such result directory" ;;
plot_no_arg) args=(plot); want="plot: expected one RESULT_DIR" ;;
plot_kind_not_string) args=(plot "$(resdir results.json '{"sweep": {"plots": [5], "item_bytes": []}, "instances": []}')"); want="results.json: not a permbench results file (sweep.plots[0] is not a plot kind)" ;;
plot_many_item_widths) args=(plot "$(resdir results.json "{\"sweep\": {\"plots\": [\"throughput\"], \"title\": \"it's\", \"item_bytes\": [$(printf -- '-9223372036854775808, %.0s' $(seq 2999))1]}, \"instances\": []}")"); want="results.json: a quote or control character in the title" ;;
plot_kind_newline) args=(plot "$(resdir results.json '{"sweep": {"plots": ["axis\nx"], "item_bytes": []}, "instances": []}')"); want="results.json: not a permbench results file (sweep.plots[0] is not a plot kind)" ;;
quality_extra_argument) args=(quality a.ini b.ini); want="quality: expected at most one CONFIG.ini" ;;
quality_unknown_option) args=(quality --bogus); want="quality: unknown option '--bogus'" ;;
quality_missing_config) args=(quality "$work/none.ini"); want="none.ini: cannot open config: No such file" ;;
quality_missing_section) args=(quality "$(ini '[cpu-fisher-yates]\n')"); want="c.ini: missing [quality] section" ;;
quality_unknown_key) args=(quality "$(ini '[quality]\nspeed = 3\n[cpu-fisher-yates]\n')"); want="c.ini:2: unknown key 'speed' in [quality]" ;;
quality_no_test) args=(quality "$(ini '[quality]\nseed = 3\n[cpu-fisher-yates]\n')"); want="c.ini:1: [quality] names no test" ;;
quality_no_samples) args=(quality "$(ini '[quality]\nmmd = 100\n[cpu-fisher-yates]\n')"); want="c.ini:2: 'mmd' needs 'mmd_samples'" ;;
quality_chisq_n) args=(quality "$(ini '[quality]\nchisq = 9\nchisq_samples = 10^7\n[cpu-fisher-yates]\n')"); want="c.ini:2: chisq at n = 9: the test counts all n! permutations" ;;
quality_chisq_few) args=(quality "$(ini '[quality]\nchisq = 5\nchisq_samples = 100\n[cpu-fisher-yates]\n')"); want="c.ini:3: chisq at n = 5 needs at least 600 samples" ;;
quality_dup_dense) args=(quality "$(ini '[quality]\nduplicates = 5\nduplicates_samples = 100\n[cpu-fisher-yates]\n')"); want="c.ini:2: duplicates at n = 5: the duplicate test needs n! >= 64 x samples" ;;
quality_bad_alpha) args=(quality "$(ini '[quality]\nalpha = 0\nmmd = 5\nmmd_samples = 10\n[cpu-fisher-yates]\n')"); want="c.ini:2: alpha '0' is not a level" ;;
quality_no_sample_perms) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[cpu-copy]\n')"); want="c.ini:4: module 'cpu-copy' in [cpu-copy] cannot draw sample permutations" ;;
quality_unknown_module) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[nope]\n')"); want="c.ini:4: unknown module 'nope'" ;;
quality_bad_param) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[x]\nmodule = cpu-bijective-twin\nrounds = 0 .. 4 +1\n')"); want="c.ini:6: parameter 'rounds' of 'cpu-bijective-twin': 0 is outside 1..64" ;;
quality_only_unknown) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[cpu-fisher-yates]\n')" --only nope); want="--only: unknown module or label 'nope'" ;;
quality_replot_missing) args=(quality --replot "$work/none"); want="quality: $work/none/quality.json: unable to open" ;;
quality_replot_quote) args=(quality --replot "$(resdir quality.json '{"quality": {"plot": true, "title": "t"}, "rows": [], "instances": [{"label": "a", "group": "x'"'"'; system('"'"'true'"'"'); y='"'"'", "swept_param": "rounds", "value": 1}]}')"); want="quality.json: instances[0]: a quote or control character in its label, group or swept_param" ;;
quality_replot_extra) args=(quality --replot "$work" c.ini); want="quality: --replot takes a result directory and nothing else" ;;
quality_gpu_without_device)
    if ! "$pb" list --brief | grep -q '^gpu-bijective2 '; then echo "skipped: built without CUDA"; exit 77; fi
    if "$pb" list --brief | grep -q '^gpu-bijective2 .* yes '; then echo "skipped: a GPU is present"; exit 77; fi
    args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[gpu-bijective2]\n')"); want="module 'gpu-bijective2' cannot run here" ;;
quality_input_short_row) args=(quality --input "$(data d.txt '0 1 2 3 4\n1 0 2\n')" --n 5 --format text); want="d.txt: row 2 is short: 3 of 5 values" ;;
quality_input_out_of_range) args=(quality --input "$(u32 d.u32 0 1 2 3 4 0 1 5 3 4)" --n 5); want="d.u32: row 2, column 3: value 5 is out of range 0..4" ;;
quality_input_repeated) args=(quality --input "$(u32 d.u32 1 0 2 3 4 4 3 2 1 0 2 2 0 1 3)" --n 5); want="d.u32: row 3, column 2: value 2 repeats column 1" ;;
quality_input_truncated) args=(quality --input "$(u32 d.u32 1 0 2 3 4 4 3 2 1 0 2 1)" --n 5); want="d.u32: row 3 is truncated: 8 of 20 bytes (the input ends)" ;;
quality_input_not_number) args=(quality --input "$(data d.txt '0 1 2 3 4\n0,1,two,3,4\n')" --n 5 --format text); want="d.txt: row 2, column 3: 'two' is not a number" ;;
quality_input_text_as_u32) args=(quality --input "$(data d.txt '0 1 2 3 4\n4 3 2 1 0\n')" --n 5); want="d.txt: row 1, column 1: value 540090416 is out of range 0..4" ;;
quality_input_u64_range) args=(quality --input "$(u64 d.u64 0 1 2 3 4 4294967297 1 2 3 4)" --n 5 --format u64); want="d.u64: row 2, column 1: value 4294967297 is out of range 0..4" ;;
quality_input_bad_format) args=(quality --input "$(data d.txt '0 1 2 3 4\n')" --n 5 --format u16); want="quality: --format: format 'u16' is not u32, u64, text or npy" ;;
quality_input_few_rows) args=(quality --input "$(data d.txt '0 1 2 3 4\n4 3 2 1 0\n')" --n 5 --format text --count 10); want="d.txt has 2 rows; at n = 5 mmd needs 10" ;;
quality_input_pipe_ends) feed='0 1 2 3 4\n4 3 2 1 0\n'; args=(quality --input - --n 5 --format text --count 10); want="stdin ends after 2 rows; at n = 5 mmd needs 10" ;;
quality_input_late_row)
    # The bad row comes after the first batch: the results directory claimed
    # before reading is taken back.
    yes '0 1 2 3 4' | head -n 70000 >"$work/d.txt"; echo '0 1 2 3 3' >>"$work/d.txt"
    args=(quality --input "$work/d.txt" --n 5 --format text); want="d.txt: row 70001, column 5: value 3 repeats column 4" ;;
quality_input_missing) args=(quality --input "$work/none.u32" --n 5); want="cannot open $work/none.u32: No such file or directory" ;;
quality_input_directory) args=(quality --input "$work" --n 5); want="$work is a directory, not a file of permutations" ;;
quality_input_huge_n) args=(quality --input "$(data d.txt '0 1\n')" --n 4000000000 --format text); want="d.txt: row 1 is short: the input holds 4 bytes, fewer than the 7999999999 a row of 4000000000 values takes" ;;
quality_input_no_n) args=(quality --input "$(data d.txt '0 1\n')"); want="quality: --input needs --n N" ;;
quality_input_stray_n) args=(quality --n 5); want="quality: --n, --format, --count and --label describe an --input FILE" ;;
quality_input_only) args=(quality --input "$(data d.txt '0 1\n')" --n 2 --only x); want="quality: --only picks a config's instances" ;;
quality_input_pipe_no_count) feed='0 1 2 3 4\n'; args=(quality --input - --n 5 --format text); want="quality: --input -: give --count C (the rows of a pipe cannot be counted ahead)" ;;
quality_input_count_too_few) args=(quality --input "$(data d.txt '0 1 2 3 4\n')" --n 5 --format text --count 100 "$(ini '[quality]\nchisq = 5\nchisq_samples = 1000\n[cpu-fisher-yates]\n')"); want="--count 100: chisq at n = 5 needs at least 600 samples" ;;
quality_input_config_row) data d.txt '0 1 2 3 4\n0 1 two 3 4\n' >/dev/null; args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 2\n[d]\ninput = d.txt\nn = 5\nformat = text\n')"); want="c.ini:4: [d] d.txt: row 2, column 3: 'two' is not a number" ;;
quality_input_config_no_test) data d.txt '0 1 2 3 4\n' >/dev/null; args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 2\n[d]\ninput = d.txt\nn = 7\n')"); want="c.ini:6: [d] n = 7: [quality] runs no test at n = 7" ;;
quality_input_config_module) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 2\n[d]\ninput = d.txt\nmodule = cpu-fisher-yates\nn = 5\n')"); want="c.ini:6: [d] names an input and a module" ;;
quality_input_config_key) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 2\n[d]\ninput = d.txt\nn = 5\nrounds = 3\n')"); want="c.ini:7: unknown key 'rounds' in input section [d] (input, n, format)" ;;
quality_input_config_no_n) args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 2\n[d]\ninput = d.txt\n')"); want="c.ini:4: [d] input needs n = N" ;;
quality_input_config_rows) data d.txt '0 1 2 3 4\n4 3 2 1 0\n' >/dev/null; args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 10\n[d]\ninput = d.txt\nn = 5\nformat = text\n')"); want="c.ini:4: [d] d.txt has 2 rows; at n = 5 mmd needs 10" ;;
quality_input_config_out)
    yes '4 3 2 1 0' | head -n 70000 >"$work/d.txt"; echo '4 3 2 1 5' >>"$work/d.txt"
    args=(quality "$(ini '[quality]\nmmd = 5\nmmd_samples = 70001\n[d]\ninput = d.txt\nn = 5\nformat = text\n')" --out "$work/o"); want="c.ini:4: [d] d.txt: row 70001, column 5: value 5 is out of range 0..4" ;;
sample_no_module) args=(sample --n 5 --count 3); want="sample: expected a MODULE" ;;
sample_unknown_module) args=(sample nope --n 5 --count 3); want="sample: unknown module 'nope'" ;;
sample_no_hook) args=(sample cpu-copy --n 5 --count 3); want="sample: module 'cpu-copy' has no sample hook" ;;
sample_bad_param) args=(sample cpu-bijective-twin rounds=0 --n 5 --count 3 -o "$work/f"); want="sample: parameter 'rounds' of 'cpu-bijective-twin': 0 is outside 1..64" ;;
sample_not_param) args=(sample cpu-fisher-yates rounds --n 5 --count 3 -o "$work/f"); want="sample: expected PARAM=VALUE, got 'rounds'" ;;
sample_no_n) args=(sample cpu-fisher-yates --count 3 -o "$work/f"); want="sample: --n N is required" ;;
sample_no_count) args=(sample cpu-fisher-yates --n 5 -o "$work/f"); want="sample: --count C is required" ;;
sample_bad_format) args=(sample cpu-fisher-yates --n 5 --count 3 --format u16 -o "$work/f"); want="sample: --format: format 'u16' is not u32, u64, text or npy" ;;
sample_bad_seed) args=(sample cpu-fisher-yates --n 5 --count 3 --seed -1 -o "$work/f"); want="sample: --seed '-1' is not an unsigned 64-bit integer" ;;
sample_over_run) mkdir -p "$work/o"; echo '{}' >"$work/o/results.json"; args=(sample cpu-fisher-yates --n 5 --count 3 -o "$work/o/results.json"); want="sample: -o $work/o/results.json would overwrite a file of a run's results" ;;
sample_unwritable) args=(sample cpu-fisher-yates --n 5 --count 3 -o "$work/none/f"); want="sample: cannot write $work/none/f.tmp." ;;
*) echo "unknown case $case"; exit 1 ;;
esac

if [ -n "$feed" ]; then
    printf '%b' "$feed" | "$pb" "${args[@]}" >"$work/out" 2>"$work/err"
else
    "$pb" "${args[@]}" >"$work/out" 2>"$work/err" </dev/null
fi
rc=$?
lines=$(wc -l <"$work/err")
fail() { echo "FAIL: $*"; echo "--- stderr:"; cat "$work/err"; exit 1; }
[ "$rc" -eq 2 ] || fail "exit status $rc, expected 2"
[ "$lines" -eq 1 ] || fail "$lines lines on stderr, expected 1"
grep -qF -- "$want" "$work/err" || fail "stderr does not contain: $want"
grep -q '^permbench: ' "$work/err" || fail "stderr line does not start with 'permbench: '"
[ ! -e "$work/results" ] || fail "a results directory was written"
[ ! -e "$work/f" ] || fail "sample wrote $work/f"
[ -z "$(ls "$work" | grep '\.tmp\.')" ] || fail "a temporary file was left"
# What was there before is untouched.
[ ! -e "$work/afile" ] || [ ! -s "$work/afile" ] || fail "$work/afile was written"
[ ! -e "$work/o/results.partial.csv" ] || [ "$(cat "$work/o/results.partial.csv")" = keep ] ||
    fail "the interrupted run's partial CSV was changed"
[ ! -e "$work/o" ] || [ -z "$(ls "$work/o" | grep -v '^results\.\(json\|partial\.csv\)$')" ] ||
    fail "something was written into $work/o"
echo "ok: $(cat "$work/err")"

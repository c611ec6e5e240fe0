#!/usr/bin/env bash
# permbench quality --input and permbench sample, end to end:
#   input_good_ci       a good generator (tests/quality/gen_perms.c: Fisher-Yates on
#                       xoshiro256**) passes the CI battery at alpha 1e-4, its
#                       inputs named by a config (a file in u32, one in text,
#                       stdin in u64) at the battery's three n
#   input_biased_fails  Fisher-Yates on a 16-bit LCG, n = 5, 10^6 rows, fails
#                       (exit 1), with the default tests and with ci.ini; the
#                       good generator through the same command passes
#   sample_roundtrip    sample's rows give quality the statistics it computes
#                       of the module itself at that seed, in every format and
#                       through a pipe; another seed does not
#   sample_file         -o FILE is written whole under a temporary name, to
#                       stdout without -o, rows as documented
#   sample_broken       a module drawing a non-permutation: exit 1, no file
#
#   quality_input.sh PERMBENCH GEN_PERMS PB_TESTS SOURCE_DIR CASE
set -u
pb=$1 gen=$2 pbt=$3 src=$4 case=$5
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
# col CSV TEST COLUMN: one column of the row of TEST (header names it).
col() {
    awk -F, -v t="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
                                  $8 == t { print $k }' "$1"
}
# The statistics of a quality.csv: test, samples, statistic, threshold, p_value, verdict.
stats() { awk -F, 'NR > 1 { print $8, $9, $10, $11, $12, $14 }' "$1"; }

case $case in
input_good_ci)
    "$gen" good 5 100000 u32 11 >good5.u32 || fail "generator"
    "$gen" good 100 100000 text 12 >good100.txt || fail "generator"
    # ci.ini's tests at its n and sample counts, the inputs in place of its modules.
    { grep -v '^modules' "$src/configs/quality/ci.ini"
      printf '\n[good5]\ninput = good5.u32\nn = 5\n'
      printf '\n[good100]\ninput = good100.txt\nn = 100\nformat = text\n'
      printf '\n[good1000]\ninput = -\nn = 1000\nformat = u64\n'; } >ci-inputs.ini
    # From another folder: the config's inputs are its neighbours.
    (cd / && "$gen" good 1000 20000 u64 13 | "$pb" quality "$work/ci-inputs.ini" --out "$work/o") >out 2>err
    rc=$?
    cat out
    [ "$rc" = 0 ] || { cat err; fail "exit status $rc, want 0"; }
    rows=$(($(wc -l <o/quality.csv) - 1))
    [ "$rows" = 8 ] || fail "$rows rows, want 8 (chisq, 2 mmd at 5; 2 mmd, duplicates at 100; 2 mmd at 1000)"
    ! grep -q 'FAIL\|SUSPECT' o/quality.csv || fail "a test did not pass"
    [ "$(grep -c '"external": true' o/quality.json)" = 3 ] || fail "quality.json does not mark three external inputs"
    grep -q '"path": "(stdin)"' o/quality.json || fail "stdin not named"
    if command -v sha256sum >/dev/null; then
        sum=$(sha256sum good100.txt | cut -d' ' -f1)
        grep -q "\"sha256\": \"$sum\"" o/quality.json || fail "good100.txt's sha256 $sum not in quality.json"
    fi
    grep -q '"rows_tested": 100000' o/quality.json || fail "rows tested not recorded"
    ;;
input_biased_fails)
    "$gen" lcg16 5 1000000 u32 1 >lcg.u32 || fail "generator"
    "$pb" quality --input lcg.u32 --n 5 --out o >out 2>err
    rc=$?
    cat out err
    [ "$rc" = 1 ] || fail "exit status $rc, want 1"
    [ "$(col o/quality.csv chisq verdict)" = FAIL ] || fail "chisq did not FAIL"
    [ "$(col o/quality.csv mmd-clt verdict)" = FAIL ] || fail "mmd-clt did not FAIL"
    [ "$(col o/quality.csv chisq samples)" = 1000000 ] || fail "not every row was tested"
    "$pb" quality --input lcg.u32 --n 5 "$src/configs/quality/ci.ini" --out ci --quiet 2>err
    rc=$?
    [ "$rc" = 1 ] || fail "with ci.ini: exit status $rc, want 1"
    [ "$(col ci/quality.csv chisq samples)" = 100000 ] || fail "ci.ini's chisq_samples not used"
    # The same command on a sound generator passes: the failure is the LCG's.
    "$gen" good 5 1000000 u32 1 >good.u32 || fail "generator"
    "$pb" quality --input good.u32 --n 5 --out g --quiet || fail "the good generator did not pass"
    ;;
sample_roundtrip)
    # quality of cpu-fisher-yates itself at seed 7, 10^5 samples, release's alpha.
    printf '[quality]\nseed = 7\nalpha = 0.0001\nchisq = 5\nchisq_samples = 10^5\nmmd = 5\nmmd_samples = 10^5\n[cpu-fisher-yates]\n' >fy.ini
    "$pb" quality fy.ini --out m --quiet || fail "quality of cpu-fisher-yates"
    stats m/quality.csv >want
    [ "$(wc -l <want)" = 3 ] || fail "expected 3 rows from the module"
    "$pb" sample cpu-fisher-yates --n 5 --count 100000 --seed 7 -o f || fail "sample -o f"
    "$pb" quality --input f --n 5 --out u32 --quiet || fail "quality --input f"
    stats u32/quality.csv >got
    diff want got || fail "u32 file: statistics differ from the module's"
    "$pb" sample cpu-fisher-yates --n 5 --count 100000 --seed 7 --format u64 -o f64 || fail "sample u64"
    "$pb" quality --input f64 --n 5 --format u64 --out u64 --quiet || fail "quality u64"
    stats u64/quality.csv | diff want - || fail "u64 file: statistics differ"
    "$pb" sample cpu-fisher-yates --n 5 --count 100000 --seed 7 --format text |
        "$pb" quality --input - --n 5 --format text --count 100000 --out text --quiet || fail "text pipe"
    stats text/quality.csv | diff want - || fail "text through a pipe: statistics differ"
    # To the last digit: quality.json keeps 12.
    grep '"statistic"\|"p_value"' m/quality.json >wj
    grep '"statistic"\|"p_value"' u32/quality.json | diff wj - || fail "quality.json statistics differ"
    # Another seed draws other permutations: the comparison can fail.
    "$pb" sample cpu-fisher-yates --n 5 --count 100000 --seed 8 -o g || fail "sample seed 8"
    "$pb" quality --input g --n 5 --out s8 --quiet || fail "quality seed 8"
    ! stats s8/quality.csv | diff -q want - >/dev/null || fail "seed 8 gave seed 7's statistics"
    # A module with parameters (8 rounds: its duplicates test fails, so gate =
    # no), past one batch (2^16 rows).
    printf '[quality]\nseed = 3\nmmd = 100\nmmd_samples = 70000\nduplicates = 100\nduplicates_samples = 70000\ngate = no\n[cpu-bijective-twin]\nrounds = 8\n' >bt.ini
    "$pb" quality bt.ini --out bm --quiet || fail "quality of cpu-bijective-twin"
    "$pb" sample cpu-bijective-twin rounds=8 --n 100 --count 70000 --seed 3 -o bt || fail "sample cpu-bijective-twin"
    "$pb" quality --input bt --n 100 bt.ini --out bi --quiet || fail "quality --input bt bt.ini"
    stats bm/quality.csv | diff - <(stats bi/quality.csv) || fail "cpu-bijective-twin: statistics differ"
    cat want
    ;;
sample_file)
    "$pb" sample cpu-fisher-yates --n 4 --count 3 --seed 5 --format text >t1 || fail "sample to stdout"
    [ "$(wc -l <t1)" = 3 ] || fail "3 rows, one a line"
    awk 'NF != 4 { exit 1 }' t1 || fail "4 values a row"
    "$pb" sample cpu-fisher-yates --n 4 --count 3 --seed 5 --format text -o - >t2 || fail "-o -"
    cmp t1 t2 || fail "-o - is not stdout"
    "$pb" sample cpu-fisher-yates --n 4 --count 3 --seed 5 --format text -o t3 || fail "-o t3"
    cmp t1 t3 || fail "the file differs from stdout"
    "$pb" sample cpu-fisher-yates --n 4 --count 3 --seed 5 -o b32 || fail "u32"
    "$pb" sample cpu-fisher-yates --n 4 --count 3 --seed 5 --format u64 -o b64 || fail "u64"
    [ "$(wc -c <b32)" = 48 ] && [ "$(wc -c <b64)" = 96 ] || fail "binary sizes: want 48 and 96 bytes"
    # The text rows are the binary rows (little-endian, no header).
    od -An -v -tu4 -w16 b32 | awk '{ $1 = $1; print }' | diff t1 - || fail "u32 rows are not the text rows"
    ls | grep -q '\.tmp\.' && fail "a temporary file was left"
    [ -z "$(ls | grep -v '^\(t1\|t2\|t3\|b32\|b64\)$')" ] || fail "unexpected files: $(ls)"
    ;;
sample_broken)
    # broken-sample (tests/broken_modules.c) repeats a value in sample 70000,
    # in the second batch: the first batch was written and must not stay.
    "$pbt" permbench sample broken-sample --n 5 --count 100000 -o f >out 2>err
    rc=$?
    cat err
    [ "$rc" = 1 ] || fail "exit status $rc, want 1"
    grep -q 'broken-sample drew row 70001 that is not a permutation of 0..4' err || fail "row not named"
    [ "$(wc -l <err)" = 1 ] || fail "more than one line on stderr"
    [ -z "$(ls | grep -v '^\(out\|err\)$')" ] || fail "left behind: $(ls)"
    ;;
*) fail "unknown case $case" ;;
esac
echo "ok: $case"

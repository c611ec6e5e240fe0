#!/usr/bin/env bash
# permbench quality --input, end to end:
#   input_good_ci       a good generator (tests/gen_perms.c: Fisher-Yates on
#                       xoshiro256**) passes the CI battery at alpha 1e-4, its
#                       inputs named by a config (a file in u32, one in text,
#                       stdin in u64) at the battery's three n
#   input_biased_fails  Fisher-Yates on a 16-bit LCG, n = 5, 10^6 rows, fails
#                       (exit 1), with the default tests and with ci.ini; the
#                       good generator through the same command passes
#
#   quality_input.sh PERMBENCH GEN_PERMS PB_TESTS SOURCE_DIR CASE
set -u
pb=$1 gen=$2 pbt=$3 src=$4 case=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
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
*) fail "unknown case $case" ;;
esac
echo "ok: $case"

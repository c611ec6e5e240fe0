#!/usr/bin/env bash
# configs/quality/pov-seeds.ini: cpu-pov-shuffle at its defaults and at blocks
# of 8 in pairs, seed 2^64 - 1, passes the duplicate (birthday) test at
# n = 100 and 1000 (10^5 samples each): four rows, all PASS. And the same
# settings can fail: the same [quality] section on cpu-bijective-twin at 8
# rounds (a weak VariablePhilox: it repeats about 300 of 10^5 permutations
# of 100) and on cpu-pov-shuffle with blocks of 1 item, one to a virtual block
# (the identity every time), n = 100 only, each FAIL.
#
#   pov_seeds.sh SOURCE_DIR PERMBENCH
set -u
src=$1 pb=$2
cfg="$src/configs/quality/pov-seeds.ini"
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
fail() { echo "FAIL: $*"; exit 1; }
# verdicts FILE: "label n verdict" a row, from quality.csv.
verdicts() { awk -F, 'NR > 1 { print $1, $7, $8, $10, $14 }' "$1"; }

"$pb" quality "$cfg" --out "$work/pov" --quiet || fail "pov-seeds.ini did not pass (exit $?)"
verdicts "$work/pov/quality.csv"
[ "$(awk -F, 'NR > 1 && $8 == "duplicates" && $14 == "PASS"' "$work/pov/quality.csv" | wc -l)" = 4 ] ||
    fail "want 4 duplicates rows, all PASS"
grep -q '"seed": "18446744073709551615"' "$work/pov/quality.json" || fail "quality.json does not name seed 2^64 - 1"

# The same [quality] section on a shuffler that repeats permutations.
{ sed '/^\[pov\]/,$d' "$cfg"; printf '[cpu-bijective-twin]\nrounds = 8\n'; } >"$work/weak.ini"
"$pb" quality "$work/weak.ini" -D quality.duplicates=100 --out "$work/weak" --quiet && fail "cpu-bijective-twin, 8 rounds passed"
verdicts "$work/weak/quality.csv"
awk -F, 'NR > 1 { bad += $14 == "FAIL" && $10 > 10 } END { exit bad != 1 }' "$work/weak/quality.csv" ||
    fail "cpu-bijective-twin, 8 rounds: want FAIL with more than 10 repeats"
"$pb" quality "$cfg" -D quality.duplicates=100 -D pov.block=1 -D pov.vblock=1 --out "$work/id" --quiet &&
    fail "cpu-pov-shuffle, block = vblock = 1, passed"
verdicts "$work/id/quality.csv"
awk -F, 'NR > 1 && $1 == "pov" { bad += $14 == "FAIL" && $10 == 99999 } END { exit bad != 1 }' "$work/id/quality.csv" ||
    fail "cpu-pov-shuffle, block = vblock = 1: want FAIL with 99999 repeats"
echo "ok"

#!/usr/bin/env bash
# `permbench run` on a module that must fail: exit status 1, and the failed
# row named with its sample, for the test-only broken modules
# (tests/broken_modules.c), through the real command line
# (`pb_tests permbench ...` adds them to the registry).
#   broken_cli.sh PB_TESTS MODULE SAMPLE
set -u
pbt=$1 mod=$2 want=$3
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
printf '[sweep]\nsizes = 1000\nitem = u32\nceilings = none\nmin_samples = 10\nmin_time = 0\nmax_samples = 10\nflush_cache = no\nplot = none\n[%s]\n' \
    "$mod" >"$work/c.ini"
"$pbt" permbench run "$work/c.ini" --out "$work/out" >"$work/stdout" 2>"$work/stderr"
rc=$?
fail() { echo "broken_cli: $mod: $*"; echo "--- stdout"; cat "$work/stdout"; echo "--- stderr"; cat "$work/stderr"; exit 1; }
[ "$rc" = 1 ] || fail "exit status $rc, want 1"
grep -q "sample $want " "$work/stdout" "$work/stderr" || fail "no line names sample $want"
[ -f "$work/out/results.json" ] || fail "no results.json"
grep -q '"FAILED"\|"failed"' "$work/out/results.json" || fail "results.json does not say failed"
grep -h "sample $want " "$work/stdout" "$work/stderr" | head -1

#!/usr/bin/env bash
# scripts/topk-batch-gpu-check.sh: without a build, or with an unknown
# option, it says so in one line (exit 2); on a build whose GPU tests skip
# (no device here) it fails (exit 1), reporting the tests' line with the
# skips counted and each sanitizer step's exit (both tools, both the
# word-key and the 16-bit config), and writes its logs.
#   topk_batch_check.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
script=$src/scripts/topk-batch-gpu-check.sh
for args in "$tmp/none $tmp/o1" "$build $tmp/o1 --bogus"; do
    # shellcheck disable=SC2086  # the arguments are words
    out=$("$script" $args 2>&1)
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q '^topk-batch-gpu-check: ' <<<"$out" ||
        { echo "FAIL: $args: exit $rc: $out"; bad=1; }
done
if "$build/permbench" list 2>/dev/null | grep -qE '^gpu-radik +topk +gpu +yes'; then
    echo "skipped: gpu-radik runs here (the script's GPU path is scripts/topk-batch-gpu-check.sh itself)"
    exit 77
fi
out=$(COMPUTE_SANITIZER=/bin/false "$script" "$build" "$tmp/o2" 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: GPU tests skipped, yet exit $rc: $out"; bad=1; }
grep -qE '^tests     : .*tests passed.*; [1-9][0-9]* skipped$' <<<"$out" || { echo "FAIL: tests line: $out"; bad=1; }
for cfg in topk-cluster-word-sanitizer topk-cluster-sanitizer; do
    for tool in 'memcheck ' racecheck; do
        grep -q "^$tool : $cfg exit 1" <<<"$out" || { echo "FAIL: $tool $cfg line: $out"; bad=1; }
    done
done
[ -s "$tmp/o2/tests.log" ] || { echo "FAIL: no tests.log"; bad=1; }
exit $bad

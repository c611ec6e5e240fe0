#!/usr/bin/env bash
# scripts/l2-shuffle-gpu-check.sh: without a build it says so in one line
# (exit 2); on a build whose GPU tests skip (no device here, or no CUDA)
# it fails (exit 1), reporting the tests' line with the skips counted and
# the memcheck step's exit, and writes its logs.
#   l2_shuffle_check.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
out=$("$src/scripts/l2-shuffle-gpu-check.sh" "$tmp/none" "$tmp/o1" 2>&1)
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q 'no build directory' <<<"$out" ||
    { echo "FAIL: no build: exit $rc: $out"; bad=1; }
if "$build/permbench" list 2>/dev/null | grep -qE '^gpu-l2-shuffle +shuffle +gpu +yes'; then
    echo "skipped: gpu-l2-shuffle runs here (the script's GPU path is scripts/l2-shuffle-gpu-check.sh itself)"
    exit 77
fi
out=$(COMPUTE_SANITIZER=/bin/false "$src/scripts/l2-shuffle-gpu-check.sh" "$build" "$tmp/o2" 2>&1)
rc=$?
[ $rc -eq 1 ] || { echo "FAIL: GPU tests skipped, yet exit $rc: $out"; bad=1; }
grep -qE '^tests    : .*tests passed.*; [1-9][0-9]* skipped$' <<<"$out" || { echo "FAIL: tests line: $out"; bad=1; }
grep -q '^memcheck : exit 1' <<<"$out" || { echo "FAIL: memcheck line: $out"; bad=1; }
[ -s "$tmp/o2/ctest.log" ] || { echo "FAIL: no ctest.log"; bad=1; }
exit $bad

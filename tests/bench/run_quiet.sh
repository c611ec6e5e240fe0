#!/usr/bin/env bash
# run --quiet without --out prints the results directory alone, one line on
# stdout, so a script can find its results: dir=$(permbench run --quiet).
#   run_quiet.sh PERMBENCH
set -u
pb=$1
. "$(dirname "${BASH_SOURCE[0]}")/../support/tmpdir.sh"
cd "$work" || exit 1
printf '[sweep]\nsizes = 100\nmin_samples = 3\nmax_samples = 3\nmin_time = 0\nplot = none\nceilings = none\n[cpu-fisher-yates]\n' >q.ini
out=$("$pb" run q.ini --quiet 2>q.err) || { echo "FAIL: exit $?"; cat q.err; exit 1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "FAIL: not one line: $out"; exit 1; }
case $out in results/q/*) ;; *) echo "FAIL: '$out' is not under results/q/"; exit 1 ;; esac
[ -s "$out/results.json" ] && [ -s "$out/results.csv" ] || { echo "FAIL: no results in '$out'"; exit 1; }
echo "ok: $out"
